// SPDX-License-Identifier: GPL-2.0

//! What each CPU's hrtimer publishes for the other CPUs: when it last ran and its last
//! hardirq-off window. A record on one CPU uses it to name an overlapping hardirq-off
//! window on another (a CPU waiting for an IPI that a CPU with interrupts off cannot
//! answer, say).
//!
//! Only the owning CPU's hrtimer writes its entry; other CPUs read it only when they
//! record an event, so the common path shares no cache line for writing.

use kernel::prelude::*;
use kernel::sync::atomic::{Atomic, Relaxed};

use crate::ffi;
use crate::gap::{self, Window};

/// A window written by one CPU's hrtimer and read by anyone.
///
/// A write stores `start`, then `end`, and `end` changes with every write (it is the time of
/// the write), so a read that sees the same `end` before and after `start` has a
/// consistent pair. On the writer's CPU an interrupt's stores are seen in program order;
/// another CPU may rarely see a mixed pair, which only a heuristic (overlap) reads.
pub(crate) struct WindowCell {
    start: Atomic<u64>,
    end: Atomic<u64>,
}

impl WindowCell {
    pub(crate) const fn new() -> Self {
        Self { start: Atomic::new(0), end: Atomic::new(0) }
    }

    pub(crate) fn set(&self, w: Window) {
        self.start.store(w.start, Relaxed);
        self.end.store(w.end, Relaxed);
    }

    pub(crate) fn get(&self) -> Window {
        // Each retry needs another hrtimer run in between (at most one per period).
        for _ in 0..4 {
            let end = self.end.load(Relaxed);
            let start = self.start.load(Relaxed);
            if self.end.load(Relaxed) == end {
                return Window { start, end };
            }
        }
        Window::EMPTY
    }
}

/// One CPU's entry, alone in its cache line: its owner writes it every period, and the
/// watchers of other CPUs read it every period.
#[repr(align(64))]
pub(crate) struct Peer {
    /// Last hrtimer run (ns, monotonic); 0 while its sampler is stopped.
    pub(crate) last_hard_ns: Atomic<u64>,
    /// Its last hardirq-off window.
    pub(crate) hard_off: WindowCell,
    /// Sampled while sampling is on (the `cpus` selection); changed only while it is off.
    selected: Atomic<bool>,
    /// Its samplers run: set before a start, cleared after a stop, each time before the
    /// watchers' rings are worked out again (`Watch::ring_changed`).
    sampling: Atomic<bool>,
}

/// Every possible CPU's entry, indexed by CPU number.
pub(crate) struct Peers {
    cpus: VVec<Peer>,
}

impl Peers {
    pub(crate) fn new(nr_cpus: u32) -> Result<Self> {
        let mut cpus = VVec::with_capacity(nr_cpus as usize, GFP_KERNEL)?;
        for _ in 0..nr_cpus {
            // By default every CPU but the nohz_full ones, which are isolated from the
            // tick for a reason: our timers and NMIs would be their jitter.
            let selected = Atomic::new(!ffi::cpu_nohz_full(cpus.len() as u32));
            cpus.push(
                Peer { last_hard_ns: Atomic::new(0), hard_off: WindowCell::new(), selected, sampling: Atomic::new(false) },
                GFP_KERNEL,
            )?;
        }
        Ok(Self { cpus })
    }

    pub(crate) fn get(&self, cpu: u32) -> Option<&Peer> {
        self.cpus.get(cpu as usize)
    }

    /// Whether `cpu` is in the `cpus` selection.
    pub(crate) fn selected(&self, cpu: u32) -> bool {
        self.get(cpu).is_some_and(|p| p.selected.load(Relaxed))
    }

    /// Whether `cpu`'s samplers run (between their start and stop).
    pub(crate) fn sampling(&self, cpu: u32) -> bool {
        self.get(cpu).is_some_and(|p| p.sampling.load(Relaxed))
    }

    /// Records that `cpu`'s samplers start or have stopped.
    pub(crate) fn set_sampling(&self, cpu: u32, on: bool) {
        if let Some(p) = self.get(cpu) {
            p.sampling.store(on, Relaxed);
        }
    }

    /// Takes `cpu` out of the selection. Only while sampling is off.
    pub(crate) fn deselect(&self, cpu: u32) {
        if let Some(p) = self.get(cpu) {
            p.selected.store(false, Relaxed);
        }
    }

    /// Adds CPUs `first..=last` to the selection. Only while sampling is off.
    pub(crate) fn select(&self, first: u32, last: u32) {
        for cpu in first..=last {
            if let Some(p) = self.get(cpu) {
                p.selected.store(true, Relaxed);
            }
        }
    }

    /// Another CPU whose hardirq-off window covers most of `ours` (on `cpu`, ending now):
    /// one that ended already, or one still open (its hrtimer overdue by `period_ns` or
    /// more). The one covering most wins.
    pub(crate) fn hardirq_overlap(&self, cpu: u32, ours: Window, period_ns: u64) -> Option<u32> {
        let mut best: Option<(u32, u64)> = None;
        for (other, peer) in (0u32..).zip(self.cpus.iter()) {
            if other == cpu || !ffi::cpu_online(other) {
                continue;
            }
            let last = peer.last_hard_ns.load(Relaxed);
            let open = Window { start: last.saturating_add(period_ns), end: ours.end };
            let candidates = [peer.hard_off.get(), if last != 0 && ours.end > open.start { open } else { Window::EMPTY }];
            for theirs in candidates {
                if gap::overlaps_most(ours, theirs) {
                    let covered = theirs.overlap(ours.start, ours.end);
                    if best.is_none_or(|(_, b)| covered > b) {
                        best = Some((other, covered));
                    }
                }
            }
        }
        best.map(|(c, _)| c)
    }

    pub(crate) fn allocated_bytes(&self) -> usize {
        crate::sizes::vmalloc_bytes(self.cpus.capacity() * core::mem::size_of::<Peer>())
    }
}
