// SPDX-License-Identifier: GPL-2.0

//! The per-CPU samplers: a pinned hard-mode hrtimer (hardirq side) and a pinned timer_list
//! (softirq side), and what each does when it runs.

use kernel::prelude::*;
use kernel::sync::atomic::{Atomic, Relaxed};
use kernel::sync::{Arc, ArcBorrow, Mutex};
use kernel::time::hrtimer::{
    ArcHrTimerHandle, HrTimer, HrTimerCallback, HrTimerCallbackContext, HrTimerPointer,
    HrTimerRestart, RelativePinnedHardMode,
};
use kernel::time::{Delta, Monotonic};
use kernel::{impl_has_hr_timer, new_mutex};

use crate::counts::Counts;
use crate::ffi;
use crate::gap::{self, Verdict, Window};
use crate::records::{Record, RecordStore, MAX_FRAMES};
use crate::settings::Settings;
use crate::stack;

/// The two kinds of section the module detects.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Kind {
    Hardirq,
    Softirq,
}

impl Kind {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kind::Hardirq => "hard",
            Kind::Softirq => "soft",
        }
    }
}

/// Sampler state and results of one CPU. Allocated for every possible CPU at load time, so
/// the results of a CPU that went offline stay readable.
#[pin_data]
pub(crate) struct CpuSampler {
    pub(crate) cpu: u32,
    settings: Arc<Settings>,
    #[pin]
    timer: HrTimer<CpuSampler>,
    /// Handle of the running hrtimer; taken (and the timer cancelled) when stopping.
    #[pin]
    running: Mutex<Option<ArcHrTimerHandle<CpuSampler>>>,
    /// Last run of each sampler (ns, monotonic); 0 before the first one.
    last_hard_ns: Atomic<u64>,
    last_soft_ns: Atomic<u64>,
    /// The current softirq starvation has been recorded already.
    soft_starved_seen: Atomic<bool>,
    /// The last hardirq-off window, so the softirq side does not count it twice.
    hard_off: WindowCell,
    /// The late part of the hrtimer's last run in the idle task (a late wake-up from idle,
    /// however short). The timer_list cannot tell one itself where it runs in a thread
    /// (ktimers/N on PREEMPT_RT or with threadirqs: never the idle task), so it subtracts
    /// this window as it does `hard_off`.
    idle_late: WindowCell,
    pub(crate) hard: RecordStore,
    /// Softirq-off records from the timer_list.
    pub(crate) soft: RecordStore,
    /// Lower-bound softirq records from the hrtimer (softirqs starved, e.g. ksoftirqd).
    pub(crate) soft_starved: RecordStore,
    pub(crate) hard_counts: Counts,
    pub(crate) soft_counts: Counts,
    /// Gaps that ended in the idle loop: the CPU was idle with interrupts on and woke
    /// late (deep C-state, a hypervisor not running the vCPU), which is not an irq-off
    /// section. Not events; counted so that they are not hidden.
    pub(crate) idle_gaps: Atomic<u64>,
    /// Time spent in the samplers' handlers: what sampling costs this CPU.
    pub(crate) hard_cost: Cost,
    pub(crate) soft_cost: Cost,
}

/// A window the hrtimer saw last, read by both samplers of its CPU.
///
/// Only the hrtimer writes it, in hard interrupt context on its CPU; the timer_list reads it
/// on the same CPU and may be interrupted by a write (on PREEMPT_RT also preempted across
/// one). A write stores `start`, then `end`, and `end` changes with every write (it is the
/// time of the write), so a read that sees the same `end` before and after `start` has a
/// consistent pair. Same CPU only: an interrupt's stores are seen in program order.
struct WindowCell {
    start: Atomic<u64>,
    end: Atomic<u64>,
}

impl WindowCell {
    const fn new() -> Self {
        Self { start: Atomic::new(0), end: Atomic::new(0) }
    }

    fn set(&self, w: Window) {
        self.start.store(w.start, Relaxed);
        self.end.store(w.end, Relaxed);
    }

    fn get(&self) -> Window {
        // Each retry needs another hrtimer run in between (at most one per period).
        for _ in 0..4 {
            let end = self.end.load(Relaxed);
            let start = self.start.load(Relaxed);
            if self.end.load(Relaxed) == end {
                return Window { start, end };
            }
        }
        Window::EMPTY
    }
}

/// Handler runs, their total time and a log2 histogram of their lengths in ns.
pub(crate) struct Cost {
    pub(crate) runs: Atomic<u64>,
    pub(crate) total_ns: Atomic<u64>,
    pub(crate) hist_ns: Counts,
}

impl Cost {
    const fn new() -> Self {
        Self { runs: Atomic::new(0), total_ns: Atomic::new(0), hist_ns: Counts::new() }
    }

    fn add(&self, ns: u64) {
        self.runs.add(1, Relaxed);
        self.total_ns.add(ns, Relaxed);
        self.hist_ns.add_bucket(crate::histogram::log2_bucket(ns));
    }
}

impl_has_hr_timer! {
    impl HasHrTimer<Self> for CpuSampler {
        mode: RelativePinnedHardMode<Monotonic>, field: self.timer
    }
}

impl CpuSampler {
    pub(crate) fn new(cpu: u32, settings: Arc<Settings>, records: usize) -> Result<Arc<Self>> {
        Arc::pin_init(
            try_pin_init!(Self {
                cpu,
                settings,
                timer <- HrTimer::new(),
                running <- new_mutex!(None),
                last_hard_ns: Atomic::new(0),
                last_soft_ns: Atomic::new(0),
                soft_starved_seen: Atomic::new(false),
                hard_off: WindowCell::new(),
                idle_late: WindowCell::new(),
                hard: RecordStore::new(records)?,
                soft: RecordStore::new(records)?,
                soft_starved: RecordStore::new(records)?,
                hard_counts: Counts::new(),
                soft_counts: Counts::new(),
                idle_gaps: Atomic::new(0),
                hard_cost: Cost::new(),
                soft_cost: Cost::new(),
            }? Error),
            GFP_KERNEL,
        )
    }

    /// Starts both samplers; must run on `self.cpu` (the CPU hotplug callback does).
    /// Sampling starts now: a window that begins before the first expiry is measured too.
    pub(crate) fn start(this: &Arc<Self>) {
        let now = ffi::now_ns();
        this.last_hard_ns.store(now, Relaxed);
        this.last_soft_ns.store(now, Relaxed);
        this.soft_starved_seen.store(false, Relaxed);
        this.hard_off.set(Window::EMPTY);
        this.idle_late.set(Window::EMPTY);
        let rules = this.settings.rules();
        let handle = HrTimerPointer::start(this.clone(), period(&rules));
        *this.running.lock() = Some(handle);
        ffi::softtimer_start(rules.soft_period_jiffies);
    }

    /// Stops both samplers and waits for running callbacks.
    pub(crate) fn stop(&self) {
        ffi::softtimer_stop(self.cpu);
        // Dropping the handle cancels the hrtimer and waits for its callback.
        let handle = self.running.lock().take();
        drop(handle);
    }

    /// Bytes allocated for this CPU (Arc header included).
    pub(crate) fn allocated_bytes(&self) -> usize {
        core::mem::size_of::<Self>()
            + 2 * core::mem::size_of::<usize>()
            + self.hard.allocated_bytes()
            + self.soft.allocated_bytes()
            + self.soft_starved.allocated_bytes()
    }

    pub(crate) fn counts(&self, kind: Kind) -> &Counts {
        match kind {
            Kind::Hardirq => &self.hard_counts,
            Kind::Softirq => &self.soft_counts,
        }
    }

    /// The hrtimer ran at `now`: hardirq-off check, then softirq starvation check.
    fn hard_sample(&self, rules: &gap::Rules, now: u64) {
        let prev = self.last_hard_ns.xchg(now, Relaxed);
        if prev == 0 {
            return;
        }
        let gap = now.saturating_sub(prev);
        // Meaningful on every kernel: this runs in hard interrupt context, also on
        // PREEMPT_RT, so it interrupted the idle task if the CPU was idle.
        let idle = ffi::in_idle();
        if idle {
            // Every run in idle, also when late by less than an idle gap: the timer_list,
            // if due earlier, may have been late by more.
            self.idle_late.set(rules.late_window(prev, now));
        }
        match rules.hard_verdict(gap, idle) {
            Verdict::IdleLate => self.idle_gaps.add(1, Relaxed),
            Verdict::Event(latency) => {
                self.hard_off.set(rules.late_window(prev, now));
                self.hard_counts.add(latency);
                self.event(Kind::Hardirq, latency, false, rules.is_recorded(latency), &self.hard);
            }
            Verdict::Ordinary => {}
        }
        let last_soft = self.last_soft_ns.load(Relaxed);
        if last_soft != 0 && !idle && !self.soft_starved_seen.load(Relaxed) {
            // If the previous run was in idle, softirqs were not starved before it.
            let idle_late = gap::idle_until(self.idle_late.get(), prev, now);
            let explained = gap::covered(last_soft, now, self.hard_off.get(), idle_late);
            if let Some(latency) = rules.soft_starved(now.saturating_sub(last_soft), explained) {
                self.soft_starved_seen.store(true, Relaxed);
                self.event(Kind::Softirq, latency, true, true, &self.soft_starved);
            }
        }
    }

    /// The timer_list ran: softirq-off check. Returns the next delay in jiffies.
    pub(crate) fn soft_sample(&self) -> u64 {
        let now = ffi::now_ns();
        let next = self.soft_check(now);
        self.soft_cost.add(ffi::now_ns().saturating_sub(now));
        next
    }

    fn soft_check(&self, now: u64) -> u64 {
        let rules = self.settings.rules();
        let prev = self.last_soft_ns.xchg(now, Relaxed);
        self.soft_starved_seen.store(false, Relaxed);
        if prev != 0 {
            let gap = now.saturating_sub(prev);
            let (hard_off, idle_late) = (self.hard_off.get(), self.idle_late.get());
            // After the window: if the hrtimer ran since, `last_hard_ns` is newer than it.
            let idle_late = gap::idle_until(idle_late, self.last_hard_ns.load(Relaxed), now);
            let hard = hard_off.overlap(prev, now);
            let hard_or_idle = gap::covered(prev, now, hard_off, idle_late);
            // in_idle() only where the timer softirq runs on irq exit; where it runs in
            // ktimers/N the idle window answers the same question.
            match rules.soft_verdict(gap, hard, hard_or_idle, ffi::in_idle()) {
                Verdict::IdleLate => self.idle_gaps.add(1, Relaxed),
                Verdict::Event(latency) => {
                    self.soft_counts.add(latency);
                    self.event(Kind::Softirq, latency, false, rules.is_recorded(latency), &self.soft);
                }
                Verdict::Ordinary => {}
            }
        }
        rules.soft_period_jiffies
    }

    /// Reports one event: the tracepoint always, a record when it reaches the threshold.
    fn event(&self, kind: Kind, latency_ns: u64, lower_bound: bool, record: bool, store: &RecordStore) {
        let mut r = Record::empty();
        r.latency_ns = latency_ns;
        r.lower_bound = lower_bound;
        r.timestamp_ns = ffi::now_ns();
        r.pid = ffi::current_task(&mut r.comm);
        ffi::trace_event(kind, self.cpu, latency_ns, lower_bound, r.pid, &r.comm);
        if record {
            capture_stack(&mut r);
            store.offer(&r, self.settings.generation());
        }
    }
}

fn period(rules: &gap::Rules) -> Delta {
    Delta::from_nanos(i64::try_from(rules.period_ns).unwrap_or(i64::MAX))
}

/// Saves the stack into `r`, without the sampler's own frames.
fn capture_stack(r: &mut Record) {
    let mut raw = [0u64; MAX_FRAMES + stack::SCAN_DEPTH];
    let n = ffi::save_stack(&mut raw);
    let frames = &raw[..n];
    let first = stack::first_culprit_frame(frames, ffi::irq_regs_ip(), |i| {
        ffi::symbol_name(frames[i]).map_or(stack::FrameClass::Other, |s| stack::classify(s.as_str()))
    });
    let kept = frames.get(first..).unwrap_or(&[]);
    r.nr_frames = kept.len().min(MAX_FRAMES);
    for (d, s) in r.frames.iter_mut().zip(kept) {
        *d = *s;
    }
}

impl HrTimerCallback for CpuSampler {
    type Pointer<'a> = Arc<Self>;

    fn run(this: ArcBorrow<'_, Self>, mut ctx: HrTimerCallbackContext<'_, Self>) -> HrTimerRestart {
        let now = ffi::now_ns();
        // Derived once per run: the check and the re-arm use the same settings.
        let rules = this.settings.rules();
        this.hard_sample(&rules, now);
        ctx.forward_now(period(&rules));
        this.hard_cost.add(ffi::now_ns().saturating_sub(now));
        HrTimerRestart::Restart
    }
}
