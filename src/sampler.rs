// SPDX-License-Identifier: GPL-2.0

//! The per-CPU samplers: a pinned hard-mode hrtimer (hardirq side) and a pinned timer_list
//! (softirq side), and what each does when it runs.

mod context_cell;

use kernel::prelude::*;
use kernel::sync::atomic::{Atomic, Relaxed};
use kernel::sync::{Arc, ArcBorrow, Mutex};
use kernel::time::hrtimer::{
    ArcHrTimerHandle, HrTimer, HrTimerCallback, HrTimerCallbackContext, HrTimerHandle,
    HrTimerPointer, HrTimerRestart, RelativePinnedHardMode,
};
use kernel::time::{Delta, Monotonic};
use kernel::{impl_has_hr_timer, new_mutex};

use crate::capture;
use crate::cost::Cost;
use crate::counts::Counts;
use crate::ffi::compat::local_interrupt_disable;
use crate::ffi::tracepoints::{self, WindowEvent};
use crate::ffi::{self, softtimer, SoftirqThread, COMM_LEN};
use crate::logic::cause::{self, Cause, Samples};
use crate::logic::gap::{self, Decision, Silent, Steal, Verdict, Window};
use crate::logic::profile;
use crate::logic::stack;
use crate::peers::{Peer, Peers, WindowCell};
use crate::records::{Header, Kind, LiveProfile, Pending, RecordStore, Which, MAX_FRAMES};
use crate::settings::{RulesCache, Settings};
use crate::watch::{PendingSeen, Ring, Watch};
use context_cell::ContextCell;

/// Sampler state and results of one CPU. Allocated for every possible CPU at load time, so
/// the results of a CPU that went offline stay readable.
///
/// # Invariants
///
/// `running` holds the handle of this sampler's own hrtimer (which holds an `Arc` of the
/// sampler) only between [`CpuSampler::start`] and [`CpuSampler::stop`]. `State` stops
/// every sampler when it is dropped, so that cycle never outlives the module's state, even
/// if a CPU's hotplug teardown did not run.
#[pin_data]
pub(crate) struct CpuSampler {
    pub(crate) cpu: u32,
    settings: Arc<Settings>,
    /// This CPU's and the other CPUs' hrtimer runs and hardirq-off windows.
    peers: Arc<Peers>,
    /// The watcher: this CPU watches others, and others watch it.
    watch: Arc<Watch>,
    #[pin]
    timer: HrTimer<CpuSampler>,
    /// Handle of the running hrtimer; taken (and the timer cancelled) when stopping.
    #[pin]
    running: Mutex<Option<ArcHrTimerHandle<CpuSampler>>>,
    /// What only the hrtimer uses. Owner: the hrtimer callback, and `start` before it
    /// starts the hrtimer.
    hard_local: ContextCell<HardLocal>,
    /// What only the timer_list uses. Owner: the timer_list callback.
    soft_local: ContextCell<SoftLocal>,
    /// This kernel runs softirqs in threads (ktimers/N exists: PREEMPT_RT, `threadirqs`).
    threaded: bool,
    /// This kernel has PREEMPT_RT's BH lock (`ffi::has_bh_lock`).
    bh_lock: bool,
    /// The timer_list was started and not stopped since.
    soft_running: Atomic<bool>,
    /// Last run of the timer_list (ns, monotonic); 0 before the first one.
    last_soft_ns: Atomic<u64>,
    /// Jiffies at that run: a window in which they hardly moved was the timer wheel's
    /// clock standing still, not softirqs held off.
    last_soft_jiffies: Atomic<u64>,
    /// The open softirq window has been recorded as pending already.
    soft_starved_seen: Atomic<bool>,
    /// The late part of the hrtimer's last run proven asleep (a late wake-up from idle,
    /// however short). The timer_list cannot tell one itself where it runs in a thread
    /// (ktimers/N on PREEMPT_RT or with threadirqs: never the idle task), so it subtracts
    /// this window as it does the hardirq-off one.
    idle_late: WindowCell,
    /// What the hrtimer saw inside the open softirq window that started at `win_of`: its
    /// runs there, the runs that found bottom halves off, and when it first found a
    /// softirq thread waiting to run (0: not yet).
    win_of: Atomic<u64>,
    win_total: Atomic<u32>,
    win_bh_off: Atomic<u32>,
    /// Runs inside the window that found the CPU asleep (not in `win_total`).
    win_idle: Atomic<u32>,
    /// Runs inside the window that found a softirq handler running: the window was that
    /// handler, which has returned by the time the timer_list runs.
    win_serving: Atomic<u32>,
    win_waiting_since: Atomic<u64>,
    /// The softirq probe (`ffi::probe`): when a look that found softirqs held off queued
    /// it (0: not queued), where that window is estimated to have begun, and the looks
    /// since (all, with bottom halves off, in a softirq handler). Armed by the hrtimer,
    /// closed by the probe's run, both on this CPU.
    probe_armed: Atomic<u64>,
    probe_start: Atomic<u64>,
    probe_looks: Atomic<u32>,
    probe_bh_off: Atomic<u32>,
    probe_serving: Atomic<u32>,
    /// The probe's last softirq-off window: the timer_list does not count it again.
    probe_window: WindowCell,
    /// The timer_list's last softirq-off window: the probe does not count it again.
    timer_window: WindowCell,
    /// A softirq-off record is being captured here (softirq context, bottom halves off):
    /// the hrtimer does not take that for a window (the observer is not a culprit).
    capturing: Atomic<bool>,
    /// With PREEMPT_RT's BH lock: the task a look last found with bottom halves off (0:
    /// none). While it stays in that section, preempted or not, softirqs stay held off.
    bh_holder: Atomic<i32>,
    /// Pids of this CPU's ksoftirqd/N and ktimers/N (0: none).
    thread_pids: [Atomic<i32>; 2],
    pub(crate) hard: RecordStore,
    /// Softirq-off records, one per window.
    pub(crate) soft: RecordStore,
    /// The softirq window open past the threshold, shown until it ends.
    pub(crate) pending: Pending,
    /// The hrtimer's samples inside that window (its profile), and for which window the
    /// hrtimer counted its samples and runs since the last one.
    pub(crate) soft_profile: LiveProfile,
    soft_prof_window: Atomic<u64>,
    soft_prof_sent: Atomic<u32>,
    soft_prof_since: Atomic<u32>,
    pub(crate) hard_counts: Counts,
    /// All softirq-off events, and the same split by cause (`Cause::index`).
    pub(crate) soft_counts: Counts,
    pub(crate) cause_counts: [Counts; 2],
    /// Gaps that ended in the idle loop: the CPU was idle with interrupts on and woke
    /// late (deep C-state, a hypervisor not running the vCPU), which is not an irq-off
    /// section. Not events; counted so that they are not hidden.
    pub(crate) idle_gaps: Atomic<u64>,
    /// Timer_list gaps of an event's length in which the hrtimer's looks found softirqs
    /// free to run (`cause::timer_gap_held`): the timer came late, softirqs were not held
    /// off. Not events; counted so that they are not hidden.
    pub(crate) late_timer_gaps: Atomic<u64>,
    /// Gaps, of either sampler, that were long only because of steal time the kernel
    /// accounted over them (`Verdict::Steal`): the hypervisor did not run the vCPU. Not
    /// events; counted so that they are not hidden.
    pub(crate) steal_gaps: Atomic<u64>,
    /// Gaps, of either sampler, that were long only because the whole machine stood still
    /// over them (`Verdict::Stall`, `logic::stall`: no sampled CPU ran). Not events;
    /// counted so that they are not hidden.
    pub(crate) stall_gaps: Atomic<u64>,
    /// Windows of this CPU so far, both kinds: the last one's number in the event stream
    /// (`seq` of the `trace_irqoff:*_off` events, so a reader sees what its ring lost).
    events_seq: Atomic<u64>,
    /// The late part of the hrtimer's last steal gap: the hrtimer's look at an open
    /// softirq window does not take it for softirqs held off.
    steal_late: WindowCell,
    /// The late part of the hrtimer's last stall gap, for the same look.
    stall_late: WindowCell,
    /// Time spent in the samplers' handlers: what sampling costs this CPU.
    pub(crate) hard_cost: Cost,
    pub(crate) soft_cost: Cost,
    /// Of that, the time spent capturing a record (stack, cut, names).
    pub(crate) capture_cost: Cost,
}

impl_has_hr_timer! {
    impl HasHrTimer<Self> for CpuSampler {
        mode: RelativePinnedHardMode<Monotonic>, field: self.timer
    }
}

impl CpuSampler {
    /// `threaded`: softirqs run in threads on this kernel (see [`CpuSampler::threaded`]).
    /// `thread_pids`: the pids of this CPU's `ksoftirqd/N` and `ktimers/N` as found at load
    /// (0: not found; looked for when the CPU first starts).
    pub(crate) fn new(
        cpu: u32,
        settings: Arc<Settings>,
        peers: Arc<Peers>,
        watch: Arc<Watch>,
        records: usize,
        threaded: bool,
        thread_pids: [i32; 2],
    ) -> Result<Arc<Self>> {
        Arc::pin_init(
            try_pin_init!(Self {
                cpu,
                settings,
                peers,
                watch,
                timer <- HrTimer::new(),
                running <- new_mutex!(None),
                hard_local: ContextCell::new(HardLocal::new()),
                soft_local: ContextCell::new(SoftLocal { rules: RulesCache::new(), runs: 0, steal: 0, steal_at: 0 }),
                threaded,
                bh_lock: ffi::has_bh_lock(),
                soft_running: Atomic::new(false),
                last_soft_ns: Atomic::new(0),
                last_soft_jiffies: Atomic::new(0),
                soft_starved_seen: Atomic::new(false),
                idle_late: WindowCell::new(),
                win_of: Atomic::new(0),
                win_total: Atomic::new(0),
                win_bh_off: Atomic::new(0),
                win_idle: Atomic::new(0),
                win_serving: Atomic::new(0),
                win_waiting_since: Atomic::new(0),
                probe_armed: Atomic::new(0),
                probe_start: Atomic::new(0),
                probe_looks: Atomic::new(0),
                probe_bh_off: Atomic::new(0),
                probe_serving: Atomic::new(0),
                probe_window: WindowCell::new(),
                capturing: Atomic::new(false),
                timer_window: WindowCell::new(),
                bh_holder: Atomic::new(0),
                thread_pids: thread_pids.map(Atomic::new),
                hard: RecordStore::new(records)?,
                soft: RecordStore::new(records)?,
                pending: Pending::new(),
                soft_profile: LiveProfile::new(),
                soft_prof_window: Atomic::new(0),
                soft_prof_sent: Atomic::new(0),
                soft_prof_since: Atomic::new(0),
                hard_counts: Counts::new(),
                soft_counts: Counts::new(),
                cause_counts: [const { Counts::new() }; 2],
                idle_gaps: Atomic::new(0),
                late_timer_gaps: Atomic::new(0),
                steal_gaps: Atomic::new(0),
                stall_gaps: Atomic::new(0),
                events_seq: Atomic::new(0),
                steal_late: WindowCell::new(),
                stall_late: WindowCell::new(),
                hard_cost: Cost::new(),
                soft_cost: Cost::new(),
                capture_cost: Cost::new(),
            }? Error),
            GFP_KERNEL,
        )
    }

    fn peer(&self) -> Option<&Peer> {
        self.peers.get(self.cpu)
    }

    /// Starts both samplers; must run on `self.cpu`, in process context (the CPU hotplug
    /// callback does). Sampling starts now: a window that begins before the first expiry
    /// is measured too. Starting a started sampler does nothing.
    ///
    /// The first period is clean: the hrtimer and the timer_list are armed, and this CPU's
    /// first run of each published, in one section with interrupts off. Nothing runs on
    /// this CPU in between: not a task that preempts ours (cpuhp/N is a normal task), which
    /// the first gap would otherwise count as interrupts held off, nor an interrupt and the
    /// softirqs on its exit, which run with interrupts on. Until then `last_hard_ns` stays
    /// 0 (stopped): a watcher never finds this CPU overdue before its hrtimer runs.
    pub(crate) fn start(this: &Arc<Self>) {
        // The sleeping lock first, outside the section; held to the end, so that no stop
        // can come between (the hotplug callbacks of a CPU are serialised anyway).
        let mut running = this.running.lock();
        if running.is_some() {
            pr_warn!("cpu {}: the samplers were running already\n", this.cpu);
            return;
        }
        // Every CPU has a ksoftirqd, kept from its first online on (parked while offline):
        // found once, at load for the CPUs online then, else here, with one walk of the
        // task list for this CPU.
        if this.thread_pids[0].load(Relaxed) == 0 {
            for (pid, thread) in this
                .thread_pids
                .iter()
                .zip([SoftirqThread::Ksoftirqd, SoftirqThread::Ktimers])
            {
                pid.store(ffi::softirq_thread_pid(this.cpu, thread), Relaxed);
            }
        }
        this.peers.set_sampling(this.cpu, true);
        // A request for an NMI to this CPU is kept: its NMI may still be on its way (after
        // a disable and enable). This CPU's hrtimer settles one whose NMI was dropped while
        // the CPU was offline, as any other lost one (`Watch::settle`).
        this.watch.ring_changed(&this.peers, this.cpu);
        if let Some(me) = this.peer() {
            me.hard_off.set(Window::EMPTY);
        }
        this.soft_starved_seen.store(false, Relaxed);
        // SAFETY: `start` owns `hard_local` here: the hrtimer is not running (`running` held
        // no handle: it was never started, or `stop` cancelled it and waited for its
        // callback; it is armed below), and nothing else uses it.
        let local = unsafe { this.hard_local.get() };
        local.watch_next = 0;
        local.nmi_seen = PendingSeen::new();
        // A gap held at the last stop is dropped (its CPU stopped sampling).
        local.look.held.end = 0;
        this.idle_late.set(Window::EMPTY);
        this.steal_late.set(Window::EMPTY);
        this.stall_late.set(Window::EMPTY);
        this.probe_window.set(Window::EMPTY);
        this.timer_window.set(Window::EMPTY);
        this.probe_armed.store(0, Relaxed);
        this.win_of.store(0, Relaxed);
        this.pending.close();
        let rules = this.settings.rules();
        this.soft_running.store(true, Relaxed);
        let (handle, soft) = {
            let _irqs_off = local_interrupt_disable();
            // On this CPU (cpuhp/N is bound to it, and cannot move with interrupts off):
            // both timers are pinned here. Neither callback can run before the section
            // ends, so they find their first run published.
            let handle = HrTimerPointer::start(this.clone(), period(&rules));
            let soft = softtimer::start(rules.soft_period_jiffies);
            let now = ffi::now_ns();
            if let Some(me) = this.peer() {
                me.last_hard_ns.store(now, Relaxed);
            }
            this.last_soft_ns.store(now, Relaxed);
            this.last_soft_jiffies.store(ffi::jiffies(), Relaxed);
            (handle, soft)
        };
        *running = Some(handle);
        drop(running);
        if soft.is_err() {
            // Running already (a start without a stop): it keeps sampling as it was.
            pr_warn!(
                "cpu {}: the softirq sampler was running already\n",
                this.cpu
            );
        }
    }

    /// Stops both samplers and waits for running callbacks. Any context that may sleep, on
    /// any CPU (`self.cpu` but for the module's teardown, when it is stopped already);
    /// stopping a stopped sampler does nothing.
    ///
    /// The hrtimer is cancelled and `last_hard_ns` cleared (stopped) in one section with
    /// interrupts off, so that a watcher never finds this CPU overdue: nothing runs on it
    /// between its last hrtimer run and the clear but this section. On `self.cpu` the
    /// callback cannot be running (it interrupts this CPU), so the cancel never waits.
    /// The timer_list stops after the hrtimer: the hrtimer never finds it late because it
    /// was stopped.
    pub(crate) fn stop(&self) {
        // The sleeping lock outside the section.
        let mut handle = self.running.lock().take();
        {
            let _irqs_off = local_interrupt_disable();
            if let Some(h) = handle.as_mut() {
                // A hard hrtimer: its cancel spins for a callback running on another CPU,
                // never sleeps.
                h.cancel();
            }
            if let Some(me) = self.peer() {
                // Not overdue: stopped.
                me.last_hard_ns.store(0, Relaxed);
            }
        }
        // Cancelled already: only the hrtimer's reference to the sampler goes.
        drop(handle);
        if self.soft_running.xchg(false, Relaxed) {
            softtimer::stop(self.cpu);
        }
        // The hrtimer queues the probe: only now can it no longer come back.
        ffi::probe::cancel(self.cpu);
        self.probe_armed.store(0, Relaxed);
        self.peers.set_sampling(self.cpu, false);
        self.watch.ring_changed(&self.peers, self.cpu);
        // A record of its last runs is named even if no timer_list runs after them.
        ffi::namer_kick_wanted();
    }

    /// Bytes allocated for this CPU as the allocators round them (`sizes`): the sampler
    /// with its Arc header from kmalloc, its two record stores from vmalloc.
    pub(crate) fn allocated_bytes(&self) -> usize {
        crate::logic::sizes::kmalloc_bytes(
            core::mem::size_of::<Self>() + 2 * core::mem::size_of::<usize>(),
        ) + self.hard.allocated_bytes()
            + self.soft.allocated_bytes()
    }

    pub(crate) fn counts(&self, kind: Kind) -> &Counts {
        match kind {
            Kind::Hardirq => &self.hard_counts,
            Kind::Softirq => &self.soft_counts,
        }
    }

    /// What this run, at `now`, knows about how the CPU spent the time since the previous
    /// one, at `prev`. The counts are read only in runs that came into the idle loop (no
    /// other run can prove sleep), so a busy CPU pays nothing for them; a run whose
    /// previous run did not read them has no count to compare, and proves nothing.
    fn sleep_evidence(
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
    fn hard_sample(&self, local: &mut LookLocal, rules: &gap::Rules, now: u64) {
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
        let gap = now.saturating_sub(prev);
        // Proven, never assumed from the idle task being current (gap::SleepEvidence).
        let asleep = evidence.proves_sleep();
        if asleep {
            // Every run proven asleep, also when late by less than an idle gap: the
            // timer_list, if due earlier, may have been late by more.
            self.idle_late.set(rules.late_window(prev, now));
        }
        // The part of the gap in which no sampled CPU ran: a stall, not this CPU's window.
        let silent = if rules.hard_latency(gap).is_some() {
            self.peers.silent(prev, now)
        } else {
            Silent::known(0)
        };
        let decision = rules.hard_decision_in(gap, asleep, steal, false, silent);
        match decision {
            Decision::Now(Verdict::IdleLate) => self.idle_gaps.add(1, Relaxed),
            Decision::Now(Verdict::Stall) => {
                self.stall_gaps.add(1, Relaxed);
                self.stall_late.set(rules.late_window(prev, now));
            }
            Decision::Now(Verdict::Steal) => {
                self.steal_gaps.add(1, Relaxed);
                self.steal_late.set(rules.late_window(prev, now));
            }
            Decision::Now(Verdict::Event(latency)) => {
                let returned = self.returned(interrupted, prev, now, rules);
                self.hard_report(
                    rules,
                    me,
                    latency,
                    rules.late_window(prev, now),
                    prev,
                    now,
                    !returned,
                    EndStack::Here,
                );
            }
            Decision::Wait => {
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
            Decision::Now(Verdict::Ordinary) => {}
        }
        let after_gap = !matches!(
            decision,
            Decision::Now(Verdict::Ordinary | Verdict::IdleLate)
        );
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
            let idle_late = gap::idle_until(self.idle_late.get(), prev, now);
            let explained = gap::covered_all(
                last_soft,
                now,
                [
                    me.hard_off.get(),
                    idle_late,
                    self.steal_late.get(),
                    self.stall_late.get(),
                ],
            );
            if let Some(latency) = rules.soft_starved(now.saturating_sub(last_soft), explained) {
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

    /// The softirq side at the hrtimer's resolution: a look that finds softirqs held off
    /// here (bottom halves off or a softirq handler running; or, where softirqs run in
    /// threads, softirq work waiting while another task runs) queues the probe, unless it is
    /// queued already; later looks are counted for the cause. Its run ends the window.
    /// `queued`: this hrtimer queued the probe and has not yet seen it closed (so that a
    /// look needs no load while it is not queued, the common case).
    #[allow(clippy::too_many_arguments)]
    fn probe_look(
        &self,
        queued: &mut bool,
        loop_ip: &mut u64,
        rules: &gap::Rules,
        interrupted: ffi::Interrupted,
        bh_off: bool,
        prev: u64,
        now: u64,
        after_hard_gap: bool,
    ) {
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
    fn bh_held(&self, interrupted: ffi::Interrupted) -> bool {
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
    fn softirq_work_waiting(&self) -> bool {
        ffi::softirq_pending() != 0
            || self
                .thread_pids
                .iter()
                .any(|p| ffi::task_waiting(p.load(Relaxed)))
    }

    /// Whether this hrtimer interrupt came into the softirq loop itself, between handlers.
    /// `last` is the last instruction found to be in it: where an interrupt pending during
    /// another one's handler comes in, every time the same one.
    fn in_softirq_loop(&self, last: &mut u64) -> bool {
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
    fn in_softirq_thread(&self) -> bool {
        let mut comm = [0u8; COMM_LEN];
        let pid = ffi::current_task(&mut comm);
        self.thread_pids.iter().any(|p| p.load(Relaxed) == pid)
    }

    /// The probe ran (softirq context, this CPU): softirqs run again.
    pub(crate) fn probe_ran(&self) {
        let now = ffi::now_ns();
        self.close_probe(now);
        self.soft_cost.add(ffi::now_ns().saturating_sub(now));
    }

    /// Softirqs run on this CPU at `now` (softirq context: the probe, or the timer_list,
    /// which may run first where a long softirq handler left the probe to ksoftirqd). Held
    /// for a period or more after the look that queued the probe, that was a softirq-off
    /// window, reported here, where it ended; the probe's own run, if still to come, then
    /// finds nothing to close.
    fn close_probe(&self, now: u64) {
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
        let rules = self.settings.rules();
        let Some(latency) = rules.probe_latency(start, armed, now) else {
            return;
        };
        // A stall of the whole machine inside the window is not softirqs held off: what
        // remains of the hold after the look, without it, must still be a period.
        let silent = self.peers.silent_ns(start, now);
        let latency = if silent == 0 {
            latency
        } else {
            let after_look = self.peers.silent_ns(armed, now);
            if rules
                .probe_latency(start, armed.saturating_add(after_look), now)
                .is_none()
            {
                self.stall_gaps.add(1, Relaxed);
                return;
            }
            latency.saturating_sub(silent)
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
        let window = SoftWindow {
            latency_ns: latency,
            key,
            start_jiffies: self.last_soft_jiffies.load(Relaxed),
            cause,
            runnable_ns: self.runnable_in(key, cause, now),
            samples,
            end_shows_culprit: !ffi::in_idle() && !serving,
        };
        self.soft_event(&rules, window, now, pid, comm);
    }

    /// How long a softirq thread was seen waiting in the window kept under `key`, for
    /// ksoftirqd-wait.
    fn runnable_in(&self, key: u64, cause: Cause, now: u64) -> u64 {
        let since = if self.win_of.load(Relaxed) == key {
            self.win_waiting_since.load(Relaxed)
        } else {
            0
        };
        if cause == Cause::KsoftirqdWait && since != 0 {
            now.saturating_sub(since)
        } else {
            0
        }
    }

    /// One look of the hrtimer into the softirq window open past the threshold since
    /// `start`: a sample of its profile when one is due (`profile::next_sample`).
    #[inline(never)]
    fn sample_soft_window(&self, start: u64, now: u64) {
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
        let frames =
            capture::capture_raw(&mut raw, ffi::irq_regs_ip(), capture::Context::Interrupt);
        let mut comm = [0u8; COMM_LEN];
        let pid = ffi::current_task(&mut comm);
        let cgroup_id = ffi::current_cgroup_id();
        self.soft_profile
            .sample(start, weight, frames, pid, &comm, cgroup_id, now);
        self.soft_prof_sent.store(sent.saturating_add(1), Relaxed);
        self.soft_prof_since.store(0, Relaxed);
        self.capture_cost.add(ffi::now_ns().saturating_sub(t0));
    }

    /// One look inside a softirq window that is longer than any ordinary timer_list gap:
    /// bottom halves off here, or a softirq thread waiting to run.
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn observe_soft_window(
        &self,
        rules: &gap::Rules,
        last_soft: u64,
        now: u64,
        asleep: bool,
        bh_held: bool,
        serving: bool,
        loop_ip: &mut u64,
    ) {
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
    fn window_cause(&self, start: u64, now: u64, pid: i32) -> (Cause, u64, Samples) {
        let mine = self.win_of.load(Relaxed) == start;
        let samples = if mine {
            Samples {
                total: self.win_total.load(Relaxed),
                bh_off: self.win_bh_off.load(Relaxed),
                idle: self.win_idle.load(Relaxed),
            }
        } else {
            Samples::default()
        };
        let in_thread = self.thread_pids.iter().any(|p| p.load(Relaxed) == pid);
        let cause = cause::classify(samples, in_thread);
        (cause, self.runnable_in(start, cause, now), samples)
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
        if *runs == 1 {
            // The first run on this CPU: its stack holds the softirq machinery (and, where
            // softirqs ran on an interrupt's exit, the interrupt's entry), whose classes
            // are learnt here, with interrupts on, so that the hard interrupt side, which
            // looks nothing up, knows them from the start.
            let _irqs = ffi::IrqsOn::new();
            capture::learn_from_here();
        }
        next
    }

    fn soft_check(&self, cache: &mut RulesCache, now: u64, stolen: u64) -> u64 {
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
            let gap = now.saturating_sub(prev);
            let (hard_off, idle_late) = (
                self.peer().map_or(Window::EMPTY, |p| p.hard_off.get()),
                self.idle_late.get(),
            );
            // After the window: if the hrtimer ran since, its last run is newer than it.
            let last_hard = self.peer().map_or(0, |p| p.last_hard_ns.load(Relaxed));
            let idle_late = gap::idle_until(idle_late, last_hard, now);
            // Reported already: hardirq-off windows and the probe's softirq-off ones.
            let probe = self.probe_window.get();
            let hard = gap::covered(prev, now, hard_off, probe);
            let hard_or_idle = gap::covered_all(prev, now, [hard_off, probe, idle_late]);
            let silent = self.peers.silent_ns(prev, now);
            match rules.soft_verdict_in(gap, hard, hard_or_idle, stolen, silent) {
                Verdict::IdleLate => self.idle_gaps.add(1, Relaxed),
                Verdict::Steal => self.steal_gaps.add(1, Relaxed),
                Verdict::Stall => self.stall_gaps.add(1, Relaxed),
                Verdict::Event(latency) => {
                    let mut comm = [0u8; COMM_LEN];
                    let pid = ffi::current_task(&mut comm);
                    let (cause, runnable_ns, samples) = self.window_cause(prev, now, pid);
                    if !cause::timer_gap_held(samples, self.thread_waited_in(prev), self.threaded) {
                        self.late_timer_gaps.add(1, Relaxed);
                        return self.soft_window_over(rules);
                    }
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
                        latency_ns: latency,
                        key: prev,
                        start_jiffies: prev_jiffies,
                        cause,
                        runnable_ns,
                        samples,
                        end_shows_culprit: !ffi::in_idle() && !serving,
                    };
                    self.soft_event(rules, window, now, pid, comm);
                }
                Verdict::Ordinary => {}
            }
        }
        self.soft_window_over(rules)
    }

    /// The timer_list's window is over, recorded or not; only now may the hrtimer open
    /// another. (It opens one only while the timer_list is late, never since
    /// `last_soft_ns` moved.) Returns the next delay in jiffies.
    fn soft_window_over(&self, rules: &gap::Rules) -> u64 {
        if self.soft_starved_seen.load(Relaxed) {
            self.pending.close();
            self.soft_starved_seen.store(false, Relaxed);
        }
        rules.soft_period_jiffies
    }

    /// Whether a look into the window kept under `key` found a softirq thread waiting.
    fn thread_waited_in(&self, key: u64) -> bool {
        self.win_of.load(Relaxed) == key && self.win_waiting_since.load(Relaxed) != 0
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
    fn returned(
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
    fn hard_report(
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
    fn hold(
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
            let kept =
                capture::capture_raw(&mut raw, ffi::irq_regs_ip(), capture::Context::Interrupt);
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
    fn decide_held(
        &self,
        held: &mut Held,
        rules: &gap::Rules,
        me: &Peer,
        count: u64,
        now: u64,
        force: bool,
    ) {
        let settled =
            force || rules.steal_settled_after(held.end, now, held.ended_idle, held.left_idle);
        let gap = held.end.saturating_sub(held.prev);
        match rules.hard_decision_in(
            gap,
            false,
            Steal {
                before: held.steal_before,
                now: count,
            },
            settled,
            // A new gap begins: decided with the silence posted by now.
            match self.peers.silent(held.prev, held.end) {
                silent if force => Silent::known(silent.ns),
                silent => silent,
            },
        ) {
            Decision::Wait => return,
            Decision::Now(Verdict::Event(latency)) => {
                let window = Window {
                    start: held.end.saturating_sub(latency),
                    end: held.end,
                };
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
            Decision::Now(v) => {
                // Not an irq-off window: the one before it is this CPU's last again.
                me.hard_off.set(held.before);
                if v == Verdict::Steal {
                    self.steal_gaps.add(1, Relaxed);
                    self.steal_late.set(rules.late_window(held.prev, held.end));
                } else if v == Verdict::Stall {
                    self.stall_gaps.add(1, Relaxed);
                    self.stall_late.set(rules.late_window(held.prev, held.end));
                }
            }
        }
        held.end = 0;
    }

    /// The event-stream form of a window of this CPU that ended at `end_ns`, numbered
    /// after the CPU's last one.
    fn window_event<'a>(
        &self,
        latency_ns: u64,
        end_ns: u64,
        pid: i32,
        comm: &'a [u8; COMM_LEN],
        end_shows_culprit: bool,
        frames: &'a [u64],
    ) -> WindowEvent<'a> {
        WindowEvent {
            cpu: self.cpu,
            latency_ns,
            end_ns,
            seq: self.events_seq.fetch_add(1, Relaxed) + 1,
            pid,
            comm,
            // Set by the caller, which took it with `pid`.
            cgroup_id: 0,
            end_shows_culprit,
            frames,
        }
    }

    /// Reports a hardirq-off window (`prev` is the hrtimer run before it: the id under
    /// which the watcher sampled it) that ended at `now`: the tracepoint always, a record
    /// at the threshold, with the window's profile if the watcher took one.
    /// `end_shows_culprit`: the stack where the window ended is the culprit's (not the
    /// idle loop it returned to). `stack`: that stack, here or held since.
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn hard_event(
        &self,
        rules: &gap::Rules,
        latency_ns: u64,
        window: Window,
        prev: u64,
        now: u64,
        end_shows_culprit: bool,
        stack: EndStack<'_>,
    ) {
        let (pid, comm, cgroup_id) = match stack {
            EndStack::Here => {
                let mut comm = [0u8; COMM_LEN];
                (ffi::current_task(&mut comm), comm, ffi::current_cgroup_id())
            }
            EndStack::Held {
                pid,
                comm,
                cgroup_id,
                ..
            } => (pid, comm, cgroup_id),
        };
        let recorded = rules.is_recorded(latency_ns);
        let live = self.watch.get(self.cpu).map(|w| &w.profile);
        // The stack where it ended, for the record and the event stream: taken here once,
        // whether or not the record store keeps the window. Short where the watcher
        // sampled the window, whose profile holds the culprit's whole stack.
        let mut raw = [0u64; capture::RAW_FRAMES];
        let start = ffi::now_ns();
        let frames: &[u64] = match stack {
            EndStack::Held { frames, .. } => frames,
            EndStack::Here if recorded => capture::capture_end(
                &mut raw,
                ffi::irq_regs_ip(),
                live.is_some_and(|l| l.sampled(prev)),
            ),
            EndStack::Here => &[],
        };
        tracepoints::hardirq_off(&WindowEvent {
            cgroup_id,
            ..self.window_event(
                latency_ns,
                now,
                pid,
                &comm,
                end_shows_culprit,
                if recorded { frames } else { &[] },
            )
        });
        if !recorded {
            return;
        }
        let header = Header {
            overlap_cpu: self
                .peers
                .hardirq_overlap(self.cpu, window, rules.period_ns),
            end_shows_culprit,
            cgroup_id,
            ..Header::new(latency_ns, now, pid, comm)
        };
        self.hard.offer(&header, self.settings.generation(), |w| {
            capture::put_frames(w, Which::End, frames);
            if let Some(live) = live {
                w.profile_from(live, prev);
            }
        });
        self.capture_cost.add(ffi::now_ns().saturating_sub(start));
    }

    /// The hrtimer finds the softirq window that started at `start` open past the
    /// threshold: it takes the stack inside it, shown as ongoing until the window ends.
    #[inline(never)]
    fn open_soft_window(&self, latency_ns: u64, start: u64, now: u64) {
        let t0 = ffi::now_ns();
        let mut comm = [0u8; COMM_LEN];
        let pid = ffi::current_task(&mut comm);
        let (cause, runnable_ns, samples) = self.window_cause(start, now, 0);
        let header = Header {
            ongoing: true,
            cause: Some(cause),
            runnable_ns,
            samples,
            jiffies: ffi::jiffies().wrapping_sub(self.last_soft_jiffies.load(Relaxed)),
            cgroup_id: ffi::current_cgroup_id(),
            ..Header::new(latency_ns, now, pid, comm)
        };
        self.pending
            .open(start, &header, self.settings.generation(), |w| {
                w.window_task(pid, &comm);
                capture::capture(w, Which::Window, capture::Context::Interrupt);
            });
        self.capture_cost.add(ffi::now_ns().saturating_sub(t0));
    }

    /// Reports a softirq-off window that ended `now` (with `pid` current): counted by
    /// cause, the tracepoint always, at the threshold one record with the stack where it
    /// ended and the one the hrtimer took inside it.
    fn soft_event(
        &self,
        rules: &gap::Rules,
        sw: SoftWindow,
        now: u64,
        pid: i32,
        comm: [u8; COMM_LEN],
    ) {
        // The timer_list runs with interrupts disabled; the record must not keep them so.
        let _irqs = ffi::IrqsOn::new();
        let latency_ns = sw.latency_ns;
        // `pid` is current's, taken by our caller in this same context.
        let cgroup_id = ffi::current_cgroup_id();
        self.soft_counts.add(latency_ns);
        if let Some(c) = self.cause_counts.get(sw.cause.index()) {
            c.add(latency_ns);
        }
        let recorded = rules.is_recorded(latency_ns);
        let t0 = ffi::now_ns();
        // As for hardirq windows: the end stack once, for the stream and the record.
        self.capturing.store(true, Relaxed);
        let mut raw = [0u64; capture::RAW_FRAMES];
        let frames: &[u64] = if recorded && tracepoints::windows_enabled() {
            capture::capture_raw(&mut raw, ffi::irq_regs_ip(), capture::Context::Soft)
        } else {
            &[]
        };
        tracepoints::softirq_off(
            &WindowEvent {
                cgroup_id,
                ..self.window_event(latency_ns, now, pid, &comm, sw.end_shows_culprit, frames)
            },
            sw.cause,
        );
        if !recorded {
            self.capturing.store(false, Relaxed);
            return;
        }
        let window = Window {
            start: now.saturating_sub(latency_ns),
            end: now,
        };
        let header = Header {
            end_shows_culprit: sw.end_shows_culprit,
            cause: Some(sw.cause),
            runnable_ns: sw.runnable_ns,
            samples: sw.samples,
            jiffies: ffi::jiffies().wrapping_sub(sw.start_jiffies),
            overlap_cpu: self
                .peers
                .hardirq_overlap(self.cpu, window, rules.period_ns),
            cgroup_id,
            ..Header::new(latency_ns, now, pid, comm)
        };
        self.soft.offer(&header, self.settings.generation(), |w| {
            if frames.is_empty() {
                capture::capture(w, Which::End, capture::Context::Soft);
            } else {
                capture::put_frames(w, Which::End, frames);
            }
            w.window_from(&self.pending, sw.key);
            w.profile_from(&self.soft_profile, sw.key);
        });
        self.capturing.store(false, Relaxed);
        self.capture_cost.add(ffi::now_ns().saturating_sub(t0));
    }
}

/// What only the timer_list callback of a CPU uses (`CpuSampler::soft_local`).
struct SoftLocal {
    rules: RulesCache,
    /// The timer_list's runs (`Cost::run_counted`).
    runs: u64,
    /// The steal count (`ffi::steal_ns`) at its last run, and when that was.
    steal: u64,
    steal_at: u64,
}

/// What only the hrtimer callback of a CPU uses (`CpuSampler::hard_local`).
struct HardLocal {
    rules: RulesCache,
    /// When the watcher looks at its neighbours next (`Rules::watch_interval`).
    watch_next: u64,
    /// The CPUs it watches.
    ring: Ring,
    /// A request for an NMI to this CPU that it saw sent (`Watch::settle`).
    nmi_seen: PendingSeen,
    /// The hrtimer's runs (`Cost::run_counted`).
    runs: u64,
    look: LookLocal,
}

/// What the hrtimer's look at its CPU keeps from run to run.
struct LookLocal {
    sleep: SleepCounts,
    /// The steal count (`ffi::steal_ns`) at the last run, and when that was.
    steal: u64,
    steal_at: u64,
    /// A gap whose verdict waits for the tick's steal accounting.
    held: Held,
    /// This hrtimer queued the softirq probe, and has not yet seen it closed.
    probe_queued: bool,
    /// The interrupted instruction last found in the softirq loop (0: none yet).
    loop_ip: u64,
}

/// This CPU's interrupt count and hrtimer interrupt retries at the hrtimer's last run that
/// read them, and when that was (only runs that came into the idle loop read them): its
/// evidence of sleep (`gap::SleepEvidence`).
struct SleepCounts {
    last_irq_events: u64,
    last_retries: u32,
    counts_at: u64,
    /// Interrupts one wake-up by this hrtimer alone counts (`gap::per_wake`; 0: not yet
    /// learnt).
    per_wake: u64,
}

impl HardLocal {
    const fn new() -> Self {
        Self {
            rules: RulesCache::new(),
            watch_next: 0,
            ring: Ring::new(),
            nmi_seen: PendingSeen::new(),
            runs: 0,
            look: LookLocal {
                sleep: SleepCounts {
                    last_irq_events: 0,
                    last_retries: 0,
                    counts_at: 0,
                    per_wake: 0,
                },
                steal: 0,
                steal_at: 0,
                held: Held::new(),
                probe_queued: false,
                loop_ip: 0,
            },
        }
    }
}

/// A gap whose verdict waits for the tick's steal accounting (`gap::Decision::Wait`), with
/// what its event needs from the time it ended (`CpuSampler::hold`).
struct Held {
    /// When it ended (0: none held), and the hrtimer run before it.
    end: u64,
    prev: u64,
    /// The steal count at `prev`.
    steal_before: u64,
    /// It ended in the idle loop, and a run since found the CPU out of it
    /// (`gap::Rules::steal_settled_after`).
    ended_idle: bool,
    left_idle: bool,
    /// This CPU's hardirq-off window before it, restored if it is no event.
    before: Window,
    end_shows_culprit: bool,
    pid: i32,
    comm: [u8; COMM_LEN],
    cgroup_id: u64,
    /// The stack where it ended (`capture_raw`), if it may be recorded.
    frames: [u64; MAX_FRAMES],
    nr_frames: usize,
}

impl Held {
    const fn new() -> Self {
        Self {
            end: 0,
            prev: 0,
            steal_before: 0,
            ended_idle: false,
            left_idle: false,
            before: Window::EMPTY,
            end_shows_culprit: false,
            pid: 0,
            comm: [0; COMM_LEN],
            cgroup_id: 0,
            frames: [0; MAX_FRAMES],
            nr_frames: 0,
        }
    }
}

/// Where a hardirq-off record's end stack comes from.
#[derive(Clone, Copy)]
enum EndStack<'a> {
    /// Taken now: the window ends at this run.
    Here,
    /// Taken when the window ended, held while its verdict waited (`Held`).
    Held {
        pid: i32,
        comm: [u8; COMM_LEN],
        cgroup_id: u64,
        frames: &'a [u64],
    },
}

/// A softirq-off window as its reporter (the timer_list or the probe) saw it.
struct SoftWindow {
    latency_ns: u64,
    /// The timer_list's last run before the window: the key of its lower-bound record and
    /// profile.
    key: u64,
    /// Jiffies at that run.
    start_jiffies: u64,
    cause: Cause,
    runnable_ns: u64,
    samples: Samples,
    end_shows_culprit: bool,
}

fn period(rules: &gap::Rules) -> Delta {
    Delta::from_nanos(i64::try_from(rules.period_ns).unwrap_or(i64::MAX))
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
