// SPDX-License-Identifier: GPL-2.0
//! `top --live`: one row per CPU and kind, as `rtla timerlat top` shows its CPUs.

use std::fmt::Write;

use serde::Serialize;

use super::{paint, BOLD, RED};
use crate::enrich::ring_windows::Tally;
use crate::enrich::Enriched;
use crate::model::clock::Clock;
use crate::model::snapshot::{Kind, KindLabel, Snapshot, Stalls};

/// One CPU and kind, since load or, given a [`Base`], since it was taken. Events and the
/// average are of every window (from 2P on), from the module's exact counts and sums (the
/// average of the recorded ones where the module has no sums); last, min and max are of
/// every window too where the event stream was read since the base ([`Tally`]), else of
/// the windows the module recorded (from the threshold on, the worst N per CPU and kind),
/// ended ones only.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Row {
    pub cpu: u32,
    pub kind: Kind,
    pub online: bool,
    pub events: u64,
    pub recorded: u64,
    /// The newest recorded window, and its time (RFC 3339).
    pub last_ns: Option<u64>,
    pub last_time: Option<String>,
    pub min_ns: Option<u64>,
    pub avg_ns: Option<u64>,
    pub max_ns: Option<u64>,
    /// A window of this CPU and kind still open: its length so far.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub open_ns: Option<u64>,
}

/// What `top --live` counts from: the first snapshot it read.
#[derive(Debug, Clone)]
pub struct Base {
    /// CLOCK_MONOTONIC when it was read.
    pub taken_ns: u64,
    /// Per CPU and kind: events and the exact sum of their lengths, when known.
    counts: Vec<(u32, Kind, u64, Option<u64>)>,
    /// The stalls counted then (a module that counts them).
    pub stalls: Option<Stalls>,
}

impl Base {
    pub fn new(s: &Snapshot, taken_ns: u64) -> Self {
        let mut counts = Vec::new();
        for c in &s.cpus {
            counts.push((c.cpu, Kind::Hard, c.hard_events, c.sum_ns(Kind::Hard, None)));
            counts.push((c.cpu, Kind::Soft, c.soft_events, c.sum_ns(Kind::Soft, None)));
        }
        Self {
            taken_ns,
            counts,
            stalls: s.stalls.clone(),
        }
    }

    fn get(&self, cpu: u32, kind: Kind) -> Option<(u64, Option<u64>)> {
        self.counts
            .iter()
            .find(|c| c.0 == cpu && c.1 == kind)
            .map(|c| (c.2, c.3))
    }
}

/// The rows of `top --live`, a row per CPU and kind: counts since `base` (the first
/// refresh; since load or clear without it), last, min and max from `tally` (the ring's
/// windows) where there is one, else from the records.
pub fn rows(s: &Snapshot, base: Option<&Base>, tally: Option<&Tally>) -> Vec<Row> {
    let clock = Clock::of_anchor(s.config.realtime_offset_ns);
    let tally = tally.filter(|_| base.is_some());
    let mut v = Vec::new();
    for c in &s.cpus {
        for kind in [Kind::Hard, Kind::Soft] {
            let since = base.map_or(0, |b| b.taken_ns);
            let mut recs: Vec<_> = s
                .records
                .iter()
                .filter(|r| {
                    r.cpu == c.cpu
                        && r.kind == kind
                        && !(r.lower_bound && s.version >= 2)
                        && (base.is_none() || r.timestamp_ns > since)
                })
                .collect();
            recs.sort_by_key(|r| r.timestamp_ns);
            let lat = || recs.iter().map(|r| r.latency_ns);
            let n = recs.len() as u64;
            let (events, sum) = counted(c, kind, base);
            let exact_avg = sum.filter(|_| events > 0).map(|total| total / events);
            let open_ns = open_ns(s, c.cpu, kind);
            let avg_ns = exact_avg.or((n > 0).then(|| lat().sum::<u64>() / n));
            let row = match tally {
                // Every window since the base, from the stream.
                Some(t) => {
                    let a = t.get(c.cpu, kind);
                    Row {
                        last_ns: a.map(|a| a.last_ns),
                        last_time: a.map(|a| clock.rfc3339(a.last_end_ns)),
                        min_ns: a.map(|a| a.min_ns),
                        max_ns: a.map(|a| a.max_ns),
                        ..Row {
                            cpu: c.cpu,
                            kind,
                            online: c.online,
                            events,
                            recorded: n,
                            last_ns: None,
                            last_time: None,
                            min_ns: None,
                            avg_ns,
                            max_ns: None,
                            open_ns,
                        }
                    }
                }
                None => Row {
                    cpu: c.cpu,
                    kind,
                    online: c.online,
                    events,
                    recorded: n,
                    last_ns: recs.last().map(|r| r.latency_ns),
                    last_time: recs.last().and_then(|r| r.wall_time.clone()),
                    min_ns: lat().min(),
                    avg_ns,
                    max_ns: lat().max(),
                    open_ns,
                },
            };
            v.push(row);
        }
    }
    v
}

/// The events of `c` of `kind` and their summed length, since `base` where there is one
/// (counts that went down, a clear or a reload, count from there).
fn counted(c: &crate::model::snapshot::Cpu, kind: Kind, base: Option<&Base>) -> (u64, Option<u64>) {
    let (events_now, sum_now) = match kind {
        Kind::Hard => (c.hard_events, c.sum_ns(Kind::Hard, None)),
        Kind::Soft => (c.soft_events, c.sum_ns(Kind::Soft, None)),
    };
    match base.and_then(|b| b.get(c.cpu, kind)) {
        Some((e0, s0)) if events_now >= e0 => (
            events_now - e0,
            sum_now.zip(s0).map(|(a, b)| a.saturating_sub(b)),
        ),
        _ => (events_now, sum_now),
    }
}

/// The longest window of `kind` still open on `cpu`: the watcher's, or a softirq-off
/// record's.
fn open_ns(s: &Snapshot, cpu: u32, kind: Kind) -> Option<u64> {
    s.ongoing
        .iter()
        .filter(|o| o.cpu == cpu && o.kind == kind)
        .map(|o| o.latency_ns)
        .chain(
            s.records
                .iter()
                .filter(|r| r.ongoing && r.cpu == cpu && r.kind == kind && kind == Kind::Soft)
                .map(|r| r.latency_ns),
        )
        .max()
}

/// The table, headed by the time and the settings. Rows whose last window is new since
/// `previous` are marked.
/// `since`: what the counts count from ("since load", "since 10:00:03 UTC"); `ring`: last,
/// min and max come from the event ring (every window), not the records.
pub fn text(
    s: &Enriched,
    rows: &[Row],
    previous: Option<&[Row]>,
    now: &str,
    (since, ring): (&str, bool),
    color: bool,
) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "trace-irqoff top --live: {now}, {}, period {} ms, threshold {} ms",
        if s.config.enabled {
            "enabled"
        } else {
            "disabled"
        },
        s.config.period_ns / 1_000_000,
        s.config.threshold_ns / 1_000_000
    );
    let lengths = if ring {
        "every window (the event ring)"
    } else {
        "the recorded ones (from the threshold, the worst per CPU and kind)"
    };
    let _ = writeln!(
        o,
        "events, avg: every window; last/min/max: {lengths}; {since}"
    );
    o += &super::resolution(s, [(Kind::Hard, None), (Kind::Soft, None)], None);
    let head = format!(
        "{:>4}  {:<12} {:>8} {:>8} {:>12} {:>12} {:>12} {:>12}",
        "CPU", "KIND", "EVENTS", "RECORDED", "LAST", "MIN", "AVG", "MAX"
    );
    let _ = writeln!(o, "{}", paint(color, BOLD, &head));
    for r in rows {
        let line = row_line(r, false);
        let _ = writeln!(
            o,
            "{}",
            if fresh(r, previous) {
                paint(color, RED, &line)
            } else {
                line
            }
        );
        if let Some(open) = open_line(r, false) {
            let _ = writeln!(o, "{}", paint(color, RED, &open));
        }
    }
    o
}

/// The row of a window still open on `r`'s CPU and kind: "   1  hardirq-off   open
/// for 1.79 s+".
fn open_line(r: &Row, narrow: bool) -> Option<String> {
    let ns = r.open_ns?;
    let len = format!("{}+", super::length(ns));
    Some(if narrow {
        format!("{:>3} {:<11} {:>7} {len}", r.cpu, r.kind.label(), "OPEN")
    } else {
        format!(
            "{:>4}  {:<12} {:>8} open for {len}",
            r.cpu,
            r.kind.label(),
            ""
        )
    })
}

/// Whether `r`'s events grew since `previous`.
fn fresh(r: &Row, previous: Option<&[Row]>) -> bool {
    previous.is_some_and(|p| {
        p.iter()
            .any(|q| q.cpu == r.cpu && q.kind == r.kind && q.events < r.events)
    })
}

/// A row as a line: wide (the table on a pipe) or narrow (75 columns).
fn row_line(r: &Row, narrow: bool) -> String {
    let length: fn(u64) -> String = super::length;
    let ms = |v: Option<u64>| v.map_or("-".to_string(), length);
    let (cpu, kind, events, recorded) = (r.cpu, r.kind.label(), r.events, r.recorded);
    let (last, min, avg, max) = (ms(r.last_ns), ms(r.min_ns), ms(r.avg_ns), ms(r.max_ns));
    if narrow {
        let off = if r.online { "" } else { " offline" };
        format!("{cpu:>3} {kind:<11} {events:>7} {recorded:>8} {last:>9} {min:>9} {avg:>9} {max:>9}{off}")
    } else {
        let off = if r.online { "" } else { "  (offline)" };
        format!("{cpu:>4}  {kind:<12} {events:>8} {recorded:>8} {last:>12} {min:>12} {avg:>12} {max:>12}{off}")
    }
}

/// On a terminal of `rows_cols`: [`text`] in 75 columns, its two
/// header lines wrapped, cut to the width; where the rows do not all fit the height, the
/// rows with events (in CPU order) as many as fit, and a line counting the rest, so that
/// an in-place redraw never scrolls.
pub fn screen(
    s: &Enriched,
    rows: &[Row],
    previous: Option<&[Row]>,
    now: &str,
    (since, ring): (&str, bool),
    color: bool,
    (height, cols): (usize, usize),
) -> String {
    let mut o = super::line::wrap(
        &format!(
            "trace-irqoff top --live: {} UTC, {}, period {} ms, threshold {} ms",
            now.get(11..19).unwrap_or(now),
            if s.config.enabled {
                "enabled"
            } else {
                "disabled"
            },
            s.config.period_ns / 1_000_000,
            s.config.threshold_ns / 1_000_000
        ),
        cols,
    );
    let lengths = if ring {
        "all windows (event ring)"
    } else {
        "the recorded (worst) ones"
    };
    o += &super::line::wrap(
        &format!("EVENTS, AVG: all windows; LAST/MIN/MAX: {lengths}; {since}"),
        cols,
    );
    o += &super::resolution(s, [(Kind::Hard, None), (Kind::Soft, None)], Some(cols));
    let head = format!(
        "{:>3} {:<11} {:>7} {:>8} {:>9} {:>9} {:>9} {:>9}",
        "CPU", "KIND", "EVENTS", "RECORDED", "LAST", "MIN", "AVG", "MAX"
    );
    o += &(paint(color, BOLD, &super::line::fit(&head, Some(cols))) + "\n");
    // What is left of the height, keeping the line the cursor rests on.
    let room = height.saturating_sub(o.lines().count() + 1).max(1);
    // Rows and open windows (a line each) as they come; where they do not all fit, the
    // open windows and the rows with events.
    let lines = rows.len() + rows.iter().filter(|r| r.open_ns.is_some()).count();
    let mut shown: Vec<&Row> = Vec::new();
    let mut used = 0;
    for r in rows
        .iter()
        .filter(|r| lines <= room || r.events > 0 || r.open_ns.is_some())
    {
        let need = 1 + usize::from(r.open_ns.is_some());
        if used + need > room.saturating_sub(usize::from(lines > room)) {
            break;
        }
        used += need;
        shown.push(r);
    }
    for r in &shown {
        let line = super::line::fit(&row_line(r, true), Some(cols));
        o += &(if fresh(r, previous) {
            paint(color, RED, &line)
        } else {
            line
        } + "\n");
        if let Some(open) = open_line(r, true) {
            o += &(paint(color, RED, &super::line::fit(&open, Some(cols))) + "\n");
        }
    }
    if shown.len() < rows.len() {
        let quiet = rows.iter().filter(|r| r.events == 0).count();
        let more = format!(
            "... {} rows not shown ({quiet} without events; --json has all)",
            rows.len() - shown.len()
        );
        o += &(super::line::fit(&more, Some(cols)) + "\n");
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Claim: the live view has one row per CPU and kind with the module's event count,
    /// the records kept, and the newest, shortest, average and longest recorded window
    /// (dashes where none), and a v2 window still open does not count as a recorded
    /// length.
    #[test]
    fn per_cpu_and_kind_with_recorded_latencies() {
        let s = crate::parse::records::parse(include_str!("../../tests/fixtures/records-v1.txt"))
            .unwrap();
        let r = rows(&s, None, None);
        assert_eq!(r.len(), 4);
        let hard1 = &r[2];
        assert_eq!(
            (hard1.cpu, hard1.kind, hard1.events, hard1.recorded),
            (1, Kind::Hard, 4, 3)
        );
        // Newest by time: 52.990 ms at 3.51 s.
        assert_eq!(
            (hard1.last_ns, hard1.min_ns, hard1.max_ns),
            (Some(52_990_424), Some(52_990_424), Some(66_988_296))
        );
        assert_eq!(
            hard1.avg_ns,
            Some((66_988_296 + 54_990_120 + 52_990_424) / 3)
        );
        assert_eq!((r[0].events, r[0].recorded, r[0].last_ns), (0, 0, None));
        let text = text(
            &crate::enrich::snapshot(&s),
            &r,
            None,
            "2026-05-07T10:00:10Z",
            ("since load", false),
            false,
        );
        assert!(text.contains("\n   1  hardirq-off         4        3        53 ms        53 ms        58 ms        67 ms\n"), "{text}");
        assert!(text.contains("\n   0  softirq-off         0        0            -            -            -            -\n"), "{text}");
        // v2: the open window does not count as a length.
        let s2 = crate::parse::records::parse(include_str!("../../tests/fixtures/records-v2.txt"))
            .unwrap();
        let soft3 = rows(&s2, None, None)
            .into_iter()
            .find(|r| r.cpu == 3 && r.kind == Kind::Soft)
            .unwrap();
        assert_eq!((soft3.recorded, soft3.max_ns), (0, None));
    }

    /// Claim: from a base, events and the average are the module's exact counts and sums
    /// since then (every window, not only the recorded ones), last/min/max the windows
    /// recorded since; a window still open is its own row with its running length.
    #[test]
    fn since_the_start_and_open_windows() {
        let s =
            crate::parse::records::parse(include_str!("../../tests/fixtures/records-watcher.txt"))
                .unwrap();
        let mut before = s.clone();
        // At the base, cpu 1 had one hardirq-off window fewer, of 95 ms less.
        let c1 = before.cpus.iter_mut().find(|c| c.cpu == 1).unwrap();
        c1.hard_events -= 1;
        c1.sums_ns.hard = c1.sums_ns.hard.map(|v| v - 95_000_000);
        let base = Base::new(&before, 2_000_000_000);
        let r = rows(&s, Some(&base), None);
        let hard1 = r
            .iter()
            .find(|r| r.cpu == 1 && r.kind == Kind::Hard)
            .unwrap();
        assert_eq!((hard1.events, hard1.avg_ns), (1, Some(95_000_000)));
        // The 195 ms window ended at 2.88 s, after the base: recorded since.
        assert_eq!(
            (hard1.recorded, hard1.last_ns, hard1.max_ns),
            (1, Some(195_096_620), Some(195_096_620))
        );
        assert_eq!(hard1.open_ns, Some(1_788_332_180));
        // Nothing new on cpu 0 since: no events, no lengths.
        let hard0 = r
            .iter()
            .find(|r| r.cpu == 0 && r.kind == Kind::Hard)
            .unwrap();
        assert_eq!((hard0.events, hard0.recorded, hard0.last_ns), (0, 0, None));
        let t = text(
            &crate::enrich::snapshot(&s),
            &r,
            None,
            "2026-05-07T10:00:10Z",
            ("since 10:00:02 UTC", false),
            false,
        );
        assert!(t.contains("; since 10:00:02 UTC\n"), "{t}");
        assert!(
            t.contains("\n   1  hardirq-off           open for 1.79 s+\n"),
            "{t}"
        );
        let narrow = screen(
            &crate::enrich::snapshot(&s),
            &r,
            None,
            "2026-05-07T10:00:10Z",
            ("since 10:00:02 UTC", false),
            false,
            (24, 80),
        );
        assert!(
            narrow.contains("\n  1 hardirq-off    OPEN 1.79 s+\n"),
            "{narrow}"
        );
    }

    /// Claim: with the event stream, last, min and max since the start are of every
    /// window it carried (a 60 ms one the store never kept is LAST), not of the kept
    /// records; the events and the average still come from the module's exact counts.
    #[test]
    fn the_stream_gives_last_min_max_of_every_window() {
        let s =
            crate::parse::records::parse(include_str!("../../tests/fixtures/records-watcher.txt"))
                .unwrap();
        let base = Base::new(&s, 2_000_000_000);
        let line = |lat: u64, end: u64| {
            format!("sh-1 [001] d.h1. 1.0: hardirq_off: cpu=1 latency_ns={lat} lower_bound=0 pid=1 comm=sh cause=- end_ns={end} seq=1 end_shows_culprit=1 frames=0x0")
        };
        let events: Vec<_> = [
            line(92_700_000, 2_500_000_000),
            line(60_000_000, 3_000_000_000),
            line(10, 1_000),
        ]
        .iter()
        .filter_map(|l| crate::parse::tracefs::parse_event(l))
        .collect();
        let mut t = Tally::new(base.taken_ns);
        t.add(&events);
        let r = rows(&s, Some(&base), Some(&t));
        let hard1 = r
            .iter()
            .find(|r| r.cpu == 1 && r.kind == Kind::Hard)
            .unwrap();
        assert_eq!(
            (hard1.last_ns, hard1.min_ns, hard1.max_ns),
            (Some(60_000_000), Some(60_000_000), Some(92_700_000))
        );
        let from_records = rows(&s, Some(&base), None);
        let rec1 = from_records
            .iter()
            .find(|r| r.cpu == 1 && r.kind == Kind::Hard)
            .unwrap();
        assert_eq!((hard1.events, hard1.avg_ns), (rec1.events, rec1.avg_ns));
        // Nothing streamed for cpu 0: no lengths.
        assert!(r.iter().filter(|r| r.cpu == 0).all(|r| r.last_ns.is_none()));
        // Before a base (the first refresh, since load), the stream is not used.
        assert_eq!(rows(&s, None, Some(&t)), rows(&s, None, None));
    }

    /// Claim: a row is marked only when its events grew: not when the counts fall back to
    /// zero as the second refresh starts counting from the command's start (seen in the
    /// VM: every row of cpu 1 turned red with 0 events).
    #[test]
    fn only_rows_whose_events_grew_are_marked() {
        let s = crate::parse::records::parse(include_str!("../../tests/fixtures/records-v1.txt"))
            .unwrap();
        let since_load = rows(&s, None, None);
        let since_start = rows(&s, Some(&Base::new(&s, u64::MAX)), None);
        assert!(since_load.iter().any(|r| r.events > 0));
        assert!(since_start.iter().all(|r| !fresh(r, Some(&since_load))));
        assert!(since_load
            .iter()
            .filter(|r| r.events > 0)
            .all(|r| fresh(r, Some(&since_start))));
    }

    /// Claim: on a terminal the table fits the width and the height: at 80x24 every line
    /// within 80 columns; on a terminal too short for every row, the rows with events come
    /// first and the rest are counted, so that the whole fits.
    #[test]
    fn the_terminal_view_fits_width_and_height() {
        let s = crate::parse::records::parse(include_str!("../../tests/fixtures/records-v1.txt"))
            .unwrap();
        let r = rows(&s, None, None);
        let big = screen(
            &crate::enrich::snapshot(&s),
            &r,
            None,
            "2026-05-07T10:00:10Z",
            ("since load", false),
            false,
            (24, 80),
        );
        assert!(big.lines().all(|l| l.chars().count() <= 80), "{big}");
        assert!(
            big.contains(
                "\n  1 hardirq-off       4        3     53 ms     53 ms     58 ms     67 ms\n"
            ),
            "{big}"
        );
        assert!(
            big.contains("\ntrue length = LENGTH +0..10 ms (hardirq-off), "),
            "{big}"
        );
        assert_eq!(big.lines().count(), 4 + r.len(), "{big}");
        // 4 rows, 2 of them without events, on a 7-line terminal: 4 header lines, 1 row,
        // the count, and the cursor's line.
        let small = screen(
            &crate::enrich::snapshot(&s),
            &r,
            None,
            "2026-05-07T10:00:10Z",
            ("since load", false),
            false,
            (7, 80),
        );
        assert!(small.lines().count() <= 6, "{small}");
        assert!(small.contains("\n  1 hardirq-off"), "{small}");
        assert!(
            small.ends_with("\n... 3 rows not shown (2 without events; --json has all)\n"),
            "{small}"
        );
    }
}
