// SPDX-License-Identifier: GPL-2.0
//! `explain --wakeups`: every wake-up of a task's threads in a tracefs trace, split as
//! rtla timerlat `-a` splits a timer's, each phase joined with the windows on the one CPU
//! it happened on. Pure: text and windows in, wake-ups out.
//!
//! A wake-up runs from its start to the thread's switch-in (`sched:sched_switch` whose
//! `next_pid` is the thread):
//! - **timer lateness** (a wake-up by a timer only): from the timer's `expires` (its
//!   `timer:hrtimer_start`, by its `hrtimer=` pointer; ns of CLOCK_MONOTONIC for a
//!   nanosleep, the trace's `mono`) to its expiry (`hrtimer_expire_entry`'s `now=`), on
//!   the CPU the timer expired on. A wake-up is by a timer when the event just before
//!   its `sched_waking` on the waker's CPU is an `hrtimer_expire_entry` of
//!   `function=hrtimer_wakeup`. A timer with slack may fire before `expires`: its
//!   lateness is then 0 and the wake-up starts at the expiry. An expiry whose line
//!   lacks the `h` flag ran outside hard interrupt context: in the softirq thread, as a
//!   normal task's sleep timer does on PREEMPT_RT.
//! - **delivery**: from the `sched:sched_waking` (on the waker's CPU; for a timer, from
//!   its expiry: the callback up to the waking is part of it) to the `sched_wakeup`
//!   (where the task is enqueued: on the target CPU when it went through the wake list's
//!   IPI, else on the waker's CPU), on the CPU that `sched_wakeup` fired on.
//! - **run-queue wait**: from the `sched_wakeup` to the switch-in, on the CPU it ran on,
//!   with the tasks that ran there meanwhile.
//!
//! The phases are contiguous, so their lengths add up to the total; their shares are
//! whole percents rounded by the largest remainder, so they add up to 100.

use std::collections::{BTreeMap, BTreeSet};

use super::tracefs::{field, parse_line, Line};
use crate::model::explain_wakeup::{Phase, PhaseKind, Untold, Wakeup};

/// A timer that expired on a CPU, its wake-up not seen yet.
#[derive(Debug, Clone, Copy)]
struct Expired {
    cpu: u32,
    expires: Option<u64>,
    now: u64,
    /// It expired outside hard interrupt context (in the softirq thread on PREEMPT_RT).
    soft: bool,
}

/// A thread woken and not switched in yet.
#[derive(Debug, Clone)]
struct Waking {
    comm: String,
    timer: Option<Expired>,
    waking_ns: u64,
    waker_cpu: u32,
    /// (when, the CPU it fired on, target_cpu).
    wakeup: Option<(u64, u32, u32)>,
}

/// A switch on a CPU: when, who went out, who came in ("comm[pid]").
type Switch = (u64, String, String);

/// The wake-ups of `threads` in `text` whose whole latency is at least `min_ns`, slowest
/// first, not joined yet (see [`join`]).
#[cfg(test)]
pub fn wakeups(text: &str, threads: &BTreeSet<i32>, min_ns: u64) -> Vec<Wakeup> {
    follow(text, threads, min_ns).0
}

/// [`wakeups`], and what the trace could not tell.
pub fn follow(text: &str, threads: &BTreeSet<i32>, min_ns: u64) -> (Vec<Wakeup>, Untold) {
    let mut untold = Untold::default();
    let mut lines: Vec<Line<'_>> = text.lines().filter_map(parse_line).collect();
    lines.sort_by_key(|l| l.ts_ns);
    // hrtimer pointer -> its latest expires.
    let mut started: BTreeMap<&str, u64> = BTreeMap::new();
    // CPU -> the hrtimer_wakeup timer whose expiry was its latest event.
    let mut expired: BTreeMap<u32, Expired> = BTreeMap::new();
    let mut waking: BTreeMap<i32, Waking> = BTreeMap::new();
    let mut switches: BTreeMap<u32, Vec<Switch>> = BTreeMap::new();
    let mut out = Vec::new();
    for l in &lines {
        let timer = expired.remove(&l.cpu);
        match l.event {
            "hrtimer_start" => {
                let exp = field(l.fields, "expires").and_then(|v| v.parse().ok());
                if let (Some(ptr), Some(exp)) = (field(l.fields, "hrtimer"), exp) {
                    started.insert(ptr, exp);
                }
            }
            "hrtimer_expire_entry" => {
                if let Some(e) = wakeup_timer(l, &started) {
                    expired.insert(l.cpu, e);
                }
            }
            "sched_waking" => {
                untold.wakings += 1;
                let Some(tid) = pid_of(l.fields, "pid") else {
                    continue;
                };
                if threads.contains(&tid) {
                    // Only a sleeping thread fires sched_waking: a new one means the
                    // last was switched in (or its switch-in was lost).
                    untold.unfinished += usize::from(waking.contains_key(&tid));
                    waking.insert(
                        tid,
                        Waking {
                            comm: between(l.fields, "comm=", " pid=").to_string(),
                            timer,
                            waking_ns: l.ts_ns,
                            waker_cpu: l.cpu,
                            wakeup: None,
                        },
                    );
                }
            }
            "sched_wakeup" => {
                let Some(tid) = pid_of(l.fields, "pid") else {
                    continue;
                };
                // The first wake-up of a waking only.
                if let Some(w) = waking.get_mut(&tid).filter(|w| w.wakeup.is_none()) {
                    let target = field(l.fields, "target_cpu")
                        .and_then(|v| v.parse().ok())
                        .unwrap_or(l.cpu);
                    w.wakeup = Some((l.ts_ns, l.cpu, target));
                }
            }
            "sched_switch" => {
                let on = switches.entry(l.cpu).or_default();
                on.push(switch(l));
                let Some(tid) = pid_of(l.fields, "next_pid") else {
                    continue;
                };
                if let Some(w) = waking.remove(&tid) {
                    match finish(tid, w, l, on) {
                        Some(done) if done.len_ns() >= min_ns => out.push(done),
                        Some(_) => {}
                        None => untold.unfinished += 1,
                    }
                }
            }
            _ => {}
        }
    }
    untold.unfinished += waking.len();
    slowest_first(&mut out);
    (out, untold)
}

/// The expiry at line `l` of an `hrtimer_wakeup` timer (a sleep's), with when it was
/// set to expire (`started`: each timer's latest expires); None for another timer.
fn wakeup_timer(l: &Line<'_>, started: &BTreeMap<&str, u64>) -> Option<Expired> {
    let wakeup =
        field(l.fields, "function").is_some_and(|f| f.split('/').next() == Some("hrtimer_wakeup"));
    let now = field(l.fields, "now").and_then(|v| v.parse().ok());
    if let (true, Some(now)) = (wakeup, now) {
        let expires = field(l.fields, "hrtimer").and_then(|p| started.get(p));
        return Some(Expired {
            cpu: l.cpu,
            expires: expires.copied(),
            now,
            soft: l.in_hardirq() == Some(false),
        });
    }
    None
}

/// The switch at line `l`: when, and the tasks out and in as "comm[pid]".
fn switch(l: &Line<'_>) -> Switch {
    let prev = format!(
        "{}[{}]",
        between(l.fields, "prev_comm=", " prev_pid="),
        field(l.fields, "prev_pid").unwrap_or("?")
    );
    let next = format!(
        "{}[{}]",
        between(l.fields, "next_comm=", " next_pid="),
        field(l.fields, "next_pid").unwrap_or("?")
    );
    (l.ts_ns, prev, next)
}

/// The wake-up of thread `tid`, woken as `w`, switched in by line `l` (the last of the
/// switches `on` its CPU); None without its `sched_wakeup`.
fn finish(tid: i32, w: Waking, l: &Line<'_>, on: &[Switch]) -> Option<Wakeup> {
    let (wakeup_ns, enqueued_on, target) = w.wakeup?;
    let (start, lateness_end) = match w.timer {
        Some(t) => {
            let now = t.now.min(w.waking_ns);
            (t.expires.map_or(now, |e| e.min(now)), now)
        }
        None => (w.waking_ns, w.waking_ns),
    };
    let wakeup_ns = wakeup_ns.max(lateness_end);
    let end = l.ts_ns.max(wakeup_ns);
    let mut phases = Vec::new();
    // A timer started before the trace began: its expires, so its lateness, unknown.
    if let Some(Expired {
        cpu,
        expires: Some(_),
        ..
    }) = w.timer
    {
        phases.push(phase(PhaseKind::TimerLateness, start, lateness_end, cpu));
    }
    // Delivered where the sched_wakeup fired: the target CPU through the wake list's
    // IPI, the waker's CPU where the waker enqueued the task itself.
    phases.push(phase(
        PhaseKind::Delivery,
        lateness_end,
        wakeup_ns,
        enqueued_on,
    ));
    let mut rq = phase(PhaseKind::RunQueue, wakeup_ns, end, l.cpu);
    rq.ran_meanwhile = ran_meanwhile(on, wakeup_ns, end, tid);
    phases.push(rq);
    shares(&mut phases);
    Some(Wakeup {
        task: format!("{}[{tid}]", w.comm),
        tid,
        start_ns: start,
        end_ns: end,
        expires_ns: w.timer.and_then(|t| t.expires),
        timer_cpu: w.timer.map(|t| t.cpu),
        timer_soft: w.timer.is_some_and(|t| t.soft),
        waker_cpu: w.waker_cpu,
        target_cpu: target,
        ipi: w
            .wakeup
            .is_some_and(|(_, cpu, _)| cpu == target && cpu != w.waker_cpu),
        ran_cpu: l.cpu,
        phases,
        before_held: false,
    })
}

fn phase(kind: PhaseKind, start_ns: u64, end_ns: u64, cpu: u32) -> Phase {
    Phase {
        phase: kind,
        start_ns,
        end_ns,
        cpu,
        share_pct: 0,
        windows: Vec::new(),
        not_explained: None,
        too_short: false,
        pauses: Vec::new(),
        ran_meanwhile: Vec::new(),
    }
}

/// Who ran on a CPU from `from` to `to` (its switches `on`, the last the thread's
/// switch-in): those switched in and out there meanwhile, and the one the thread
/// replaced; not the thread itself.
fn ran_meanwhile(on: &[Switch], from: u64, to: u64, tid: i32) -> Vec<String> {
    let me = format!("[{tid}]");
    let mut names: Vec<String> = Vec::new();
    // The switches are in time order: those from `from` on, by bisection.
    let first = on.partition_point(|s| s.0 < from);
    for (ts, prev, next) in on[first..].iter().take_while(|s| s.0 <= to) {
        for n in [prev, next] {
            if !n.ends_with(&me) && !names.contains(n) && (*ts < to || n == prev) {
                names.push(n.clone());
            }
        }
    }
    names
}

/// Each phase's share of the total in whole percents, by the largest remainder: the
/// floors first, then a point each to the largest remainders (the earlier phase on a
/// tie) until they add up to 100. A wake-up of no length gives its 100 to its last
/// phase.
pub fn shares(phases: &mut [Phase]) {
    let total: u64 = phases.iter().map(Phase::len_ns).sum();
    if total == 0 {
        let n = phases.len();
        for (i, p) in phases.iter_mut().enumerate() {
            p.share_pct = if i + 1 == n { 100 } else { 0 };
        }
        return;
    }
    let exact: Vec<u128> = phases
        .iter()
        .map(|p| u128::from(p.len_ns()) * 100)
        .collect();
    let total = u128::from(total);
    let mut given: u32 = 0;
    for (p, e) in phases.iter_mut().zip(&exact) {
        p.share_pct = u32::try_from(e / total).unwrap_or(100);
        given += p.share_pct;
    }
    let mut order: Vec<usize> = (0..phases.len()).collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(exact[i] % total), i));
    for &i in order
        .iter()
        .cycle()
        .take(100usize.saturating_sub(given as usize))
    {
        phases[i].share_pct += 1;
    }
}

/// The text between `from` (at the start of the fields or after a space) and `to`: a
/// comm, which may hold spaces.
fn between<'a>(fields: &'a str, from: &str, to: &str) -> &'a str {
    let start = if fields.starts_with(from) {
        Some(from.len())
    } else {
        fields.find(&format!(" {from}")).map(|i| i + 1 + from.len())
    };
    let Some(start) = start else {
        return "?";
    };
    let rest = &fields[start..];
    rest.find(to).map_or(rest, |e| &rest[..e])
}

/// The thread id of `key=` in `fields`, read by its key from the end (a comm before it
/// may hold "pid=").
fn pid_of(fields: &str, key: &str) -> Option<i32> {
    fields
        .split_whitespace()
        .rev()
        .find_map(|w| w.strip_prefix(key).and_then(|v| v.strip_prefix('=')))
        .and_then(|v| v.parse().ok())
}

/// The wake-ups slowest first (then earliest).
pub fn slowest_first(v: &mut [Wakeup]) {
    v.sort_by(|a, b| {
        b.len_ns()
            .cmp(&a.len_ns())
            .then(a.start_ns.cmp(&b.start_ns))
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::enrich::explain_join::join_wakeups as join;
    use crate::model::delay::{Limits, Window};
    use crate::model::explain_wakeup::Wakeups;

    const MS: u64 = 1_000_000;

    fn threads(t: &[i32]) -> BTreeSet<i32> {
        t.iter().copied().collect()
    }

    /// A remote wake (waking on CPU 0, wakeup through the IPI and switch-in on CPU 1)
    /// and a local one on CPU 1, of thread 123 ("my cat", a comm with a space); a
    /// wake-up of another thread.
    const REMOTE_AND_LOCAL: &str = "\
  sh-10 [000] d..2. 4.000000: sched_waking: comm=my cat pid=123 prio=120 target_cpu=001
  <idle>-0 [001] d.h2. 4.000200: sched_wakeup: comm=my cat pid=123 prio=120 target_cpu=001
  sh-11 [001] d..2. 4.000300: sched_switch: prev_comm=sh prev_pid=11 prev_prio=120 prev_state=R ==> next_comm=hog pid=5 next_pid=12 next_prio=120
  hog-12 [001] d..2. 4.030000: sched_switch: prev_comm=hog pid=5 prev_pid=12 prev_prio=120 prev_state=R ==> next_comm=my cat next_pid=123 next_prio=120
  sh-11 [001] d..2. 4.100000: sched_waking: comm=my cat pid=123 prio=120 target_cpu=001
  sh-11 [001] d..2. 4.100010: sched_wakeup: comm=my cat pid=123 prio=120 target_cpu=001
  sh-11 [001] d..2. 4.100500: sched_switch: prev_comm=sh prev_pid=11 prev_prio=120 prev_state=S ==> next_comm=my cat next_pid=123 next_prio=120
  sh-10 [000] d..2. 4.200000: sched_waking: comm=dd pid=70 prio=120 target_cpu=000
  sh-10 [000] d..2. 4.200010: sched_wakeup: comm=dd pid=70 prio=120 target_cpu=000
  sh-10 [000] d..2. 4.290000: sched_switch: prev_comm=sh prev_pid=10 prev_prio=120 prev_state=S ==> next_comm=dd next_pid=70 next_prio=120
";

    /// Claim: a remote wake (waking on CPU 0, sched_wakeup on CPU 1: the wake list's
    /// IPI) is delivered on CPU 1 and waits in CPU 1's run queue behind the tasks that
    /// ran there (sh[11] then hog[12], whose comm holds "pid="); a local one is on CPU 1
    /// throughout; another thread's wake-up is not one of them; slowest first.
    #[test]
    fn remote_and_local_wakes() {
        let v = wakeups(REMOTE_AND_LOCAL, &threads(&[123]), 0);
        assert_eq!(v.len(), 2);
        let r = &v[0];
        assert_eq!(r.task, "my cat[123]");
        assert_eq!((r.start_ns, r.end_ns), (4_000_000_000, 4_030_000_000));
        assert_eq!((r.waker_cpu, r.target_cpu, r.ran_cpu), (0, 1, 1));
        assert!(r.remote() && r.ipi);
        let kinds: Vec<(PhaseKind, u32, u64)> = r
            .phases
            .iter()
            .map(|p| (p.phase, p.cpu, p.len_ns()))
            .collect();
        assert_eq!(
            kinds,
            [
                (PhaseKind::Delivery, 1, 200_000),
                (PhaseKind::RunQueue, 1, 29_800_000)
            ]
        );
        assert_eq!(r.phases[1].ran_meanwhile, ["sh[11]", "hog pid=5[12]"]);
        let l = &v[1];
        assert_eq!((l.waker_cpu, l.target_cpu, l.ran_cpu), (1, 1, 1));
        assert!(!l.remote() && !l.ipi);
        assert_eq!(l.len_ns(), 500_000);
        assert_eq!(l.phases[1].ran_meanwhile, ["sh[11]"]);
        // --min applies to the whole wake-up.
        assert_eq!(wakeups(REMOTE_AND_LOCAL, &threads(&[123]), MS).len(), 1);
    }

    /// Claim: delivery is on the CPU the sched_wakeup fired on: the target CPU (1) for a
    /// remote wake through the wake list's IPI, the waker's CPU (0) for a remote wake the
    /// waker enqueued itself (its sched_wakeup on CPU 0, target_cpu 1); the run-queue wait
    /// is on the CPU it ran on either way.
    #[test]
    fn delivery_is_where_the_wakeup_fired() {
        let ipi = wakeups(REMOTE_AND_LOCAL, &threads(&[123]), MS);
        assert_eq!(ipi[0].phases[0].phase, PhaseKind::Delivery);
        assert_eq!((ipi[0].phases[0].cpu, ipi[0].ipi), (1, true));
        let text = "\
  sh-10 [000] d..2. 4.000000: sched_waking: comm=cat pid=123 prio=120 target_cpu=001
  sh-10 [000] d..2. 4.000200: sched_wakeup: comm=cat pid=123 prio=120 target_cpu=001
  hog-12 [001] d..2. 4.030000: sched_switch: prev_comm=hog prev_pid=12 prev_prio=120 prev_state=R ==> next_comm=cat next_pid=123 next_prio=120
";
        let v = wakeups(text, &threads(&[123]), 0);
        let w = &v[0];
        assert_eq!((w.waker_cpu, w.target_cpu, w.ipi), (0, 1, false));
        let on: Vec<(PhaseKind, u32)> = w.phases.iter().map(|p| (p.phase, p.cpu)).collect();
        assert_eq!(on, [(PhaseKind::Delivery, 0), (PhaseKind::RunQueue, 1)]);
        // A window on the waker's CPU explains that delivery, one on the target's not.
        let mut v2 = v.clone();
        join(&mut v2, &[hard(0, 3_990 * MS, 4_025 * MS)], &[], LIMITS);
        assert_eq!(v2[0].phases[0].windows.len(), 1);
        let mut v3 = v;
        join(
            &mut v3,
            &[hard(1, 3_990 * MS, 4_000 * MS + 150_000)],
            &[],
            LIMITS,
        );
        assert!(v3[0].phases[0].windows.is_empty());
    }

    /// Claim: a wake-up not switched in by the trace's end, and one whose sched_wakeup
    /// is missing, are counted as unfinished, not shown; the wakings of every task are
    /// counted (a trace without them was not taken with the wake-up events).
    #[test]
    fn unfinished_wakeups_are_counted() {
        let text = "\
  sh-10 [000] d..2. 4.000000: sched_waking: comm=cat pid=123 prio=120 target_cpu=001
  sh-10 [000] d..2. 4.000100: sched_switch: prev_comm=sh prev_pid=10 prev_prio=120 prev_state=S ==> next_comm=cat next_pid=123 next_prio=120
  sh-10 [000] d..2. 4.100000: sched_waking: comm=dd pid=70 prio=120 target_cpu=000
  sh-10 [000] d..2. 4.200000: sched_waking: comm=cat pid=123 prio=120 target_cpu=001
  sh-10 [000] d..2. 4.200100: sched_wakeup: comm=cat pid=123 prio=120 target_cpu=001
";
        let (v, untold) = follow(text, &threads(&[123]), 0);
        assert!(v.is_empty());
        assert_eq!(
            untold,
            Untold {
                wakings: 3,
                unfinished: 2
            }
        );
        let (_, none) = follow(
            "  sh-10 [000] d..2. 4.0: softirq_raise: vec=3 [action=NET_RX]\n",
            &threads(&[123]),
            0,
        );
        assert_eq!(none, Untold::default());
    }

    /// Claim: a wake-up by a timer (hrtimer_expire_entry of hrtimer_wakeup just before
    /// the waking on that CPU) starts at the timer's expires (its hrtimer_start, by
    /// pointer): its lateness runs to the expiry (`now=`) on the timer's CPU, then
    /// delivery and the run-queue wait; a waking after another event on that CPU is no
    /// timer's; a timer whose start was not traced has no lateness phase, and its
    /// wake-up starts at the expiry.
    #[test]
    fn a_timer_wakeup_has_its_lateness() {
        let text = "\
  cat-123 [001] d..1. 3.900000: hrtimer_start: hrtimer=000000009c0c5ac1 function=hrtimer_wakeup expires=3950000000 softexpires=3950000000 mode=ABS
  <idle>-0 [001] d.h1. 4.033450: hrtimer_expire_entry: hrtimer=000000009c0c5ac1 now=4033420000 function=hrtimer_wakeup/0x0
  <idle>-0 [001] d.h2. 4.033460: sched_waking: comm=cat pid=123 prio=120 target_cpu=001
  <idle>-0 [001] d.h3. 4.033470: sched_wakeup: comm=cat pid=123 prio=120 target_cpu=001
  <idle>-0 [001] d..2. 4.033500: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=cat next_pid=123 next_prio=120
  <idle>-0 [001] d.h1. 4.100000: hrtimer_expire_entry: hrtimer=000000001111 now=4100000000 function=hrtimer_wakeup/0x0
  <idle>-0 [001] d.h1. 4.100001: softirq_raise: vec=1 [action=TIMER]
  <idle>-0 [001] d.h2. 4.100002: sched_waking: comm=cat pid=123 prio=120 target_cpu=001
  <idle>-0 [001] d.h3. 4.100003: sched_wakeup: comm=cat pid=123 prio=120 target_cpu=001
  <idle>-0 [001] d..2. 4.100004: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=cat next_pid=123 next_prio=120
";
        let v = wakeups(text, &threads(&[123]), 0);
        assert_eq!(v.len(), 2);
        let t = &v[0];
        assert_eq!(t.expires_ns, Some(3_950_000_000));
        assert_eq!((t.start_ns, t.end_ns), (3_950_000_000, 4_033_500_000));
        let p = &t.phases;
        assert_eq!(p[0].phase, PhaseKind::TimerLateness);
        assert_eq!(
            (p[0].start_ns, p[0].end_ns, p[0].cpu),
            (3_950_000_000, 4_033_420_000, 1)
        );
        assert_eq!((p[1].start_ns, p[1].end_ns), (4_033_420_000, 4_033_470_000));
        assert_eq!((p[2].start_ns, p[2].end_ns), (4_033_470_000, 4_033_500_000));
        assert_eq!(p[2].ran_meanwhile, ["swapper/1[0]"]);
        assert_eq!((v[1].expires_ns, v[1].timer_cpu), (None, None));
        assert_eq!(v[1].phases[0].phase, PhaseKind::Delivery);
        // A timer started before the trace: by a timer, its lateness not a phase.
        let unstarted: String = text.lines().skip(1).map(|l| format!("{l}\n")).collect();
        let v = wakeups(&unstarted, &threads(&[123]), 0);
        assert_eq!((v[0].expires_ns, v[0].timer_cpu), (None, Some(1)));
        assert_eq!(v[0].start_ns, 4_033_420_000);
        assert_eq!(v[0].phases[0].phase, PhaseKind::Delivery);
        assert_eq!(
            crate::render::explain_text::wakeup_route(&v[0]),
            "by a timer on CPU 1 started before the trace (its lateness is not known); woken on CPU 1; ran on CPU 1"
        );
    }

    /// A timer wake-up of cat[123] on CPU 1 whose expiry line has the flags `flags`:
    /// expires 3.950 s, expired at 4.033420 s.
    fn timer_wakeup(expiry_task: &str, flags: &str) -> String {
        format!(
            "\
  cat-123 [001] d..1. 3.900000: hrtimer_start: hrtimer=000000009c0c5ac1 function=hrtimer_wakeup expires=3950000000 softexpires=3950000000 mode=ABS
  {expiry_task} [001] {flags} 4.033450: hrtimer_expire_entry: hrtimer=000000009c0c5ac1 now=4033420000 function=hrtimer_wakeup/0x0
  {expiry_task} [001] {flags} 4.033460: sched_waking: comm=cat pid=123 prio=120 target_cpu=001
  {expiry_task} [001] {flags} 4.033470: sched_wakeup: comm=cat pid=123 prio=120 target_cpu=001
  {expiry_task} [001] d..2. 4.033500: sched_switch: prev_comm=ktimers/1 prev_pid=20 prev_prio=98 prev_state=S ==> next_comm=cat next_pid=123 next_prio=120
"
        )
    }

    /// Claim: a timer that expired in hard interrupt context (its expiry line has the
    /// `h` flag) is held by a hardirq-off window only, never by a softirq-off one on its
    /// CPU; one that expired outside it (PREEMPT_RT's softirq thread ktimers/1: no `h`)
    /// is held by the softirq-off window too, and its route says where it expired.
    #[test]
    fn a_timer_in_the_softirq_thread_is_held_by_a_softirq_off_window() {
        let mut soft = hard(1, 3_940 * MS, 4_040 * MS);
        soft.kind = "soft".into();
        soft.cause = Some("bh-off".into());
        let held = |text: &str| {
            let mut v = wakeups(text, &threads(&[123]), 0);
            join(&mut v, std::slice::from_ref(&soft), &[], LIMITS);
            assert_eq!(v[0].phases[0].phase, PhaseKind::TimerLateness);
            (v[0].timer_soft, v[0].phases[0].windows.len(), v[0].clone())
        };
        let (is_soft, n, _) = held(&timer_wakeup("<idle>-0", "d.h1."));
        assert_eq!((is_soft, n), (false, 0));
        let (is_soft, n, w) = held(&timer_wakeup("ktimers/1-20", "....1."));
        assert_eq!((is_soft, n), (true, 1));
        assert_eq!(w.phases[0].windows[0].overlap_ns, 83_420_000);
        assert!(crate::render::explain_text::wakeup_route(&w)
            .starts_with("by a timer on CPU 1 (expired in the softirq thread); "));
        // A trace without the flags column says nothing of the context: taken as hard.
        let bare = timer_wakeup("x-1", "d.h1.")
            .replace(" d.h1. ", " ")
            .replace(" d..1. ", " ")
            .replace(" d..2. ", " ");
        let (is_soft, n, _) = held(&bare);
        assert_eq!((is_soft, n), (false, 0));
    }

    fn lens(ns: &[u64]) -> Vec<Phase> {
        let mut at = 0;
        ns.iter()
            .map(|n| {
                at += n;
                phase(PhaseKind::Delivery, at - n, at, 0)
            })
            .collect()
    }

    /// Claim: shares are whole percents that add up to 100 by the largest remainder
    /// (33.4/33.3/33.3 gives 34/33/33; 1/1/98 parts of a thousand give 0/0/100 with a
    /// remainder point to the largest remainder), and a wake-up of no length gives its
    /// 100 to its last phase.
    #[test]
    fn shares_add_up_to_100() {
        for (ns, want) in [
            (&[334u64, 333, 333][..], &[34u32, 33, 33][..]),
            (&[1, 1, 998], &[0, 0, 100]),
            (&[5, 5, 0], &[50, 50, 0]),
            (&[1, 2], &[33, 67]),
            (&[0, 0], &[0, 100]),
            (&[29_800_000, 200_000], &[99, 1]),
        ] {
            let mut p = lens(ns);
            shares(&mut p);
            let got: Vec<u32> = p.iter().map(|p| p.share_pct).collect();
            assert_eq!(got, want, "{ns:?}");
            assert_eq!(got.iter().sum::<u32>(), 100);
        }
    }

    fn hard(cpu: u32, start_ns: u64, end_ns: u64) -> Window {
        Window {
            cpu,
            kind: "hard".into(),
            cause: None,
            start_ns,
            end_ns,
            comm: "irq_test".into(),
            pid: 90,
            culprit: "irqoff_sample_hardirq_window".into(),
            context: None,
            open: false,
        }
    }

    const LIMITS: Limits = Limits {
        period_ns: 10 * MS,
        held_from_ns: None,
        trace_lost: 0,
    };

    /// Claim: a phase is explained only by a window on its own CPU: CPU 1's window
    /// explains the run-queue wait on CPU 1; the same window on CPU 0 (the waker's)
    /// explains nothing, and the wait is "not explained by an irq-off window on CPU 1".
    #[test]
    fn only_a_window_on_the_phases_cpu_explains_it() {
        let mut v = wakeups(REMOTE_AND_LOCAL, &threads(&[123]), MS);
        join(&mut v, &[hard(1, 3_990 * MS, 4_025 * MS)], &[], LIMITS);
        let rq = &v[0].phases[1];
        assert_eq!(rq.windows.len(), 1);
        assert_eq!(rq.windows[0].overlap_ns, 24_800_000);
        assert!(v[0].explained());
        let mut v = wakeups(REMOTE_AND_LOCAL, &threads(&[123]), MS);
        join(&mut v, &[hard(0, 3_990 * MS, 4_025 * MS)], &[], LIMITS);
        assert!(!v[0].explained());
        assert_eq!(
            v[0].phases[1].not_explained.as_deref(),
            Some("not explained by an irq-off window on CPU 1")
        );
        assert!(v[0].phases[0].too_short);
    }
    /// An answer of the wake-ups of REMOTE_AND_LOCAL (of at least 1 ms) joined with
    /// `windows`, its verdict set.
    fn answer(windows: &[Window]) -> crate::model::explain_answer::Answer {
        let mut v = wakeups(REMOTE_AND_LOCAL, &threads(&[123]), MS);
        join(&mut v, windows, &[(4_029 * MS, 4_031 * MS)], LIMITS);
        let mut a = crate::model::explain_answer::Answer {
            verdict: crate::model::explain_answer::Verdict::Unknown,
            verdict_line: String::new(),
            span_start_ns: Some(4_000 * MS),
            span_end_ns: Some(4_290 * MS),
            min_ns: MS,
            limits: LIMITS,
            windows_from: "records".into(),
            windows_seen: windows.len(),
            delays: Vec::new(),
            wakeups: Some(Wakeups {
                of: "my cat[123]".into(),
                threads: vec![123],
                wakeups: v,
            }),
            netdev: None,
            notes: Vec::new(),
        };
        (a.verdict, a.verdict_line) = crate::render::explain_text::verdict(&a);
        a
    }

    /// Claim: an answer with wake-ups (phases, shares, windows, pauses, the tasks that
    /// ran meanwhile) reads back from its JSON as the same answer, under "wakeups" with
    /// the phase names of the text's JSON ("delivery", "run-queue").
    #[test]
    fn the_json_of_wakeups_reads_back() {
        let a = answer(&[hard(1, 3_990 * MS, 4_025 * MS)]);
        let json = serde_json::to_string(&a).unwrap();
        assert!(
            json.contains("\"wakeups\":{\"of\":\"my cat[123]\""),
            "{json}"
        );
        for field in [
            "\"phase\":\"delivery\"",
            "\"phase\":\"run-queue\"",
            "\"share_pct\":99",
            "\"ran_meanwhile\":[\"sh[11]\"",
            "\"pauses\":[{",
            "\"ipi\":true",
        ] {
            assert!(json.contains(field), "{field}: {json}");
        }
        let back: crate::model::explain_answer::Answer = serde_json::from_str(&json).unwrap();
        assert_eq!(back, a);
    }

    /// Claim: the verdict counts wake-ups: yes with the one held by CPU 1's window; no
    /// with a window on CPU 0 only, naming the wake-up (held by a pause of the VM); and
    /// none asked about at all is unknown "no delay or wake-up".
    #[test]
    fn the_verdict_counts_wakeups() {
        let yes = answer(&[hard(1, 3_990 * MS, 4_025 * MS)]);
        assert!(
            yes.verdict_line
                .starts_with("Verdict: yes: 1 of 1 wake-up was held by irq-off windows; the worst, a hardirq-off window of 35.000 ms on CPU 1"),
            "{}",
            yes.verdict_line
        );
        let no = answer(&[hard(0, 3_990 * MS, 4_025 * MS)]);
        assert_eq!(
            no.verdict_line,
            "Verdict: no: the 1 wake-up was not held by an irq-off window; the largest: wake-up of my cat[123] took 30.000 ms from 4.000000 s, held by a pause of the whole VM."
        );
        let mut none = answer(&[]);
        none.wakeups = Some(Wakeups {
            of: "x[1]".into(),
            threads: vec![1],
            wakeups: Vec::new(),
        });
        assert_eq!(
            crate::render::explain_text::verdict(&none).1,
            "Verdict: unknown: no delay or wake-up of 1.000 ms or more was traced in the span."
        );
    }

    /// Claim: a wake-up that began before the oldest window held is flagged, said under
    /// it and counted in the limits; one after it is not.
    #[test]
    fn a_wakeup_before_the_windows_held_is_said() {
        let mut v = wakeups(REMOTE_AND_LOCAL, &threads(&[123]), 0);
        let limits = Limits {
            held_from_ns: Some(4_050 * MS),
            ..LIMITS
        };
        join(&mut v, &[], &[], limits);
        let held: Vec<bool> = v.iter().map(|w| w.before_held).collect();
        assert_eq!(held, [true, false]);
        let mut a = answer(&[]);
        a.limits = limits;
        a.wakeups = Some(Wakeups {
            of: "my cat[123]".into(),
            threads: vec![123],
            wakeups: v,
        });
        let flat = crate::render::explain_text::text(&a)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        assert!(flat.contains("; 1 wake-up began before that."), "{flat}");
        assert!(
            flat.contains("(it began before the oldest window held"),
            "{flat}"
        );
    }
}
