// SPDX-License-Identifier: GPL-2.0
//! One line per window: when it started and ended, its CPU, kind or cause, length, task
//! and culprit, cut to a width. What `watch` shows on a terminal, where a screen must
//! hold the newest windows with the header (like `perf script` or criticalstat).

use crate::model::snapshot::{Record, Snapshot};

/// The column header of [`window`]'s lines.
pub fn header(width: Option<usize>) -> String {
    let h = format!(
        " {:<12} {:<12} {:>3} {:<14} {:>9}  {}",
        "START (UTC)", "END", "CPU", "KIND", "LENGTH", "CULPRIT TASK[PID]"
    );
    fit(&h, width)
}

/// One window in a line: " 10:00:03.933 10:00:04.033   0 bh-off            100 ms
/// irqoff_sample_softirq_window sh[79]", `*` first when `new`; a window still open
/// ends "open" and its length is a lower bound ("+"). Times are UTC to the ms (since boot
/// in seconds when the record has no wall time); the culprit and task are those of the
/// stack that names the culprit (`culprit::source`), the culprit with mechanism frames
/// skipped, as in `top`. The culprit comes before the task, so that a cut takes the task.
pub fn window(r: &Record, new: bool, width: Option<usize>) -> String {
    let (start, end) = times(r);
    let kind = super::kind_or_cause(r.kind, r.cause);
    let mut length = super::length(r.latency_ns);
    if r.ongoing || r.lower_bound {
        length.push('+');
    }
    let (stack, comm) = crate::culprit::source(r);
    let pid = if comm == r.window_comm && r.window_pid != 0 {
        r.window_pid
    } else {
        r.pid
    };
    let culprit = crate::culprit::label(crate::culprit::name_in(stack, r, "-"), r);
    // The cgroup is the record's task's (`pid`): said after it, whoever is shown.
    let cgroup = crate::cgroup::short(r).map_or(String::new(), |c| format!(" in {c}"));
    let line = format!(
        "{}{start:<12} {end:<12} {:>3} {kind:<14} {length:>9}  {culprit} {}[{pid}]{cgroup}",
        if new { '*' } else { ' ' },
        r.cpu,
        if comm.is_empty() { "?" } else { comm },
    );
    fit(&line, width)
}

/// `records --oneline`: the header, then one line per record of `v` (in its order), or
/// "no records" as [`super::records`] says it.
pub fn table(v: &[Record], s: &Snapshot, width: Option<usize>, color: bool) -> String {
    if v.is_empty() {
        return super::records(v, s, 0, color);
    }
    let mut o = super::paint(color, super::BOLD, &header(width)) + "\n";
    for r in v {
        o += &window(r, false, width);
        o.push('\n');
    }
    o + &super::resolution_of(s, v, width)
}

/// Start and end as "HH:MM:SS.mmm" UTC, or seconds since boot without a wall time.
fn times(r: &Record) -> (String, String) {
    let open = r.ongoing || r.lower_bound;
    let start = instant(
        r.start_wall_time.as_deref(),
        r.timestamp_ns.saturating_sub(r.latency_ns),
    );
    let end = instant(r.wall_time.as_deref(), r.timestamp_ns);
    (start, if open { "open".into() } else { end })
}

/// An instant as the window lines show it: "HH:MM:SS.mmm" of its RFC 3339 UTC `wall` time,
/// or without one `ns` since boot as seconds to the ms.
pub fn instant(wall: Option<&str>, ns: u64) -> String {
    match wall {
        Some(w) => w.get(11..23).unwrap_or("?").to_string(),
        None => format!(
            "{}.{:03}",
            ns / 1_000_000_000,
            (ns % 1_000_000_000) / 1_000_000
        ),
    }
}

/// `line` cut to `width` characters (the last one an ellipsis when cut); as it is without
/// a width.
pub fn fit(line: &str, width: Option<usize>) -> String {
    match width {
        Some(w) if w > 0 && line.chars().count() > w => {
            let mut s: String = line.chars().take(w - 1).collect();
            s.push('\u{2026}');
            s
        }
        _ => line.to_string(),
    }
}

/// `line` wrapped at spaces to `width` columns, each continuation two columns in; every
/// line of the result ends in a newline. A word longer than a line is cut ([`fit`]).
pub fn wrap(line: &str, width: usize) -> String {
    let rest = line.trim_start_matches(' ');
    let mut cur = line[..line.len() - rest.len()].to_string();
    let mut started = false;
    let mut o = String::new();
    for word in rest.split(' ') {
        if started && cur.chars().count() + 1 + word.chars().count() > width {
            o += &fit(&cur, Some(width));
            o.push('\n');
            cur = format!("  {word}");
        } else {
            if started {
                cur.push(' ');
            }
            cur += word;
        }
        started = true;
    }
    o += &fit(&cur, Some(width));
    o.push('\n');
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::snapshot::{Cause, Kind};

    fn record(kind: Kind, cause: Option<Cause>, latency_ns: u64) -> Record {
        Record {
            cpu: 3,
            kind,
            cause,
            lower_bound: false,
            latency_ns,
            timestamp_ns: 4_033_490_000,
            wall_time: Some("2026-05-07T10:00:04.033490Z".into()),
            start_wall_time: Some("2026-05-07T10:00:03.933379Z".into()),
            pid: 79,
            comm: "sh".into(),
            runnable_ns: 0,
            stack: vec![
                "__local_bh_enable_ip+0x5e/0x80".into(),
                "irqoff_sample_softirq_window+0x2d/0x53 [irqoff_sample]".into(),
            ],
            end_shows_culprit: true,
            window_pid: 0,
            window_comm: String::new(),
            window_stack: vec![],
            overlap: None,
            ongoing: false,
            profile: None,
            true_latency_min_ns: None,
            true_latency_max_ns: None,
            cgroup_id: None,
            cgroup: None,
            cgroup_class: None,
            cgroup_gone: false,
            build_ids: Default::default(),
            lines: Default::default(),
        }
    }

    /// Claim: a finished window shows start and end (end minus length), CPU, cause, length,
    /// task and the culprit past the mechanism frame, in one line.
    #[test]
    fn a_window_in_one_line() {
        let l = window(
            &record(Kind::Soft, Some(Cause::BhOff), 100_111_000),
            false,
            None,
        );
        assert_eq!(l, " 10:00:03.933 10:00:04.033   3 bh-off            100 ms  irqoff_sample_softirq_window sh[79]");
    }

    /// Claim: an open window says so in place of its end, its length a lower bound, and a
    /// new one is starred.
    #[test]
    fn an_open_window_is_open_and_its_length_a_lower_bound() {
        let mut r = record(Kind::Hard, None, 1_500_000_000);
        r.start_wall_time = Some("2026-05-07T10:00:02.533490Z".into());
        r.ongoing = true;
        let l = window(&r, true, None);
        assert!(l.starts_with("*10:00:02.533 open           3 hardirq-off      1.50 s+  irqoff_sample_softirq_window sh[79]"), "{l}");
    }

    /// Claim: with a width, no line is longer, and a cut line ends in an ellipsis.
    #[test]
    fn lines_fit_the_width() {
        let l = window(
            &record(Kind::Soft, Some(Cause::KsoftirqdWait), 52_004_000),
            false,
            Some(80),
        );
        assert_eq!(l.chars().count(), 80);
        assert!(l.ends_with('\u{2026}'));
        assert!(header(Some(40)).chars().count() <= 40);
        assert_eq!(fit("short", Some(80)), "short");
    }

    /// Claim: a long line wraps at spaces within the width, continued two columns in; a
    /// short one is unchanged; leading spaces stay.
    #[test]
    fn long_lines_wrap_at_spaces() {
        let line = "CPU 1: hard interrupts off for 1.79 s and counting \u{2014} sh (pid 63) in irqoff_sample_hardirq_window (107 in-window samples, watched by CPU 0)";
        let w = wrap(line, 40);
        assert!(w.lines().all(|l| l.chars().count() <= 40), "{w}");
        assert!(
            w.lines().count() >= 4 && w.lines().skip(1).all(|l| l.starts_with("  ")),
            "{w}"
        );
        assert_eq!(
            w.split_whitespace().collect::<Vec<_>>(),
            line.split_whitespace().collect::<Vec<_>>(),
            "{w}"
        );
        assert_eq!(wrap("short", 40), "short\n");
        assert_eq!(wrap("  indented", 40), "  indented\n");
    }

    /// Claim: without a wall time, times are seconds since boot.
    #[test]
    fn without_wall_time_seconds_since_boot() {
        let mut r = record(Kind::Hard, None, 33_490_000);
        r.wall_time = None;
        r.start_wall_time = None;
        assert!(
            window(&r, false, None).starts_with(" 4.000        4.033"),
            "{}",
            window(&r, false, None)
        );
    }
}
