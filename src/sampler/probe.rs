// SPDX-License-Identifier: GPL-2.0

//! The softirq probe: queued by a look that found softirqs held off, it closes the
//! window where softirqs run again.

use kernel::sync::atomic::{Atomic, Relaxed};

use crate::capture;
use crate::ffi;
use crate::ffi::COMM_LEN;
use crate::logic::cause::{self, Samples};
use crate::logic::gap::{self, Window};
use crate::logic::grammar::EndedBy;
use crate::logic::stack;
use crate::logic::verdict::{ProbeOutcome, ProbeSeen};

use super::cpu::CpuSampler;
use super::events::SoftWindow;
use super::run::Run;

/// The softirq machinery's frames were learnt from a probe's run (`probe_ran`).
static SOFTIRQ_FRAMES_LEARNT: Atomic<bool> = Atomic::new(false);

impl CpuSampler {
    /// The softirq side at the hrtimer's resolution: a look that finds softirqs held off
    /// here (bottom halves off or a softirq handler running; or, where softirqs run in
    /// threads, softirq work waiting while another task runs) queues the probe, unless it is
    /// queued already; later looks are counted for the cause. Its run ends the window.
    /// `queued`: this hrtimer queued the probe and has not yet seen it closed (so that a
    /// look needs no load while it is not queued, the common case).
    pub(super) fn probe_look(
        &self,
        run: &Run<'_>,
        queued: &mut bool,
        loop_ip: &mut u64,
        bh_off: bool,
        after_hard_gap: bool,
    ) {
        let Run {
            rules,
            interrupted,
            prev,
            now,
        } = *run;
        if bh_off && self.capturing.load(Relaxed) {
            return;
        }
        if *queued {
            if self.probe_armed.load(Relaxed) != 0 {
                self.probe_looks.add(1, Relaxed);
                self.probe_bh_off.add(u32::from(bh_off), Relaxed);
                self.probe_serving
                    .add(u32::from(interrupted.serving_softirq()), Relaxed);
                return;
            }
            *queued = false;
        }
        // Softirqs held off, unless this interrupt came into the softirq loop itself
        // (`FrameClass::SoftirqLoop`): softirqs are running there, between handlers. One
        // that was pending while another interrupt's handler ran comes in at the loop's
        // first instruction with interrupts on; the probe would only measure that instant.
        let held = if bh_off {
            !(interrupted.serving_softirq() && self.in_softirq_loop(loop_ip))
        } else {
            self.threaded && !self.in_softirq_thread() && self.softirq_work_waiting()
        };
        if !held {
            return;
        }
        self.probe_start
            .store(rules.probe_start(prev, now, after_hard_gap), Relaxed);
        self.probe_looks.store(1, Relaxed);
        self.probe_bh_off.store(u32::from(bh_off), Relaxed);
        self.probe_serving
            .store(u32::from(interrupted.serving_softirq()), Relaxed);
        self.probe_armed.store(now, Relaxed);
        *queued = true;
        // Queued already (a run that has not come yet): that run closes this window.
        ffi::probe::arm();
    }

    /// Whether bottom halves are held off at this look: by the interrupted code, or (with
    /// PREEMPT_RT's BH lock) by a task a look found in a bottom-half-disabled section that
    /// is still in it, preempted: it holds the lock every softirq of this CPU needs.
    pub(super) fn bh_held(&self, interrupted: ffi::Interrupted) -> bool {
        if interrupted.bh_off() {
            if !interrupted.serving_softirq() && self.bh_lock {
                let mut comm = [0u8; COMM_LEN];
                self.bh_holder.store(ffi::current_task(&mut comm), Relaxed);
            }
            return true;
        }
        if !self.bh_lock {
            return false;
        }
        let holder = self.bh_holder.load(Relaxed);
        if holder == 0 {
            return false;
        }
        let held = ffi::task_holds_bh_lock(holder);
        if !held {
            self.bh_holder.store(0, Relaxed);
        }
        held
    }

    /// Softirq work waits for its thread: softirqs pending, or ksoftirqd/N or ktimers/N
    /// (whose timer softirqs are not in the pending mask) queued to run.
    pub(super) fn softirq_work_waiting(&self) -> bool {
        ffi::softirq_pending() != 0
            || self
                .thread_pids
                .iter()
                .any(|p| ffi::task_waiting(p.load(Relaxed)))
    }

    /// Whether this hrtimer interrupt came into the softirq loop itself, between handlers.
    /// `last` is the last instruction found to be in it: where an interrupt pending during
    /// another one's handler comes in, every time the same one.
    pub(super) fn in_softirq_loop(&self, last: &mut u64) -> bool {
        let ip = ffi::irq_regs_ip();
        if ip == 0 {
            return false;
        }
        if ip == *last {
            return true;
        }
        let in_loop = capture::classify_known(ip) == stack::FrameClass::SoftirqLoop;
        if in_loop {
            *last = ip;
        }
        in_loop
    }

    /// The current task is this CPU's ksoftirqd/N or ktimers/N.
    pub(super) fn in_softirq_thread(&self) -> bool {
        let mut comm = [0u8; COMM_LEN];
        let pid = ffi::current_task(&mut comm);
        self.thread_pids.iter().any(|p| p.load(Relaxed) == pid)
    }

    /// The probe ran (softirq context, this CPU): softirqs run again.
    pub(crate) fn probe_ran(&self) {
        let now = ffi::now_ns();
        self.close_probe(now);
        self.soft_cost.add(ffi::now_ns().saturating_sub(now));
        if !self.threaded {
            // Where no timer_list runs, the probe is the softirq side's run: softirqs run
            // here, so the window the looks had open is over now (after `close_probe`
            // reported it under the key of the free look before it), also on a CPU that
            // goes to sleep right after, where no look comes to end it. With interrupts
            // on, it kicks the namer the hard side wanted, and, once, learns the softirq
            // machinery's frames, as the timer_list's first run did.
            self.softirqs_free(&self.settings.rules(), now);
            ffi::namer_kick_wanted();
            if !SOFTIRQ_FRAMES_LEARNT.load(Relaxed) && !SOFTIRQ_FRAMES_LEARNT.xchg(true, Relaxed) {
                capture::learn_from_here();
            }
        }
    }

    /// Softirqs run on this CPU at `now` (softirq context: the probe, or the timer_list,
    /// which may run first where a long softirq handler left the probe to ksoftirqd). Held
    /// for a period or more after the look that queued the probe, that was a softirq-off
    /// window, reported here, where it ended; the probe's own run, if still to come, then
    /// finds nothing to close.
    pub(super) fn close_probe(&self, now: u64) {
        if self.probe_armed.load(Relaxed) == 0 {
            return;
        }
        let start = self.probe_start.load(Relaxed);
        let samples = Samples {
            total: self.probe_looks.load(Relaxed),
            bh_off: self.probe_bh_off.load(Relaxed),
            idle: 0,
        };
        let serving = self.probe_serving.load(Relaxed) != 0;
        // Last: a look in between counts into the window that is ending.
        let armed = self.probe_armed.xchg(0, Relaxed);
        if armed == 0 {
            return;
        }
        // Softirqs held off for less than a period after the look (the common run of the
        // probe): no window, whatever stalled (`Rules::judge_probe` finds nothing), so
        // neither the rules are derived nor the machine's silences read.
        let Some(rules) = self
            .settings
            .rules_if(|period_ns| gap::probe_held_a_period(armed, now, period_ns))
        else {
            return;
        };
        // A stall of the whole machine inside the window is not softirqs held off.
        let latency = match rules.judge_probe(ProbeSeen {
            start,
            armed,
            now,
            silent: self.stalled_ns(start, now),
            silent_after_look: self.stalled_ns(armed, now),
        }) {
            ProbeOutcome::Nothing => return,
            ProbeOutcome::Stall => {
                self.stall_gaps.add(1, Relaxed);
                return;
            }
            ProbeOutcome::Event { latency } => latency,
        };
        // Where timers run in their own thread, the timer_list may have reported this
        // window first (a long timer callback in ktimers/N, the probe run after it): one
        // window, one event.
        if gap::overlaps_most(Window { start, end: now }, self.timer_window.get()) {
            return;
        }
        self.probe_window.set(Window { start, end: now });
        let mut comm = [0u8; COMM_LEN];
        let pid = ffi::current_task(&mut comm);
        let in_thread = self.thread_pids.iter().any(|p| p.load(Relaxed) == pid);
        let cause = cause::classify(samples, in_thread);
        // The window's lower-bound record and profile are kept under the timer_list's
        // last run, which softirqs held off could not move.
        let key = self.last_soft_ns.load(Relaxed);
        // The probe's window, whichever softirq run came first to close it (its start is
        // the look's estimate): `probe`.
        let window = SoftWindow {
            ended_by: EndedBy::Probe,
            latency_ns: latency,
            key,
            start_jiffies: self.last_soft_jiffies.load(Relaxed),
            cause,
            runnable_ns: self.runnable_in(key, cause, now),
            samples,
            end_shows_culprit: !ffi::in_idle() && !serving,
            together_ns: self.together_ns(start, now, latency),
        };
        self.soft_event(&rules, window, now, pid, comm);
    }
}
