// SPDX-License-Identifier: GPL-2.0
//! One line per window: when it ended (and on a wide terminal when it started), its CPU,
//! kind or cause, length, whether it was a lock wait, culprit and task, fitted to a width.
//! What `watch` and `records` show on a terminal, where a screen must hold the newest
//! windows with the header (like `perf script` or criticalstat). On an 80-column terminal
//! the culprit is cut from the middle, so that its function's own name (the tail), the
//! task and its pid stay whole.
//!
//! A window whose culprit ran in interrupt context (an IPI function, a tasklet, a hard
//! hrtimer callback: `Window::context`) was not the task's doing: the task is the one the
//! interrupt came upon. Without a width the line says so in words ("irqctx_spin in an IPI
//! function, interrupting kdamond.0[54]"); on a terminal, where the room is the culprit's,
//! the task is marked [`INTERRUPTED`] ("irqctx_spin interrupted kdamond.0[54]").

use crate::enrich::{Enriched, Window};
use crate::model::snapshot::Record;

/// From this width on, the terminal views show when a window started as well as when it
/// ended, and its task's cgroup.
pub const WIDE: usize = 120;

/// The WAIT column with the space after it, on a terminal: `{wait:<4} `.
const WAIT_COLUMN: usize = 5;

/// The least a cut culprit keeps, in columns.
const MIN_CULPRIT: usize = 16;

/// Before the task on a terminal, for a window in interrupt context: the culprit
/// interrupted the task, which did not do it. Kept whole where the task is cut.
pub const INTERRUPTED: &str = "interrupted ";

/// How a line is laid out: without a width (a pipe with `--oneline`) the columns as they
/// always were, every field whole; on a terminal, narrow (one time column) or wide.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Layout {
    Whole,
    Narrow(usize),
    Wide(usize),
}

fn layout(width: Option<usize>) -> Layout {
    match width {
        None | Some(0) => Layout::Whole,
        Some(w) if w >= WIDE => Layout::Wide(w),
        Some(w) => Layout::Narrow(w),
    }
}

/// The columns before the culprit, shared by windows and stalls: `new` star, times, CPU,
/// kind, length and the wait mark ("lock" for a lock wait, "all" for a window over which
/// every CPU was late together).
struct Head<'a> {
    new: bool,
    start: &'a str,
    end: &'a str,
    cpu: &'a str,
    kind: &'a str,
    length: &'a str,
    wait: &'a str,
}

impl Head<'_> {
    fn text(&self, l: Layout) -> String {
        let star = if self.new { '*' } else { ' ' };
        let Head {
            start,
            end,
            cpu,
            kind,
            length,
            wait,
            ..
        } = self;
        match l {
            Layout::Whole => {
                format!("{star}{start:<12} {end:<12} {cpu:>3} {kind:<14} {length:>9}  ")
            }
            Layout::Wide(_) => {
                format!("{star}{start:<12} {end:<12} {cpu:>3} {kind:<14} {length:>7} {wait:<4} ")
            }
            Layout::Narrow(_) => {
                format!("{star}{end:<12} {cpu:>3} {kind:<14} {length:>7} {wait:<4} ")
            }
        }
    }
}

/// The column header of [`window`]'s lines: "... CULPRIT TASK[PID]", the task after
/// [`INTERRUPTED`] where the culprit ran in interrupt context.
pub fn header(width: Option<usize>) -> String {
    let l = layout(width);
    let (start, end) = match l {
        Layout::Narrow(_) => ("", "END (UTC)"),
        _ => ("START (UTC)", "END"),
    };
    let head = Head {
        new: false,
        start,
        end,
        cpu: "CPU",
        kind: "KIND",
        length: "LENGTH",
        wait: "WAIT",
    }
    .text(l);
    fit(&format!("{head}CULPRIT TASK[PID]"), width)
}

/// One window in a line: " 10:00:03.933 10:00:04.033   0 bh-off            100 ms
/// irqoff_sample_softirq_window sh[79]" without a width, `*` first when `new`; a window
/// still open ends "open" and its length is a lower bound ("+"). Times are UTC to the ms
/// (since boot in seconds when the record has no wall time); the culprit and task are
/// those of the stack that names the culprit ([`Window`]), the culprit with
/// mechanism frames skipped, as in `top`. Without a width a lock wait is said after the
/// culprit ("(lock wait)"), a window every CPU had at once at the end ("(every CPU late
/// together)"); on a terminal in the WAIT column ("lock", "all"), and narrower than
/// [`WIDE`] the start is left out. Where the width does not hold the line, the culprit is
/// cut from the middle (its function's own name, the tail, stays), not the task. A
/// window in interrupt context names its task as the one interrupted: "irqctx_spin in
/// an IPI function, interrupting kdamond.0[54]" without a width, "irqctx_spin
/// interrupted kdamond.0[54]" ([`INTERRUPTED`]) on a terminal.
pub fn window(r: &Window, new: bool, width: Option<usize>) -> String {
    let (start, end) = times(r);
    let kind = super::kind_or_cause(r.kind, r.cause);
    let mut length = super::length(r.latency_ns);
    if r.ongoing || r.lower_bound {
        length.push('+');
    }
    let (comm, pid) = (r.culprit_comm, r.culprit_pid);
    let name = r.name("-");
    let lock = r.lock_wait;
    // The cgroup is the record's task's (`pid`): said after it, whoever is shown.
    let cgroup = r
        .cgroup_short
        .as_ref()
        .map_or(String::new(), |c| format!(" in {c}"));
    let task = format!("{}[{pid}]", if comm.is_empty() { "?" } else { comm });
    let l = layout(width);
    let head = Head {
        new,
        start: &start,
        end: &end,
        cpu: &r.cpu.to_string(),
        kind,
        length: &length,
        wait: if lock {
            "lock"
        } else if r.together_ns > 0 {
            "all"
        } else {
            ""
        },
    }
    .text(l);
    let wait_empty = !lock && r.together_ns == 0;
    match l {
        Layout::Whole => {
            let culprit = r.label("-");
            let together = if r.together_ns > 0 {
                " (every CPU late together)"
            } else {
                ""
            };
            // In interrupt context the task was interrupted: it did not do it.
            let task = match r.context {
                Some(c) => format!("in {c}, interrupting {task}"),
                None => task,
            };
            format!("{head}{culprit} {task}{cgroup}{together}")
        }
        Layout::Narrow(w) | Layout::Wide(w) => {
            let cgroup = if matches!(l, Layout::Wide(_)) {
                cgroup
            } else {
                String::new()
            };
            let mark = if r.context.is_some() { INTERRUPTED } else { "" };
            let mut head = head;
            let room = w.saturating_sub(head.chars().count());
            let mut tail = task_fitted(mark, &task, &cgroup, name.chars().count(), room);
            // An empty WAIT column lends its room to a culprit or a task that would be cut.
            let cut = name.chars().count() + 1 + tail.chars().count() > room
                || tail.chars().count() < mark.len() + task.chars().count();
            if wait_empty && cut {
                head.truncate(head.len() - WAIT_COLUMN);
                let room = w.saturating_sub(head.chars().count());
                tail = task_fitted(mark, &task, &cgroup, name.chars().count(), room);
            }
            let room = w.saturating_sub(head.chars().count());
            let culprit = middle(name, room.saturating_sub(tail.chars().count() + 1));
            fit(&format!("{head}{culprit} {tail}"), width)
        }
    }
}

/// The columns of a stall's line before what it says, as [`window`]'s for `width`: no
/// CPU ("-"), STALL for the kind.
pub fn stall_head(new: bool, start: &str, end: &str, length: &str, width: Option<usize>) -> String {
    Head {
        new,
        start,
        end,
        cpu: "-",
        kind: "STALL",
        length,
        wait: "",
    }
    .text(layout(width))
}

/// The task after its `mark` ([`INTERRUPTED`] or nothing), and the cgroup where it fits,
/// after a culprit of `culprit` columns in `room`: the cgroup goes first, then the comm is
/// cut so that the culprit keeps [`MIN_CULPRIT`]; the mark and the pid are not cut (the
/// culprit gives way below its floor where they need it), unless `room` holds no more.
fn task_fitted(mark: &str, task: &str, cgroup: &str, culprit: usize, room: usize) -> String {
    let want = culprit.min(MIN_CULPRIT) + 1;
    let whole = format!("{mark}{task}");
    let with = format!("{whole}{cgroup}");
    if want + with.chars().count() <= room {
        return with;
    }
    if want + whole.chars().count() <= room {
        return whole;
    }
    let (comm, pid) = task.split_at(task.rfind('[').unwrap_or(task.len()));
    let fixed = mark.chars().count() + pid.chars().count();
    // At least one column of the comm (its ellipsis), where a column of culprit is left.
    let keep = room
        .saturating_sub(want)
        .max((fixed + 1).min(room.saturating_sub(2)));
    if keep > fixed {
        return format!("{mark}{}{pid}", fit(comm, Some(keep - fixed)));
    }
    fit(&whole, Some(keep.max(1)))
}

/// `name` cut from the middle to `room` columns: its start and, longer, its end (where a
/// function's own name is: `irqoff_sa…_hardirq_window`), an ellipsis between; whole where
/// it fits.
pub fn middle(name: &str, room: usize) -> String {
    let n = name.chars().count();
    if n <= room {
        return name.to_string();
    }
    if room < 2 {
        return "\u{2026}".repeat(room);
    }
    let keep = room - 1;
    let head = keep / 4;
    let tail = keep - head;
    let mut s: String = name.chars().take(head).collect();
    s.push('\u{2026}');
    s.extend(name.chars().skip(n - tail));
    s
}

/// The notes a view that clears the screen says again below its title ("note: sampling
/// is disabled: ..."), each wrapped to `cols`.
pub fn notes(notes: &[String], cols: usize) -> String {
    notes
        .iter()
        .map(|n| wrap(&format!("note: {n}"), cols))
        .collect()
}

/// What a live view (`watch`, `top --live`) saw, for the line it ends with: windows by
/// kind or cause, the longest, and on how many CPUs (as `rtla` ends its runs).
#[derive(Debug, Default, Clone)]
pub struct Tally {
    /// Kind or cause and how many, in the order first seen.
    pub by_kind: Vec<(&'static str, u64)>,
    /// The longest: its length, kind or cause, and CPU.
    pub longest: Option<(u64, &'static str, u32)>,
    pub cpus: std::collections::BTreeSet<u32>,
}

impl Tally {
    /// Counts `n` windows of `kind` on `cpu`, the longest of them `max_ns` long.
    pub fn add(&mut self, kind: &'static str, cpu: u32, n: u64, max_ns: Option<u64>) {
        if n == 0 {
            return;
        }
        match self.by_kind.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, c)) => *c += n,
            None => self.by_kind.push((kind, n)),
        }
        self.cpus.insert(cpu);
        if let Some(ns) = max_ns {
            if self.longest.is_none_or(|(l, _, _)| ns > l) {
                self.longest = Some((ns, kind, cpu));
            }
        }
    }

    /// "watch: 12.0 s, 23 windows (16 hardirq-off, 7 bh-off), longest 302 ms
    /// (hardirq-off, CPU 1), on 2 CPUs", wrapped to `cols` where given; `what` is the
    /// command and `span` how long it ran.
    pub fn summary(&self, what: &str, span: std::time::Duration, cols: Option<usize>) -> String {
        let total: u64 = self.by_kind.iter().map(|(_, n)| n).sum();
        let mut l = format!("{what}: {:.1} s, ", span.as_secs_f64());
        if total == 0 {
            l += "no window ended in that time";
        } else {
            let kinds: Vec<String> = self
                .by_kind
                .iter()
                .map(|(k, n)| format!("{n} {k}"))
                .collect();
            l += &format!(
                "{total} window{} ({})",
                if total == 1 { "" } else { "s" },
                kinds.join(", ")
            );
            if let Some((ns, k, cpu)) = self.longest {
                l += &format!(", longest {} ({k}, CPU {cpu})", super::length(ns));
            }
            let n = self.cpus.len();
            l += &format!(", on {n} CPU{}", if n == 1 { "" } else { "s" });
        }
        match cols {
            Some(w) => wrap(&l, w),
            None => l + "\n",
        }
    }
}

/// `records --oneline`: the header, then one line per record of `v` (in its order), or
/// "no records" as [`super::records_view::records`] says it.
pub fn table(v: &[Window], s: &Enriched, width: Option<usize>, color: bool) -> String {
    if v.is_empty() {
        return super::records_view::records(v, s, 0, color);
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

/// `text` without its SGR escapes (`ESC [ ... m`).
pub fn strip_escapes(text: &str) -> String {
    let mut o = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' && chars.peek() == Some(&'[') {
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            o.push(c);
        }
    }
    o
}

/// Every line of `text` that is wider on screen than `cols` (escapes take no room)
/// wrapped to it ([`wrap`], without its colour); the others as they are. Without a width,
/// `text` as it is. For the summaries and hints commands end with.
pub fn fitted(text: &str, cols: Option<usize>) -> String {
    let Some(w) = cols.filter(|w| *w > 0) else {
        return text.to_string();
    };
    let mut o = String::new();
    for l in text.lines() {
        let plain = strip_escapes(l);
        if plain.chars().count() <= w {
            o += l;
            o.push('\n');
        } else {
            o += &wrap(&plain, w);
        }
    }
    o
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
            together_ns: 0,
            ended_by: None,
            stop_callback: false,
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
            &Window::of(&record(Kind::Soft, Some(Cause::BhOff), 100_111_000)),
            false,
            None,
        );
        assert_eq!(l, " 10:00:03.933 10:00:04.033   3 bh-off            100 ms  irqoff_sample_softirq_window sh[79]");
    }

    /// Claim: a window over which every CPU was late together (`together_ns`) says so: at
    /// the end of the line on a pipe, as "all" in the WAIT column on a terminal.
    #[test]
    fn a_window_every_cpu_had_says_so() {
        let mut r = record(Kind::Hard, None, 145_000_000);
        r.together_ns = 140_000_000;
        let l = window(&Window::of(&r), false, None);
        assert!(l.ends_with(" sh[79] (every CPU late together)"), "{l}");
        let l = window(&Window::of(&r), false, Some(80));
        assert!(l.contains(" hardirq-off     145 ms all  irqoff"), "{l}");
        assert!(l.chars().count() <= 80, "{l}");
    }

    /// Claim: an open window says so in place of its end, its length a lower bound, and a
    /// new one is starred.
    #[test]
    fn an_open_window_is_open_and_its_length_a_lower_bound() {
        let mut r = record(Kind::Hard, None, 1_500_000_000);
        r.start_wall_time = Some("2026-05-07T10:00:02.533490Z".into());
        r.ongoing = true;
        let l = window(&Window::of(&r), true, None);
        assert!(l.starts_with("*10:00:02.533 open           3 hardirq-off      1.50 s+  irqoff_sample_softirq_window sh[79]"), "{l}");
    }

    /// Claim: on an 80-column terminal a window's line has one time column (the end),
    /// keeps the culprit's own name (its tail), the task and pid, and fits; a lock wait is
    /// marked in the WAIT column; at 120 columns both times come back and the culprit is
    /// whole. A line that had to be cut at the end would lose `sh[79]`.
    #[test]
    fn lines_fit_the_width() {
        let mut r = record(Kind::Soft, Some(Cause::BhOff), 100_111_000);
        r.comm = "irq_test".into();
        r.pid = 1234;
        let l = window(&Window::of(&r), false, Some(80));
        assert!(l.chars().count() <= 80, "{l}");
        assert!(
            l.starts_with(" 10:00:04.033   3 bh-off          100 ms irqof\u{2026}"),
            "{l}"
        );
        assert!(l.ends_with("softirq_window irq_test[1234]"), "{l}");
        // A comm so long that the culprit would be cut below its floor: the comm gives way,
        // never the pid.
        r.comm = "a_much_longer_task_name_here".into();
        let l = window(&Window::of(&r), false, Some(80));
        assert!(
            l.chars().count() <= 80 && l.ends_with("\u{2026}[1234]"),
            "{l}"
        );
        assert!(l.contains("irq\u{2026}ftirq_window "), "{l}");
        r.comm = "irq_test_worker".into();
        assert!(l.contains('\u{2026}'), "{l}");
        let h = header(Some(80));
        assert!(
            h.starts_with(" END (UTC)    CPU KIND            LENGTH WAIT CULPRIT"),
            "{h}"
        );
        let wide = window(&Window::of(&r), false, Some(120));
        assert_eq!(wide, " 10:00:03.933 10:00:04.033   3 bh-off          100 ms      irqoff_sample_softirq_window irq_test_worker[1234]");
        assert!(header(Some(120)).starts_with(" START (UTC)  END          CPU"));
        assert!(header(Some(40)).chars().count() <= 40);
        // A lock wait: "lock" in its column, not a suffix a cut could take.
        let mut w = record(Kind::Hard, None, 150_000_000);
        w.window_stack = vec![
            "native_queued_spin_lock_slowpath+0x6c/0x230".into(),
            "_raw_spin_lock+0x3a/0x40".into(),
            "irqoff_sample_spin_window+0x2d/0x53 [irqoff_sample]".into(),
        ];
        assert!(Window::of(&w).lock_wait);
        let l = window(&Window::of(&w), false, Some(80));
        assert!(l.contains(" hardirq-off     150 ms lock irqoff"), "{l}");
        assert!(
            l.ends_with("_softirq_window sh[79]") && l.chars().count() <= 80,
            "{l}"
        );
        assert_eq!(fit("short", Some(80)), "short");
        // A culprit that an empty WAIT column would cut by one character takes that
        // column's room and stays whole; with a mark in WAIT it is cut.
        let mut h = record(Kind::Hard, None, 150_000_000);
        h.stack = vec!["irqoff_sample_hardirq_window+0x3c/0x90 [irqoff_sample]".into()];
        h.comm = "sh".into();
        h.pid = 63;
        let l = window(&Window::of(&h), false, Some(80));
        assert!(
            l.ends_with(" 150 ms irqoff_sample_hardirq_window sh[63]") && l.chars().count() <= 80,
            "{l}"
        );
        h.together_ns = 1;
        let l = window(&Window::of(&h), false, Some(80));
        assert!(l.contains(" 150 ms all  irqoff\u{2026}"), "{l}");
    }

    /// Claim: a window whose culprit ran in an IPI function names its task as the one it
    /// interrupted, never as the doer: in words on a pipe ("in an IPI function,
    /// interrupting kdamond.0[54]", the cgroup after it), marked [`INTERRUPTED`] on an
    /// 80- and a 120-column terminal (at 80 the empty WAIT column lends its room to the
    /// task, which is then whole); where the line is tight the culprit is cut from the
    /// middle and then the comm, never the mark or the pid. A task-context window's line
    /// has neither.
    #[test]
    fn a_window_in_interrupt_context_names_the_task_it_interrupted() {
        let mut r = record(Kind::Hard, None, 100_111_000);
        r.comm = "kdamond.0".into();
        r.pid = 54;
        r.stack = crate::enrich::mechanism::tests::ipi_stack();
        let w = Window::of(&r);
        assert_eq!(w.context, Some("an IPI function"));
        assert_eq!(
            window(&w, false, None),
            " 10:00:03.933 10:00:04.033   3 hardirq-off       100 ms  irqctx_spin in an IPI function, interrupting kdamond.0[54]"
        );
        let l = window(&w, false, Some(80));
        assert_eq!(
            l,
            " 10:00:04.033   3 hardirq-off     100 ms irqctx_spin interrupted kdamond.0[54]"
        );
        let l = window(&w, false, Some(120));
        assert!(
            l.ends_with(" 100 ms      irqctx_spin interrupted kdamond.0[54]"),
            "{l}"
        );
        // A longer culprit and comm at 80 columns: the culprit is cut to its floor, then
        // the comm; the mark and the pid stay.
        r.stack[0] = "irqoff_sample_ipi_window+0x2d/0x53 [irqoff_sample]".into();
        r.comm = "a_long_worker_name".into();
        let l = window(&Window::of(&r), false, Some(80));
        assert!(l.chars().count() <= 80, "{l}");
        assert!(
            l.ends_with(" 100 ms irq\u{2026}e_ipi_window interrupted a_lon\u{2026}[54]"),
            "{l}"
        );
        // With a mark in WAIT (no room lent) and a long pid the mark and the pid stay
        // whole: the culprit gives way below its floor.
        r.pid = 123_456;
        r.together_ns = 1;
        let l = window(&Window::of(&r), false, Some(80));
        assert!(l.chars().count() <= 80, "{l}");
        assert!(l.contains(" 100 ms all  ir\u{2026}pi_window "), "{l}");
        assert!(l.ends_with(" interrupted \u{2026}[123456]"), "{l}");
        r.pid = 54;
        r.together_ns = 0;
        // Its cgroup stays after the task on a pipe.
        r.cgroup_id = Some(77);
        let l = window(&Window::of(&r), false, None);
        assert!(
            l.ends_with(" irqoff_sample_ipi_window in an IPI function, interrupting a_long_worker_name[54] in cgroup 77"),
            "{l}"
        );
        // A window of the task's own code: no mark, no words.
        let own = record(Kind::Soft, Some(Cause::BhOff), 100_111_000);
        for width in [None, Some(80), Some(120)] {
            let l = window(&Window::of(&own), false, width);
            assert!(!l.contains("interrupt"), "{l}");
        }
    }

    /// Claim: a culprit cut from the middle keeps its start and, longer, its end, with
    /// one ellipsis in `room` columns; a name that fits is whole.
    #[test]
    fn culprits_are_cut_in_the_middle() {
        assert_eq!(
            middle("irqoff_sample_hardirq_window", 25),
            "irqoff\u{2026}ple_hardirq_window"
        );
        assert_eq!(
            middle("irqoff_sample_hardirq_window", 28),
            "irqoff_sample_hardirq_window"
        );
        assert_eq!(middle("abc", 1), "\u{2026}");
    }

    /// Claim: [`fitted`] wraps only the lines wider than the width, counting no escape
    /// as a column, and leaves text alone without a width.
    #[test]
    fn summaries_are_fitted() {
        let long = "recorded 30.0 s: 23 hardirq-off and 5 softirq-off (4 bh-off, 1 ksoftirqd-wait) events, 28 records -> /tmp/some/where/trace-irqoff-record.json";
        let text = format!("\x1b[1mshort\x1b[0m\n{long}\n");
        let f = fitted(&text, Some(80));
        assert!(f.starts_with("\x1b[1mshort\x1b[0m\n"), "{f:?}");
        assert!(
            f.lines().all(|l| strip_escapes(l).chars().count() <= 80),
            "{f}"
        );
        assert_eq!(f.lines().count(), 3, "{f}");
        assert_eq!(fitted(&text, None), text);
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
            window(&Window::of(&r), false, None).starts_with(" 4.000        4.033"),
            "{}",
            window(&Window::of(&r), false, None)
        );
    }
}
