// SPDX-License-Identifier: GPL-2.0
//! What the views derive from the ring's windows: records of them, those the module's
//! record store does not hold ([`missing`], [`add_missing`]), per-CPU counts
//! ([`counts`], what a hindsight recording counts) and per CPU and kind the windows since
//! a start ([`Tally`], what `top --live` shows).

use std::collections::BTreeMap;

use crate::model::clock::Clock;
use crate::model::ring_event::Event;
use crate::model::snapshot::{Cause, Cpu, Kind, Record, NR_BUCKETS};

/// The windows of `events` at `threshold_ns` or more, as records with wall-clock times
/// from `clock`.
pub fn records(events: &[Event], threshold_ns: u64, clock: &Clock) -> Vec<Record> {
    events
        .iter()
        .filter(|e| e.latency_ns >= threshold_ns)
        .map(|e| e.record(clock))
        .collect()
}

/// What makes a window the same window in the store and in the ring: its CPU, kind and
/// end (CLOCK_MONOTONIC, to the ns: both come from the one sampler that saw it end). A
/// module that gives no end (0) has its length added, the best there is then.
pub fn same_window(r: &Record) -> (u32, Kind, u64, u64) {
    let length = if r.timestamp_ns == 0 { r.latency_ns } else { 0 };
    (r.cpu, r.kind, r.timestamp_ns, length)
}

/// Of `streamed`, the windows that `store` (the module's records) does not hold
/// ([`same_window`]), each once: the store's record of a window wins (it has the
/// in-window samples), and a window the ring holds twice is taken once.
pub fn missing<'a>(
    store: &[Record],
    streamed: impl IntoIterator<Item = &'a Record>,
) -> Vec<Record> {
    let mut kept: std::collections::HashSet<_> = store.iter().map(same_window).collect();
    streamed
        .into_iter()
        .filter(|r| kept.insert(same_window(r)))
        .cloned()
        .collect()
}

/// Per-CPU counts and histograms of `events` (what a hindsight recording counts).
pub fn counts(events: &[Event]) -> Vec<Cpu> {
    let mut per: BTreeMap<u32, Cpu> = BTreeMap::new();
    for e in events {
        let c = per.entry(e.cpu).or_insert_with(|| Cpu {
            hard_hist: vec![0; NR_BUCKETS],
            soft_hist: vec![0; NR_BUCKETS],
            soft_bh_off_hist: vec![0; NR_BUCKETS],
            soft_ksoftirqd_wait_hist: vec![0; NR_BUCKETS],
            ..Cpu::new(e.cpu)
        });
        let k = tio_logic::hist::bucket(e.latency_ns);
        match (e.kind, e.cause) {
            (Kind::Hard, _) => {
                c.hard_events += 1;
                c.hard_hist[k] += 1;
            }
            (Kind::Soft, cause) => {
                c.soft_events += 1;
                c.soft_hist[k] += 1;
                match cause {
                    Some(Cause::BhOff) => {
                        c.soft_bh_off_events += 1;
                        c.soft_bh_off_hist[k] += 1;
                    }
                    Some(Cause::KsoftirqdWait) => {
                        c.soft_ksoftirqd_wait_events += 1;
                        c.soft_ksoftirqd_wait_hist[k] += 1;
                    }
                    None => {}
                }
            }
        }
    }
    per.into_values().collect()
}

/// Per CPU and kind, the windows a stream carried that ended after `from_ns` (every
/// window the module counted, above and below the threshold): what `top --live` shows as
/// last, min and max since it started.
#[derive(Debug, Clone, Default)]
pub struct Tally {
    from_ns: u64,
    per: BTreeMap<(u32, Kind), Agg>,
}

/// The windows of one CPU and kind in a [`Tally`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Agg {
    pub count: u64,
    pub min_ns: u64,
    pub max_ns: u64,
    /// The newest window's length, and when it ended (CLOCK_MONOTONIC).
    pub last_ns: u64,
    pub last_end_ns: u64,
}

impl Tally {
    pub fn new(from_ns: u64) -> Self {
        Self {
            from_ns,
            per: BTreeMap::new(),
        }
    }

    pub fn add(&mut self, events: &[Event]) {
        for e in events.iter().filter(|e| e.end_ns > self.from_ns) {
            let a = self.per.entry((e.cpu, e.kind)).or_insert(Agg {
                min_ns: u64::MAX,
                ..Agg::default()
            });
            a.count += 1;
            a.min_ns = a.min_ns.min(e.latency_ns);
            a.max_ns = a.max_ns.max(e.latency_ns);
            if e.end_ns >= a.last_end_ns {
                (a.last_ns, a.last_end_ns) = (e.latency_ns, e.end_ns);
            }
        }
    }

    pub fn get(&self, cpu: u32, kind: Kind) -> Option<&Agg> {
        self.per.get(&(cpu, kind))
    }
}

/// Adds to `store` (the module's records) the windows of `streamed` (the ring's, as
/// `Module::ring_records` made them) that it does not hold; returns how many.
pub fn add_missing(store: &mut Vec<Record>, streamed: &[Record]) -> usize {
    let extra = missing(store, streamed);
    let n = extra.len();
    store.extend(extra);
    n
}

/// How complete a view of the store is (`render::coverage` words it), once the ring's windows are merged in.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Coverage {
    /// Windows the ring added: at the threshold or over, not kept by the store.
    pub added: usize,
    /// Windows at the threshold or over that the store did not keep (its `dropped` and
    /// `replaced` counts since load or clear) and the ring did not give back either.
    pub unshown: u64,
    /// Why the ring was not read, where it was not.
    pub no_ring: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ring_event::Ring;
    use crate::model::snapshot::Stall;
    use crate::parse::tracefs::parse_event;
    use crate::parse::tracefs::parse_stall;
    use crate::parse::tracefs::tests::{HARD, OLD, SOFT, TRACE_STALL};

    /// A record made from an event has its times, task and frames, and no profile.
    #[test]
    fn events_become_records() {
        let r = parse_event(HARD)
            .unwrap()
            .record(&Clock::anchored(1_778_148_000_000_000_000));
        assert_eq!(r.timestamp_ns, 4_033_412_000);
        assert_eq!(r.wall_time.as_deref(), Some("2026-05-07T10:00:04.033412Z"));
        assert_eq!(
            r.start_wall_time.as_deref(),
            Some("2026-05-07T10:00:03.933611Z")
        );
        assert_eq!(r.stack.len(), 3);
        assert!(!r.ongoing && !r.lower_bound && r.profile.is_none());
    }

    /// Windows under the threshold are left out, and a window the store holds is not
    /// added twice.
    #[test]
    fn streamed_windows_the_store_missed() {
        let clock = Clock::anchored(0);
        let short = Event {
            latency_ns: 1_000_000,
            ..parse_event(HARD).unwrap()
        };
        let kept = parse_event(HARD).unwrap();
        let missed = Event {
            end_ns: 9_000_000_000,
            ..parse_event(HARD).unwrap()
        };
        let streamed = records(&[short, kept.clone(), missed], 50_000_000, &clock);
        assert_eq!(streamed.len(), 2);
        let store = vec![kept.record(&clock)];
        let m = missing(&store, &streamed);
        assert_eq!(m.len(), 1);
        assert_eq!(m[0].timestamp_ns, 9_000_000_000);
    }

    /// Counts per CPU add up by kind and cause, in the module's log2 buckets.
    #[test]
    fn counts_per_cpu_kind_and_cause() {
        let c = counts(&[
            parse_event(HARD).unwrap(),
            parse_event(SOFT).unwrap(),
            Event {
                latency_ns: 70_000_000,
                ..parse_event(SOFT).unwrap()
            },
        ]);
        assert_eq!(c.len(), 2);
        assert_eq!((c[0].cpu, c[0].hard_events, c[0].soft_events), (1, 1, 0));
        assert_eq!(c[0].hard_hist[6], 1);
        assert_eq!(
            (
                c[1].cpu,
                c[1].soft_events,
                c[1].soft_ksoftirqd_wait_events,
                c[1].soft_bh_off_events
            ),
            (2, 2, 2, 0)
        );
        assert_eq!(c[1].soft_ksoftirqd_wait_hist[6], 2);
    }

    /// A tally counts each CPU and kind apart, from its start on: the last window is the
    /// one that ended last, min and max over all of them.
    #[test]
    fn tally_since_start() {
        let e = |cpu: u32, kind: Kind, latency_ns: u64, end_ns: u64| Event {
            cpu,
            kind,
            latency_ns,
            end_ns,
            ..parse_event(OLD).unwrap()
        };
        let mut t = Tally::new(100);
        t.add(&[
            e(1, Kind::Hard, 9, 50),
            e(1, Kind::Hard, 30, 200),
            e(1, Kind::Hard, 20, 300),
            e(1, Kind::Soft, 5, 250),
        ]);
        t.add(&[e(0, Kind::Hard, 7, 400)]);
        assert_eq!(
            t.get(1, Kind::Hard),
            Some(&Agg {
                count: 2,
                min_ns: 20,
                max_ns: 30,
                last_ns: 20,
                last_end_ns: 300
            })
        );
        assert_eq!(t.get(1, Kind::Soft).map(|a| a.count), Some(1));
        assert_eq!(t.get(0, Kind::Hard).map(|a| a.last_ns), Some(7));
        assert!(t.get(0, Kind::Soft).is_none());
    }

    /// Claim: a stall line of the ring (`trace_irqoff:stall`) is read as a stall, with its
    /// CPU, span and length, apart from the windows: never an [`Event`], so never counted
    /// as a hardirq-off or softirq-off window; the windows around it read as windows, and
    /// the other lines (header, `irqoff_ongoing`) are neither.
    #[test]
    fn stalls_are_read_apart_from_windows() {
        let ring = Ring::parse(TRACE_STALL);
        assert_eq!(
            ring.stalls,
            [
                Stall::new(Some(0), 8_613_000_000, 8_633_000_000),
                Stall::new(Some(1), 8_933_000_000, 9_235_000_000)
            ]
        );
        assert_eq!(ring.stalls[1].length_ns, 302_000_000);
        assert_eq!(
            ring.windows
                .iter()
                .map(|e| (e.cpu, e.kind, e.latency_ns))
                .collect::<Vec<_>>(),
            [(1, Kind::Hard, 99_800_123), (0, Kind::Soft, 64_250_000)]
        );
        for line in TRACE_STALL.lines().filter(|l| l.contains(": stall: ")) {
            assert!(
                parse_event(line).is_none(),
                "a stall read as a window: {line}"
            );
        }
        // The counts of a recording hold the two windows only.
        let c = counts(&ring.windows);
        let events: u64 = c.iter().map(|c| c.hard_events + c.soft_events).sum();
        assert_eq!(events, 2);
        // A window line never reads as a stall, whatever its task is called.
        let odd = HARD.replace("comm=irq test", "comm=a: stall: cpu=1 start_ns=1 end_ns=2");
        assert!(parse_stall(&odd).is_none());
        assert!(parse_event(&odd).is_some());
        assert!(parse_stall("garbage").is_none());
        // An end before the start is not a stall.
        assert!(
            parse_stall("x-1 [000] d.h1. 1.0: stall: cpu=0 start_ns=5 end_ns=4 length_ns=0")
                .is_none()
        );
    }
}
