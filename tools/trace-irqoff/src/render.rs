// SPDX-License-Identifier: GPL-2.0
//! The render wing: everything the commands print, pure functions from values to text (or to the values
//! serialised as JSON), so they are tested on fixtures without a module; colour is added
//! only through [`paint`]. They only present: what a view derives from a record or a
//! snapshot (a culprit, a cgroup in words, the precision of lengths, culprit groups) comes
//! worked out from `enrich`, whose values they take. This file holds what several commands
//! share; the `records` view, whose window in full `watch` and the report show too, is
//! [`records_view`].

use std::fmt::Write;

use anstyle::{AnsiColor, Style};

use crate::enrich::{Enriched, Window};
use crate::model::snapshot::{
    Cause, EndedBy, Kind, KindLabel, Record, Snapshot, Stall, Stalls, NR_BUCKETS,
};

pub mod coverage;
pub mod explain_text;
pub mod exposition;
pub mod hist_view;
pub mod journal_entry;
pub mod line;
pub mod live;
pub mod profile;
pub mod prom;
pub mod record_summary;
pub mod records_view;
pub mod report_page;
pub mod status_view;
pub mod tag_wait_metrics;
pub mod tag_wait_text;
pub mod top_view;
pub mod watch_view;

/// Moves the cursor home and clears a terminal, before a refresh.
pub const CLEAR_SCREEN: &str = "\x1b[H\x1b[2J";

/// `text` drawn over the previous screen without clearing it first (no flicker): from the
/// top left, each line cleared to its end, and what is below the text cleared.
pub fn in_place(text: &str) -> String {
    let mut o = String::from("\x1b[H");
    for line in text.lines() {
        o += line;
        o += "\x1b[K\n";
    }
    o + "\x1b[J"
}

pub const BOLD: Style = Style::new().bold();
pub const RED: Style = AnsiColor::Red.on_default().bold();
pub const DIM: Style = Style::new().dimmed();

/// `style` applied to `text`, or plain text when `color` is off.
pub fn paint(color: bool, style: Style, text: &str) -> String {
    if color {
        format!("{style}{text}{style:#}")
    } else {
        text.to_string()
    }
}

pub use crate::model::clock::{ms, secs};

/// Lowest and highest whole unit of log2 bucket `k` (the module's edges).
pub fn bucket_range(k: usize) -> (u64, u64) {
    tio_logic::hist::bucket_range(k)
}

/// A bcc-style log2 histogram of ms, laid out by the module's own code; empty when all
/// counts are zero.
pub fn histogram(header: &str, counts: &[u64]) -> String {
    histogram_unit(header, "msecs", counts)
}

/// [`histogram`] with another unit label (`usecs`).
pub fn histogram_unit(header: &str, unit: &str, counts: &[u64]) -> String {
    let mut out = String::new();
    let _ = tio_logic::hist::render_counts(&mut out, header, unit, counts);
    out
}

/// When the window ended, "  ended 2026-05-07T10:21:33.178514Z (4.033412 s after boot)";
/// for a window still open when it started, "  open since ..."; nothing without a time.
pub fn when(r: &Record) -> String {
    if r.timestamp_ns == 0 {
        return String::new();
    }
    let (what, ns, wall) = if r.ongoing {
        (
            "open since",
            r.timestamp_ns.saturating_sub(r.latency_ns),
            &r.start_wall_time,
        )
    } else {
        ("ended", r.timestamp_ns, &r.wall_time)
    };
    match wall {
        Some(w) => format!("  {what} {w} ({} s after boot)", secs(ns)),
        None => format!("  {what} {} s after boot", secs(ns)),
    }
}

/// Which sampler ended (measured) a window, for its header line: "  by the softirq probe"
/// (`hrtimer`, `probe`, `timer`: see `EndedBy`); "  measured so far by the hrtimer" for a
/// window still open; nothing where the module does not say (before `ended_by`).
pub fn ended_by(r: &Record) -> String {
    match measured_by(r) {
        Some(by) => format!("  {by}"),
        None => String::new(),
    }
}

/// "by the softirq probe", "so far by the hrtimer" (a window still open); none where the
/// module does not say.
pub fn measured_by(r: &Record) -> Option<String> {
    let sampler = match r.ended_by? {
        EndedBy::Hrtimer => "the hrtimer",
        EndedBy::Probe => "the softirq probe",
        EndedBy::Timer => "the timer_list",
    };
    Some(if r.ongoing || r.lower_bound {
        format!("measured so far by {sampler}")
    } else {
        format!("by {sampler}")
    })
}

/// Short form for sentences and columns, to the ms (what the samplers can tell: see
/// `precision`): 99800123 ns -> "100 ms", 48000000 ns -> "48 ms".
pub fn ms_short(ns: u64) -> String {
    format!("{} ms", ns.saturating_add(500_000) / 1_000_000)
}

/// A length for a sentence or a column: 1788332180 ns -> "1.79 s", 250400000 -> "250 ms".
pub fn length(ns: u64) -> String {
    if ns >= 999_500_000 {
        format!("{:.2} s", ns as f64 / 1e9)
    } else {
        ms_short(ns)
    }
}

/// The line that says how exactly the lengths of a view are known (its precision), for
/// windows of `kinds` (repeats and order do not matter; a softirq kind without a cause
/// stands for both causes), hardirq first, the bounds in whole ms rounded outwards as
/// lengths are shown: "true length = LENGTH +0..10 ms (hardirq-off), -8..+12 ms
/// (bh-off)"; wrapped to `cols` (as it is without); empty for the original module or no
/// kind.
pub fn resolution(
    s: &Enriched,
    kinds: impl IntoIterator<Item = (Kind, Option<Cause>)>,
    cols: Option<usize>,
) -> String {
    let Some(res) = s.precision else {
        return String::new();
    };
    let mut v: Vec<(Kind, Option<Cause>)> = Vec::new();
    for k in kinds {
        let k = if k.0 == Kind::Hard {
            (Kind::Hard, None)
        } else {
            k
        };
        if !v.contains(&k) {
            v.push(k);
        }
    }
    if v.is_empty() {
        return String::new();
    }
    v.sort_by_key(|&(k, c)| (k == Kind::Soft, c.map(|c| c == Cause::KsoftirqdWait)));
    let ms = |ns: u64| ns.div_ceil(1_000_000);
    let parts: Vec<String> = v
        .iter()
        .map(|&(k, c)| {
            let b = res.bounds(k, c);
            let name = kind_or_cause(k, c);
            match b.below_ns {
                0 => format!("+0..{} ms ({name})", ms(b.above_ns)),
                n => format!("-{}..+{} ms ({name})", ms(n), ms(b.above_ns)),
            }
        })
        .collect();
    let line = format!("true length = LENGTH {}", parts.join(", "));
    match cols {
        Some(w) => line::wrap(&line, w),
        None => line + "\n",
    }
}

/// [`resolution`] for the finished windows among `v`.
pub fn resolution_of(s: &Enriched, v: &[Window], cols: Option<usize>) -> String {
    resolution(
        s,
        v.iter()
            .filter(|r| !r.ongoing && !r.lower_bound)
            .map(|r| (r.kind, r.cause)),
        cols,
    )
}

/// Stalls in a sentence for on-call readers: "stalls: 5 times no CPU ran (every CPU late
/// together: a paused VM, stop_machine or a lock convoy), longest 302 ms, 1.51 s in all;
/// not irq-off windows where a CPU came back asleep or in user space, kept in its window
/// elsewhere". On bare metal (no hypervisor) no host can pause the machine, and the
/// sentence says the silences stayed in the windows. A length of 0 is one not known (a
/// stall is at least a period long), and left out. None without a stall.
pub fn stall_sentence(st: &Stalls) -> Option<String> {
    if st.count == 0 {
        return None;
    }
    let times = match st.count {
        1 => "once".to_string(),
        n => format!("{n} times"),
    };
    let mut lengths = Vec::new();
    match (st.count, st.longest_ns, st.sum_ns) {
        (1, l, s) if l.max(s) > 0 => lengths.push(length(l.max(s))),
        (_, l, s) => {
            if l > 0 {
                lengths.push(format!("longest {}", length(l)));
            }
            if s > 0 {
                lengths.push(format!("{} in all", length(s)));
            }
        }
    }
    if let Some(t) = &st.latest_end_time {
        lengths.push(format!("the latest ended {t}"));
    }
    let lengths: String = lengths.iter().map(|l| format!(", {l}")).collect();
    if st.hypervisor == Some(false) {
        return Some(format!(
            "silences: {times} no CPU ran (every CPU late together: stop_machine or a lock convoy){lengths}; bare metal, no host can pause it: kept in the windows"
        ));
    }
    Some(format!(
        "stalls: {times} no CPU ran (every CPU late together: a paused VM, stop_machine or a lock convoy){lengths}; not irq-off windows where a CPU came back asleep or in user space, kept in its window elsewhere"
    ))
}

/// One stall in a line, in the columns of [`line::window`] (no CPU, STALL for the kind):
/// " 10:00:08.933 10:00:09.235   - STALL   302 ms  no CPU ran: the whole machine stood
/// still (not an irq-off window)", `*` first when `new`; times as windows show them (UTC
/// to the ms, else seconds since boot). Where the width does not hold the whole sentence,
/// a shorter one that it does.
pub fn stall_line(st: &Stall, new: bool, width: Option<usize>) -> String {
    let start = line::instant(st.start_time.as_deref(), st.start_ns);
    let end = line::instant(st.end_time.as_deref(), st.end_ns);
    let head = line::stall_head(new, &start, &end, &length(st.length_ns), width);
    let room = width.map_or(usize::MAX, |w| w.saturating_sub(head.chars().count()));
    let what = [
        STALL_WHAT,
        "no CPU ran: the whole machine stood still",
        "the machine stood still",
    ]
    .into_iter()
    .find(|w| w.chars().count() <= room)
    .unwrap_or("the machine stood still");
    line::fit(&(head + what), width)
}

/// What a stall is, after its length.
pub const STALL_WHAT: &str = "no CPU ran: the whole machine stood still (not an irq-off window)";

/// One stall for a log (`watch` on a pipe), as [`records_view::record`] heads a window: "STALL 302 ms
/// no CPU ran: the whole machine stood still (not an irq-off window)  ended
/// 2026-05-07T10:00:04.235000Z (4.235000 s after boot)".
pub fn stall_entry(st: &Stall, color: bool) -> String {
    let when = match &st.end_time {
        Some(w) => format!("  ended {w} ({} s after boot)", secs(st.end_ns)),
        None => format!("  ended {} s after boot", secs(st.end_ns)),
    };
    format!(
        "{} {:>8}  {STALL_WHAT}{when}\n",
        paint(color, BOLD, "STALL"),
        length(st.length_ns)
    )
}

/// The kind in one word, a softirq-off window's as its cause: "hardirq-off", "bh-off",
/// "ksoftirqd-wait" (the columns of the one-line and terminal views).
pub fn kind_or_cause(kind: Kind, cause: Option<Cause>) -> &'static str {
    match (kind, cause) {
        (Kind::Soft, Some(c)) => c.name(),
        (k, _) => k.label(),
    }
}

/// Per-kind counts summed over CPUs; softirqs of one cause only with `cause`.
pub fn summed(s: &Snapshot, kind: Kind, cause: Option<Cause>) -> Vec<u64> {
    let mut sum = vec![0u64; NR_BUCKETS];
    for c in &s.cpus {
        for (a, b) in sum.iter_mut().zip(c.hist(kind, cause)) {
            *a += b;
        }
    }
    sum
}

/// "hardirq-off", "softirq-off (bh-off)", "softirq-off (ksoftirqd-wait)".
pub fn kind_cause(kind: Kind, cause: Option<Cause>) -> String {
    match (kind, cause) {
        (Kind::Soft, Some(c)) => format!("{} ({})", kind.label(), c.name()),
        _ => kind.label().to_string(),
    }
}

/// The record's kind with its cause, and for ksoftirqd-wait how long the thread waited:
/// "softirq-off (ksoftirqd-wait, thread runnable 48 ms)".
pub fn record_label(r: &Record) -> String {
    match r.cause {
        Some(Cause::KsoftirqdWait) if r.kind == Kind::Soft && r.runnable_ns > 0 => {
            format!(
                "{} ({}, thread runnable {})",
                r.kind.label(),
                Cause::KsoftirqdWait.name(),
                ms_short(r.runnable_ns)
            )
        }
        c => kind_cause(r.kind, c),
    }
}

/// A window in a sentence: "hardirq-off on CPU 1, 59 ms, sh (pid 117)  ended ..."
/// (`record --until` and `watch --until` say which window ended them, the report titles
/// its windows so); one whose culprit ran in interrupt context names the task it
/// interrupted, not as its doer: "hardirq-off on CPU 1, 120 ms, in an IPI function,
/// interrupting kdamond.0 (pid 54)  ended ...".
pub fn window_sentence(r: &Record) -> String {
    let w = Window::of(r);
    let task = match w.context {
        Some(c) if !w.culprit_comm.is_empty() => format!(
            "in {c}, interrupting {} (pid {})",
            w.culprit_comm, w.culprit_pid
        ),
        Some(c) => format!("in {c}, interrupting {} (pid {})", r.comm, r.pid),
        None => format!("{} (pid {})", r.comm, r.pid),
    };
    format!(
        "{} on CPU {}, {}, {task}{}",
        record_label(r),
        r.cpu,
        length(r.latency_ns),
        when(r)
    )
}

/// The task a record's headline names: "sh (pid 79)"; for ksoftirqd-wait, the task that
/// ran instead of the softirq thread, when sampled: "my hog (pid 131) ran, ksoftirqd/2
/// (pid 24) waited".
pub fn who(r: &Record) -> String {
    if r.cause == Some(Cause::KsoftirqdWait) && r.window_pid != 0 && r.window_pid != r.pid {
        format!(
            "{} (pid {}) ran, {} (pid {}) waited",
            r.window_comm, r.window_pid, r.comm, r.pid
        )
    } else {
        format!("{} (pid {})", r.comm, r.pid)
    }
}

/// "overlaps hardirq-off on CPU 1, 100 ms, irq_test", or "overlaps hardirq-off on CPU 1"
/// when that CPU's record was not found.
pub fn overlap(r: &Record) -> Option<String> {
    let o = r.overlap.as_ref()?;
    let mut s = format!("overlaps {} on CPU {}", o.kind.label(), o.cpu);
    if let Some(ns) = o.latency_ns {
        s += &format!(", {}", ms_short(ns));
        if !o.comm.is_empty() {
            s += &format!(", {}", o.comm);
        }
    }
    Some(s)
}

/// "every CPU was late together for 141 ms of it: a host pause, stop_machine or a lock
/// convoy (not told apart)", for a window that kept such a span (`Record::together_ns`);
/// without "a host pause" on bare metal (`hypervisor` false: no host can pause it).
pub fn together(r: &Record, hypervisor: Option<bool>) -> Option<String> {
    let host = if hypervisor == Some(false) {
        ""
    } else {
        "a host pause, "
    };
    (r.together_ns > 0).then(|| {
        format!(
            "every CPU was late together for {} of it: {host}stop_machine or a lock convoy (not told apart)",
            ms_short(r.together_ns)
        )
    })
}

/// A record's length: "107 ms", or "57 ms+" for a lower bound (a window still open).
pub fn latency(r: &Record) -> String {
    let plus = if r.lower_bound { "+" } else { "" };
    format!("{}{plus}", length(r.latency_ns))
}

/// One frame at `indent`, with its source lines where known: the innermost location on
/// the frame's line, and the functions it is inlined into below it, as
/// scripts/faddr2line shows them.
pub fn frame_with_lines(
    out: &mut String,
    indent: &str,
    f: &str,
    lines: &[crate::model::snapshot::SourceLine],
) {
    match lines {
        [] => {
            let _ = writeln!(out, "{indent}{f}");
        }
        [one] => {
            let _ = writeln!(out, "{indent}{f}  {}:{}", one.file, one.line);
        }
        [inner, outer @ ..] => {
            let _ = writeln!(
                out,
                "{indent}{f}  {} at {}:{}",
                inner.function, inner.file, inner.line
            );
            for l in outer {
                let _ = writeln!(
                    out,
                    "{indent}  (inlined by) {} at {}:{}",
                    l.function, l.file, l.line
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Claim: a histogram renders in the module's own layout: a "msecs : count
    /// distribution" header, rows from the first to the last nonzero bucket with bars
    /// scaled to the largest count; all-zero counts render as nothing, and another unit
    /// (usecs) replaces the header's msecs.
    #[test]
    fn histogram_matches_module_layout() {
        let mut c = vec![0; NR_BUCKETS];
        c[4] = 1;
        c[6] = 4;
        let expected = "hardirq-off:\n         msecs           : count     distribution\n        16 -> 31         : 1        |**********                              |\n        32 -> 63         : 0        |                                        |\n        64 -> 127        : 4        |****************************************|\n";
        assert_eq!(histogram("hardirq-off:", &c), expected);
        assert_eq!(histogram("x", &[0; 3]), "");
        assert!(histogram_unit("d:", "usecs", &c).contains("         usecs "));
    }

    /// Claim: the resolution line names each kind present once, hardirq first, in whole ms
    /// rounded outwards (P = 10 ms at HZ 250), wraps to a width, and is empty without a
    /// kind or for the original module (no HZ).
    #[test]
    fn resolution_line_of_present_kinds() {
        let mut s = v2();
        s.config = crate::enrich::precision::tests::config(10, 250);
        let kinds = [
            (Kind::Soft, Some(Cause::KsoftirqdWait)),
            (Kind::Hard, None),
            (Kind::Soft, Some(Cause::BhOff)),
            (Kind::Hard, None),
        ];
        assert_eq!(resolution(&crate::enrich::snapshot(&s), kinds, None), "true length = LENGTH +0..10 ms (hardirq-off), -8..+12 ms (bh-off), -8..+25 ms (ksoftirqd-wait)\n");
        assert_eq!(resolution(&crate::enrich::snapshot(&s), kinds, Some(80)), "true length = LENGTH +0..10 ms (hardirq-off), -8..+12 ms (bh-off), -8..+25 ms\n  (ksoftirqd-wait)\n");
        assert_eq!(resolution(&crate::enrich::snapshot(&s), [], None), "");
        s.config.hz = 0;
        assert_eq!(resolution(&crate::enrich::snapshot(&s), kinds, None), "");
    }

    /// Claim: the stall sentence says how often no CPU ran, the longest, the total and
    /// (with a clock) when the latest ended, in plain words, and that these are not irq-off
    /// windows; one stall is "once" with its length; unknown lengths (0) are left out; no
    /// stall, no sentence.
    #[test]
    fn stall_sentences() {
        let mut st = Stalls {
            count: 5,
            over_threshold: 3,
            sum_ns: 1_510_000_000,
            longest_ns: 302_000_000,
            latest_start_ns: 1,
            latest_end_ns: 2,
            latest_end_time: None,
            hypervisor: Some(true),
        };
        const VM: &str = "not irq-off windows where a CPU came back asleep or in user space, kept in its window elsewhere";
        assert_eq!(
            stall_sentence(&st),
            Some(format!("stalls: 5 times no CPU ran (every CPU late together: a paused VM, stop_machine or a lock convoy), longest 302 ms, 1.51 s in all; {VM}"))
        );
        st.latest_end_time = Some("2026-05-07T10:00:09.235000Z".into());
        assert!(stall_sentence(&st).unwrap().ends_with(&format!(
            ", 1.51 s in all, the latest ended 2026-05-07T10:00:09.235000Z; {VM}"
        )));
        // Bare metal: no stall can be; the silences stayed in the windows.
        let metal = Stalls {
            hypervisor: Some(false),
            latest_end_time: None,
            ..st.clone()
        };
        assert_eq!(
            stall_sentence(&metal).as_deref(),
            Some("silences: 5 times no CPU ran (every CPU late together: stop_machine or a lock convoy), longest 302 ms, 1.51 s in all; bare metal, no host can pause it: kept in the windows")
        );
        let one = Stalls {
            count: 1,
            sum_ns: 302_000_000,
            longest_ns: 302_000_000,
            latest_end_time: None,
            ..st.clone()
        };
        assert_eq!(
            stall_sentence(&one),
            Some(format!("stalls: once no CPU ran (every CPU late together: a paused VM, stop_machine or a lock convoy), 302 ms; {VM}"))
        );
        let unknown = Stalls {
            count: 3,
            ..Stalls::default()
        };
        assert_eq!(
            stall_sentence(&unknown),
            Some(format!("stalls: 3 times no CPU ran (every CPU late together: a paused VM, stop_machine or a lock convoy); {VM}"))
        );
        assert_eq!(stall_sentence(&Stalls::default()), None);
    }

    /// Claim: a stall's line in `watch` has the windows' columns and time format (UTC to
    /// the ms, seconds since boot without a clock), no CPU, STALL for its kind, and says
    /// it is no irq-off window; in a narrow terminal a shorter sentence that fits; on a pipe
    /// its entry ends as a window's does.
    #[test]
    fn stall_lines() {
        let st = Stall::new(Some(1), 8_933_000_000, 9_235_000_000);
        assert_eq!(
            stall_line(&st, false, None),
            " 8.933        9.235          - STALL             302 ms  no CPU ran: the whole machine stood still (not an irq-off window)"
        );
        let st = st.stamped(&crate::model::clock::Clock::anchored(
            1_778_148_000_000_000_000,
        ));
        // 80 columns: one time column (the end), as a window's line there.
        assert_eq!(
            stall_line(&st, true, Some(100)),
            "*10:00:09.235   - STALL           302 ms      no CPU ran: the whole machine stood still"
        );
        let narrow = stall_line(&st, false, Some(80));
        assert_eq!(
            narrow,
            " 10:00:09.235   - STALL           302 ms      the machine stood still"
        );
        assert!(narrow.chars().count() <= 80);
        // The same columns as a window's line, whatever the width.
        for w in [None, Some(80), Some(120)] {
            assert_eq!(
                line::header(w).find("LENGTH").map(|i| i + "LENGTH".len()),
                stall_line(&st, false, w)
                    .find(" ms")
                    .map(|i| i + " ms".len()),
                "{w:?}"
            );
        }
        assert_eq!(
            stall_entry(&st, false),
            "STALL   302 ms  no CPU ran: the whole machine stood still (not an irq-off window)  ended 2026-05-07T10:00:09.235000Z (9.235000 s after boot)\n"
        );
    }

    /// Claim: nanosecond lengths render as ms with three decimals and as seconds with six
    /// (both cut, not rounded), as whole ms rounded half up, and (for `length`) as
    /// seconds with two decimals from 999.5 ms on.
    #[test]
    fn durations() {
        assert_eq!(ms(107_234_567), "107.234 ms");
        assert_eq!(secs(4_033_490_648), "4.033490");
        assert_eq!(ms_short(99_800_123), "100 ms");
        assert_eq!(ms_short(99_499_999), "99 ms");
        assert_eq!(length(999_499_999), "999 ms");
        assert_eq!(length(999_500_000), "1.00 s");
        assert_eq!(length(2_504_000_000), "2.50 s");
        assert_eq!(ms_short(48_000_000), "48 ms");
        assert_eq!(ms_short(48_960_000), "49 ms");
        assert_eq!(ms_short(0), "0 ms");
    }

    pub(super) fn v2() -> Snapshot {
        crate::parse::records::parse(include_str!("../tests/fixtures/records-v2.txt")).unwrap()
    }

    /// Claim: a v2 softirq-off record's label names its cause (bh-off, ksoftirqd-wait)
    /// and, when the thread was runnable, for how long; a hardirq-off record's label is
    /// just its kind.
    #[test]
    fn labels_name_the_cause() {
        let s = v2();
        let labels: Vec<String> = s.records.iter().map(record_label).collect();
        assert_eq!(
            labels,
            [
                "softirq-off (bh-off)",
                "hardirq-off",
                "softirq-off (ksoftirqd-wait, thread runnable 48 ms)",
                "softirq-off (ksoftirqd-wait)",
                "softirq-off (bh-off)"
            ]
        );
    }

    /// Claim: a record that overlaps another window says so with that window's kind and
    /// CPU, plus its length and task when known; a record without an overlap gives no
    /// sentence.
    #[test]
    fn overlap_sentences() {
        let s = v2();
        assert_eq!(
            overlap(&s.records[0]).as_deref(),
            Some("overlaps hardirq-off on CPU 1, 100 ms, irq_test")
        );
        assert_eq!(
            overlap(&s.records[2]).as_deref(),
            Some("overlaps softirq-off on CPU 3")
        );
        assert_eq!(overlap(&s.records[3]), None);
    }

    /// Claim: a window that kept a span in which every CPU was late together says so, with
    /// that span's length and the three things it may have been (on a VM, or a module that
    /// does not say), the two but a host pause on bare metal; one without says nothing.
    #[test]
    fn together_sentence() {
        let s = v2();
        let mut r = s.records[0].clone();
        assert_eq!(together(&r, None), None);
        r.together_ns = 141_000_000;
        for vm in [None, Some(true)] {
            assert_eq!(
                together(&r, vm).as_deref(),
                Some("every CPU was late together for 141 ms of it: a host pause, stop_machine or a lock convoy (not told apart)")
            );
        }
        assert_eq!(
            together(&r, Some(false)).as_deref(),
            Some("every CPU was late together for 141 ms of it: stop_machine or a lock convoy (not told apart)")
        );
    }

    /// `r` made a window whose end did not show its culprit, irqctx_spin, sampled in a
    /// hard hrtimer callback that interrupted kdamond.0 (pid 54).
    pub(super) fn in_a_hard_hrtimer_callback(r: &mut Record) {
        r.end_shows_culprit = false;
        r.window_pid = 54;
        r.window_comm = "kdamond.0".into();
        r.window_stack = vec![
            "irqctx_spin+0x10/0x40 [irqctx]".into(),
            "__hrtimer_run_queues+0x110/0x2a0".into(),
            "hrtimer_interrupt+0xf8/0x230".into(),
        ];
    }

    /// Claim: the sentence `record --until`, `watch --until` and the report's windows
    /// use names a window's task as its doer only in task context; a window whose culprit
    /// ran in a hard hrtimer callback is said to be in it, interrupting that task.
    #[test]
    fn a_window_sentence_in_interrupt_context_names_the_interrupted_task() {
        let s = v2();
        let mut r = s.records[1].clone();
        let own = window_sentence(&r);
        assert!(
            own.starts_with("hardirq-off on CPU 1, 100 ms, irq_test (pid 90)  ended"),
            "{own}"
        );
        in_a_hard_hrtimer_callback(&mut r);
        let l = window_sentence(&r);
        assert!(
            l.starts_with("hardirq-off on CPU 1, 100 ms, in a hard hrtimer callback, interrupting kdamond.0 (pid 54)  ended"),
            "{l}"
        );
    }
}
