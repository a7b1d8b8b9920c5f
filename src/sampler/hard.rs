// SPDX-License-Identifier: GPL-2.0

//! The hardirq side: the hrtimer's run, its gap's verdict (sleep, steal, stall, held),
//! and the look into an open softirq window it makes on the way.

use kernel::sync::atomic::Relaxed;
use kernel::sync::{Arc, ArcBorrow};
use kernel::time::hrtimer::{HrTimerCallback, HrTimerCallbackContext, HrTimerRestart};

use crate::capture;
use crate::ffi;
use crate::logic::gap::{self, Steal, Window};
use crate::logic::stack;
use crate::logic::stall::Evidence;
use crate::logic::verdict::{HardOutcome, HardSeen, HeldOutcome, HeldSeen, OpenSoftSeen};
use crate::peers::Peer;
use crate::records::MAX_FRAMES;
use crate::watch::{PendingSeen, Ring};

use super::cpu::CpuSampler;
use super::events::{EndStack, HardWindow};
use super::locals::{HardLocal, Held, LookLocal, SleepCounts};
use super::run::Run;

/// What this run, at `now`, which came into the idle loop, knows about how the CPU spent
/// the time since the previous one, at `prev`. The counts are read only in such runs (no
/// other run can prove sleep), so a busy CPU pays nothing for them; a run whose previous
/// run did not read them has no count to compare, and proves nothing.
fn sleep_evidence(
    s: &CpuSampler,
    local: &mut SleepCounts,
    prev: u64,
    now: u64,
    period_ns: u64,
) -> gap::SleepEvidence {
    let irqs = ffi::irq_events();
    let retries = ffi::hrtimer_retries(&s.timer);
    let last_irqs = core::mem::replace(&mut local.last_irq_events, irqs);
    let last_retries = core::mem::replace(&mut local.last_retries, retries);
    let known = core::mem::replace(&mut local.counts_at, now) == prev;
    let evidence = gap::SleepEvidence {
        idle_loop: true,
        interrupts: if known {
            irqs.wrapping_sub(last_irqs)
        } else {
            u64::MAX
        },
        retries: if known {
            retries.wrapping_sub(last_retries)
        } else {
            u32::MAX
        },
        awake_seen: s.watch.saw_awake(s.cpu, prev, now, period_ns),
        per_wake: local.per_wake,
    };
    local.per_wake = gap::per_wake(
        local.per_wake,
        evidence.interrupts,
        evidence.retries,
        now.saturating_sub(prev) < 2 * period_ns,
    );
    evidence
}

/// This CPU's counts since the run before, at `prev`, for a stall's evidence
/// (`stall::Evidence`): whether it handled no interrupt but its local timer's, the time
/// the kernel accounted to its interrupt handlers and softirqs (`None`: not accounted, or
/// not read at `prev`), and, for a run in the idle loop, the time it slept there (`None`:
/// not accounted, or not read at `prev`). Only what a verdict can use is read, in every
/// run (the next gap's evidence needs this run's counts): nothing where no host
/// can stop the machine (no silence is a stall there); the interrupt time alone where the
/// kernel accounts it (`Evidence::proves_stall` then uses nothing else); else the
/// interrupt count (a few per-CPU loads) and the idle sleep time, whose clock read is
/// taken again only after the CPU began a sleep (`ffi::idle_sleeps`).
fn since_prev(
    s: &CpuSampler,
    local: &mut LookLocal,
    interrupted: ffi::Interrupted,
    prev: u64,
) -> (bool, Option<u64>, Option<u64>) {
    if !s.peers.vm() {
        return (false, None, None);
    }
    // Known where the run before read them: every run reads the steal count too, after
    // this, and `steal_at` says when.
    let known = local.steal_at == prev;
    if let Some(t) = ffi::irq_time_ns() {
        let before = core::mem::replace(&mut local.irq_time, t);
        // Not read here: a later run without the accounting (x86 turns it off where the
        // TSC turns out unstable) reads it anew. The interrupt count kept is older than
        // `prev` then, and an equal count still proves what it proves: none since.
        local.idle_sleep = u64::MAX;
        let irq_ns = (known && before != u64::MAX).then(|| t.wrapping_sub(before));
        return (false, irq_ns, None);
    }
    local.irq_time = u64::MAX;
    let others = ffi::irq_events_but_timer();
    let quiet = known && others == core::mem::replace(&mut local.others, others);
    // Read in every run: a CPU that went idle after a run in a task (a shell that asked
    // the host for a stop, say) has its idle time known from then. Used for a run in the
    // idle loop only.
    // Its low bits: see `LookLocal::idle_sleeps`.
    let sleeps = ffi::idle_sleeps().map_or(u32::MAX, |n| n as u32);
    let idle_now = if sleeps != u32::MAX && sleeps == local.idle_sleeps {
        local.idle_sleep
    } else {
        local.idle_sleeps = sleeps;
        ffi::idle_sleep_ns().unwrap_or(u64::MAX)
    };
    let idle_before = core::mem::replace(&mut local.idle_sleep, idle_now);
    let idle_ns =
        (known && interrupted.idle_loop() && idle_now != u64::MAX && idle_before != u64::MAX)
            .then(|| idle_now.wrapping_sub(idle_before));
    (quiet, None, idle_ns)
}

/// The late part of the hrtimer's last gap out of which it took silences (`g`, empty:
/// none), which the look at an open softirq window does not take for softirqs held off.
fn stall_late(rules: &gap::Rules, g: Window) -> Window {
    if g == Window::EMPTY {
        g
    } else {
        rules.late_window(g.start, g.end)
    }
}

/// Who takes a sample: the hrtimer's callback, or the tick's local timer interrupt.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Taker {
    Hrtimer,
    Tick,
}

/// The hrtimer's sample at `now` (in its callback, or where the tick takes it):
/// hardirq-off check, then the softirq side's open window.
fn sample(s: &CpuSampler, local: &mut LookLocal, rules: &gap::Rules, now: u64, taker: Taker) {
    let Some(me) = s.peer() else { return };
    // The steal count with it, in one call: only this CPU's tick and idle exit move it,
    // never while this interrupt runs.
    let (interrupted, steal_now) = ffi::interrupted_steal();
    let prev = match me.last_hard_ns.xchg(now, Relaxed) {
        // The first run since `start`, before it published one: the gap from the arming,
        // a period before this first expiry. (The tick takes no sample before one was
        // published: `CpuSampler::ticked`.)
        0 if taker == Taker::Hrtimer => {
            // SAFETY: This is `s.timer`'s callback (`Taker::Hrtimer`, from `run`).
            unsafe { ffi::hrtimer_expires_ns(&s.timer) }.saturating_sub(rules.period_ns)
        }
        0 => now.saturating_sub(rules.period_ns),
        prev => prev,
    };
    // What a gap that came back into the idle loop or user space may show of a stall
    // (`stall::Evidence`), as counts since the run before, if that run read them.
    let (quiet, irq_ns, idle_ns) = since_prev(s, local, interrupted, prev);
    // The machine's pulse first: if this run ends a silence, it is posted before this
    // CPU's own gap is judged against it.
    s.peers
        .beat(s.cpu, now, rules.period_ns, rules.threshold_ns);
    // Proven, never assumed from the idle task being current (gap::SleepEvidence); only a
    // run that came into the idle loop can prove it.
    let asleep = interrupted.idle_loop()
        && sleep_evidence(s, &mut local.sleep, prev, now, rules.period_ns).proves_sleep();
    // The steal count at this run and at the previous one (if that one read it). Where
    // the kernel accounts no steal it stays 0, and nothing below waits.
    let steal_prev = core::mem::replace(&mut local.steal, steal_now);
    let steal = Steal {
        before: if core::mem::replace(&mut local.steal_at, now) == prev {
            steal_prev
        } else {
            steal_now
        },
        now: steal_now,
    };
    if local.held.end != 0 {
        if !interrupted.idle_loop() {
            local.held.left_idle = true;
        }
        // A gap held for the tick's steal accounting: decided now, at the latest
        // before a new gap, with the count from before that one.
        let new_gap = prev != 0 && rules.hard_latency(now.saturating_sub(prev)).is_some();
        let count = if new_gap { steal.before } else { steal.now };
        decide_held(s, &mut local.held, rules, me, count, now, new_gap);
    }
    if prev == 0 {
        return;
    }
    let run = Run {
        rules,
        interrupted,
        prev,
        now,
    };
    // An ordinary gap, the common run: its verdict is `HardOutcome::Ordinary` whatever
    // else was seen (`Rules::hard_ordinary`), so the machine's silences are not read,
    // nor the verdict worked out; a run proven asleep still marks its late part.
    let after_gap = if rules.hard_ordinary(now.saturating_sub(prev)) {
        if asleep {
            s.idle_late.set(rules.late_window(prev, now));
        }
        false
    } else {
        let evidence = Evidence {
            vm: s.peers.vm(),
            idle_loop: interrupted.idle_loop(),
            user: interrupted.user(),
            exit: came_back_in_exit(interrupted),
            asleep,
            irq_ns,
            idle_ns,
            quiet,
        };
        hard_gap(s, &mut local.held, me, &run, evidence, steal)
    };
    let bh_held = !asleep && s.bh_held(interrupted);
    if !asleep {
        s.probe_look(
            &run,
            &mut local.probe_queued,
            &mut local.loop_ip,
            bh_held,
            after_gap,
        );
    }
    // Where softirqs do not run in threads, this look is the softirq side's evidence (no
    // timer_list runs: `CpuSampler::start`): softirqs free here (bottom halves on, or
    // this interrupt came into the softirq loop, where they run) would run at this
    // interrupt's exit if any were pending. Not while a probe is out: its window is
    // kept under the last free look before it, until the probe reports it.
    if !s.threaded
        && (!bh_held || (interrupted.serving_softirq() && s.in_softirq_loop(&mut local.loop_ip)))
        && s.probe_armed.load(Relaxed) == 0
    {
        s.softirqs_free(rules, now);
    }
    let last_soft = s.last_soft_ns.load(Relaxed);
    // The timer_list ran lately (the common case): no softirq window to look into.
    if last_soft == 0 || rules.soft_recent(now.saturating_sub(last_soft)) {
        return;
    }
    s.observe_soft_window(&run, last_soft, asleep, bh_held, &mut local.loop_ip);
    // A run in idle that was late explains the gap up to it (`idle_until`); one on
    // time in idle while the timer_list stays away is itself worth a look.
    if !s.soft_starved_seen.load(Relaxed) {
        let starved = rules.judge_open_soft(OpenSoftSeen {
            last_soft,
            prev,
            now,
            hard_off: me.hard_off.get(),
            idle_late: s.idle_late.get(),
            steal_late: s.steal_late.get(),
            stall_late: stall_late(rules, s.stall_gap.get()),
        });
        if let Some(latency) = starved {
            s.soft_starved_seen.store(true, Relaxed);
            s.open_soft_window(latency, last_soft, now);
        }
    }
    // Only while it is open past the threshold: not in the instant between the
    // timer_list's run and its clearing of `soft_starved_seen`, when the window has
    // ended and its profile is being copied.
    if s.soft_starved_seen.load(Relaxed) && now.saturating_sub(last_soft) >= rules.threshold_ns {
        s.sample_soft_window(last_soft, now);
    }
}

/// The verdict on a gap from `prev` to `now` that may be more than ordinary lateness
/// (`Rules::hard_ordinary` does not hold), and what it calls for: counted, reported
/// or held. Returns whether the run ends a gap that was more than ordinary lateness
/// (`HardVerdict::after_gap`).
#[inline(never)]
fn hard_gap(
    s: &CpuSampler,
    held: &mut Held,
    me: &Peer,
    run: &Run<'_>,
    evidence: Evidence,
    steal: Steal,
) -> bool {
    let Run {
        rules, prev, now, ..
    } = *run;
    // The part of the gap in which no sampled CPU ran (a gap that is not ordinary may be
    // an event: `Rules::needs_silence`): a stall only with this CPU's evidence, else part
    // of its window, as every CPU late together.
    let silent = s.peers.silent(prev, now, rules.period_ns);
    let stall_evidence = evidence.proves_stall(silent.ns);
    if silent.taken_with(stall_evidence) && silent.ns > 0 {
        s.stall_gap.set(Window {
            start: prev,
            end: now,
        });
    }
    let verdict = rules.judge_hard(HardSeen {
        prev,
        now,
        asleep: evidence.asleep,
        steal,
        silent,
        stall_evidence,
    });
    if let Some(late) = verdict.idle_late {
        s.idle_late.set(late);
    }
    match verdict.outcome {
        HardOutcome::Ordinary => {}
        HardOutcome::IdleLate => s.idle_gaps.add(1, Relaxed),
        HardOutcome::Stall { .. } => {
            s.stall_gaps.add(1, Relaxed);
        }
        HardOutcome::Steal { late } => {
            s.steal_gaps.add(1, Relaxed);
            s.steal_late.set(late);
        }
        HardOutcome::Event { latency, window } => {
            let w = HardWindow {
                latency_ns: latency,
                window,
                together_ns: verdict.together_ns,
                prev,
                end: now,
                end_shows_culprit: !returned(s, run),
                stop_callback: ffi::stop_machine_callback(),
            };
            hard_report(s, rules, w, EndStack::Here);
        }
        HardOutcome::Hold => {
            let end_shows_culprit = !returned(s, run);
            hold(
                s,
                held,
                me,
                run,
                steal.before,
                end_shows_culprit,
                stall_evidence,
            );
        }
    }
    verdict.after_gap()
}

/// Whether this hrtimer run's interrupt came into the return from an interrupt, where the
/// kernel turns interrupts on again after a handler (`stall::Evidence::exit`): the
/// return to user space, the preemption on the return to kernel code, the softirq loop
/// run on an interrupt's exit. Only the classes already known (no lookup here).
fn came_back_in_exit(interrupted: ffi::Interrupted) -> bool {
    match capture::classify_known(ffi::irq_regs_ip()) {
        stack::FrameClass::ReturnToUser | stack::FrameClass::InterruptExit => true,
        stack::FrameClass::SoftirqLoop => interrupted.serving_softirq(),
        _ => false,
    }
}

/// Whether the stack at this hrtimer run, which ends a gap from `prev`, shows no
/// culprit: the window was an interrupt handler, hrtimer callback or IPI function that
/// has returned. So it was where the NMI found one; where this interrupt came into the
/// idle loop or user space, which never keep interrupts off; where it came into the
/// return from an interrupt, which turns them on after the handler (the softirq loop an
/// interrupt's exit runs, seen on arm64 without NMIs; the return to user space, seen on
/// arm64, an IPI function's window on a CPU busy in user space ended in
/// `exit_to_user_mode_loop`); and, where the instructions tell (arm64), where
/// it came into kernel code that had not just turned interrupts on: that code ran with
/// them on, so the window was a handler's, maybe one in this very interrupt (a hard
/// hrtimer callback that came into a softirq handler and held interrupts off while this
/// hrtimer expired, whose callback then runs in the same interrupt: seen on arm64 with
/// the end stack in the scheduler's softirq). The watcher's stack names it where there
/// is one.
fn returned(s: &CpuSampler, run: &Run<'_>) -> bool {
    let Run {
        rules,
        interrupted,
        prev,
        now,
    } = *run;
    if interrupted.idle_loop()
        || interrupted.user()
        || s.watch.saw_handler(s.cpu, prev, now, rules.period_ns)
        || ffi::irqs_came_on_at_interrupt() == Some(false)
    {
        return true;
    }
    // Not the preemption on the return to kernel code (`preempt_schedule_irq`): an
    // interrupt that comes in there may find a task's window ended by another interrupt
    // that came first, whose exit preempted the task, with the task's frame below it
    // (seen on PREEMPT_RT, x86: the lock wait of case 60); the stack cut then names it.
    match capture::classify_known(ffi::irq_regs_ip()) {
        stack::FrameClass::SoftirqLoop => interrupted.serving_softirq(),
        stack::FrameClass::ReturnToUser => true,
        _ => false,
    }
}

/// Counts and reports the hardirq-off event `w` (see [`CpuSampler::hard_event`]).
fn hard_report(s: &CpuSampler, rules: &gap::Rules, w: HardWindow, stack: EndStack<'_>) {
    // Published for the other CPUs' overlap joins (`Peers::hard_off`).
    s.peers.hard_off(s.cpu, w.window, rules.threshold_ns);
    s.hard_counts.add(w.latency_ns);
    if w.together_ns > 0 {
        if let Some(me) = s.peer() {
            me.together_events.add(1, Relaxed);
        }
    }
    s.hard_event(rules, w, stack);
}

/// Holds a gap from `prev` to `now` whose verdict waits for the tick's steal
/// accounting or for a silence being posted (`gap::Decision::Wait`): what its event needs from now (the task, and
/// the stack if it may be recorded) is kept, and its window is set as a hardirq-off
/// window meanwhile, so that the timer_list, which may run first, does not count it
/// again as softirqs held off. `steal_before`: the steal count at `prev`.
#[inline(never)]
fn hold(
    s: &CpuSampler,
    held: &mut Held,
    me: &Peer,
    run: &Run<'_>,
    steal_before: u64,
    end_shows_culprit: bool,
    stall_evidence: bool,
) {
    let Run {
        rules,
        interrupted,
        prev,
        now,
    } = *run;
    let ended_idle = interrupted.idle_loop();
    held.before = me.hard_off.get();
    me.hard_off.set(rules.late_window(prev, now));
    held.end = now;
    held.prev = prev;
    held.steal_before = steal_before;
    held.end_shows_culprit = end_shows_culprit;
    held.stall_evidence = stall_evidence;
    held.ended_idle = ended_idle;
    held.left_idle = false;
    held.pid = ffi::current_task(&mut held.comm);
    held.cgroup_id = ffi::current_cgroup_id();
    held.nr_frames = 0;
    held.stop_callback = ffi::stop_machine_callback();
    // The remaining latency is at most this: below the threshold, no record needs it.
    if rules
        .hard_latency(now.saturating_sub(prev))
        .is_some_and(|l| rules.is_recorded(l))
    {
        let t0 = ffi::now_ns();
        let mut raw = [0u64; capture::RAW_FRAMES];
        let kept = capture::capture_raw(
            &mut raw,
            ffi::irq_regs_ip(),
            capture::Context::Interrupt,
            capture::END_FRAMES,
        );
        for (to, &from) in held.frames.iter_mut().zip(kept) {
            *to = from;
        }
        held.nr_frames = kept.len().min(MAX_FRAMES);
        s.capture_cost.add(ffi::now_ns().saturating_sub(t0));
    }
}

/// The held gap's verdict, with the steal count `count` read at `now`, if the count is
/// settled by then and no silence is being posted (or `force`: a new gap begins, and
/// its steal is not this one's; it is decided with what is known).
fn decide_held(
    s: &CpuSampler,
    held: &mut Held,
    rules: &gap::Rules,
    me: &Peer,
    count: u64,
    now: u64,
    force: bool,
) {
    let silent = s.peers.silent(held.prev, held.end, rules.period_ns);
    if silent.taken_with(held.stall_evidence) && silent.ns > 0 {
        s.stall_gap.set(Window {
            start: held.prev,
            end: held.end,
        });
    }
    let outcome = rules.judge_held(HeldSeen {
        prev: held.prev,
        end: held.end,
        now,
        steal: Steal {
            before: held.steal_before,
            now: count,
        },
        ended_idle: held.ended_idle,
        left_idle: held.left_idle,
        force,
        silent,
        stall_evidence: held.stall_evidence,
    });
    match outcome {
        HeldOutcome::Wait => return,
        HeldOutcome::Event {
            latency,
            window,
            together_ns,
        } => {
            let stack = EndStack::Held {
                pid: held.pid,
                comm: held.comm,
                cgroup_id: held.cgroup_id,
                frames: held.frames.get(..held.nr_frames).unwrap_or(&[]),
            };
            let w = HardWindow {
                latency_ns: latency,
                window,
                together_ns,
                prev: held.prev,
                end: held.end,
                end_shows_culprit: held.end_shows_culprit,
                stop_callback: held.stop_callback,
            };
            hard_report(s, rules, w, stack);
        }
        HeldOutcome::Steal { late } => {
            // Not an irq-off window: the one before it is this CPU's last again.
            me.hard_off.set(held.before);
            s.steal_gaps.add(1, Relaxed);
            s.steal_late.set(late);
        }
        HeldOutcome::Stall { .. } => {
            me.hard_off.set(held.before);
            s.stall_gaps.add(1, Relaxed);
        }
        HeldOutcome::Ordinary => me.hard_off.set(held.before),
    }
    held.end = 0;
}

/// The hrtimer's errands at `now`, every `watch_interval`: this CPU's lost NMI, the
/// namer, the neighbours' last runs. Returns when they are due again: now while a
/// neighbour is overdue (its NMIs are paced by these runs). Out of line, so that the
/// common run does not carry their registers.
#[cold]
#[inline(never)]
fn errands(
    s: &CpuSampler,
    ring: &mut Ring,
    nmi_seen: &mut PendingSeen,
    rules: &gap::Rules,
    now: u64,
) -> u64 {
    s.watch.settle(s.cpu, nmi_seen, now);
    // Awake: a watcher asleep with its hrtimer parked is woken to watch this CPU.
    s.watch.wake_watchers(&s.peers, s.cpu);
    // Frame classes that captures here or in the watcher's NMIs met without knowing
    // them: the namer learns them (`capture::learn_pending`).
    if capture::has_pending() {
        ffi::namer_want();
    }
    if s.watch.run(ring, &s.peers, s.cpu, now, rules) {
        now
    } else {
        now.saturating_add(rules.watch_interval())
    }
}

/// One run of the hrtimer's sampler at `now`, by `taker`: the sample, the errands when
/// due, and (`then`) the hrtimer moved on to its next expiry; timed as one run.
fn take(
    s: &CpuSampler,
    local: &mut HardLocal,
    now: u64,
    taker: Taker,
    then: impl FnOnce(&gap::Rules),
) {
    let HardLocal {
        rules,
        watch_next,
        ring,
        nmi_seen,
        runs,
        look,
    } = local;
    let rules = s.settings.cached_rules(rules);
    sample(s, look, rules, now, taker);
    // The errands that wait a little: the neighbours' last runs, this CPU's lost NMI
    // and the namer, every `watch_interval` while no neighbour is overdue, every run
    // while one is (its NMIs are paced by these runs).
    if now >= *watch_next {
        *watch_next = errands(s, ring, nmi_seen, rules, now);
    }
    then(rules);
    // Where no timer_list runs, the probe's run kicks the namer (with interrupts on) that
    // this CPU's records or captures want; the first run queues it too, to learn the
    // softirq machinery's frames (`probe_ran`).
    if !s.threaded && (ffi::namer_wanted() || runs.runs == 0) {
        ffi::probe::arm();
    }
    // The ticks that look whether the next sample is due: from a tick short of P on.
    let gate = rules
        .ride_gate_jiffies()
        .map_or(0, |n| ffi::jiffies().wrapping_add(n).max(1));
    ffi::ride_gate(gate);
    if s.hard_cost.run_counted(runs) {
        s.hard_cost.timed(ffi::now_ns().saturating_sub(now));
    }
}

impl CpuSampler {
    /// This CPU's local timer interrupt, at its entry (x86, hard interrupts off, before
    /// its handler; the tick's, on a busy CPU): where the hrtimer's sample is due within
    /// half a tick (`Rules::ride_due`), it is taken here, and the hrtimer moved past the
    /// next tick (`Rules::ride_backstop`). At this entry interrupts are as they are for
    /// the hrtimer's run (the interrupted code's registers, the same context), and the
    /// same sample sees the same things; while the tick runs, a busy CPU takes no
    /// interrupt of the sampler's own. Where the tick stops, the hrtimer's runs go on.
    /// Called only from the jiffy that each run sets (`Rules::ride_gate_jiffies`, at
    /// most four ticks a period); a look that takes no sample costs a few loads and one
    /// clock read.
    pub(crate) fn ticked(&self) {
        let Some(me) = self.peer() else { return };
        // Stopped (or not yet started), or parked: the hrtimer's own runs, or none.
        let last = me.last_hard_ns.load(Relaxed);
        if last == 0 || me.parked_since.load(Relaxed) != 0 {
            return;
        }
        let now = ffi::now_ns();
        // SAFETY: `hard_local`'s owners run on `self.cpu` with hard interrupts off and
        // never nest: the hrtimer's callback runs inside this CPU's timer interrupt
        // handler, this at that interrupt's entry, before the handler. `start` uses it
        // only before it arms the hrtimer, and `last_hard_ns` is 0 until then (it is
        // cleared by `stop`, with interrupts off on this CPU, before any start).
        let local = unsafe { self.hard_local.get() };
        if !self
            .settings
            .cached_rules(&mut local.rules)
            .ride_due(last, now)
        {
            return;
        }
        take(self, local, now, Taker::Tick, |rules| {
            // SAFETY: On `self.cpu`, interrupts off, outside the callback (above); the
            // handle that cancels the timer exists while `last_hard_ns` is non-zero
            // (`start` publishes it after arming, holding the handle it then keeps in
            // `running`; `stop` clears it in the section that cancels the timer), and
            // nothing else starts the timer meanwhile.
            unsafe { ffi::hrtimer_move(&self.timer, rules.ride_backstop(now)) };
        });
    }
}

impl HrTimerCallback for CpuSampler {
    type Pointer<'a> = Arc<Self>;

    fn run(this: ArcBorrow<'_, Self>, _ctx: HrTimerCallbackContext<'_, Self>) -> HrTimerRestart {
        // SAFETY: This is the hrtimer callback, one of `hard_local`'s owners; a pinned
        // hrtimer's callback never runs concurrently with itself, nor with the tick's
        // look at its interrupt's entry (`ticked`, on this CPU with interrupts off), and
        // `start` only uses it before starting the hrtimer.
        let local = unsafe { this.hard_local.get() };
        // One clock read per run: the check and the re-arm use the same time and settings.
        let now = ffi::now_ns();
        take(&this, local, now, Taker::Hrtimer, |rules| {
            // SAFETY: This is `this.timer`'s callback, and it returns a restart; `start`
            // and `stop` never start it while its callback runs (`stop` cancels it,
            // waiting for the callback), nor does `ticked` (it runs on this CPU, outside).
            unsafe { ffi::hrtimer_forward(&this.timer, now, rules.period_ns) };
        });
        HrTimerRestart::Restart
    }
}
