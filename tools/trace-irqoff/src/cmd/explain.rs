// SPDX-License-Identifier: GPL-2.0
//! `explain [--for DUR | --from FILE] [--device DEV] [--netdev DEV] [--pid PID]
//! [--cgroup PATH] [--wakeups]`: the delays of the span, or the wake-ups of a task's
//! threads (traced in an instance of our own, `instance`, or read from a saved trace of
//! the module's clock), the CPUs that serve them (a disk's or a NIC's path) and the
//! threads of a task (`sources`), the module's windows
//! (its records and its event ring) and its stalls, joined by `crate::model::explain_answer` and shown.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

use anyhow::Result;

use super::{Ctx, Outcome};
use crate::cli::ExplainArgs;
use crate::enrich::explain_join;
use crate::error::Problem;
use crate::model::delay::{Delay, DelayKind, Limits, Window};
use crate::model::explain_answer::{self, Answer};
use crate::model::snapshot::{Kind, Record};
use crate::model::{explain_wakeup, netdev, request_path};
use crate::output;
use crate::parse::{explain_delays, tracefs, wakeup_trace};
use crate::render::explain_text;
use crate::source::procfs::{Backend, Module};
use crate::source::{explain_instance, ring, sysfs};

/// The events `--wakeups` traces besides the others: a wake-up's phases.
const WAKEUP_EVENTS: [&str; 5] = [
    "sched/sched_waking",
    "sched/sched_wakeup",
    "sched/sched_switch",
    "timer/hrtimer_start",
    "timer/hrtimer_expire_entry",
];

/// How long `--for` traces when not told.
const DEFAULT_SPAN: Duration = Duration::from_secs(5);

/// Arguments, then: the subject (a disk, a NIC, a task), the trace (saved or traced now),
/// its delays selected for the subject, the module's windows (its records prepared, and
/// its ring) joined with them, the answer rendered.
pub fn run<B: Backend>(
    a: &ExplainArgs,
    m: &Module<B>,
    proc_root: &Path,
    ctx: &Ctx,
) -> Result<Outcome> {
    check_args(a)?;
    let sys = sysfs::sysfs();
    let mut notes = Vec::new();
    let mut subject = subject(a, &sys, proc_root, &mut notes)?;
    let trace = match &a.from {
        Some(f) => saved_trace(f, &mut notes)?,
        None => {
            let t = live_trace(a, &subject, &mut notes)?;
            reread_members(a, &mut subject, (&sys, proc_root), &mut notes);
            t
        }
    };
    let traced = parse_delays(a, &trace.text, &mut notes)?;
    let (delays, wakeups) = select_delays(
        a,
        &subject,
        (&sys, proc_root),
        (&trace.text, &traced),
        &mut notes,
    )?;
    let s = crate::enrich::prepare::module_snapshot(m)?;
    if a.from.is_none() && s.tag_wait.as_ref().is_some_and(|tw| !tw.enabled) {
        notes.push(
            "tag-wait tracking is off, so no tag wait was traced (trace-irqoff tagwait on)".into(),
        );
    }
    let held = windows(m, &s, &mut notes);
    let found = Found {
        delays,
        wakeups,
        nic: subject.nic,
        trace_lost: trace.lost,
        notes,
    };
    let answer = answer(a, &s, held, &traced, found);
    if ctx.json {
        output::print_json(&answer)?;
    } else {
        output::print(&explain_text::text(&answer))?;
    }
    Ok(match (trace.interrupted, answer.verdict) {
        (true, _) => Outcome::Interrupted,
        (false, explain_answer::Verdict::Yes) => Outcome::Done,
        (false, explain_answer::Verdict::No) => Outcome::NotExplained,
        (false, explain_answer::Verdict::Unknown) => Outcome::Unknown,
    })
}

/// Refuses what the arguments cannot mean: `--last`, and `--wakeups` without a task.
fn check_args(a: &ExplainArgs) -> Result<()> {
    refuse_last(a)?;
    if a.wakeups && a.pid.is_none() && a.cgroup.is_none() {
        return Err(Problem::usage(
            "--wakeups needs the task whose wake-ups to follow",
            "add --pid PID or --cgroup PATH",
        )
        .into());
    }
    Ok(())
}

/// What the delays are asked about: a disk (`--device`), a NIC (`--netdev`), a task's
/// threads (`--pid`, `--cgroup`).
struct Subject {
    device: Option<sysfs::Device>,
    nic: Option<netdev::Nic>,
    members: sysfs::Members,
}

/// The processes `--pid` and `--cgroup` name (`sys`'s cgroup.procs) and their threads,
/// as `proc_root` has them now.
fn members(a: &ExplainArgs, sys: &Path, proc_root: &Path) -> Result<sysfs::Members> {
    let mut pids: Vec<i32> = a.pid.into_iter().collect();
    if let Some(cg) = &a.cgroup {
        pids.extend(sysfs::cgroup_pids(sys, cg)?);
    }
    Ok(sysfs::Members::read(proc_root, pids))
}

/// After a traced span: the task's processes and threads read again and added to those
/// read before it, so that a process forked or a thread that exited meanwhile is one of
/// them; a cgroup no longer readable keeps those of before, with a note.
fn reread_members(
    a: &ExplainArgs,
    subject: &mut Subject,
    (sys, proc_root): (&Path, &Path),
    notes: &mut Vec<String>,
) {
    if a.pid.is_none() && a.cgroup.is_none() {
        return;
    }
    match members(a, sys, proc_root) {
        Ok(after) => subject.members.add(after),
        Err(e) => notes.push(format!(
            "the cgroup's tasks could not be read again after the span ({e}): those of before it are followed"
        )),
    }
}

/// The subject of `a`, read from sysfs; what it says of it in `notes`.
fn subject(
    a: &ExplainArgs,
    sys: &Path,
    proc_root: &Path,
    notes: &mut Vec<String>,
) -> Result<Subject> {
    let device = a
        .device
        .as_deref()
        .map(|d| sysfs::device(sys, d))
        .transpose()?;
    notes.extend(device.iter().flat_map(|d| d.notes.clone()));
    let nic = match a.netdev.as_deref() {
        Some(dev) => {
            let (nic, why) = sysfs::netdev(sys, proc_root, dev)?;
            notes.extend(why);
            if a.from.is_some() {
                notes.push(format!(
                    "{dev}'s queues and interrupts are read from this machine's sysfs as it is now, not from when the trace was taken"
                ));
            }
            Some(nic)
        }
        None => None,
    };
    let members = members(a, sys, proc_root)?;
    Ok(Subject {
        device,
        nic,
        members,
    })
}

/// A trace read: its text, the events its own ring lost, whether Ctrl-C ended it.
struct Trace {
    text: String,
    lost: u64,
    interrupted: bool,
}

/// `--from FILE`: a trace saved from tracefs, with the module's clock.
fn saved_trace(f: &Path, notes: &mut Vec<String>) -> Result<Trace> {
    let bytes = std::fs::read(f).map_err(|e| {
        Problem::usage(
            format!("cannot read the trace {}: {e}", f.display()),
            "give a trace saved from tracefs (cat instances/NAME/trace_clock instances/NAME/trace > FILE)",
        )
    })?;
    // A task name is any bytes: one that is not UTF-8 must not stop the read.
    let text = String::from_utf8_lossy(&bytes).into_owned();
    check_clock(&text, f, notes)?;
    Ok(Trace {
        text,
        lost: 0,
        interrupted: false,
    })
}

/// The events a trace of `subject` needs: softirqs always; block requests for a disk (or
/// when nothing narrower is asked); switches for a task; wake-ups for `--wakeups`.
fn events_for(a: &ExplainArgs, subject: &Subject) -> Vec<&'static str> {
    let mut events = vec!["irq/softirq_raise", "irq/softirq_entry"];
    if subject.device.is_some() || (subject.members.is_empty() && subject.nic.is_none()) {
        events.extend([
            "block/block_rq_issue",
            "block/block_rq_complete",
            "block/block_rq_requeue",
            "block/block_rq_merge",
            "trace_irqoff/block_rq_tag_wait",
        ]);
    }
    if !subject.members.is_empty() {
        events.push("sched/sched_switch");
    }
    if a.wakeups {
        for ev in WAKEUP_EVENTS {
            if !events.contains(&ev) {
                events.push(ev);
            }
        }
    }
    events
}

/// `--for DURATION`: the span traced now in an instance of our own; says what its ring
/// lost and where Ctrl-C ended it.
fn live_trace(a: &ExplainArgs, subject: &Subject, notes: &mut Vec<String>) -> Result<Trace> {
    let root = ring::tracefs().ok_or_else(|| {
        Problem::failure(
            "tracefs is not mounted",
            "mount -t tracefs nodev /sys/kernel/tracing",
        )
    })?;
    let events = events_for(a, subject);
    let stop = super::interrupt_flag()?;
    let t = explain_instance::trace(&root, &events, a.span.unwrap_or(DEFAULT_SPAN), &stop)
        .map_err(|why| Problem::failure(why, "run as root"))?;
    notes.extend(t.notes);
    let mut lost = 0;
    if !t.overruns.is_empty() {
        lost = t.overruns.iter().map(|(_, n)| n).sum();
        let on: Vec<String> = t
            .overruns
            .iter()
            .map(|(cpu, n)| format!("{n} on CPU {cpu}"))
            .collect();
        notes.push(format!(
            "the trace's own ring overran and lost {lost} events ({}): delays may be missing and requests paired wrongly; trace a shorter span (--for)",
            on.join(", ")
        ));
    }
    if let Some(after) = t.interrupted {
        notes.push(format!(
            "interrupted after {:.1} s: the answer covers what was traced until then",
            after.as_secs_f64()
        ));
    }
    Ok(Trace {
        text: t.text,
        lost,
        interrupted: t.interrupted.is_some(),
    })
}

/// The delays of the trace `text` of `--min` or more; refuses what is not a trace; says
/// how many requests did not complete in the span.
fn parse_delays(
    a: &ExplainArgs,
    text: &str,
    notes: &mut Vec<String>,
) -> Result<explain_delays::Traced> {
    let traced = explain_delays::delays(text, a.min_ns, None);
    if traced.events == 0 && !text.trim().is_empty() {
        let from = a
            .from
            .as_deref()
            .map_or("the trace".into(), |f| f.display().to_string());
        return Err(Problem::usage(
            format!("{from} is not a tracefs trace: no line reads as an event"),
            "give the text of a tracefs instance's trace file, taken with trace_clock mono",
        )
        .into());
    }
    if traced.unfinished > 0 {
        notes.push(if traced.unfinished == 1 {
            "1 block request was issued and not completed in the span: its delay is not known"
                .to_string()
        } else {
            format!(
                "{} block requests were issued and not completed in the span: their delays are not known",
                traced.unfinished
            )
        });
    }
    Ok(traced)
}

/// The delays asked about (a disk's requests on their real path, a NIC's receive
/// softirqs, a task's wait for a CPU or its wake-ups), from the `traced` delays of
/// `text`; `sys` and `proc_root` are where the paths are read.
fn select_delays(
    a: &ExplainArgs,
    subject: &Subject,
    (sys, proc_root): (&Path, &Path),
    (text, traced): (&str, &explain_delays::Traced),
    notes: &mut Vec<String>,
) -> Result<(Vec<Delay>, Option<explain_wakeup::Wakeups>)> {
    let mut delays: Vec<Delay> = traced.delays.clone();
    // `--device`: the requests of the disks it stands for (itself, a partition's disk,
    // the disks below a dm or md device).
    if let Some(d) = &subject.device {
        delays.retain(|x| {
            !matches!(x.kind, DelayKind::Io | DelayKind::TagWait)
                || x.device.as_ref().is_some_and(|n| d.numbers.contains(n))
        });
    }
    // The real path of each request, for every device seen: its queue's interrupt CPUs
    // and its completion's CPU serve it, no other.
    let seen: BTreeSet<&str> = delays.iter().filter_map(|x| x.device.as_deref()).collect();
    let (topology, found) = sysfs::topology(sys, proc_root, seen);
    if a.from.is_some() && !topology.disks.is_empty() {
        notes.push(
            "the disks' queues and interrupts are read from this machine's sysfs as it is now, not from when the trace was taken"
                .into(),
        );
    }
    notes.extend(found);
    request_path::follow(&mut delays, &topology);
    // `--netdev`: its NET_RX delays, on its CPUs; block requests only with --device too.
    if let Some(n) = &subject.nic {
        notes.extend(netdev::attribute(&mut delays, n));
        if subject.device.is_none() {
            delays.retain(|d| !matches!(d.kind, DelayKind::Io | DelayKind::TagWait));
        }
    }
    let members = &subject.members;
    let mut wakeups = None;
    if !members.is_empty() {
        delays.retain(|d| !matches!(d.kind, DelayKind::Io | DelayKind::TagWait));
        if a.wakeups {
            let (w, why) = wakeups_of(a, members, text)?;
            notes.extend(why);
            wakeups = Some(w);
        } else {
            delays.push(task_delay(a, members, proc_root, traced)?);
        }
    }
    Ok((delays, wakeups))
}

/// What the trace gave for the subject, to be joined with the module's windows.
struct Found {
    /// The subject's delays.
    delays: Vec<Delay>,
    /// The task's wake-ups (`--wakeups`).
    wakeups: Option<explain_wakeup::Wakeups>,
    /// The NIC asked about (`--netdev`).
    nic: Option<netdev::Nic>,
    /// The events the trace's own ring lost.
    trace_lost: u64,
    /// What was said of the subject and the trace on the way.
    notes: Vec<String>,
}

/// The answer: what was `found` (delays, wake-ups) joined with the module's windows
/// (`held`, of the snapshot `s`) in the traced span, and its verdict.
fn answer(
    a: &ExplainArgs,
    s: &crate::model::snapshot::Snapshot,
    (windows, from, held_from, stalls): Held,
    traced: &explain_delays::Traced,
    found: Found,
) -> Answer {
    let Found {
        delays,
        mut wakeups,
        nic,
        trace_lost,
        notes,
    } = found;
    let span = traced.span;
    let windows: Vec<Window> = windows
        .iter()
        .filter(|w| {
            span.is_none_or(|(a, b)| {
                (w.open || w.end_ns >= a) && w.start_ns <= b + s.config.period_ns
            })
        })
        .cloned()
        .collect();
    let limits = Limits {
        period_ns: s.config.period_ns,
        held_from_ns: held_from,
        trace_lost,
    };
    if let Some(w) = &mut wakeups {
        explain_join::join_wakeups(&mut w.wakeups, &windows, &stalls, limits);
    }
    let mut answer = Answer {
        verdict: explain_answer::Verdict::Unknown,
        verdict_line: String::new(),
        span_start_ns: span.map(|s| s.0),
        span_end_ns: span.map(|s| s.1),
        min_ns: a.min_ns,
        limits,
        windows_from: from,
        windows_seen: windows.len(),
        delays: explain_join::join_all(&delays, &windows, &stalls, limits),
        wakeups,
        netdev: nic,
        notes,
    };
    (answer.verdict, answer.verdict_line) = explain_text::verdict(&answer);
    answer
}

/// Refuses `--last`, the old name of `--for`: it traced the next DURATION, it never
/// looked back, so the name is not kept.
pub fn refuse_last(a: &ExplainArgs) -> Result<()> {
    match &a.last {
        Some(last) => Err(Problem::usage(
            format!("explain --last {last} is now --for {last}: it traces the next {last}, it does not look back"),
            format!("trace-irqoff explain --for {last}"),
        )
        .into()),
        None => Ok(()),
    }
}

/// Refuses a saved trace of a clock other than the module's (CLOCK_MONOTONIC, tracefs's
/// `mono`): its times would not line up with the windows'. A trace that does not say its
/// clock is taken as mono, with a note; one whose times are counts is refused.
fn check_clock(text: &str, f: &Path, notes: &mut Vec<String>) -> Result<()> {
    let hint = "trace in an instance with echo mono > trace_clock, and save it with cat trace_clock trace > FILE (or let explain trace: --for DUR)";
    if let Some(clock) = tracefs::trace_clock(text) {
        if clock != "mono" {
            return Err(Problem::usage(
                format!(
                    "{} was traced with trace_clock {clock}, not mono: its times cannot be joined with the module's (CLOCK_MONOTONIC)",
                    f.display()
                ),
                hint,
            )
            .into());
        }
        return Ok(());
    }
    let counts = text
        .lines()
        .filter_map(tracefs::parse_line)
        .next()
        .is_some_and(|l| l.count);
    if counts {
        return Err(Problem::usage(
            format!(
                "{}'s times are counts (trace_clock counter or x86-tsc), not the module's clock",
                f.display()
            ),
            hint,
        )
        .into());
    }
    notes.push(format!(
        "{} does not say its clock (no trace_clock line before its events): taken as mono, the module's",
        f.display()
    ));
    Ok(())
}

/// The wake-ups of the threads of `members` (`--pid`, or the processes of `--cgroup`:
/// each expanded to its threads, /proc/PID/task/*, before and after the span) in trace
/// `text`, not joined yet; and notes. A process not on this machine is refused when
/// tracing; from a saved trace its own thread id (the main thread's) is followed, with a
/// note.
fn wakeups_of(
    a: &ExplainArgs,
    members: &sysfs::Members,
    text: &str,
) -> Result<(explain_wakeup::Wakeups, Vec<String>)> {
    let mut threads = BTreeSet::new();
    let mut notes = Vec::new();
    let mut name = None;
    for (&pid, t) in &members.threads {
        if t.is_empty() {
            if a.from.is_none() && a.pid == Some(pid) {
                return Err(Problem::usage(
                    format!("there is no process {pid}"),
                    "give the pid of a running process (ps -e)",
                )
                .into());
            }
            notes.push(format!(
                "process {pid} is not on this machine (no /proc/{pid}/task): only its thread {pid} is followed"
            ));
            threads.insert(pid);
            continue;
        }
        if let Some(comm) = members.names.get(&pid) {
            name.get_or_insert(format!("{comm}[{pid}]"));
        }
        threads.extend(t);
    }
    let of = match (&a.cgroup, name) {
        (Some(cg), _) => format!("cgroup {cg}"),
        (None, Some(n)) => n,
        (None, None) => format!("pid {}", a.pid.unwrap_or(0)),
    };
    let (wakeups, untold) = wakeup_trace::follow(text, &threads, a.min_ns);
    if untold.wakings == 0 {
        notes.push(
            "the trace holds no sched_waking event: it was not taken with the wake-up events (sched_waking, sched_wakeup, sched_switch, hrtimer_start, hrtimer_expire_entry)"
                .into(),
        );
    }
    match untold.unfinished {
        0 => {}
        1 => notes.push(
            "1 wake-up was not switched in by the end of the span (or its sched_wakeup is missing): its latency is not known"
                .into(),
        ),
        n => notes.push(format!(
            "{n} wake-ups were not switched in by the end of the span (or their sched_wakeup is missing): their latency is not known"
        )),
    }
    Ok((
        explain_wakeup::Wakeups {
            of,
            threads: threads.into_iter().collect(),
            wakeups,
        },
        notes,
    ))
}

/// The task delay of `--pid`/`--cgroup`: the trace's span, on the CPUs the tasks'
/// threads were switched in on (sched_switch names thread ids: each process's threads
/// are looked up, as /proc had them before and after the span) and last ran on (/proc).
fn task_delay(
    a: &ExplainArgs,
    members: &sysfs::Members,
    proc_root: &Path,
    traced: &explain_delays::Traced,
) -> Result<Delay> {
    let mut cpus = BTreeSet::new();
    let mut evidence = Vec::new();
    let mut name = members
        .names
        .iter()
        .next()
        .map(|(p, n)| format!("{n}[{p}]"));
    for (&pid, tids) in &members.threads {
        let switched = switched_in(pid, tids, traced, &mut cpus, &mut evidence);
        if let Some((comm, last)) = sysfs::task_cpus(proc_root, pid) {
            name.get_or_insert(format!("{comm}[{pid}]"));
            if !last.is_empty() {
                evidence.push(format!(
                    "{pid} last ran on {}",
                    crate::model::delay::cpu_words(&last.iter().copied().collect::<Vec<_>>())
                ));
            }
            cpus.extend(last);
        } else if a.pid == Some(pid) && a.from.is_none() && !switched && tids.is_empty() {
            return Err(Problem::usage(
                format!("there is no process {pid}"),
                "give the pid of a running process (ps -e)",
            )
            .into());
        }
    }
    let (start_ns, end_ns) = traced.span.unwrap_or((0, 0));
    Ok(Delay {
        kind: DelayKind::Task,
        start_ns,
        end_ns,
        cpus: cpus.into_iter().collect(),
        end_cpu: None,
        issue_cpu: None,
        evidence,
        device: None,
        vector: None,
        task: Some(match (&a.cgroup, name) {
            (Some(cg), _) => format!("cgroup {cg}"),
            (None, Some(n)) => n,
            (None, None) => format!("pid {}", a.pid.unwrap_or(0)),
        }),
    })
}

/// The CPUs process `pid`'s threads `tids` (and `pid` itself) were switched in on in
/// the trace, added to `cpus`, and said in `evidence`; whether any was.
fn switched_in(
    pid: i32,
    tids: &BTreeSet<i32>,
    traced: &explain_delays::Traced,
    cpus: &mut BTreeSet<u32>,
    evidence: &mut Vec<String>,
) -> bool {
    let mut any = false;
    for tid in std::iter::once(pid).chain(tids.iter().copied().filter(|&t| t != pid)) {
        if let Some(ran) = traced.ran_on.get(&tid) {
            any = true;
            cpus.extend(ran);
            let on = crate::model::delay::cpu_words(&ran.iter().copied().collect::<Vec<_>>());
            evidence.push(if tid == pid {
                format!("{pid} switched in on {on}")
            } else {
                format!("{tid} (a thread of {pid}) switched in on {on}")
            });
        }
    }
    any
}

/// What the module holds for the join: windows, where they came from, from when they
/// are held, and its stalls (start, end).
type Held = (Vec<Window>, String, Option<u64>, Vec<(u64, u64)>);

/// The module's windows: its records, and every window of the event ring where it runs;
/// where they come from; from when they are held; and the stalls of the whole machine it
/// counted (the ring's, and the latest of its `stall` line), start and end.
fn windows<B: Backend>(
    m: &Module<B>,
    s: &crate::model::snapshot::Snapshot,
    notes: &mut Vec<String>,
) -> Held {
    let mut stalls: Vec<(u64, u64)> = s
        .stalls
        .iter()
        .filter(|st| st.latest_end_ns != 0)
        .map(|st| (st.latest_start_ns, st.latest_end_ns))
        .collect();
    let mut records: Vec<Record> = s.records.clone();
    let ring = if m.is_live() || ring::overridden() {
        ring::read_running()
    } else {
        Err("the event ring is not read with --proc-root".into())
    };
    let (from, held_from) = match ring {
        Ok(ring) => {
            // A ring that overwrote nothing holds every window since it started (before
            // it, the records); one that did holds each CPU's from its oldest on.
            let mut oldest = std::collections::BTreeMap::new();
            for e in &ring.windows {
                let start = e.end_ns.saturating_sub(e.latency_ns);
                let o = oldest.entry(e.cpu).or_insert(start);
                *o = (*o).min(start);
            }
            let held = if ring.lost {
                oldest.values().copied().max()
            } else {
                s.config.counts_since_ns
            };
            crate::enrich::ring_windows::add_missing(
                &mut records,
                &crate::enrich::prepare::ring_records(m, &ring.windows, &s.config, 0),
            );
            stalls.extend(ring.stalls.iter().map(|st| (st.start_ns, st.end_ns)));
            ("records+ring", held)
        }
        Err(why) => {
            notes.push(format!(
                "{why}: only the records the module keeps (the worst {} per CPU and kind) were joined",
                s.config.records_per_cpu
            ));
            ("records", s.config.counts_since_ns)
        }
    };
    let windows = records.iter().map(window).collect();
    (windows, from.to_string(), held_from, stalls)
}

/// A record as the join takes it: its span, and its culprit as `top` names it.
fn window(r: &Record) -> Window {
    let (stack, comm) = crate::enrich::culprit::source(r);
    let culprit = crate::enrich::culprit::label(crate::enrich::culprit::name_in(stack, r, "?"), r);
    let pid = if comm == r.window_comm && !r.window_comm.is_empty() {
        r.window_pid
    } else {
        r.pid
    };
    Window {
        cpu: r.cpu,
        kind: match r.kind {
            Kind::Hard => "hard",
            Kind::Soft => "soft",
        }
        .to_string(),
        cause: r.cause.map(|c| c.name().to_string()),
        start_ns: r.timestamp_ns.saturating_sub(r.latency_ns),
        end_ns: r.timestamp_ns,
        comm: comm.to_string(),
        pid,
        culprit,
        context: crate::enrich::culprit::context(r).map(str::to_string),
        open: r.ongoing,
    }
}
