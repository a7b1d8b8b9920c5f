// SPDX-License-Identifier: GPL-2.0

//! The tunables every sampler reads: period, threshold, and the generation that a clear
//! bumps. Written only under the control lock (see `state`), read locklessly.

use kernel::sync::atomic::{Acquire, Atomic, Relaxed, Release};

use crate::logic::gap::{Rules, NSEC_PER_MSEC};

/// Defaults of the original tool.
pub(crate) const DEFAULT_PERIOD_NS: u64 = 10 * NSEC_PER_MSEC;
pub(crate) const DEFAULT_THRESHOLD_NS: u64 = 50 * NSEC_PER_MSEC;

pub(crate) struct Settings {
    period_ns: Atomic<u64>,
    threshold_ns: Atomic<u64>,
    generation: Atomic<u64>,
    /// Bumped after every change of the period or the threshold (see [`RulesCache`]).
    version: Atomic<u64>,
    hz: u64,
}

impl Settings {
    pub(crate) fn new(hz: u64) -> Self {
        Self {
            period_ns: Atomic::new(DEFAULT_PERIOD_NS),
            threshold_ns: Atomic::new(DEFAULT_THRESHOLD_NS),
            generation: Atomic::new(1),
            version: Atomic::new(1),
            hz,
        }
    }

    pub(crate) fn rules(&self) -> Rules {
        Rules::new(
            self.period_ns.load(Relaxed),
            self.threshold_ns.load(Relaxed),
            self.hz,
        )
    }

    /// [`Settings::rules`] (with the same loads, in the same order), derived only where
    /// `wanted` holds for the period read first: a caller that needs the rules only for
    /// some runs skips their derivation (two divisions and the wheel's granularity) in
    /// the others.
    pub(crate) fn rules_if(&self, wanted: impl FnOnce(u64) -> bool) -> Option<Rules> {
        let period_ns = self.period_ns.load(Relaxed);
        if !wanted(period_ns) {
            return None;
        }
        Some(Rules::new(
            period_ns,
            self.threshold_ns.load(Relaxed),
            self.hz,
        ))
    }

    /// The current rules, derived again only if a setting changed since `cache` was
    /// filled: one load in the common case, where deriving them takes two divisions and
    /// the wheel's granularity (about 65 instructions) and two loads.
    #[inline]
    pub(crate) fn cached_rules<'a>(&self, cache: &'a mut RulesCache) -> &'a Rules {
        // Acquire: pairs with the release in `changed`, so the values read after it are
        // at least as new as the version.
        let version = self.version.load(Acquire);
        if version != cache.version {
            cache.rules = self.rules();
            cache.version = version;
        }
        &cache.rules
    }

    /// Caller holds the control lock, and has just stored a new period or threshold.
    fn changed(&self) {
        let v = self.version.load(Relaxed);
        self.version.store(v.wrapping_add(1), Release);
    }

    pub(crate) fn period_ns(&self) -> u64 {
        self.period_ns.load(Relaxed)
    }

    pub(crate) fn threshold_ns(&self) -> u64 {
        self.threshold_ns.load(Relaxed)
    }

    pub(crate) fn generation(&self) -> u64 {
        self.generation.load(Relaxed)
    }

    pub(crate) fn hz(&self) -> u64 {
        self.hz
    }

    /// Caller holds the control lock.
    pub(crate) fn set_period(&self, ns: u64) {
        self.period_ns.store(ns, Relaxed);
        self.changed();
    }

    /// Caller holds the control lock.
    pub(crate) fn set_threshold(&self, ns: u64) {
        self.threshold_ns.store(ns, Relaxed);
        self.changed();
    }

    /// Caller holds the control lock.
    pub(crate) fn next_generation(&self) {
        self.generation.add(1, Relaxed);
    }
}

/// The rules as one context last derived them ([`Settings::cached_rules`]), and the
/// settings' version they were derived from (0: never).
pub(crate) struct RulesCache {
    version: u64,
    rules: Rules,
}

impl RulesCache {
    pub(crate) const fn new() -> Self {
        Self {
            version: 0,
            rules: Rules::new(DEFAULT_PERIOD_NS, DEFAULT_THRESHOLD_NS, 1000),
        }
    }
}
