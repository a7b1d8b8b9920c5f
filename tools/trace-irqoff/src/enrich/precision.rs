// SPDX-License-Identifier: GPL-2.0
//! How exactly a window's length is known.
//!
//! The samplers see a window only when they run, so a length is a measurement whose
//! error is set by the sampling period P, the timer_list's period Ps (P in whole jiffies)
//! and the timer wheel's slack (one granule plus one jiffy: the module's event rule
//! `soft_event_ns` minus 2 Ps). For a window of true length D and a reported length L:
//!
//! - hardirq-off: a window starting a phase U in [0, P) after the hrtimer's last run is
//!   reported as D + U - P, so D is in [L, L + P]: up to one period longer than shown;
//! - softirq-off ended by the softirq probe: the window is dated from halfway back to the
//!   look before the one that saw it, so D is within P/2 of L (plus the probe's start-up,
//!   microseconds); where softirqs run in threads (ksoftirqd-wait) a look sees the window
//!   only once softirq work waits, and on a quiet CPU none may be raised until the
//!   sampler's own timer_list expires, up to Ps plus the slack after the code that
//!   starved the thread began (PREEMPT_RT with RCU in its rcuc threads raises no RCU
//!   softirq at the tick); the look comes up to P later and dates it P/2 back, so D may
//!   be up to Ps + slack + P/2 longer than L;
//! - softirq-off ended by the timer_list (what no look saw): L is the gap minus Ps, and the
//!   timer may run up to the slack late, so D is in [L - slack, L + Ps].
//!
//! A record says which sampler ended it (`ended_by`: `hrtimer`, `probe` or `timer`), and
//! a softirq-off length is given with the bounds of that path: the probe's (within P/2,
//! Ps + slack + P/2 longer for ksoftirqd-wait) or the timer_list's ([L - slack, L + Ps]).
//! A record of a module before `ended_by` does not say, and its softirq-off length is
//! given with both: from max(P/2, slack) shorter to Ps longer (Ps + slack + P/2 for
//! ksoftirqd-wait); so are the views' per-kind bounds, which stand for every record of a
//! kind. A window still open has only a lower bound (its length so far).

use crate::model::snapshot::{Cause, Config, EndedBy, Kind, Record};

/// The error bounds of the lengths of one module configuration, in ns: the true length
/// of a window reported as L lies in `[L - below, L + above]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resolution {
    period_ns: u64,
    soft_period_ns: u64,
    slack_ns: u64,
}

/// One kind's bounds: how much shorter and how much longer the true length may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    pub below_ns: u64,
    pub above_ns: u64,
}

impl Resolution {
    /// The bounds of a module's lengths; none for the original module (no HZ: its lengths
    /// are whole ms by its own rules) or a configuration without a period.
    pub fn of(c: &Config) -> Option<Self> {
        if c.hz == 0 || c.period_ns == 0 {
            return None;
        }
        Some(Self {
            period_ns: c.period_ns,
            soft_period_ns: c.soft_period_ns.max(c.period_ns),
            slack_ns: c.soft_event_ns.saturating_sub(2 * c.soft_period_ns),
        })
    }

    /// The bounds for windows of `kind` (and softirq `cause`) whichever path ended them.
    pub fn bounds(&self, kind: Kind, cause: Option<Cause>) -> Bounds {
        self.bounds_of(kind, cause, None)
    }

    /// The bounds for windows of `kind` (and softirq `cause`) ended by `ended_by`: a
    /// softirq-off window's, by the path that ended it; where that is not known (`None`,
    /// or a sampler that ends no softirq-off window), those of both paths together.
    pub fn bounds_of(&self, kind: Kind, cause: Option<Cause>, ended_by: Option<EndedBy>) -> Bounds {
        let probe_above = |c: Option<Cause>| {
            if c == Some(Cause::BhOff) {
                self.period_ns / 2
            } else {
                self.soft_period_ns + self.slack_ns + self.period_ns / 2
            }
        };
        match (kind, cause, ended_by) {
            (Kind::Hard, _, _) => Bounds {
                below_ns: 0,
                above_ns: self.period_ns,
            },
            // Dated from halfway back to the look before the one that saw it: within P/2;
            // ksoftirqd-wait seen late on a quiet CPU, up to Ps + slack + P/2 longer.
            (Kind::Soft, c, Some(EndedBy::Probe)) => Bounds {
                below_ns: self.period_ns / 2,
                above_ns: probe_above(c),
            },
            // The gap minus Ps, the timer up to the slack late: [L - slack, L + Ps].
            (Kind::Soft, _, Some(EndedBy::Timer)) => Bounds {
                below_ns: self.slack_ns,
                above_ns: self.soft_period_ns,
            },
            (Kind::Soft, c, _) => Bounds {
                below_ns: (self.period_ns / 2).max(self.slack_ns),
                // Without a cause (both together): the wider, ksoftirqd-wait's.
                above_ns: self.soft_period_ns
                    + if c == Some(Cause::BhOff) {
                        0
                    } else {
                        self.slack_ns + self.period_ns / 2
                    },
            },
        }
    }

    /// The range the true length of `r` lies in, `(low, high)` in ns; none for a window
    /// still open (its length is a lower bound only).
    pub fn range(&self, r: &Record) -> Option<(u64, u64)> {
        if r.ongoing || r.lower_bound {
            return None;
        }
        let b = self.bounds_of(r.kind, r.cause, r.ended_by);
        Some((
            r.latency_ns.saturating_sub(b.below_ns),
            r.latency_ns + b.above_ns,
        ))
    }
}

/// Sets each record's `true_latency_min_ns`/`true_latency_max_ns` from `c` (for JSON).
pub fn annotate(c: &Config, records: &mut [Record]) {
    let Some(res) = Resolution::of(c) else { return };
    for r in records {
        if let Some((lo, hi)) = res.range(r) {
            r.true_latency_min_ns = Some(lo);
            r.true_latency_max_ns = Some(hi);
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn config(period_ms: u64, hz: u64) -> Config {
        let ms = 1_000_000;
        let jiffy = 1_000_000_000 / hz;
        let ps = (period_ms * ms).div_ceil(jiffy) * jiffy;
        // The module's event rule: 2 Ps + one granule + one jiffy (level 0: a jiffy).
        Config {
            enabled: true,
            cpus: None,
            nohz_full: None,
            unsampled: None,
            period_ns: period_ms * ms,
            threshold_ns: 50 * ms,
            hz,
            records_per_cpu: 16,
            soft_period_ns: ps,
            soft_event_ns: 2 * ps + 2 * jiffy,
            counts_since_ns: None,
            enabled_since_ns: None,
            realtime_offset_ns: None,
            counts_since: None,
            enabled_since: None,
        }
    }

    /// Claim: a hardirq-off length is up to one period short; a softirq-off one from
    /// max(P/2, slack) long to Ps short, slack + P/2 more for ksoftirqd-wait: P = 10 ms
    /// at HZ 250 (Ps 12 ms, slack 8 ms) and at HZ 1000 (Ps 10 ms, slack 2 ms).
    #[test]
    fn bounds_follow_period_and_hz() {
        let ms = 1_000_000;
        let r = Resolution::of(&config(10, 250)).expect("ours");
        assert_eq!(
            r.bounds(Kind::Hard, None),
            Bounds {
                below_ns: 0,
                above_ns: 10 * ms
            }
        );
        assert_eq!(
            r.bounds(Kind::Soft, Some(Cause::BhOff)),
            Bounds {
                below_ns: 8 * ms,
                above_ns: 12 * ms
            }
        );
        assert_eq!(
            r.bounds(Kind::Soft, Some(Cause::KsoftirqdWait)),
            Bounds {
                below_ns: 8 * ms,
                above_ns: 25 * ms
            }
        );
        let r = Resolution::of(&config(10, 1000)).expect("ours");
        assert_eq!(
            r.bounds(Kind::Soft, Some(Cause::BhOff)),
            Bounds {
                below_ns: 5 * ms,
                above_ns: 10 * ms
            }
        );
        let r = Resolution::of(&config(1, 1000)).expect("ours");
        assert_eq!(
            r.bounds(Kind::Hard, None),
            Bounds {
                below_ns: 0,
                above_ns: ms
            }
        );
        assert_eq!(
            r.bounds(Kind::Soft, Some(Cause::KsoftirqdWait)),
            Bounds {
                below_ns: 2 * ms,
                above_ns: 3 * ms + ms / 2
            }
        );
    }

    /// Claim: the measured errors the documentation reports fall inside the bounds:
    /// probe windows at P = 1 ms (HZ 1000) -0.48..+0.50 ms and at P = 10 ms (HZ 250)
    /// -4.9..+4.9 ms, ksoftirqd-wait at P = 1 ms -1.8..+0.9 ms (threadirqs, HZ 1000) and
    /// at P = 10 ms -18.1..+4.8 ms (Debian's 7.3-rt, HZ 250: preempt-off windows on a
    /// quiet CPU, seen only once the timer_list expired) (error = reported - true).
    #[test]
    fn measured_errors_are_inside() {
        for (p, hz, cause, errs) in [
            (1, 1000, Cause::BhOff, [-480, 500]),
            (10, 250, Cause::BhOff, [-4900, 4900]),
            (1, 1000, Cause::KsoftirqdWait, [-1800, 900]),
            (10, 250, Cause::KsoftirqdWait, [-18100, 4800]),
        ] {
            let b = Resolution::of(&config(p, hz))
                .expect("ours")
                .bounds(Kind::Soft, Some(cause));
            assert!(
                b.above_ns
                    <= Resolution::of(&config(p, hz))
                        .expect("ours")
                        .bounds(Kind::Soft, None)
                        .above_ns
            );
            for e in errs {
                assert!(
                    inside(b, e),
                    "P {p} HZ {hz} {cause:?} err {e} us outside {b:?}"
                );
            }
        }
    }

    /// Whether a measured error of `err_us` (reported minus true length, us) is inside
    /// `b`: true = reported - err, so err > 0 needs below >= err, err < 0 above >= -err.
    fn inside(b: Bounds, err_us: i64) -> bool {
        let e_ns = err_us.unsigned_abs() * 1_000;
        if err_us > 0 {
            b.below_ns >= e_ns
        } else {
            b.above_ns >= e_ns
        }
    }

    /// Claim: a softirq-off record that says which path ended it gets that path's bounds:
    /// the probe's within P/2 (bh-off), up to Ps + slack + P/2 longer (ksoftirqd-wait);
    /// the timer_list's [L - slack, L + Ps] for either cause; one that does not say (a
    /// module before `ended_by`) both paths' together; a hardirq-off one the hrtimer's
    /// whatever it says. P = 10 ms at HZ 250: Ps 12 ms, slack 8 ms.
    #[test]
    fn bounds_follow_the_path_that_ended_the_window() {
        let ms = 1_000_000;
        let r = Resolution::of(&config(10, 250)).expect("ours");
        let b = |below, above| Bounds {
            below_ns: below * ms,
            above_ns: above * ms,
        };
        let (bh, wait) = (Some(Cause::BhOff), Some(Cause::KsoftirqdWait));
        let soft = |c, e| r.bounds_of(Kind::Soft, c, e);
        assert_eq!(soft(bh, Some(EndedBy::Probe)), b(5, 5));
        assert_eq!(soft(wait, Some(EndedBy::Probe)), b(5, 25));
        assert_eq!(soft(bh, Some(EndedBy::Timer)), b(8, 12));
        assert_eq!(soft(wait, Some(EndedBy::Timer)), b(8, 12));
        for c in [bh, wait, None] {
            assert_eq!(soft(c, None), r.bounds(Kind::Soft, c));
        }
        assert_eq!(soft(bh, None), b(8, 12));
        assert_eq!(soft(wait, None), b(8, 25));
        for e in [None, Some(EndedBy::Hrtimer)] {
            assert_eq!(r.bounds_of(Kind::Hard, None, e), b(0, 10));
        }
        // Each path's bounds lie within both paths' together.
        for c in [bh, wait] {
            for e in [EndedBy::Probe, EndedBy::Timer] {
                let (one, both) = (soft(c, Some(e)), soft(c, None));
                assert!(one.below_ns <= both.below_ns && one.above_ns <= both.above_ns);
            }
        }
        // The record's range is its path's.
        let rec = |e| Record {
            cause: bh,
            latency_ns: 57 * ms,
            ended_by: e,
            ..Record::new(1, Kind::Soft)
        };
        assert_eq!(
            r.range(&rec(Some(EndedBy::Probe))),
            Some((52 * ms, 62 * ms))
        );
        assert_eq!(
            r.range(&rec(Some(EndedBy::Timer))),
            Some((49 * ms, 69 * ms))
        );
        assert_eq!(r.range(&rec(None)), Some((49 * ms, 69 * ms)));
    }

    /// Claim: the probe windows' measured errors the documentation reports (-0.48..+0.50
    /// ms at P = 1 ms, HZ 1000; -4.9..+4.9 ms at P = 10 ms, HZ 250) lie inside the probe
    /// path's own bounds, not only both paths' (error = reported - true).
    #[test]
    fn measured_probe_errors_are_inside_the_probes_bounds() {
        for (p, hz, errs) in [(1, 1000, [-480, 500]), (10, 250, [-4900, 4900])] {
            let b = Resolution::of(&config(p, hz)).expect("ours").bounds_of(
                Kind::Soft,
                Some(Cause::BhOff),
                Some(EndedBy::Probe),
            );
            for e in errs {
                assert!(inside(b, e), "P {p} HZ {hz} err {e} us outside {b:?}");
            }
        }
    }

    /// Claim: a finished window's range is its length minus below to plus above; a window
    /// still open has none; the original module's configuration (no HZ) has no bounds.
    #[test]
    fn ranges_of_records() {
        let r = Resolution::of(&config(10, 250)).expect("ours");
        let rec = |kind, cause, open| Record {
            kind,
            cause,
            lower_bound: open,
            latency_ns: 57_000_000,
            ..Record::new(1, kind)
        };
        assert_eq!(
            r.range(&rec(Kind::Hard, None, false)),
            Some((57_000_000, 67_000_000))
        );
        assert_eq!(
            r.range(&rec(Kind::Soft, Some(Cause::BhOff), false)),
            Some((49_000_000, 69_000_000))
        );
        assert_eq!(r.range(&rec(Kind::Hard, None, true)), None);
        let mut orig = config(10, 250);
        orig.hz = 0;
        assert!(Resolution::of(&orig).is_none());
    }
}
