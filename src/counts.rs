// SPDX-License-Identifier: GPL-2.0

//! Per-CPU event counters: one log2 histogram per kind (see `histogram` for the buckets),
//! with the exact sum of what was counted, so that a Prometheus histogram's `_sum` is
//! exact rather than estimated from the buckets.

use kernel::sync::atomic::{Atomic, Relaxed};

use crate::logic::histogram::{bucket, NR_BUCKETS};

/// Counts of one CPU and kind. Written by that CPU's sampler, read and cleared by anyone;
/// a count racing with a clear may survive it, which only the instant of the clear sees.
pub(crate) struct Counts {
    buckets: [Atomic<u64>; NR_BUCKETS],
    /// The sum of the values counted with [`Counts::add`] or [`Counts::add_value`].
    sum: Atomic<u64>,
}

impl Counts {
    pub(crate) const fn new() -> Self {
        Self {
            buckets: [const { Atomic::new(0) }; NR_BUCKETS],
            sum: Atomic::new(0),
        }
    }

    /// Counts a latency in its ms bucket; the sum is in ns.
    pub(crate) fn add(&self, latency_ns: u64) {
        self.add_value(bucket(latency_ns), latency_ns);
    }

    /// Counts one in bucket `k` and adds `value` to the sum.
    pub(crate) fn add_value(&self, k: usize, value: u64) {
        self.add_bucket(k);
        self.sum.add(value, Relaxed);
    }

    pub(crate) fn sum(&self) -> u64 {
        self.sum.load(Relaxed)
    }

    /// Counts one in bucket `k` (clamped to the last bucket).
    pub(crate) fn add_bucket(&self, k: usize) {
        self.buckets[k.min(NR_BUCKETS - 1)].add(1, Relaxed);
    }

    /// Adds this CPU's counts into `sum`.
    pub(crate) fn add_to(&self, sum: &mut [u64; NR_BUCKETS]) {
        for (s, b) in sum.iter_mut().zip(self.buckets.iter()) {
            *s += b.load(Relaxed);
        }
    }

    pub(crate) fn snapshot(&self) -> [u64; NR_BUCKETS] {
        let mut out = [0; NR_BUCKETS];
        self.add_to(&mut out);
        out
    }

    pub(crate) fn total(&self) -> u64 {
        self.buckets.iter().map(|b| b.load(Relaxed)).sum()
    }

    pub(crate) fn clear(&self) {
        for b in &self.buckets {
            b.store(0, Relaxed);
        }
        self.sum.store(0, Relaxed);
    }
}
