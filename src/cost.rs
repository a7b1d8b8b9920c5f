// SPDX-License-Identifier: GPL-2.0
//! What the tracer's own handlers cost: runs counted, some timed (`cost CPU ...` lines).

use kernel::sync::atomic::{Atomic, Relaxed};

use crate::counts::Counts;

/// Every run of a handler counts; the samplers' own runs, which come every period, are
/// timed one in [`Cost::TIME_EVERY`] (two clock reads are a good part of a run), a prime:
/// the hrtimer's watcher runs every `watch_interval`, a whole number of periods, and a
/// stride that shares a factor with it would time only its runs, or none. Rarer work
/// (captures, NMIs) every time. `total_ns` scales the timed runs to all of them; the log2
/// histogram of lengths in ns holds the timed ones.
pub(crate) struct Cost {
    runs: Atomic<u64>,
    /// Runs counted by their own context (`Cost::run_counted`), as last published.
    counted: Atomic<u64>,
    timed: Atomic<u64>,
    timed_ns: Atomic<u64>,
    pub(crate) hist_ns: Counts,
}

/// A sampler's count of its own runs, kept by its context ([`Cost::run_counted`]).
pub(crate) struct RunCount {
    /// Runs so far.
    pub(crate) runs: u64,
    /// Runs to come before the next one timed (0: the next one is).
    until_timed: u32,
}

impl RunCount {
    pub(crate) const fn new() -> Self {
        Self {
            runs: 0,
            until_timed: 0,
        }
    }
}

impl Cost {
    /// One run in this many of a sampler is timed, the first one included.
    pub(crate) const TIME_EVERY: u32 = 17;

    pub(crate) const fn new() -> Self {
        Self {
            runs: Atomic::new(0),
            counted: Atomic::new(0),
            timed: Atomic::new(0),
            timed_ns: Atomic::new(0),
            hist_ns: Counts::new(),
        }
    }

    /// Counts a run of a sampler whose own context keeps the count in `runs` (no atomic
    /// per run); the shared count is brought up to it at each timed run, so it lags by
    /// fewer than [`Cost::TIME_EVERY`] runs. Whether this run is one to time. One context
    /// per `Cost` counts this way; others may count with [`Cost::add`].
    pub(crate) fn run_counted(&self, count: &mut RunCount) -> bool {
        count.runs = count.runs.wrapping_add(1);
        if count.until_timed != 0 {
            count.until_timed -= 1;
            return false;
        }
        count.until_timed = Self::TIME_EVERY - 1;
        self.counted.store(count.runs, Relaxed);
        true
    }

    /// The length of a run [`Cost::run_counted`] chose to time.
    pub(crate) fn timed(&self, ns: u64) {
        self.timed.add(1, Relaxed);
        self.timed_ns.add(ns, Relaxed);
        self.hist_ns
            .add_bucket(crate::logic::histogram::log2_bucket(ns));
    }

    /// A run timed in full.
    pub(crate) fn add(&self, ns: u64) {
        self.runs.add(1, Relaxed);
        self.timed(ns);
    }

    pub(crate) fn runs(&self) -> u64 {
        self.runs
            .load(Relaxed)
            .wrapping_add(self.counted.load(Relaxed))
    }

    /// The time of all runs: that of the timed ones, scaled.
    pub(crate) fn total_ns(&self) -> u64 {
        let (runs, timed, ns) = (
            self.runs(),
            self.timed.load(Relaxed),
            self.timed_ns.load(Relaxed),
        );
        if timed == 0 {
            return 0;
        }
        // (No 128-bit division in the kernel.) The mean times the runs, with its remainder.
        (ns / timed)
            .saturating_mul(runs)
            .saturating_add((ns % timed).saturating_mul(runs) / timed)
    }
}
