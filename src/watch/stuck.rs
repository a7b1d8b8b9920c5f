// SPDX-License-Identifier: GPL-2.0
//! A stuck window's log line, passed from the watcher, which finds the window in hard
//! interrupt context, to the namer, which logs it in process context.

use kernel::sync::atomic::{Acquire, Atomic, Relaxed, Release};

use crate::ffi::COMM_LEN;

/// A stuck window's log line, before its frames are named.
pub(super) struct StuckLine {
    pub(super) ms: u64,
    pub(super) pid: i32,
    pub(super) comm: [u8; COMM_LEN],
    /// The in-window stack's top frame, and its first frame in module text (0: none).
    pub(super) top: u64,
    pub(super) module: u64,
}

/// One [`StuckLine`] passed from the watcher (hard interrupt context, the window's one
/// claimer) to the namer (process context): a line posted while the last one is not yet
/// logged is dropped, like one over the log's rate limit.
pub(super) struct StuckSlot {
    /// 0: empty; 1: being written or read; 2: a line is in.
    state: Atomic<u32>,
    ms: Atomic<u64>,
    pid: Atomic<i32>,
    comm: [Atomic<u64>; 2],
    top: Atomic<u64>,
    module: Atomic<u64>,
}

impl StuckSlot {
    pub(super) const fn new() -> Self {
        Self {
            state: Atomic::new(0),
            ms: Atomic::new(0),
            pid: Atomic::new(0),
            comm: [const { Atomic::new(0) }; 2],
            top: Atomic::new(0),
            module: Atomic::new(0),
        }
    }

    /// Posts `l` if the slot is empty; true if posted.
    pub(super) fn post(&self, l: &StuckLine) -> bool {
        if self.state.cmpxchg(0, 1, Acquire).is_err() {
            return false;
        }
        self.ms.store(l.ms, Relaxed);
        self.pid.store(l.pid, Relaxed);
        for (d, c) in self.comm.iter().zip(l.comm.chunks(8)) {
            let mut b = [0u8; 8];
            b[..c.len()].copy_from_slice(c);
            d.store(u64::from_ne_bytes(b), Relaxed);
        }
        self.top.store(l.top, Relaxed);
        self.module.store(l.module, Relaxed);
        self.state.store(2, Release);
        true
    }

    /// Takes the posted line, if any, and empties the slot.
    pub(super) fn take(&self) -> Option<StuckLine> {
        if self.state.cmpxchg(2, 1, Acquire).is_err() {
            return None;
        }
        let mut comm = [0u8; COMM_LEN];
        for (c, s) in comm.chunks_mut(8).zip(self.comm.iter()) {
            c.copy_from_slice(&s.load(Relaxed).to_ne_bytes()[..c.len()]);
        }
        let l = StuckLine {
            ms: self.ms.load(Relaxed),
            pid: self.pid.load(Relaxed),
            comm,
            top: self.top.load(Relaxed),
            module: self.module.load(Relaxed),
        };
        self.state.store(0, Release);
        Some(l)
    }
}
