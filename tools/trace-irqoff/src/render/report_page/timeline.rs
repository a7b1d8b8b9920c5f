// SPDX-License-Identifier: GPL-2.0
//! The report's timeline: each CPU's windows on a wall-clock axis, inline SVG; and the
//! time range the report covers.

use std::borrow::Borrow;
use std::collections::BTreeMap;
use std::fmt::Write;

use super::markup::{close, colour, esc, WIDTH};
use crate::enrich::{Enriched, Window};
use crate::model::clock::Clock;
use crate::model::snapshot::{Cause, Kind, Record, Snapshot};
use crate::source::saved::Origin;

/// Windows of one CPU the timeline draws: its worst.
pub const TIMELINE_PER_CPU: usize = 50;

/// Left margin of the timeline (the CPU labels).
const LABEL: f64 = 60.0;
/// Height of one CPU's lane.
const LANE: f64 = 16.0;

/// The kinds and causes there are in `s`'s records, hardirq first.
fn kinds(records: &[Record]) -> Vec<(Kind, Option<Cause>)> {
    let mut v: Vec<(Kind, Option<Cause>)> = records
        .iter()
        .map(|r| (r.kind, if r.kind == Kind::Hard { None } else { r.cause }))
        .collect();
    v.sort();
    v.dedup();
    v
}

fn key(o: &mut String, kinds: &[(Kind, Option<Cause>)]) {
    o.push_str("<p class=\"key\">");
    for &(k, c) in kinds {
        let _ = write!(
            o,
            "<span style=\"background:{}\"></span>{}",
            colour(k, c),
            crate::render::kind_or_cause(k, c)
        );
    }
    o.push_str("</p>\n");
}

/// Nanoseconds since the epoch of an RFC 3339 time.
fn epoch_ns(rfc3339: &str) -> Option<u64> {
    let t = humantime::parse_rfc3339(rfc3339).ok()?;
    let d = t.duration_since(std::time::UNIX_EPOCH).ok()?;
    u64::try_from(d.as_nanos()).ok()
}

/// Records (or their windows) by CPU.
pub fn by_cpu<W: Borrow<Record>>(records: &[W]) -> BTreeMap<u32, Vec<&W>> {
    let mut m: BTreeMap<u32, Vec<&W>> = BTreeMap::new();
    for r in records {
        m.entry(r.borrow().cpu).or_default().push(r);
    }
    m
}

/// The time range, CLOCK_MONOTONIC: the recording's where it is known, widened to every
/// window.
pub fn range(s: &Snapshot, origin: &Origin) -> (u64, u64) {
    let offset = s.config.realtime_offset_ns;
    let mono = |t: &Option<String>| {
        t.as_deref()
            .and_then(epoch_ns)
            .zip(offset)
            .map(|(w, off)| w.saturating_sub(off))
    };
    let first = s
        .records
        .iter()
        .map(|r| r.timestamp_ns.saturating_sub(r.latency_ns))
        .min();
    let last = s.records.iter().map(|r| r.timestamp_ns).max();
    let from = [mono(&origin.start_time), first]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(0);
    let to = [mono(&origin.end_time), last]
        .into_iter()
        .flatten()
        .max()
        .unwrap_or(from);
    (from, to.max(from))
}

/// A step between ticks giving at most about `n` of them over `span_ns`: below a second 1,
/// 2 or 5 times a power of ten ns; from a second on, a step of the clock (1, 2, 5, 10, 15,
/// 30 s, the same in minutes, 1, 2, 3, 6, 12 h, 1, 2, 7, 14, 28 days).
pub fn tick_step(span_ns: u64, n: u64) -> u64 {
    let raw = (span_ns / n.max(1)).max(1);
    const S: u64 = 1_000_000_000;
    const CLOCK: [u64; 21] = [
        S,
        2 * S,
        5 * S,
        10 * S,
        15 * S,
        30 * S,
        60 * S,
        120 * S,
        300 * S,
        600 * S,
        900 * S,
        1800 * S,
        3600 * S,
        7200 * S,
        3 * 3600 * S,
        6 * 3600 * S,
        12 * 3600 * S,
        86_400 * S,
        2 * 86_400 * S,
        7 * 86_400 * S,
        14 * 86_400 * S,
    ];
    if raw > S {
        return CLOCK
            .into_iter()
            .find(|&st| st >= raw)
            .unwrap_or(raw.div_ceil(28 * 86_400 * S) * 28 * 86_400 * S);
    }
    let mut p = 1u64;
    while p.saturating_mul(10) <= raw {
        p *= 10;
    }
    [1, 2, 5, 10]
        .into_iter()
        .map(|m| p.saturating_mul(m))
        .find(|&st| st >= raw)
        .unwrap_or(raw)
}

/// The per-CPU timeline of the windows, wall-clock axis, a lane per CPU with windows.
pub fn timeline(o: &mut String, s: &Enriched, origin: &Origin, clock: Option<&Clock>) {
    o.push_str("<section id=\"timeline\">\n<h2>Timeline</h2>\n");
    let cpus = by_cpu(&s.windows);
    if cpus.is_empty() {
        o.push_str("<p>No windows to draw.</p>\n</section>\n");
        return;
    }
    key(o, &kinds(&s.records));
    let (from, to) = range(s, origin);
    let span = to.saturating_sub(from).max(1);
    let plot = WIDTH - LABEL - 10.0;
    let x = |ns: u64| LABEL + plot * (ns.saturating_sub(from) as f64 / span as f64);
    let height = 30.0 + LANE * cpus.len() as f64;
    let _ = writeln!(
        o,
        "<svg id=\"timeline-svg\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {WIDTH} {height}\" width=\"{WIDTH}\" height=\"{height}\" font-size=\"11\">"
    );
    // The axis: wall-clock ticks (seconds after boot without a clock anchor).
    // Ticks at round wall-clock times where the anchor is known.
    let step = tick_step(span, 8);
    let off = s.config.realtime_offset_ns.unwrap_or(0) % step;
    let mut t = (from + off).div_ceil(step) * step - off;
    // To the ms within a second, to the second within a day, else the date and minute.
    let (a, b) = if step < 1_000_000_000 {
        (11, 23)
    } else if span < 86_400_000_000_000 {
        (11, 19)
    } else {
        (5, 16)
    };
    while t <= to {
        let label = match clock {
            Some(k) => k.rfc3339(t).get(a..b).unwrap_or("?").replace('T', " "),
            None => format!("{} s", crate::render::secs(t)),
        };
        let _ = writeln!(
            o,
            "<line x1=\"{0:.1}\" x2=\"{0:.1}\" y1=\"14\" y2=\"{height}\" stroke=\"#ddd\"/><text x=\"{0:.1}\" y=\"11\" text-anchor=\"middle\">{label}</text>",
            x(t)
        );
        t += step;
    }
    let mut left_out = 0;
    for (lane, (cpu, rs)) in cpus.iter().enumerate() {
        let y = 18.0 + LANE * lane as f64;
        let _ = writeln!(
            o,
            "<text x=\"4\" y=\"{:.1}\">CPU {cpu}</text><line x1=\"{LABEL}\" x2=\"{}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#bbb\"/>",
            y + 11.0,
            WIDTH - 10.0,
            y + LANE / 2.0,
            y + LANE / 2.0
        );
        let mut worst: Vec<&&Window> = rs.iter().collect();
        worst.sort_by_key(|r| std::cmp::Reverse(r.latency_ns));
        left_out += worst.len().saturating_sub(TIMELINE_PER_CPU);
        worst.truncate(TIMELINE_PER_CPU);
        for r in worst {
            let x0 = x(r.timestamp_ns.saturating_sub(r.latency_ns));
            let w = (x(r.timestamp_ns) - x0).max(1.5);
            let who = r.label("?");
            let _ = writeln!(
                o,
                "<rect class=\"window\" x=\"{x0:.1}\" y=\"{:.1}\" width=\"{w:.1}\" height=\"{:.1}\" fill=\"{}\"><title>{}\nculprit: {}</title></rect>",
                y + 2.0,
                LANE - 4.0,
                colour(r.kind, r.cause),
                esc(&crate::render::window_sentence(r)),
                esc(&who)
            );
        }
    }
    o.push_str("</svg>\n");
    close(
        o,
        left_out,
        &format!("shorter windows are left out: the timeline draws the worst {TIMELINE_PER_CPU} windows of each CPU (the tables and the flame graph count them all)"),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The timeline of `s` as the report draws it (its clock anchor, if any).
    fn timeline_of(s: &Snapshot, origin: &Origin) -> String {
        let clock = s.config.realtime_offset_ns.map(Clock::anchored);
        let mut o = String::new();
        timeline(&mut o, &crate::enrich::snapshot(s), origin, clock.as_ref());
        o
    }

    /// Axis steps are 1, 2 or 5 times a power of ten below a second, steps of the clock
    /// above, giving at most the ticks asked for.
    #[test]
    fn tick_steps_are_round() {
        assert_eq!(tick_step(10_000_000_000, 8), 2_000_000_000);
        assert_eq!(tick_step(30_000_000_000, 8), 5_000_000_000);
        assert_eq!(tick_step(3_600_000_000_000, 8), 600_000_000_000);
        assert_eq!(
            tick_step(11 * 86_400_000_000_000, 8),
            2 * 86_400_000_000_000
        );
        assert_eq!(
            tick_step(400 * 86_400_000_000_000, 8),
            56 * 86_400_000_000_000
        );
        assert_eq!(tick_step(800, 8), 100);
        assert_eq!(tick_step(0, 8), 1);
    }

    /// A recording with the clock anchor `offset_ns` and one hardirq-off window of 2 s
    /// that ended at 5 s after boot.
    fn one_window(offset_ns: u64) -> Snapshot {
        let mut s = crate::source::saved::parse(&format!(
            r#"{{"module":{{"records_format":2,"hz":1000,"records_per_cpu":16,"soft_event_ns":0}},
            "settings":{{"enabled":true,"period_ms":10,"threshold_ms":50}},"realtime_offset_ns":{offset_ns},
            "cpus":[],"records":[]}}"#
        ))
        .unwrap()
        .snapshot;
        s.records.push(Record {
            latency_ns: 2_000_000_000,
            timestamp_ns: 5_000_000_000,
            ..Record::new(0, Kind::Hard)
        });
        s
    }

    /// The timeline's ticks fall on round wall-clock times, whatever the clock anchor.
    #[test]
    fn ticks_at_round_wall_clock_times() {
        let s = one_window(1_000_300_000_000);
        let page = timeline_of(&s, &Origin::default());
        // From 00:16:43.3 to 00:16:45.3, every 500 ms.
        assert!(page.contains(">00:16:43.500</text>"), "{page}");
        assert!(page.contains(">00:16:45.000</text>"), "{page}");
        assert!(!page.contains(">00:16:43.300</text>"), "{page}");
        // Over days, the date and the minute, every 2 days (11 days from 1970-01-01T00:16:43.3).
        let mut s = s;
        let mut later = s.records[0].clone();
        later.timestamp_ns = 950_400_000_000_000;
        s.records.push(later);
        let page = timeline_of(&s, &Origin::default());
        assert!(page.contains(">01-03 00:00</text>"), "{page}");
    }

    /// The time range covers the recording and every window in it.
    #[test]
    fn range_covers_recording_and_windows() {
        let s = one_window(1_000_000_000_000);
        let origin = Origin {
            start_time: Some("1970-01-01T00:16:42Z".into()),
            end_time: Some("1970-01-01T00:16:50Z".into()),
            ..Origin::default()
        };
        assert_eq!(range(&s, &origin), (2_000_000_000, 10_000_000_000));
        assert_eq!(
            range(&s, &Origin::default()),
            (3_000_000_000, 5_000_000_000)
        );
    }
}
