// SPDX-License-Identifier: GPL-2.0

//! The hardirq side: the hrtimer's run, its gap's verdict (sleep, steal, stall, held),
//! and the look into an open softirq window it makes on the way.

use kernel::sync::atomic::Relaxed;
use kernel::sync::{Arc, ArcBorrow};
use kernel::time::hrtimer::{HrTimerCallback, HrTimerCallbackContext, HrTimerRestart};

use crate::capture;
use crate::ffi;
use crate::logic::gap::{self, Silent, Steal, Window};
use crate::logic::stack;
use crate::logic::verdict::{HardOutcome, HardSeen, HeldOutcome, HeldSeen, OpenSoftSeen};
use crate::peers::Peer;
use crate::records::MAX_FRAMES;

use super::cpu::{period, CpuSampler};
use super::events::EndStack;
use super::locals::{HardLocal, Held, LookLocal, SleepCounts};

impl CpuSampler {
    /// What this run, at `now`, knows about how the CPU spent the time since the previous
    /// one, at `prev`. The counts are read only in runs that came into the idle loop (no
    /// other run can prove sleep), so a busy CPU pays nothing for them; a run whose
    /// previous run did not read them has no count to compare, and proves nothing.
    pub(super) fn sleep_evidence(
        &self,
        local: &mut SleepCounts,
        interrupted: ffi::Interrupted,
        prev: u64,
        now: u64,
        period_ns: u64,
    ) -> gap::SleepEvidence {
        if !interrupted.idle_loop() {
            return gap::SleepEvidence {
                idle_loop: false,
                interrupts: u64::MAX,
                retries: u32::MAX,
                awake_seen: false,
                per_wake: local.per_wake,
            };
        }
        let irqs = ffi::irq_events();
        let retries = ffi::hrtimer_retries(&self.timer);
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
            awake_seen: self.watch.saw_awake(self.cpu, prev, now, period_ns),
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

    /// The hrtimer ran at `now`: hardirq-off check, then the softirq side's open window.
    pub(super) fn hard_sample(&self, local: &mut LookLocal, rules: &gap::Rules, now: u64) {
        let Some(me) = self.peer() else { return };
        // Frame classes that captures here or in the watcher's NMIs met without knowing
        // them: the namer learns them (`capture::learn_pending`).
        if capture::has_pending() {
            ffi::namer_want();
        }
        let interrupted = ffi::interrupted();
        let prev = me.last_hard_ns.xchg(now, Relaxed);
        // The machine's pulse first: if this run ends a silence, it is posted before this
        // CPU's own gap is judged against it.
        self.peers
            .beat(self.cpu, now, rules.period_ns, rules.threshold_ns);
        let evidence =
            self.sleep_evidence(&mut local.sleep, interrupted, prev, now, rules.period_ns);
        // The steal count at this run and at the previous one (if that one read it). Where
        // the kernel accounts no steal it stays 0, and nothing below waits.
        let steal_now = ffi::steal_ns();
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
            self.decide_held(&mut local.held, rules, me, count, now, new_gap);
        }
        if prev == 0 {
            return;
        }
        // Proven, never assumed from the idle task being current (gap::SleepEvidence).
        let asleep = evidence.proves_sleep();
        // The part of the gap in which no sampled CPU ran: a stall, not this CPU's window.
        let silent = if rules.needs_silence(now.saturating_sub(prev)) {
            self.peers.silent(prev, now)
        } else {
            Silent::known(0)
        };
        let verdict = rules.judge_hard(HardSeen {
            prev,
            now,
            asleep,
            steal,
            silent,
        });
        if let Some(late) = verdict.idle_late {
            self.idle_late.set(late);
        }
        match verdict.outcome {
            HardOutcome::Ordinary => {}
            HardOutcome::IdleLate => self.idle_gaps.add(1, Relaxed),
            HardOutcome::Stall { late } => {
                self.stall_gaps.add(1, Relaxed);
                self.stall_late.set(late);
            }
            HardOutcome::Steal { late } => {
                self.steal_gaps.add(1, Relaxed);
                self.steal_late.set(late);
            }
            HardOutcome::Event { latency, window } => {
                let returned = self.returned(interrupted, prev, now, rules);
                self.hard_report(
                    rules,
                    me,
                    latency,
                    window,
                    prev,
                    now,
                    !returned,
                    EndStack::Here,
                );
            }
            HardOutcome::Hold => {
                let returned = self.returned(interrupted, prev, now, rules);
                self.hold(
                    &mut local.held,
                    rules,
                    me,
                    prev,
                    now,
                    steal.before,
                    !returned,
                    interrupted.idle_loop(),
                );
            }
        }
        let after_gap = verdict.after_gap();
        let bh_held = !asleep && self.bh_held(interrupted);
        if !asleep {
            self.probe_look(
                &mut local.probe_queued,
                &mut local.loop_ip,
                rules,
                interrupted,
                bh_held,
                prev,
                now,
                after_gap,
            );
        }
        let last_soft = self.last_soft_ns.load(Relaxed);
        // The timer_list ran lately (the common case): no softirq window to look into.
        if last_soft == 0 || rules.soft_recent(now.saturating_sub(last_soft)) {
            return;
        }
        self.observe_soft_window(
            rules,
            last_soft,
            now,
            asleep,
            bh_held,
            interrupted.serving_softirq(),
            &mut local.loop_ip,
        );
        // A run in idle that was late explains the gap up to it (`idle_until`); one on
        // time in idle while the timer_list stays away is itself worth a look.
        if !self.soft_starved_seen.load(Relaxed) {
            let starved = rules.judge_open_soft(OpenSoftSeen {
                last_soft,
                prev,
                now,
                hard_off: me.hard_off.get(),
                idle_late: self.idle_late.get(),
                steal_late: self.steal_late.get(),
                stall_late: self.stall_late.get(),
            });
            if let Some(latency) = starved {
                self.soft_starved_seen.store(true, Relaxed);
                self.open_soft_window(latency, last_soft, now);
            }
        }
        // Only while it is open past the threshold: not in the instant between the
        // timer_list's run and its clearing of `soft_starved_seen`, when the window has
        // ended and its profile is being copied.
        if self.soft_starved_seen.load(Relaxed)
            && now.saturating_sub(last_soft) >= rules.threshold_ns
        {
            self.sample_soft_window(last_soft, now);
        }
    }

    /// Whether the stack at this hrtimer run, which ends a gap from `prev`, shows no
    /// culprit: the window was an interrupt handler, hrtimer callback or IPI function that
    /// has returned (the NMI found it in one, or this interrupt came into the idle loop or
    /// user space, which never keep interrupts off, or into the softirq loop itself where
    /// it turns interrupts on to run the softirqs an interrupt's exit found pending: the
    /// interrupts were off since that interrupt, seen on arm64 without NMIs; or into the
    /// return to user space, where the kernel turns them on after an interrupt that came
    /// from user space returned: seen on arm64, an IPI function's window on a CPU busy in
    /// user space, ended in `exit_to_user_mode_loop`); the watcher's stack names it where
    /// there is one.
    pub(super) fn returned(
        &self,
        interrupted: ffi::Interrupted,
        prev: u64,
        now: u64,
        rules: &gap::Rules,
    ) -> bool {
        if interrupted.idle_loop()
            || interrupted.user()
            || self.watch.saw_handler(self.cpu, prev, now, rules.period_ns)
        {
            return true;
        }
        match capture::classify_known(ffi::irq_regs_ip()) {
            stack::FrameClass::SoftirqLoop => interrupted.serving_softirq(),
            stack::FrameClass::ReturnToUser => true,
            _ => false,
        }
    }

    /// Counts and reports a hardirq-off event of `latency_ns` in `window`, which ended at
    /// `end` (see [`CpuSampler::hard_event`]).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn hard_report(
        &self,
        rules: &gap::Rules,
        _me: &Peer,
        latency_ns: u64,
        window: Window,
        prev: u64,
        end: u64,
        end_shows_culprit: bool,
        stack: EndStack<'_>,
    ) {
        // Published for the other CPUs' overlap joins (`Peers::hard_off`).
        self.peers.hard_off(self.cpu, window, rules.threshold_ns);
        self.hard_counts.add(latency_ns);
        self.hard_event(
            rules,
            latency_ns,
            window,
            prev,
            end,
            end_shows_culprit,
            stack,
        );
    }

    /// Holds a gap from `prev` to `now` whose verdict waits for the tick's steal
    /// accounting or for a silence being posted (`gap::Decision::Wait`): what its event needs from now (the task, and
    /// the stack if it may be recorded) is kept, and its window is set as a hardirq-off
    /// window meanwhile, so that the timer_list, which may run first, does not count it
    /// again as softirqs held off. `steal_before`: the steal count at `prev`.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    pub(super) fn hold(
        &self,
        held: &mut Held,
        rules: &gap::Rules,
        me: &Peer,
        prev: u64,
        now: u64,
        steal_before: u64,
        end_shows_culprit: bool,
        ended_idle: bool,
    ) {
        held.before = me.hard_off.get();
        me.hard_off.set(rules.late_window(prev, now));
        held.end = now;
        held.prev = prev;
        held.steal_before = steal_before;
        held.end_shows_culprit = end_shows_culprit;
        held.ended_idle = ended_idle;
        held.left_idle = false;
        held.pid = ffi::current_task(&mut held.comm);
        held.cgroup_id = ffi::current_cgroup_id();
        held.nr_frames = 0;
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
            self.capture_cost.add(ffi::now_ns().saturating_sub(t0));
        }
    }

    /// The held gap's verdict, with the steal count `count` read at `now`, if the count is
    /// settled by then and no silence is being posted (or `force`: a new gap begins, and
    /// its steal is not this one's; it is decided with what is known).
    pub(super) fn decide_held(
        &self,
        held: &mut Held,
        rules: &gap::Rules,
        me: &Peer,
        count: u64,
        now: u64,
        force: bool,
    ) {
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
            silent: self.peers.silent(held.prev, held.end),
        });
        match outcome {
            HeldOutcome::Wait => return,
            HeldOutcome::Event { latency, window } => {
                let stack = EndStack::Held {
                    pid: held.pid,
                    comm: held.comm,
                    cgroup_id: held.cgroup_id,
                    frames: held.frames.get(..held.nr_frames).unwrap_or(&[]),
                };
                self.hard_report(
                    rules,
                    me,
                    latency,
                    window,
                    held.prev,
                    held.end,
                    held.end_shows_culprit,
                    stack,
                );
            }
            HeldOutcome::Steal { late } => {
                // Not an irq-off window: the one before it is this CPU's last again.
                me.hard_off.set(held.before);
                self.steal_gaps.add(1, Relaxed);
                self.steal_late.set(late);
            }
            HeldOutcome::Stall { late } => {
                me.hard_off.set(held.before);
                self.stall_gaps.add(1, Relaxed);
                self.stall_late.set(late);
            }
            HeldOutcome::Ordinary => me.hard_off.set(held.before),
        }
        held.end = 0;
    }
}

impl HrTimerCallback for CpuSampler {
    type Pointer<'a> = Arc<Self>;

    fn run(this: ArcBorrow<'_, Self>, mut ctx: HrTimerCallbackContext<'_, Self>) -> HrTimerRestart {
        // SAFETY: This is the hrtimer callback, `hard_local`'s owner; a pinned hrtimer's
        // callback never runs concurrently with itself, and `start` only uses it before
        // starting the hrtimer.
        let HardLocal {
            rules,
            watch_next,
            ring,
            nmi_seen,
            runs,
            look,
        } = unsafe { this.hard_local.get() };
        // One clock read per run: the check and the re-arm use the same time and settings.
        let (instant, now) = this.settings.now();
        let rules = this.settings.cached_rules(rules);
        this.hard_sample(look, rules, now);
        this.watch.settle(this.cpu, nmi_seen, now);
        // The neighbours' last runs, every `watch_interval` while none is overdue, every
        // run while one is (its NMIs are paced by these runs).
        if now >= *watch_next {
            let busy = this.watch.run(ring, &this.peers, this.cpu, now, rules);
            *watch_next = if busy {
                now
            } else {
                now.saturating_add(rules.watch_interval())
            };
        }
        ctx.forward(instant, period(rules));
        if this.hard_cost.run_counted(runs) {
            this.hard_cost.timed(ffi::now_ns().saturating_sub(now));
        }
        HrTimerRestart::Restart
    }
}
