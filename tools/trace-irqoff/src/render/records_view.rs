// SPDX-License-Identifier: GPL-2.0
//! `records`: the kept records in full, each with its stacks ([`record`]): where the
//! window ended, what was sampled while it was open, its in-window profile and the window
//! it overlapped. `watch --stacks` ([`record_with`]) and the report show a window so too.

use std::fmt::Write;

use super::{
    ended_by, frame_with_lines, latency, overlap, paint, record_label, resolution_of, together,
    when, who, BOLD, DIM, RED,
};
use crate::enrich::{Enriched, Window};

/// The source lines of frames (`records --lines`), by frame.
type Lines = std::collections::BTreeMap<String, Vec<crate::model::snapshot::SourceLine>>;

fn frames(out: &mut String, stack: &[String], lines: &Lines, color: bool, depth: usize) {
    frames_at(out, "    ", stack, lines, color, depth);
}

/// A stack's frames, each with its source line where known (`--lines`): the innermost
/// location on the frame's line, and the functions it is inlined into below it, as
/// scripts/faddr2line shows them.
fn frames_at(
    out: &mut String,
    indent: &str,
    stack: &[String],
    lines: &Lines,
    color: bool,
    depth: usize,
) {
    for f in stack.iter().take(depth) {
        frame_with_lines(out, indent, f, lines.get(f).map_or(&[], Vec::as_slice));
    }
    if stack.len() > depth {
        let _ = writeln!(
            out,
            "{indent}{}",
            paint(
                color,
                DIM,
                &format!("... {} more frames", stack.len() - depth)
            )
        );
    }
}

fn periods(n: u64) -> String {
    format!("{n} period{}", if n == 1 { "" } else { "s" })
}

/// What a view of a record needs to know of the module that wrote it.
#[derive(Clone, Copy, Debug)]
pub struct FromModule {
    /// The records format the record was read in: from v2 on, a lower bound is a window
    /// still open.
    pub version: u32,
    /// Whether a host can pause the machine (the `stall` line's `hypervisor`; None from
    /// modules before it): on bare metal (false) a span every CPU was late together was
    /// no host pause.
    pub hypervisor: Option<bool>,
}

impl FromModule {
    /// The snapshot's.
    pub fn of(s: &crate::model::snapshot::Snapshot) -> Self {
        Self {
            version: s.version,
            hypervisor: s.stalls.as_ref().and_then(|st| st.hypervisor),
        }
    }
}

/// One record with its stacks: where the window ended, then (format v2) the task and
/// stack sampled while it was open, and the window on another CPU it overlapped.
pub fn record(
    out: &mut String,
    r: &Window,
    color: bool,
    new: bool,
    stack_depth: usize,
    from: FromModule,
) {
    record_with(out, r, color, new, stack_depth, from, usize::MAX);
}

/// [`record`], showing at most `max_stacks` stacks of a profile.
///
/// A record with an in-window profile shows "where it ended" (the end stack, none yet for
/// a window still open) and "where it was": the profile's stacks, most-seen first, each
/// with its share of the window's sampled periods. The window stack of a final record is
/// the profile's first stack, so it is not shown twice; that of a window still open is
/// its latest sample, shown as the window stack.
pub fn record_with(
    out: &mut String,
    r: &Window,
    color: bool,
    new: bool,
    stack_depth: usize,
    from: FromModule,
    max_stacks: usize,
) {
    let mark = if new {
        paint(color, RED, "NEW ")
    } else {
        String::new()
    };
    let open = if r.lower_bound && from.version >= 2 {
        "  (window still open)"
    } else {
        ""
    };
    let _ = writeln!(
        out,
        "{mark}{} cpu {} {:>8}  {}{}{}{open}",
        paint(color, BOLD, &record_label(r)),
        r.cpu,
        latency(r),
        who(r),
        when(r),
        ended_by(r)
    );
    context_lines(out, r);
    let profile = r.profile.as_ref().filter(|p| !p.stacks.is_empty());
    if profile.is_some() && !r.stack.is_empty() {
        let _ = writeln!(out, "  where it ended:");
    }
    frames(out, &r.stack, &r.lines, color, stack_depth);
    let window_in_profile = profile.is_some_and(|p| p.stacks[0].frames == r.window_stack);
    if (r.window_pid != 0 || !r.window_stack.is_empty()) && !window_in_profile {
        let latest = if profile.is_some() {
            " (latest sample)"
        } else {
            ""
        };
        let what = if r.stop_callback {
            "stop_machine() ran its function here"
        } else {
            "in the window"
        };
        let _ = writeln!(out, "  {what}: {}-{}{latest}", r.window_comm, r.window_pid);
        frames(out, &r.window_stack, &r.lines, color, stack_depth);
    }
    if let Some(p) = profile {
        where_it_was(
            out,
            r,
            p,
            window_in_profile,
            color,
            (stack_depth, max_stacks),
        );
    }
    if r.lock_wait {
        let _ = writeln!(out, "  a lock wait: the most-seen stack inside the window spins on a spinlock held elsewhere");
    }
    if let Some(o) = overlap(r) {
        let _ = writeln!(out, "  {o}");
    }
    if let Some(t) = together(r, from.hypervisor) {
        let _ = writeln!(out, "  {t}");
    }
}

/// The interrupt context `r`'s culprit ran in (the task named is the one it came upon:
/// it did not do it), and the task's cgroup.
fn context_lines(out: &mut String, r: &Window) {
    if let Some(c) = r.context {
        // The task named is the one the interrupt came upon: it did not do it.
        let _ = writeln!(
            out,
            "  in {c} on CPU {}, interrupting {} (pid {})",
            r.cpu,
            if r.culprit_comm.is_empty() {
                "?"
            } else {
                r.culprit_comm
            },
            r.culprit_pid
        );
    }
    if let Some(c) = &r.cgroup_described {
        let _ = writeln!(out, "  cgroup of {}: {c}", r.comm);
    }
}

/// "Where it was": the profile `p` of `r`'s window, its stacks most-seen first (up to
/// `max_stacks`, `stack_depth` frames each), each with its share of the sampled periods,
/// and the share of the rest.
fn where_it_was(
    out: &mut String,
    r: &Window,
    p: &crate::model::snapshot::Profile,
    window_in_profile: bool,
    color: bool,
    (stack_depth, max_stacks): (usize, usize),
) {
    let task = if window_in_profile && !r.window_comm.is_empty() {
        format!(" {}-{},", r.window_comm, r.window_pid)
    } else {
        String::new()
    };
    let so_far = if r.ongoing { " so far" } else { "" };
    let distinct = if p.distinct == 1 {
        "1 distinct stack".to_string()
    } else {
        format!("{} distinct stacks", p.distinct)
    };
    let _ = writeln!(
        out,
        "  where it was{so_far}:{task} {} samples over {} after the threshold, {distinct}",
        p.samples,
        periods(p.weight)
    );
    let shares = crate::render::profile::Shares::of(p);
    for st in shares.stacks.iter().take(max_stacks) {
        let _ = writeln!(
            out,
            "    {} ({} of {}):",
            shares.percent(st.count),
            st.count,
            periods(p.weight)
        );
        frames_at(out, "      ", &st.frames, &r.lines, color, stack_depth);
    }
    let (rest, n) = shares.rest(max_stacks);
    if rest > 0 {
        let what = match n {
            0 => "in other stacks".to_string(),
            1 => "in 1 more stack".to_string(),
            n => format!("in {n} more stacks"),
        };
        let _ = writeln!(
            out,
            "    {} ({} of {}) {what}",
            paint(color, DIM, &crate::render::profile::share(rest, p.weight)),
            rest,
            periods(p.weight)
        );
    }
}

/// `records`: the selected records of `s`, with `depth` frames per stack.
pub fn records(v: &[Window], s: &Enriched, depth: usize, color: bool) -> String {
    let mut o = String::new();
    if v.is_empty() {
        let _ = writeln!(
            o,
            "no records{}",
            if s.config.enabled {
                ""
            } else {
                " (sampling is disabled: trace-irqoff enable)"
            }
        );
    }
    for r in v {
        record(&mut o, r, color, false, depth, FromModule::of(s));
    }
    o + &resolution_of(s, v, None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::tests::{in_a_hard_hrtimer_callback, v2};

    /// A module of records format `version`, before the hypervisor flag.
    fn v(version: u32) -> FromModule {
        FromModule {
            version,
            hypervisor: None,
        }
    }

    /// Claim: a ksoftirqd-wait record shows its cause and runnable time, the task that
    /// ran and the ksoftirqd that waited, its end time, its end stack and its in-window
    /// stack cut to the depth with the rest counted, and its overlap; a v2 lower bound
    /// shows as a window still open, a v1 one does not.
    #[test]
    fn record_shows_both_stacks_and_the_overlap() {
        let mut s = v2();
        s.records[2].wall_time = Some("2026-05-07T10:00:05.120000Z".into());
        let mut o = String::new();
        record(&mut o, &Window::of(&s.records[2]), false, false, 2, v(2));
        assert_eq!(
            o,
            "softirq-off (ksoftirqd-wait, thread runnable 48 ms) cpu 2    64 ms  my hog (pid 131) ran, ksoftirqd/2 (pid 24) waited  ended 2026-05-07T10:00:05.120000Z (5.120000 s after boot)\n    call_timer_fn+0x2a/0x130\n    __run_timers+0x21d/0x2c0\n    ... 4 more frames\n  in the window: my hog-131\n    delay_tsc+0x4a/0x80\n    irqoff_sample_busy+0x22/0x40 [irqoff_sample]\n    ... 3 more frames\n  overlaps softirq-off on CPU 3\n"
        );
        let mut o = String::new();
        record(&mut o, &Window::of(&s.records[4]), false, false, 12, v(2));
        assert!(o.starts_with("softirq-off (bh-off) cpu 3   57 ms+  kworker/3:1 (pid 140)  open since 5.043000 s after boot  (window still open)\n  in the window: kworker/3:1-140\n"), "{o}");
        // In v1 a lower bound is the hrtimer's sample, not an open window.
        let mut o = String::new();
        record(&mut o, &Window::of(&s.records[4]), false, false, 12, v(1));
        assert!(!o.contains("still open"), "{o}");
    }

    /// Claim: a record whose culprit ran in a hard hrtimer callback says so under its
    /// headline, naming the task it interrupted; one of a task's own code does not.
    #[test]
    fn record_in_interrupt_context_names_the_interrupted_task() {
        let s = v2();
        let mut r = s.records[0].clone();
        let mut o = String::new();
        record(&mut o, &Window::of(&r), false, false, 2, v(2));
        assert!(!o.contains("interrupting"), "{o}");
        in_a_hard_hrtimer_callback(&mut r);
        let mut o = String::new();
        record(&mut o, &Window::of(&r), false, false, 2, v(2));
        assert_eq!(
            o.lines().nth(1),
            Some(
                format!(
                    "  in a hard hrtimer callback on CPU {}, interrupting kdamond.0 (pid 54)",
                    r.cpu
                )
                .as_str()
            ),
            "{o}"
        );
    }

    /// Claim: a record whose in-window stack is the function a stop_machine() call ran on
    /// its CPU says so above that stack (not "in the window", which is an NMI's sample),
    /// naming the stopper thread; the same record without the flag reads as a sample.
    #[test]
    fn a_stop_machine_function_is_not_called_a_sample() {
        let mut r = v2().records[0].clone();
        r.window_stack = vec!["sample_stop_cb+0x0/0x20 [irqoff_sample]".into()];
        (r.window_pid, r.window_comm) = (20, "migration/1".into());
        let shown = |r: &crate::model::snapshot::Record| {
            let mut o = String::new();
            record(&mut o, &Window::of(r), false, false, 2, v(2));
            o
        };
        let o = shown(&r);
        assert!(
            o.contains("\n  in the window: migration/1-20\n    sample_stop_cb"),
            "{o}"
        );
        r.stop_callback = true;
        let o = shown(&r);
        assert!(
            o.contains(
                "\n  stop_machine() ran its function here: migration/1-20\n    sample_stop_cb"
            ),
            "{o}"
        );
        assert!(!o.contains("in the window:"), "{o}");
    }

    /// Claim: a record's headline names the sampler that ended it after its time ("by the
    /// softirq probe", "by the timer_list", "by the hrtimer"), one still open the sampler
    /// that measured it so far; a record of a module before `ended_by` is shown as before.
    #[test]
    fn headline_names_the_sampler_that_ended_the_window() {
        use crate::model::snapshot::EndedBy;
        let s = v2();
        let headline = |r: &crate::model::snapshot::Record| {
            let mut o = String::new();
            record(&mut o, &Window::of(r), false, false, 2, v(2));
            o.lines().next().unwrap_or_default().to_string()
        };
        let before = headline(&s.records[2]);
        assert!(!before.contains(" by the "), "{before}");
        for (e, words) in [
            (EndedBy::Probe, "by the softirq probe"),
            (EndedBy::Timer, "by the timer_list"),
            (EndedBy::Hrtimer, "by the hrtimer"),
        ] {
            let mut r = s.records[2].clone();
            r.ended_by = Some(e);
            assert_eq!(headline(&r), format!("{before}  {words}"));
        }
        let mut open = s.records[4].clone();
        open.ended_by = Some(EndedBy::Hrtimer);
        assert!(
            headline(&open).ends_with(
                "open since 5.043000 s after boot  measured so far by the hrtimer  (window still open)"
            ),
            "{}",
            headline(&open)
        );
    }
}
