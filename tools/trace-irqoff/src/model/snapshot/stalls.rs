// SPDX-License-Identifier: GPL-2.0
//! Stalls of the whole machine: spans in which no sampled CPU ran, counted apart from
//! the windows.

use serde::{Deserialize, Serialize};

/// Silences of the whole machine: spans in which no sampled CPU's hrtimer ran at all (a
/// VM paused by its host, a stopped emulator, a live migration's pause, but also
/// `stop_machine()` or a lock convoy with every CPU's interrupts off). The module takes
/// one out of a CPU's gap, as a stall counted in `stall_gaps`, only on a machine a host
/// can stop and with that CPU's evidence; elsewhere it stays in the window.
/// The `stall` line of the records and counters files, since the last clear.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stalls {
    /// Silences of a period or more, and of those, the ones at least the threshold long.
    pub count: u64,
    pub over_threshold: u64,
    /// Their total and longest length.
    pub sum_ns: u64,
    pub longest_ns: u64,
    /// The latest one's span, CLOCK_MONOTONIC (0 and 0 before any).
    pub latest_start_ns: u64,
    pub latest_end_ns: u64,
    /// When the latest one ended, RFC 3339 UTC, set where the records' times are (the text
    /// views; JSON has the numbers).
    #[serde(skip)]
    pub latest_end_time: Option<String>,
    /// Whether a host can stop the machine (the CPU reports a hypervisor); absent from
    /// modules before they said. On bare metal no silence is a stall: every one stays in
    /// the windows of the CPUs that were late.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hypervisor: Option<bool>,
}

impl Stalls {
    /// The counts of a list of stalls (a recording's), `threshold_ns` deciding which are
    /// over the threshold.
    pub fn of(list: &[Stall], threshold_ns: u64) -> Self {
        let mut st = Stalls::default();
        for s in list {
            st.count += 1;
            st.sum_ns += s.length_ns;
            st.longest_ns = st.longest_ns.max(s.length_ns);
            if s.length_ns >= threshold_ns {
                st.over_threshold += 1;
            }
            if s.end_ns >= st.latest_end_ns {
                (st.latest_start_ns, st.latest_end_ns) = (s.start_ns, s.end_ns);
                st.latest_end_time = s.end_time.clone();
            }
        }
        st
    }

    /// The stalls of a recording's span: those of its list (from the event stream), else
    /// as many as the module counted over it (lengths unknown then: 0); none where neither
    /// says there was one.
    pub fn of_span(list: &[Stall], counted: Option<u64>, threshold_ns: u64) -> Option<Self> {
        let counted = counted.unwrap_or(0);
        if list.is_empty() && counted == 0 {
            return None;
        }
        let st = Stalls::of(list, threshold_ns);
        // Some the stream did not carry: the list's lengths are not those of all of them.
        Some(if counted > st.count {
            Stalls {
                count: counted,
                ..Stalls::default()
            }
        } else {
            st
        })
    }

    /// The stalls counted since `before` was read (all of them where there is no
    /// `before`, or the counters were cleared since). The longest is known only where it
    /// is new since, or the only one: 0 (unknown) otherwise.
    pub fn since(&self, before: Option<&Stalls>) -> Stalls {
        let Some(b) = before.filter(|b| self.count >= b.count && self.count > 0) else {
            return self.clone();
        };
        let count = self.count - b.count;
        let sum_ns = self.sum_ns.saturating_sub(b.sum_ns);
        let longest_ns = if self.longest_ns > b.longest_ns {
            self.longest_ns
        } else if count == 1 {
            sum_ns
        } else {
            0
        };
        let latest = count > 0;
        Stalls {
            count,
            over_threshold: self.over_threshold.saturating_sub(b.over_threshold),
            sum_ns,
            longest_ns: if count > 0 { longest_ns } else { 0 },
            latest_start_ns: if latest { self.latest_start_ns } else { 0 },
            latest_end_ns: if latest { self.latest_end_ns } else { 0 },
            latest_end_time: self.latest_end_time.clone().filter(|_| latest),
            hypervisor: self.hypervisor,
        }
    }

    /// The latest stall, as the stream would carry it (without the CPU); none before any.
    pub fn latest(&self) -> Option<Stall> {
        (self.count > 0 && self.latest_end_ns != 0)
            .then(|| Stall::new(None, self.latest_start_ns, self.latest_end_ns))
    }
}

/// One stall of the whole machine (`trace_irqoff:stall` in the event stream, or the
/// latest one of the `stall` line): no sampled CPU ran from `start_ns` to `end_ns`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stall {
    /// The CPU that ran first after it (unknown for the `stall` line's latest one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<u32>,
    /// Its span, CLOCK_MONOTONIC, and length.
    pub start_ns: u64,
    pub end_ns: u64,
    pub length_ns: u64,
    /// The same span in wall-clock time (RFC 3339 UTC), where the clock anchor is known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_time: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_time: Option<String>,
}

impl Stall {
    pub fn new(cpu: Option<u32>, start_ns: u64, end_ns: u64) -> Self {
        Self {
            cpu,
            start_ns,
            end_ns,
            length_ns: end_ns.saturating_sub(start_ns),
            start_time: None,
            end_time: None,
        }
    }

    /// The same stall with its wall-clock times from `clock`.
    pub fn stamped(mut self, clock: &crate::model::clock::Clock) -> Self {
        self.start_time = Some(clock.rfc3339(self.start_ns));
        self.end_time = Some(clock.rfc3339(self.end_ns));
        self
    }

    /// What tells two stalls apart (a stall is machine-wide: no two share a span).
    pub fn key(&self) -> (u64, u64) {
        (self.start_ns, self.end_ns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stalls(count: u64, sum_ns: u64, longest_ns: u64, latest: (u64, u64)) -> Stalls {
        Stalls {
            count,
            over_threshold: count,
            sum_ns,
            longest_ns,
            latest_start_ns: latest.0,
            latest_end_ns: latest.1,
            latest_end_time: None,
            hypervisor: None,
        }
    }

    /// Claim: the stalls since an earlier read are the counts' differences; the longest
    /// is given only where it is known (a new longest, or a single stall), 0 otherwise;
    /// after a clear (counts went down) or without an earlier read, all of them.
    #[test]
    fn stalls_since_an_earlier_read() {
        let before = stalls(2, 400, 300, (10, 310));
        let after = stalls(3, 450, 300, (1000, 1050));
        let d = after.since(Some(&before));
        assert_eq!(
            (d.count, d.sum_ns, d.longest_ns, d.latest_end_ns),
            (1, 50, 50, 1050)
        );
        let d = stalls(4, 900, 450, (2000, 2450)).since(Some(&before));
        assert_eq!((d.count, d.sum_ns, d.longest_ns), (2, 500, 450));
        let d = stalls(4, 460, 300, (2000, 2030)).since(Some(&before));
        assert_eq!((d.count, d.sum_ns, d.longest_ns), (2, 60, 0));
        let d = before.since(Some(&before));
        assert_eq!(
            (d.count, d.sum_ns, d.longest_ns, d.latest_end_ns),
            (0, 0, 0, 0)
        );
        let cleared = stalls(1, 20, 20, (5000, 5020));
        assert_eq!(cleared.since(Some(&before)), cleared);
        assert_eq!(after.since(None), after);
    }

    /// Claim: a list of stalls (a recording's) counts as the module counts: how many, how
    /// many at least the threshold, total, longest and the latest; a span whose module
    /// counted more than its list holds keeps the count and no lengths; no stall, none.
    #[test]
    fn stalls_of_a_list_and_of_a_span() {
        let list = [
            Stall::new(Some(0), 100, 400),
            Stall::new(Some(1), 1000, 1020),
        ];
        let st = Stalls::of(&list, 50);
        assert_eq!(
            (st.count, st.over_threshold, st.sum_ns, st.longest_ns),
            (2, 1, 320, 300)
        );
        assert_eq!((st.latest_start_ns, st.latest_end_ns), (1000, 1020));
        assert_eq!(Stalls::of_span(&list, Some(2), 50), Some(st.clone()));
        assert_eq!(Stalls::of_span(&list, None, 50), Some(st));
        let more = Stalls::of_span(&list, Some(3), 50).unwrap();
        assert_eq!((more.count, more.sum_ns, more.longest_ns), (3, 0, 0));
        assert_eq!(Stalls::of_span(&[], Some(0), 50), None);
        assert_eq!(Stalls::of_span(&[], None, 50), None);
    }
}
