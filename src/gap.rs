// SPDX-License-Identifier: GPL-2.0

//! Gap classification: when does the time between two sampler runs mean that hard
//! interrupts or softirqs were off, and for how long. Pure logic (`core` only), shared with
//! the host tests in `tests/logic`.
//!
//! With period P, a sampler that runs again after a gap G >= 2P was kept from running for
//! about G - P: that is the reported latency. The hrtimer is exact to the nanosecond, so its
//! rule is just that. The timer_list is quantised to jiffies and to the timer wheel's
//! granularity, so its period is P rounded up to whole jiffies (Ps), it may fire up to one
//! wheel granule plus one jiffy late, and its rule adds that slack so that no ordinary gap
//! is ever counted, at any allowed P and any HZ.

/// Nanoseconds per millisecond.
pub(crate) const NSEC_PER_MSEC: u64 = 1_000_000;
/// Nanoseconds per second.
pub(crate) const NSEC_PER_SEC: u64 = 1_000_000_000;

/// The timer wheel's levels: 64 buckets each, every level 8 times coarser
/// (`kernel/time/timer.c`: LVL_BITS = 6, LVL_CLK_SHIFT = 3).
const WHEEL_LVL_BITS: u32 = 6;
const WHEEL_LVL_CLK_SHIFT: u32 = 3;
const WHEEL_DEPTH: u32 = 9;

/// Jiffies by which the timer wheel may postpone a timer armed `delta` jiffies ahead:
/// the granularity of the level that holds it.
pub(crate) const fn wheel_granularity(delta: u64) -> u64 {
    let mut lvl = 0;
    while lvl + 1 < WHEEL_DEPTH {
        // LVL_START(n + 1) = (LVL_SIZE - 1) << (n * LVL_CLK_SHIFT)
        let next_start = ((1u64 << WHEEL_LVL_BITS) - 1) << (lvl * WHEEL_LVL_CLK_SHIFT);
        if delta < next_start {
            break;
        }
        lvl += 1;
    }
    1u64 << (lvl * WHEEL_LVL_CLK_SHIFT)
}

/// Everything the samplers need to classify a gap, derived once from the settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Rules {
    /// Hrtimer period P.
    pub(crate) period_ns: u64,
    /// Records are kept for latencies at or above this.
    pub(crate) threshold_ns: u64,
    /// Length of one jiffy.
    pub(crate) jiffy_ns: u64,
    /// The timer_list period in jiffies: P rounded up.
    pub(crate) soft_period_jiffies: u64,
    /// The timer_list period Ps in ns.
    pub(crate) soft_period_ns: u64,
    /// The smallest timer_list gap that is an event: 2Ps + wheel granule + one jiffy.
    pub(crate) soft_event_ns: u64,
}

impl Rules {
    /// Derives the rules; `hz` is the kernel's tick rate (jiffies per second).
    pub(crate) const fn new(period_ns: u64, threshold_ns: u64, hz: u64) -> Self {
        let jiffy_ns = NSEC_PER_SEC / hz;
        let soft_period_jiffies = period_ns.div_ceil(jiffy_ns);
        let soft_period_ns = soft_period_jiffies * jiffy_ns;
        let slack = (wheel_granularity(soft_period_jiffies) + 1) * jiffy_ns;
        Self {
            period_ns,
            threshold_ns,
            jiffy_ns,
            soft_period_jiffies,
            soft_period_ns,
            soft_event_ns: 2 * soft_period_ns + slack,
        }
    }

    /// Latency of a hardirq-off event for an hrtimer gap, or `None` for an ordinary gap.
    pub(crate) const fn hard_latency(&self, gap_ns: u64) -> Option<u64> {
        if gap_ns >= 2 * self.period_ns {
            Some(gap_ns - self.period_ns)
        } else {
            None
        }
    }

    /// Latency of a softirq-off event for a timer_list gap, or `None`.
    ///
    /// `hard_overlap_ns` is the part of the gap during which hard interrupts were off (a
    /// hardirq-off event already covers it); it is not counted again as softirq-off.
    pub(crate) const fn soft_latency(&self, gap_ns: u64, hard_overlap_ns: u64) -> Option<u64> {
        let gap = gap_ns.saturating_sub(hard_overlap_ns);
        if gap >= self.soft_event_ns {
            Some(gap - self.soft_period_ns)
        } else {
            None
        }
    }

    /// Whether the hrtimer should record the softirq side as starved, with a lower-bound
    /// latency: softirqs have not run for `since_soft_ns`, of which `hard_overlap_ns` are
    /// already explained by a hardirq-off window; the rest must reach threshold + P.
    pub(crate) const fn soft_starved(&self, since_soft_ns: u64, hard_overlap_ns: u64) -> Option<u64> {
        let starved = since_soft_ns.saturating_sub(hard_overlap_ns);
        if starved >= self.threshold_ns + self.period_ns {
            Some(starved - self.period_ns)
        } else {
            None
        }
    }

    /// Whether a latency gets a stack record (below the threshold it is only counted).
    pub(crate) const fn is_recorded(&self, latency_ns: u64) -> bool {
        latency_ns >= self.threshold_ns
    }
}

/// Overlap of the interval [a_start, a_end) with [b_start, b_end), in ns.
pub(crate) const fn overlap(a_start: u64, a_end: u64, b_start: u64, b_end: u64) -> u64 {
    let start = if a_start > b_start { a_start } else { b_start };
    let end = if a_end < b_end { a_end } else { b_end };
    end.saturating_sub(start)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = NSEC_PER_MSEC;

    #[test]
    fn wheel_granularity_follows_levels() {
        assert_eq!(wheel_granularity(1), 1);
        assert_eq!(wheel_granularity(62), 1);
        assert_eq!(wheel_granularity(63), 8);
        assert_eq!(wheel_granularity(503), 8);
        assert_eq!(wheel_granularity(504), 64);
        assert_eq!(wheel_granularity(1000), 64);
    }

    #[test]
    fn hard_events_start_at_two_periods() {
        let r = Rules::new(10 * MS, 50 * MS, 1000);
        assert_eq!(r.hard_latency(10 * MS), None);
        assert_eq!(r.hard_latency(20 * MS - 1), None);
        assert_eq!(r.hard_latency(20 * MS), Some(10 * MS));
        assert_eq!(r.hard_latency(107 * MS), Some(97 * MS));
    }

    #[test]
    fn soft_rule_at_hz_1000_p_10() {
        let r = Rules::new(10 * MS, 50 * MS, 1000);
        assert_eq!(r.soft_period_jiffies, 10);
        assert_eq!(r.soft_event_ns, 22 * MS);
        assert_eq!(r.soft_latency(21 * MS, 0), None);
        assert_eq!(r.soft_latency(110 * MS, 0), Some(100 * MS));
        // A gap fully explained by a hardirq-off window is not a softirq event.
        assert_eq!(r.soft_latency(110 * MS, 100 * MS), None);
    }

    /// Fault 2 of the original: P below two jiffies made every tick gap an event. For every
    /// allowed P and common HZ, the largest ordinary timer_list gap (one period plus a wheel
    /// granule plus a jiffy) must not be an event.
    #[test]
    fn no_false_soft_events_from_jiffies() {
        for hz in [100, 250, 300, 1000] {
            for p_ms in 1..=1000 {
                let r = Rules::new(p_ms * MS, 2 * p_ms * MS, hz);
                let worst_ordinary = r.soft_period_ns
                    + (wheel_granularity(r.soft_period_jiffies) + 1) * r.jiffy_ns;
                assert_eq!(r.soft_latency(worst_ordinary, 0), None, "hz={hz} p={p_ms}ms");
                assert!(r.soft_latency(r.soft_event_ns, 0).is_some());
            }
        }
    }

    #[test]
    fn lower_bound_needs_threshold_plus_period_of_own_starvation() {
        let r = Rules::new(10 * MS, 50 * MS, 1000);
        // bh off: the hrtimer keeps running every 10 ms, softirqs stale for 60 ms.
        assert_eq!(r.soft_starved(59 * MS, 0), None);
        assert_eq!(r.soft_starved(60 * MS, 0), Some(50 * MS));
        // hard irqs off for 99 ms: softirqs were stale only because of that, also at the
        // next hrtimer run before the timer_list had its turn.
        assert_eq!(r.soft_starved(104 * MS, 99 * MS), None);
        // ... but softirqs starved 60 ms beyond a hardirq-off window are reported.
        assert_eq!(r.soft_starved(160 * MS, 99 * MS), Some(51 * MS));
    }

    #[test]
    fn overlap_of_intervals() {
        assert_eq!(overlap(0, 10, 5, 20), 5);
        assert_eq!(overlap(0, 10, 10, 20), 0);
        assert_eq!(overlap(5, 6, 0, 20), 1);
    }
}
