// SPDX-License-Identifier: GPL-2.0

//! A CPU's sampler: its state, shared by both sides, and its start and stop.

use kernel::prelude::*;
use kernel::sync::atomic::{Atomic, Relaxed};
use kernel::sync::{Arc, Mutex};
use kernel::time::hrtimer::{
    ArcHrTimerHandle, HrTimer, HrTimerHandle, HrTimerPointer, RelativePinnedHardMode,
};
use kernel::time::{Delta, Monotonic};
use kernel::{impl_has_hr_timer, new_mutex};

use crate::cost::{Cost, RunCount};
use crate::counts::Counts;
use crate::ffi;
use crate::ffi::compat::local_interrupt_disable;
use crate::ffi::{softtimer, SoftirqThread};
use crate::logic::gap::{self, Window};
use crate::peers::{Peer, Peers, WindowCell};
use crate::records::{Kind, LiveProfile, Pending, RecordStore};
use crate::settings::{RulesCache, Settings};
use crate::watch::{PendingSeen, Watch};

use super::context_cell::ContextCell;
use super::locals::{HardLocal, SoftLocal};

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
    pub(super) settings: Arc<Settings>,
    /// This CPU's and the other CPUs' hrtimer runs and hardirq-off windows.
    pub(super) peers: Arc<Peers>,
    /// The watcher: this CPU watches others, and others watch it.
    pub(super) watch: Arc<Watch>,
    #[pin]
    pub(super) timer: HrTimer<CpuSampler>,
    /// Handle of the running hrtimer; taken (and the timer cancelled) when stopping.
    #[pin]
    pub(super) running: Mutex<Option<ArcHrTimerHandle<CpuSampler>>>,
    /// What only the hrtimer uses. Owner: the hrtimer callback, and `start` before it
    /// starts the hrtimer.
    pub(super) hard_local: ContextCell<HardLocal>,
    /// What only the timer_list uses. Owner: the timer_list callback.
    pub(super) soft_local: ContextCell<SoftLocal>,
    /// This kernel runs softirqs in threads (ktimers/N exists: PREEMPT_RT, `threadirqs`).
    pub(super) threaded: bool,
    /// This kernel has PREEMPT_RT's BH lock (`ffi::has_bh_lock`).
    pub(super) bh_lock: bool,
    /// The timer_list was started and not stopped since.
    pub(super) soft_running: Atomic<bool>,
    /// Last run of the timer_list (ns, monotonic); 0 before the first one.
    pub(super) last_soft_ns: Atomic<u64>,
    /// Jiffies at that run: a window in which they hardly moved was the timer wheel's
    /// clock standing still, not softirqs held off.
    pub(super) last_soft_jiffies: Atomic<u64>,
    /// The open softirq window has been recorded as pending already.
    pub(super) soft_starved_seen: Atomic<bool>,
    /// The late part of the hrtimer's last run proven asleep (a late wake-up from idle,
    /// however short). The timer_list cannot tell one itself where it runs in a thread
    /// (ktimers/N on PREEMPT_RT or with threadirqs: never the idle task), so it subtracts
    /// this window as it does the hardirq-off one.
    pub(super) idle_late: WindowCell,
    /// What the hrtimer saw inside the open softirq window that started at `win_of`: its
    /// runs there, the runs that found bottom halves off, and when it first found a
    /// softirq thread waiting to run (0: not yet).
    pub(super) win_of: Atomic<u64>,
    pub(super) win_total: Atomic<u32>,
    pub(super) win_bh_off: Atomic<u32>,
    /// Runs inside the window that found the CPU asleep (not in `win_total`).
    pub(super) win_idle: Atomic<u32>,
    /// Runs inside the window that found a softirq handler running: the window was that
    /// handler, which has returned by the time the timer_list runs.
    pub(super) win_serving: Atomic<u32>,
    pub(super) win_waiting_since: Atomic<u64>,
    /// The softirq probe (`ffi::probe`): when a look that found softirqs held off queued
    /// it (0: not queued), where that window is estimated to have begun, and the looks
    /// since (all, with bottom halves off, in a softirq handler). Armed by the hrtimer,
    /// closed by the probe's run, both on this CPU.
    pub(super) probe_armed: Atomic<u64>,
    pub(super) probe_start: Atomic<u64>,
    pub(super) probe_looks: Atomic<u32>,
    pub(super) probe_bh_off: Atomic<u32>,
    pub(super) probe_serving: Atomic<u32>,
    /// The probe's last softirq-off window: the timer_list does not count it again.
    pub(super) probe_window: WindowCell,
    /// The timer_list's last softirq-off window: the probe does not count it again.
    pub(super) timer_window: WindowCell,
    /// A softirq-off record is being captured here (softirq context, bottom halves off):
    /// the hrtimer does not take that for a window (the observer is not a culprit).
    pub(super) capturing: Atomic<bool>,
    /// With PREEMPT_RT's BH lock: the task a look last found with bottom halves off (0:
    /// none). While it stays in that section, preempted or not, softirqs stay held off.
    pub(super) bh_holder: Atomic<i32>,
    /// Pids of this CPU's ksoftirqd/N and ktimers/N (0: none).
    pub(super) thread_pids: [Atomic<i32>; 2],
    pub(crate) hard: RecordStore,
    /// Softirq-off records, one per window.
    pub(crate) soft: RecordStore,
    /// The softirq window open past the threshold, shown until it ends.
    pub(crate) pending: Pending,
    /// The hrtimer's samples inside that window (its profile), and for which window the
    /// hrtimer counted its samples and runs since the last one.
    pub(crate) soft_profile: LiveProfile,
    pub(super) soft_prof_window: Atomic<u64>,
    pub(super) soft_prof_sent: Atomic<u32>,
    pub(super) soft_prof_since: Atomic<u32>,
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
    pub(super) events_seq: Atomic<u64>,
    /// The late part of the hrtimer's last steal gap: the hrtimer's look at an open
    /// softirq window does not take it for softirqs held off.
    pub(super) steal_late: WindowCell,
    /// The hrtimer's last gap out of which it took the machine's silences (with evidence,
    /// `stall::Evidence`): the softirq side and the probe take silences out only inside it
    /// ([`CpuSampler::stalled_ns`]), and the hrtimer's look at an open softirq window does
    /// not take its late part for softirqs held off.
    pub(super) stall_gap: WindowCell,
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
                soft_local: ContextCell::new(SoftLocal { rules: RulesCache::new(), runs: RunCount::new(), steal: 0, steal_at: 0 }),
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
                stall_gap: WindowCell::new(),
                hard_cost: Cost::new(),
                soft_cost: Cost::new(),
                capture_cost: Cost::new(),
            }? Error),
            GFP_KERNEL,
        )
    }

    pub(crate) fn peer(&self) -> Option<&Peer> {
        self.peers.get(self.cpu)
    }

    /// Nanoseconds of [`from`, `to`) that the softirq side and the probe take out as a
    /// stall of the whole machine: only where the hardirq side did, inside its last gap
    /// out of which it took the silences with evidence ([`CpuSampler::stall_gap`]), never
    /// elsewhere (one rule for every side: `logic::stall`). Constant time.
    pub(super) fn stalled_ns(&self, from: u64, to: u64) -> u64 {
        let g = self.stall_gap.get();
        let (from, to) = (from.max(g.start), to.min(g.end));
        if from >= to {
            return 0;
        }
        self.peers.silent_ns(from, to)
    }

    /// Of a softirq-side window of `latency_ns` over [`from`, `to`), the nanoseconds in
    /// which no sampled CPU ran and that stay in it ([`CpuSampler::stalled_ns`] took out
    /// the rest): every CPU late together, as the hardirq side says of its windows. A
    /// silence another CPU's beat is still posting counts up to that beat
    /// ([`crate::peers::Peers::together_bound_ns`]): the window is reported either way,
    /// and says so.
    pub(super) fn together_ns(&self, from: u64, to: u64, latency_ns: u64) -> u64 {
        let kept = self
            .peers
            .together_bound_ns(from, to)
            .saturating_sub(self.stalled_ns(from, to));
        crate::logic::stall::together_ns(kept, latency_ns)
    }

    /// Starts both samplers; must run on `self.cpu`, in process context (the CPU hotplug
    /// callback does). Sampling starts now: a window that begins before the first expiry
    /// is measured too. Starting a started sampler does nothing.
    ///
    /// The first period is clean, and the module is never its culprit: both timers are
    /// armed with interrupts on. The hrtimer's first run measures its gap from the arming
    /// (a period before its first expiry, which the kernel set with its own clock read),
    /// so a task that preempts ours (cpuhp/N is a normal task) after the arming is not
    /// counted as interrupts held off, nor is a wait for a lock inside the kernel's
    /// `hrtimer_start` before it. The first runs are then published in a short section
    /// with interrupts off that takes no lock (`online_max_ns` measures it). Until then
    /// `last_hard_ns` stays 0 (stopped): a watcher never finds this CPU overdue before.
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
        this.stall_gap.set(Window::EMPTY);
        this.probe_window.set(Window::EMPTY);
        this.timer_window.set(Window::EMPTY);
        this.probe_armed.store(0, Relaxed);
        this.win_of.store(0, Relaxed);
        this.pending.close();
        let rules = this.settings.rules();
        this.soft_running.store(true, Relaxed);
        if let Some(me) = this.peer() {
            me.last_hard_ns.store(0, Relaxed);
        }
        this.last_soft_ns.store(0, Relaxed);
        // Armed with interrupts on, on this CPU (cpuhp/N is bound to it; both timers are
        // pinned here): the kernel's timer calls take their locks with interrupts off
        // inside, as for any caller, and a wait there for another CPU's hold of them is
        // not ours to measure. The hrtimer's first run measures its gap from where it was
        // armed (a period before its first expiry, taken once its base's lock is held),
        // whenever it runs. The timer_list first: a wait for its base's lock (which an
        // idle CPU's timers share with the CPU that expires them remotely) then comes
        // before the hrtimer is armed, not inside its first gap.
        // Deferrable where the hrtimer parks while the CPU sleeps (`sleep`): a
        // sleeping CPU is woken for neither, and its wake-up sets where the timer_list's gap
        // counts from.
        // Only where softirqs run in threads (PREEMPT_RT, `threadirqs`): elsewhere the
        // hrtimer's looks are the softirq side (`hard::sample`), and every softirq-off
        // window is one that they see, bottom halves off or a handler running, which
        // the probe ends; a timer_list would cost a timer softirq a period for nothing.
        let soft = if this.threaded {
            softtimer::start(rules.soft_period_jiffies, this.peers.parking())
        } else {
            Ok(())
        };
        let handle = HrTimerPointer::start(this.clone(), period(&rules));
        let now = ffi::now_ns();
        let jiffies = ffi::jiffies();
        {
            // The first runs published, unless a callback ran first and did (an
            // interrupt, or a preemption, longer than a period came since the arming):
            // interrupts off so that the timer_list, a softirq, finds its time and
            // jiffies as a pair. No lock, no wait: the one stretch the module keeps them
            // off outside its samplers' handlers, measured.
            let _irqs_off = local_interrupt_disable();
            let t0 = ffi::now_ns_nmi();
            if let Some(me) = this.peer() {
                let _ = me.last_hard_ns.cmpxchg(0, now, Relaxed);
            }
            if this.last_soft_ns.cmpxchg(0, now, Relaxed).is_ok() {
                this.last_soft_jiffies.store(jiffies, Relaxed);
            }
            this.peers
                .started_off(this.cpu, ffi::now_ns_nmi().saturating_sub(t0));
        }
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
                // Not overdue: stopped. Not parked either: nothing queues it again.
                me.last_hard_ns.store(0, Relaxed);
                if me.parked_since.xchg(0, Relaxed) != 0 {
                    self.peers.unparked();
                }
                me.sleeping.store(false, Relaxed);
            }
            // Its ticks no longer look for a sample (a stop elsewhere, at the teardown,
            // leaves the gate: the look finds the sampler stopped).
            if kernel::cpu::CpuId::current().as_u32() == self.cpu {
                ffi::ride_gate(0);
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
}

/// The hrtimer's period as a [`Delta`].
pub(super) fn period(rules: &gap::Rules) -> Delta {
    Delta::from_nanos(i64::try_from(rules.period_ns).unwrap_or(i64::MAX))
}
