// SPDX-License-Identifier: GPL-2.0
//! `top`: records grouped by culprit, and folded stacks for flame graphs.

use std::collections::BTreeMap;

use crate::cli::By;
use crate::enrich::mechanism;
pub use crate::model::culprit_group::{Culprit, Source};
use crate::model::snapshot::{Cause, Kind, KindLabel, Record};
use crate::symbols::function;

/// The stack and task that name a record's culprit. For ksoftirqd-wait, the one sampled
/// in the window: what ran instead of the softirq thread (where the window ended, the
/// thread itself finally runs). For a window held by a `stop_machine()` call, the function
/// the call ran on this CPU (`stop_callback`): the end stack is the call's `multi_cpu_stop`
/// on every CPU it held. The same where the module says the end stack does not
/// show the culprit (an interrupt handler, timer or softirq callback, or IPI function had
/// returned: the end stack is the idle loop or the softirq machinery); there, without an
/// in-window stack (no NMI on this architecture, or none answered) no stack names the
/// culprit, and the stack is empty ([`UNSEEN`]). Otherwise where the window ended: the
/// code that turned interrupts or bottom halves back on. Each falls back on the other
/// when it is empty (no sample taken; a window still open has no end). A
/// window sample of the idle task (pid 0) for ksoftirqd-wait means nothing ran instead:
/// the end stack then. For a window still open the sampled stack is the one seen most so
/// far (its profile's first), not the latest sample, which changes with every sample.
pub fn source(r: &Record) -> (&[String], &str) {
    let most_seen = r
        .profile
        .as_ref()
        .filter(|_| r.ongoing)
        .and_then(|p| p.stacks.first())
        .map(|s| s.frames.as_slice());
    let window = (
        most_seen.unwrap_or(r.window_stack.as_slice()),
        r.window_comm.as_str(),
    );
    let end = (r.stack.as_slice(), r.comm.as_str());
    let ran_instead = r.cause == Some(Cause::KsoftirqdWait) && r.window_pid != 0;
    let (first, second) = if ran_instead || r.stop_callback {
        (window, end)
    } else if !r.end_shows_culprit {
        (window, (&[][..], end.1))
    } else {
        (end, window)
    };
    if first.0.is_empty() {
        second
    } else {
        first
    }
}

/// The culprit of a window whose end stack is not the culprit's and that has no in-window
/// stack: an interrupt handler, timer or softirq callback that had returned when the window
/// ended, and that nothing sampled while it ran.
pub const UNSEEN: &str = "? (handler returned, unsampled)";

/// The culprit's function in `stack` (mechanism frames skipped), or [`UNSEEN`] for a record
/// whose end stack does not show it and which has no stack that does, or `none` for an
/// empty stack otherwise.
pub fn name_in<'a>(stack: &'a [String], r: &Record, none: &'a str) -> &'a str {
    name(stack, r).unwrap_or(none)
}

/// [`name_in`] without a stand-in: `None` where it would give `none`.
pub fn name<'a>(stack: &'a [String], r: &Record) -> Option<&'a str> {
    if stack.is_empty() && !r.end_shows_culprit {
        return Some(UNSEEN);
    }
    mechanism::culprit(stack.iter().map(|f| function(f)))
}

/// What a window whose end stack does not show its culprit, and that no stack names,
/// was in: the module says only that it was interrupt context that had returned.
pub const SOME_INTERRUPT: &str = "an interrupt handler, timer or softirq callback, or IPI function";

/// The interrupt context the culprit of `r` ran in (`mechanism::interrupt_context` on the
/// stack that names it), interrupting the task the views name; for a record whose end
/// stack does not show its culprit and whose stacks do not tell which context, what the
/// module says ([`SOME_INTERRUPT`]). None in task context (the task did it).
pub fn context(r: &Record) -> Option<&'static str> {
    let (stack, _) = source(r);
    let ran_instead = r.cause == Some(Cause::KsoftirqdWait) && r.window_pid != 0;
    mechanism::interrupt_context(stack.iter().map(|f| function(f)))
        .or((!r.end_shows_culprit && !ran_instead).then_some(SOME_INTERRUPT))
}

/// What `top` says a culprit ran in when its windows were in different interrupt
/// contexts.
pub const SEVERAL_CONTEXTS: &str = "interrupt context";

/// Whether the window was spent waiting for a spinlock held on another CPU: the most-seen
/// stack sampled inside it (its profile's first; the in-window stack without a profile)
/// is in a contended lock's slow path above its culprit. The end stack does not tell:
/// once the lock came, the window ended where interrupts came back on.
pub fn lock_wait(r: &Record) -> bool {
    let inside = r
        .profile
        .as_ref()
        .and_then(|p| p.stacks.first())
        .map_or(r.window_stack.as_slice(), |s| s.frames.as_slice());
    mechanism::waits_for_lock(inside.iter().map(|f| function(f)))
}

/// What [`label`] says after a culprit whose window was a lock wait.
pub use crate::model::culprit_group::LOCK_WAIT;

/// The culprit's name as the views show it: with " (lock wait)" after it for a window
/// spent waiting for a lock ([`lock_wait`]).
pub fn label(culprit: &str, r: &Record) -> String {
    if lock_wait(r) {
        format!("{culprit}{LOCK_WAIT}")
    } else {
        culprit.to_string()
    }
}

/// Groups records by kind, cause and `by`: the culprit's function, its whole stack, or
/// the cgroup of the record's task (`pid`: its path, else as `cgroup::shown` names it;
/// `-` from a module that gives none). The tasks of a window in interrupt context
/// ([`context`]) are those it interrupted (`interrupted`), not among those that ran the
/// culprit (`comms`).
pub fn top(records: &[Record], by: By) -> Vec<Culprit> {
    let mut groups: BTreeMap<(Kind, Option<Cause>, String), Culprit> = BTreeMap::new();
    for r in records {
        let (stack, comm) = source(r);
        let key = match by {
            By::Stack => stack
                .iter()
                .map(|f| function(f))
                .collect::<Vec<_>>()
                .join(" <- "),
            By::Culprit => label(name_in(stack, r, "?"), r),
            By::Cgroup => crate::enrich::cgroup::shown(r).unwrap_or_else(|| "-".into()),
        };
        // By cgroup, the tasks are those of the cgroup: the record's own.
        let comm = if by == By::Cgroup {
            r.comm.as_str()
        } else {
            comm
        };
        let c = groups
            .entry((r.kind, r.cause, key.clone()))
            .or_insert_with(|| Culprit {
                kind: r.kind,
                cause: r.cause,
                culprit: key,
                count: 0,
                worst_ns: 0,
                total_ns: 0,
                comms: Vec::new(),
                context: None,
                interrupted: Vec::new(),
                cgroup_class: r.cgroup_class.clone().filter(|_| by == By::Cgroup),
                by,
                source: None,
            });
        c.count += 1;
        if c.count == 1 || r.latency_ns > c.worst_ns {
            c.source = (by != By::Cgroup).then(|| source_of(stack, r)).flatten();
        }
        c.worst_ns = c.worst_ns.max(r.latency_ns);
        c.total_ns += r.latency_ns;
        // In interrupt context the task was only interrupted: it did not run the culprit.
        let context = context(r).filter(|_| by != By::Cgroup);
        c.context = match (c.context, context) {
            (Some(a), Some(b)) if a != b => Some(SEVERAL_CONTEXTS),
            (a, b) => a.or(b),
        };
        let tasks = if context.is_some() {
            &mut c.interrupted
        } else {
            &mut c.comms
        };
        if !tasks.iter().any(|k| k == comm) {
            tasks.push(comm.to_string());
            tasks.sort();
        }
    }
    let mut v: Vec<Culprit> = groups.into_values().collect();
    v.sort_by(|a, b| {
        b.count
            .cmp(&a.count)
            .then(b.worst_ns.cmp(&a.worst_ns))
            .then(a.culprit.cmp(&b.culprit))
    });
    v
}

/// The culprit's frame in `stack` (the first of the culprit's function past the mechanism)
/// with its source lines, where `r` has them (`--lines`).
fn source_of(stack: &[String], r: &Record) -> Option<Source> {
    let name = name(stack, r)?;
    let frame = stack.iter().find(|f| function(f) == name)?;
    let lines = r.lines.get(frame).filter(|l| !l.is_empty())?;
    Some(Source {
        frame: frame.clone(),
        lines: lines.clone(),
    })
}

/// Folded stacks (`root;...;leaf count`), root first: kind, comm, then the stack from the
/// outermost frame to the culprit. Identical stacks are merged; the count is the number of
/// records, or with `by_latency` their latencies in whole ms (at least 1: a frame of a
/// flame graph needs a width).
///
/// A record with an in-window profile gives each of its stacks instead (under the task
/// sampled in the window), weighted by its count: the periods the window was seen there.
/// The weight of stacks the module did not keep goes to one `[other stacks]` frame. With
/// `by_latency` the window's latency is split among them in proportion to their counts
/// (whole ms, at least 1 each). So the flame graph of one window is where it spent its
/// time, and a long window weighs in proportion to its length.
pub fn folded(records: &[Record], by_latency: bool) -> String {
    let mut stacks: BTreeMap<String, u64> = BTreeMap::new();
    let ms = |ns: u128| (((ns + 500_000) / 1_000_000) as u64).max(1);
    for r in records {
        let profile = r
            .profile
            .as_ref()
            .filter(|p| p.weight > 0 && !p.stacks.is_empty());
        let Some(p) = profile else {
            let mut parts = vec![r.kind.label().to_string(), r.comm.replace([';', ' '], "_")];
            parts.extend(r.stack.iter().rev().map(|f| function(f).to_string()));
            let weight = if by_latency {
                ms(u128::from(r.latency_ns))
            } else {
                1
            };
            *stacks.entry(parts.join(";")).or_default() += weight;
            continue;
        };
        let comm = if r.window_comm.is_empty() {
            &r.comm
        } else {
            &r.window_comm
        };
        let root = [r.kind.label().to_string(), comm.replace([';', ' '], "_")];
        let weight = |count: u64| {
            if by_latency {
                ms(u128::from(r.latency_ns) * u128::from(count) / u128::from(p.weight))
            } else {
                count
            }
        };
        for st in p.stacks.iter().filter(|st| st.count > 0) {
            let mut parts = root.to_vec();
            parts.extend(st.frames.iter().rev().map(|f| function(f).to_string()));
            *stacks.entry(parts.join(";")).or_default() += weight(st.count);
        }
        if p.unkept() > 0 {
            *stacks
                .entry(format!("{};[other stacks]", root.join(";")))
                .or_default() += weight(p.unkept());
        }
    }
    stacks
        .into_iter()
        .map(|(k, n)| format!("{k} {n}\n"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(stack: &[&str]) -> Vec<String> {
        stack.iter().map(|s| s.to_string()).collect()
    }

    fn rec(kind: Kind, lat: u64, stack: &[&str]) -> Record {
        Record {
            latency_ns: lat,
            timestamp_ns: 1,
            pid: 7,
            comm: "sh".into(),
            stack: frames(stack),
            ..Record::new(1, kind)
        }
    }

    fn soft(cause: Cause, lat: u64, stack: &[&str], window: &[&str]) -> Record {
        Record {
            cause: Some(cause),
            window_pid: 9,
            window_comm: "hog".into(),
            window_stack: frames(window),
            ..rec(Kind::Soft, lat, stack)
        }
    }

    /// Claim: a window held by a stop_machine() call is the call's function on the CPU
    /// that ran it (the module's one-frame in-window stack, by the stopper thread), in no
    /// interrupt context, while the same end in `multi_cpu_stop` without the function
    /// names `multi_cpu_stop`, as on every other CPU the call held.
    #[test]
    fn a_stop_machine_window_is_its_function() {
        let end = ["multi_cpu_stop+0x9b/0x130", "cpu_stopper_thread+0x8a/0x110"];
        let other = Record {
            window_pid: 17,
            window_comm: "migration/1".into(),
            ..rec(Kind::Hard, 150, &end)
        };
        assert_eq!(name(source(&other).0, &other), Some("multi_cpu_stop"));
        let ran = Record {
            stop_callback: true,
            window_stack: frames(&["sample_stop_cb+0x0/0x40 [irqoff_sample]"]),
            ..other.clone()
        };
        let (stack, comm) = source(&ran);
        assert_eq!(name(stack, &ran), Some("sample_stop_cb"));
        assert_eq!(comm, "migration/1");
        assert_eq!(context(&ran), None);
    }

    /// Claim: a window whose end did not show its culprit, sampled in a tasklet, is in a
    /// tasklet; without any stack, in interrupt context as the module says; a window of a
    /// task's own code is in none; a ksoftirqd-wait window is in none (what ran instead
    /// is a task).
    #[test]
    fn the_context_of_a_window() {
        let mut r = rec(Kind::Soft, 120, &["default_idle+0x1/0x2"]);
        r.end_shows_culprit = false;
        r.window_pid = 54;
        r.window_comm = "kdamond.0".into();
        r.window_stack = frames(&[
            "irqctx_spin+0x10/0x40 [irqctx]",
            "tasklet_action_common+0x90/0x100",
            "handle_softirqs+0xd0/0x2b0",
            "irq_exit_rcu+0x60/0x90",
        ]);
        assert_eq!(context(&r), Some("a tasklet"));
        r.window_stack.clear();
        assert_eq!(context(&r), Some(SOME_INTERRUPT));
        let own = rec(
            Kind::Hard,
            10,
            &["irqoff_sample_hardirq_window+0x1/0x2", "vfs_write"],
        );
        assert_eq!(context(&own), None);
        let ran = soft(Cause::KsoftirqdWait, 10, &["run_ksoftirqd"], &["hog_loop"]);
        assert_eq!(context(&ran), None);
    }

    /// Claim: `top` by culprit groups records by their top frame's function (offsets and
    /// module dropped), ranked by count then worst, with each row's count, worst and
    /// total; by stack, each distinct stack is its own row, written "b <- x".
    #[test]
    fn ranks_by_count_then_worst() {
        let rs = [
            rec(Kind::Hard, 10, &["a+0x1/0x2", "x"]),
            rec(Kind::Hard, 30, &["b+0x1/0x2 [m]", "x"]),
            rec(Kind::Hard, 20, &["a+0x5/0x2", "y"]),
        ];
        let t = top(&rs, By::Culprit);
        assert_eq!(t[0].culprit, "a");
        assert_eq!((t[0].count, t[0].worst_ns, t[0].total_ns), (2, 20, 30));
        assert_eq!(t[1].culprit, "b");
        let t = top(&rs, By::Stack);
        assert_eq!(t.len(), 3);
        assert_eq!(t[0].culprit, "b <- x");
    }

    /// Claim: folded stacks are written root first, with offsets dropped so stacks
    /// differing only in offsets merge into one line; weighed by latency, each line
    /// counts its windows' whole milliseconds, and a window shorter than 1 ms counts 1.
    #[test]
    fn folded_is_root_first_and_merged() {
        let rs = [
            rec(Kind::Soft, 1, &["leaf+0x1/0x2", "root+0x0/0x1"]),
            rec(Kind::Soft, 2, &["leaf+0x3/0x2", "root"]),
        ];
        assert_eq!(folded(&rs, false), "softirq-off;sh;root;leaf 2\n");
        let rs = [
            rec(Kind::Hard, 99_800_123, &["leaf+0x1/0x2"]),
            rec(Kind::Hard, 52_400_000, &["leaf+0x3/0x2"]),
            rec(Kind::Hard, 1, &["x"]),
        ];
        assert_eq!(
            folded(&rs, true),
            "hardirq-off;sh;leaf 152\nhardirq-off;sh;x 1\n"
        );
    }

    /// Claim: records with a profile fold into one line per profiled stack (the rest as
    /// "[other stacks]"), sorted, weighed by their sample counts, or by latency as each
    /// window's length split by those counts in whole ms (at least 1); a record without a
    /// profile gives one line.
    #[test]
    fn folded_weighs_profile_stacks_by_their_counts() {
        let s =
            crate::parse::records::parse(include_str!("../../tests/fixtures/records-watcher.txt"))
                .unwrap();
        let tail = "entry_SYSCALL_64_after_hwframe;do_syscall_64;ksys_write;vfs_write;_RNvMs2_NtCs1EKtwoKEMO2_6kernel10miscdeviceINtB5_16MiscdeviceVTableNtCsfhKZwEwFlVQ_18irqoff_sample_main12SampleDeviceE10write_iterB14_;_RNvXs5_CsfhKZwEwFlVQ_18irqoff_sample_mainNtB5_12SampleDeviceNtNtCs1EKtwoKEMO2_6kernel10miscdevice10MiscDevice10write_iter;irqoff_sample_hardirq_window";
        let f = folded(&s.records, false);
        // Sorted, as merged (`[` and `_` sort before letters).
        let want = [
            "hardirq-off;irq_test;[other stacks] 1".to_string(),
            "hardirq-off;irq_test;_RNvXs5_CsfhKZwEwFlVQ_18irqoff_sample_mainNtB5_12SampleDeviceNtNtCs1EKtwoKEMO2_6kernel10miscdevice10MiscDevice10write_iter;irqoff_sample_hardirq_window;asm_sysvec_apic_timer_interrupt 1".to_string(),
            format!("hardirq-off;irq_test;{tail} 1"),
            format!("hardirq-off;irq_test;{tail};delay_tsc 8"),
            format!("hardirq-off;irq_test;{tail};read_tsc 2"),
            format!("hardirq-off;sh;{tail} 12"),
            format!("hardirq-off;sh;{tail};delay_tsc 40"),
            format!("hardirq-off;sh;{tail};ktime_get;read_hpet 120"),
            "softirq-off;swapper/0;default_idle_call;default_idle 3".to_string(),
            "softirq-off;swapper/0;handle_softirqs 1".to_string(),
        ];
        assert_eq!(f.lines().collect::<Vec<_>>(), want);
        // By latency: each window's length split by the counts (whole ms, at least 1).
        let f = folded(&s.records, true);
        let weights: Vec<u64> = f
            .lines()
            .map(|l| l.rsplit(' ').next().unwrap().parse().unwrap())
            .collect();
        assert_eq!(weights, [15, 15, 15, 120, 30, 125, 416, 1248, 66, 22]);
        // Records without a profile: one line each, their window stack's.
        let mut plain = s.records[1].clone();
        plain.profile = None;
        assert_eq!(folded(&[plain], false).lines().count(), 1);
    }

    /// Claim: a sample's C helper that turns interrupts back on, left as the top frame,
    /// is not the culprit: the window function below it is, though `top` by stack still
    /// shows the helper.
    #[test]
    fn culprit_skips_an_irq_enable_helper() {
        // A GCC-built sample keeps its C helper as a frame above the window function.
        let rs = [rec(
            Kind::Hard,
            10,
            &[
                "sample_irq_enable+0xf/0x20 [s]",
                "irqoff_sample_hardirq_window+0x30/0x60 [s]",
            ],
        )];
        assert_eq!(
            top(&rs, By::Culprit)[0].culprit,
            "irqoff_sample_hardirq_window"
        );
        assert_eq!(
            top(&rs, By::Stack)[0].culprit,
            "sample_irq_enable <- irqoff_sample_hardirq_window"
        );
    }

    /// An IPI function spun with interrupts off on an idle CPU: the hrtimer ran when it
    /// returned, in the idle loop. The module marks the end stack as not the culprit's;
    /// the watcher's in-window stack names the function, never `default_idle`.
    #[test]
    fn window_stack_names_a_returned_interrupt_handler() {
        let ipi = Record {
            end_shows_culprit: false,
            comm: "swapper/1".into(),
            window_comm: "swapper/1".into(),
            window_stack: frames(&[
                "delay_tsc+0x4a/0x80",
                "irqoff_sample_ipi_window+0x30/0x60 [s]",
                "__flush_smp_call_function_queue+0x9f/0x420",
            ]),
            ..rec(
                Kind::Hard,
                120,
                &[
                    "default_idle+0x16/0x20",
                    "default_idle_call+0x2c/0x50",
                    "do_idle+0x1f4/0x240",
                ],
            )
        };
        assert_eq!(
            top(std::slice::from_ref(&ipi), By::Culprit)[0].culprit,
            "irqoff_sample_ipi_window"
        );
        // Without an in-window stack (no NMIs: arm64), nothing names the culprit: the
        // idle loop where the window ended is not it.
        let bare = Record {
            window_stack: Vec::new(),
            ..ipi.clone()
        };
        assert_eq!(
            top(std::slice::from_ref(&bare), By::Culprit)[0].culprit,
            UNSEEN
        );
        assert!(source(&bare).0.is_empty());
        // A task's window: the end stack names the culprit.
        let task = Record {
            window_stack: frames(&["cpu_relax+0x1/0x2"]),
            ..rec(Kind::Hard, 80, &["irq_user+0x1/0x2"])
        };
        assert_eq!(top(&[task], By::Culprit)[0].culprit, "irq_user");
    }

    /// Claim: a ksoftirqd-wait window is blamed on the task sampled in it (a delay helper
    /// skipped) and, when the idle task was sampled or there was no sample, on its end
    /// stack; a bh-off window on where bottom halves came back on; the same culprit under
    /// another cause gets its own row.
    #[test]
    fn ksoftirqd_wait_names_what_ran_instead() {
        let thread = ["call_timer_fn+0x2a/0x130", "run_ksoftirqd+0x2b/0x40"];
        let rs = [
            soft(
                Cause::KsoftirqdWait,
                60,
                &thread,
                &["delay_tsc+0x4a/0x80", "hog_loop+0x22/0x40 [m]"],
            ),
            soft(
                Cause::KsoftirqdWait,
                70,
                &thread,
                &["hog_loop+0x30/0x40 [m]"],
            ),
            // The idle task was sampled: nothing ran instead, the end stack it is.
            Record {
                window_pid: 0,
                ..soft(
                    Cause::KsoftirqdWait,
                    75,
                    &thread,
                    &["default_idle+0x16/0x20"],
                )
            },
            // No sample in the window: the end stack it is.
            soft(Cause::KsoftirqdWait, 80, &thread, &[]),
            // bh-off: where bottom halves came back on, not the sample.
            soft(
                Cause::BhOff,
                90,
                &["__local_bh_enable_ip+0x5e/0x80", "bh_user+0x1/0x2"],
                &["hog_loop+0x1/0x2"],
            ),
            // Same culprit, other cause: its own row.
            soft(Cause::BhOff, 95, &["hog_loop+0x1/0x2"], &[]),
        ];
        let t = top(&rs, By::Culprit);
        let rows: Vec<_> = t
            .iter()
            .map(|c| (c.cause, c.culprit.as_str(), c.count, c.comms.join(",")))
            .collect();
        assert_eq!(
            rows,
            [
                (
                    Some(Cause::KsoftirqdWait),
                    "call_timer_fn",
                    2,
                    "sh".to_string()
                ),
                (Some(Cause::KsoftirqdWait), "hog_loop", 2, "hog".to_string()),
                (Some(Cause::BhOff), "hog_loop", 1, "sh".to_string()),
                (Some(Cause::BhOff), "bh_user", 1, "sh".to_string()),
            ]
        );
        let t = top(&rs[..1], By::Stack);
        assert_eq!(t[0].culprit, "delay_tsc <- hog_loop");
    }

    /// Claim: a still-open bh-off window with no end stack is blamed on the function its
    /// in-window sample shows, under the sampled task's name.
    #[test]
    fn an_open_window_without_an_end_stack_uses_its_sample() {
        let r = Record {
            lower_bound: true,
            ..soft(Cause::BhOff, 57, &[], &["bh_work+0x30/0x60 [m]"])
        };
        let t = top(&[r], By::Culprit);
        assert_eq!(
            (t[0].culprit.as_str(), t[0].comms.join(",")),
            ("bh_work", "hog".to_string())
        );
    }
}
