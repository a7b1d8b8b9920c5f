// SPDX-License-Identifier: GPL-2.0
//! What the tracer's own handlers cost: runs counted, some timed (`cost CPU ...` lines).

use kernel::sync::atomic::{Atomic, Relaxed};

use crate::counts::Counts;

/// Every run of a handler counts; the samplers' own runs, which come every period, are
/// timed one in [`Cost::TIME_EVERY`] (two clock reads are a good part of a run), rarer work
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

impl Cost {
    /// One run in this many of a sampler is timed, the first one included.
    pub(crate) const TIME_EVERY: u64 = 16;

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
    pub(crate) fn run_counted(&self, runs: &mut u64) -> bool {
        let n = *runs;
        *runs = n.wrapping_add(1);
        if n % Self::TIME_EVERY != 0 {
            return false;
        }
        self.counted.store(*runs, Relaxed);
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
