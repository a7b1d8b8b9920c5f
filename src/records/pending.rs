// SPDX-License-Identifier: GPL-2.0

//! The one softirq window a CPU may have open past the threshold ([`Pending`]).

use crate::ffi::compat::smp_rmb;
use crate::logic::gap;
use crate::records::slot::*;
use crate::records::types::*;
use kernel::sync::atomic::{Acquire, Atomic, Relaxed, Release};

/// A CPU's softirq window that the hrtimer found open past the threshold, with the stack
/// it took inside it. The window's record takes that stack when the window ends (the
/// timer_list's or the probe's); until then readers show it as ongoing.
///
/// The hrtimer writes it, at most once per window; the same CPU's timer_list, or where
/// none runs its probe and its looks that find softirqs free, read and close it.
pub(crate) struct Pending {
    slot: Slot,
    /// Start of the open window it belongs to (the timer_list's last run), 0 when none.
    window: Atomic<u64>,
    /// Generation it was written in; stale after a clear.
    generation: Atomic<u64>,
}

impl Pending {
    pub(crate) fn new() -> Self {
        Self {
            slot: Slot::new(),
            window: Atomic::new(0),
            generation: Atomic::new(0),
        }
    }

    /// Opens the window starting at `window_start` (the hrtimer only): `fill` writes its
    /// window stack.
    pub(crate) fn open(
        &self,
        window_start: u64,
        header: &Header,
        generation: u64,
        fill: impl FnOnce(&mut Writer<'_>),
    ) {
        self.window.store(0, Release);
        fill(&mut Writer::begin(&self.slot, header));
        self.generation.store(generation, Relaxed);
        self.window.store(window_start, Release);
    }

    /// Start of the open window, 0 when none.
    pub(crate) fn window_start(&self) -> u64 {
        self.window.load(Acquire)
    }

    /// Closes the window (after it ended; closing a closed one changes nothing).
    pub(crate) fn close(&self) {
        self.window.store(0, Release);
    }

    /// Copies the header of the open window of `generation` into `out`, its length as of
    /// `now` (the hrtimer wrote it when the window passed the threshold; it has been open
    /// since); false if none. May sleep.
    pub(crate) fn read_header(&self, generation: u64, now: u64, out: &mut Header) -> bool {
        let w = self.window.load(Acquire);
        let open = w != 0
            && self.generation.load(Relaxed) == generation
            && self.slot.read_header(out).is_some()
            && self.window.load(Acquire) == w;
        if open {
            (out.latency_ns, out.timestamp_ns) =
                gap::open_as_of(out.latency_ns, out.timestamp_ns, now);
        }
        open
    }

    /// Copies the open window of `generation` into `out`, its length as of `now` (as
    /// [`Self::read_header`]); false if none. May sleep.
    pub(crate) fn read(&self, generation: u64, now: u64, out: &mut Record) -> bool {
        let w = self.window.load(Acquire);
        let open = w != 0
            && self.generation.load(Relaxed) == generation
            && self.slot.read(out)
            && self.window.load(Acquire) == w;
        if open {
            let h = &mut out.header;
            (h.latency_ns, h.timestamp_ns) = gap::open_as_of(h.latency_ns, h.timestamp_ns, now);
        }
        open
    }
}

/// A record's copy of the open softirq window's stack.
impl Writer<'_> {
    /// Copies the window stack and task of `pending`'s record, if it is still for
    /// `window_start` and could be read consistently; true if copied.
    pub(crate) fn window_from(&mut self, pending: &Pending, window_start: u64) -> bool {
        let from = &pending.slot;
        let s1 = from.seq.load(Acquire);
        if s1 & 1 != 0 || pending.window.load(Acquire) != window_start {
            return false;
        }
        let (src, dst) = (
            &from.stacks[Which::Window as usize],
            &self.slot.stacks[Which::Window as usize],
        );
        dst.copy_frames_from(src);
        self.slot
            .window_pid
            .store(from.window_pid.load(Relaxed), Relaxed);
        for (d, s) in self.slot.window_comm.iter().zip(from.window_comm.iter()) {
            d.store(s.load(Relaxed), Relaxed);
        }
        smp_rmb();
        if from.seq.load(Relaxed) != s1 {
            dst.nr.store(0, Relaxed);
            return false;
        }
        true
    }
}
