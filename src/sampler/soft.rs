// SPDX-License-Identifier: GPL-2.0

//! The softirq side: the timer_list's run and its gap's verdict, and the hrtimer's view
//! of a softirq window still open.

use kernel::sync::atomic::Relaxed;

use crate::capture;
use crate::ffi;
use crate::ffi::COMM_LEN;
use crate::logic::cause::{self, Cause, Samples};
use crate::logic::gap::{self, Steal, Window};
use crate::logic::grammar::EndedBy;
use crate::logic::profile;
use crate::logic::verdict::{SoftOutcome, SoftSeen};
use crate::records::{SampledTask, MAX_FRAMES};
use crate::settings::RulesCache;

use super::cpu::CpuSampler;
use super::events::SoftWindow;
use super::locals::SoftLocal;
use super::run::Run;

impl CpuSampler {
    /// One look of the hrtimer into the softirq window open past the threshold since
    /// `start`: a sample of its profile when one is due (`profile::next_sample`).
    #[inline(never)]
    pub(super) fn sample_soft_window(&self, start: u64, now: u64) {
        if self.soft_prof_window.load(Relaxed) != start {
            self.soft_prof_window.store(start, Relaxed);
            self.soft_prof_sent.store(0, Relaxed);
            self.soft_prof_since.store(0, Relaxed);
        }
        let since = self.soft_prof_since.load(Relaxed).saturating_add(1);
        let sent = self.soft_prof_sent.load(Relaxed);
        let Some(weight) = profile::next_sample(sent, since, self.watch.max_samples) else {
            self.soft_prof_since.store(since, Relaxed);
            return;
        };
        let t0 = ffi::now_ns();
        let mut raw = [0u64; capture::RAW_FRAMES];
        let frames = capture::capture_raw(
            &mut raw,
            ffi::irq_regs_ip(),
            capture::Context::Interrupt,
            MAX_FRAMES,
        );
        let mut comm = [0u8; COMM_LEN];
        let pid = ffi::current_task(&mut comm);
        let task = SampledTask {
            pid,
            comm: &comm,
            cgroup_id: ffi::current_cgroup_id(),
        };
        self.soft_profile.sample(start, weight, frames, task, now);
        self.soft_prof_sent.store(sent.saturating_add(1), Relaxed);
        self.soft_prof_since.store(0, Relaxed);
        self.capture_cost.add(ffi::now_ns().saturating_sub(t0));
    }

    /// One look inside a softirq window that is longer than any ordinary timer_list gap:
    /// bottom halves off here, or a softirq thread waiting to run.
    #[inline(never)]
    pub(super) fn observe_soft_window(
        &self,
        run: &Run<'_>,
        last_soft: u64,
        asleep: bool,
        bh_held: bool,
        loop_ip: &mut u64,
    ) {
        let (rules, now) = (run.rules, run.now);
        let serving = run.interrupted.serving_softirq();
        if !rules.soft_overdue(now.saturating_sub(last_soft)) {
            return;
        }
        if self.win_of.load(Relaxed) != last_soft {
            self.win_total.store(0, Relaxed);
            self.win_bh_off.store(0, Relaxed);
            self.win_idle.store(0, Relaxed);
            self.win_serving.store(0, Relaxed);
            self.win_waiting_since.store(0, Relaxed);
            self.win_of.store(last_soft, Relaxed);
        }
        if asleep {
            self.win_idle.add(1, Relaxed);
            return;
        }
        self.win_total.add(1, Relaxed);
        // Held off, unless this run came into the softirq loop, where softirqs run (as in
        // `probe_look`).
        if bh_held && !(serving && self.in_softirq_loop(loop_ip)) {
            self.win_bh_off.add(1, Relaxed);
        }
        if serving {
            self.win_serving.add(1, Relaxed);
        }
        if self.win_waiting_since.load(Relaxed) == 0
            && self
                .thread_pids
                .iter()
                .any(|p| ffi::task_waiting(p.load(Relaxed)))
        {
            self.win_waiting_since.store(now, Relaxed);
        }
    }

    /// The cause of the softirq window that started at `start` and ends `now` (run by the
    /// timer_list, as `pid`), and how long a softirq thread was seen waiting in it.
    pub(super) fn window_cause(&self, start: u64, now: u64, pid: i32) -> (Cause, u64, Samples) {
        let samples = self.window_samples(start);
        let in_thread = self.thread_pids.iter().any(|p| p.load(Relaxed) == pid);
        let cause = cause::classify(samples, in_thread);
        (cause, self.runnable_in(start, cause, now), samples)
    }

    /// The hrtimer's looks inside the softirq window that started at `start` (none if it
    /// looked into another).
    pub(super) fn window_samples(&self, start: u64) -> Samples {
        if self.win_of.load(Relaxed) == start {
            Samples {
                total: self.win_total.load(Relaxed),
                bh_off: self.win_bh_off.load(Relaxed),
                idle: self.win_idle.load(Relaxed),
            }
        } else {
            Samples::default()
        }
    }

    /// The timer_list ran: softirq-off check. Returns the next delay in jiffies.
    pub(crate) fn soft_sample(&self) -> u64 {
        // SAFETY: This is the timer_list callback, `soft_local`'s owner; its one timer never
        // runs concurrently with itself.
        let SoftLocal {
            rules,
            runs,
            steal,
            steal_at,
        } = unsafe { self.soft_local.get() };
        let now = ffi::now_ns();
        // The steal accounted since its last run (0 where none is): the tick that raised
        // this timer softirq accounted it first.
        let steal_now = ffi::steal_ns();
        let known = core::mem::replace(steal_at, now) == self.last_soft_ns.load(Relaxed);
        let steal_prev = core::mem::replace(steal, steal_now);
        let stolen = if known {
            Steal {
                before: steal_prev,
                now: steal_now,
            }
            .delta()
        } else {
            0
        };
        let next = self.soft_check(rules, now, stolen);
        if self.soft_cost.run_counted(runs) {
            self.soft_cost.timed(ffi::now_ns().saturating_sub(now));
        }
        // The namer runs the hard interrupt side wanted (`ffi::namer_want`), queued here.
        ffi::namer_kick_wanted();
        if runs.runs == 1 {
            // The first run on this CPU: its stack holds the softirq machinery (and, where
            // softirqs ran on an interrupt's exit, the interrupt's entry), whose classes
            // are learnt here, with interrupts on, so that the hard interrupt side, which
            // looks nothing up, knows them from the start.
            let _irqs = ffi::IrqsOn::new();
            capture::learn_from_here();
        }
        next
    }

    pub(super) fn soft_check(&self, cache: &mut RulesCache, now: u64, stolen: u64) -> u64 {
        // Softirqs run: a window the probe is open for ends here, before the gap's verdict.
        // Not where timers run in their own thread (ktimers/N): that they run says
        // nothing of the other softirqs, which a task with bottom halves off still holds
        // back there (PREEMPT_RT does not wake ksoftirqd while one has them off).
        if !self.threaded && self.probe_armed.load(Relaxed) != 0 {
            self.close_probe(now);
        }
        let rules = self.settings.cached_rules(cache);
        let prev = self.last_soft_ns.xchg(now, Relaxed);
        let prev_jiffies = self.last_soft_jiffies.xchg(ffi::jiffies(), Relaxed);
        // Shorter than an event, nothing can make it one: the common case.
        if prev != 0 && now.saturating_sub(prev) >= rules.soft_event_ns {
            // This CPU runs, with interrupts on: a beat of the machine's pulse, as an
            // hrtimer run is. A timer_list that a pause caught inside the timer softirq
            // runs on resume before any hrtimer: its beat posts the silence, and the window
            // below says every CPU was late together, as the hardirq side would.
            self.peers
                .beat(self.cpu, now, rules.period_ns, rules.threshold_ns);
            let outcome = rules.judge_soft(SoftSeen {
                prev,
                now,
                hard_off: self.peer().map_or(Window::EMPTY, |p| p.hard_off.get()),
                // Reported already: the probe's softirq-off windows.
                probe: self.probe_window.get(),
                idle_late: self.idle_late.get(),
                // After the window: if the hrtimer ran since, its last run is newer.
                last_hard: self.peer().map_or(0, |p| p.last_hard_ns.load(Relaxed)),
                stolen,
                silent: self.stalled_ns(prev, now),
                samples: self.window_samples(prev),
                thread_waited: self.thread_waited_in(prev),
                threaded: self.threaded,
            });
            match outcome {
                SoftOutcome::Ordinary => {}
                SoftOutcome::IdleLate => self.idle_gaps.add(1, Relaxed),
                SoftOutcome::Steal => self.steal_gaps.add(1, Relaxed),
                SoftOutcome::Stall => self.stall_gaps.add(1, Relaxed),
                SoftOutcome::LateTimer => self.late_timer_gaps.add(1, Relaxed),
                SoftOutcome::Event { latency } => {
                    let mut comm = [0u8; COMM_LEN];
                    let pid = ffi::current_task(&mut comm);
                    let (cause, runnable_ns, samples) = self.window_cause(prev, now, pid);
                    self.timer_window.set(Window {
                        start: now.saturating_sub(latency),
                        end: now,
                    });
                    // The timer_list ran after the window, where the stack shows no
                    // culprit: in the idle task (softirqs on irq exit from idle), or right
                    // after a softirq handler the hrtimer found running inside it.
                    let serving =
                        self.win_of.load(Relaxed) == prev && self.win_serving.load(Relaxed) != 0;
                    let window = SoftWindow {
                        ended_by: EndedBy::Timer,
                        latency_ns: latency,
                        key: prev,
                        start_jiffies: prev_jiffies,
                        cause,
                        runnable_ns,
                        samples,
                        end_shows_culprit: !ffi::in_idle() && !serving,
                        together_ns: self.together_ns(prev, now, latency),
                    };
                    self.soft_event(rules, window, now, pid, comm);
                }
            }
        }
        self.soft_window_over(rules)
    }

    /// A look of the hrtimer at `now` found softirqs free to run, where softirqs do not
    /// run in threads and no timer_list runs: as the timer_list's run would, it moves
    /// where the softirq side's gap counts from, and ends the window the looks had open.
    pub(super) fn softirqs_free(&self, rules: &gap::Rules, now: u64) {
        self.last_soft_ns.store(now, Relaxed);
        self.last_soft_jiffies.store(ffi::jiffies(), Relaxed);
        self.soft_window_over(rules);
    }

    /// The timer_list's window is over, recorded or not; only now may the hrtimer open
    /// another. (It opens one only while the timer_list is late, never since
    /// `last_soft_ns` moved.) Returns the next delay in jiffies.
    pub(super) fn soft_window_over(&self, rules: &gap::Rules) -> u64 {
        if self.soft_starved_seen.load(Relaxed) {
            self.pending.close();
            self.soft_starved_seen.store(false, Relaxed);
        }
        rules.soft_period_jiffies
    }

    /// Whether a look into the window kept under `key` found a softirq thread waiting.
    pub(super) fn thread_waited_in(&self, key: u64) -> bool {
        self.win_of.load(Relaxed) == key && self.win_waiting_since.load(Relaxed) != 0
    }
}
