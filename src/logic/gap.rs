// SPDX-License-Identifier: GPL-2.0

//! Gap classification: when does the time between two sampler runs mean that hard
//! interrupts or softirqs were off, and for how long. Pure logic (`core` only), shared with
//! the host via `tools/tio-logic`.
//!
//! With period P, a sampler that runs again after a gap G >= 2P was kept from running for
//! about G - P: that is the reported latency. The hrtimer is exact to the nanosecond, so its
//! rule is just that. The timer_list is quantised to jiffies and to the timer wheel's
//! granularity, so its period is P rounded up to whole jiffies (Ps), it may fire up to one
//! wheel granule plus one jiffy late, and its rule adds that slack so that no ordinary gap
//! is ever counted, at any allowed P and any HZ.
//!
//! A gap is not an event when the CPU slept through it and woke late (a deep C-state, a
//! hypervisor not running the vCPU). That takes evidence ([`SleepEvidence`]), never just
//! the idle task being current: it is current in every interrupt handler, softirq and IPI
//! function that runs on an idle CPU. The hrtimer (hard interrupt context everywhere)
//! gathers the evidence; it records the late part of its runs proven asleep, and of
//! hardirq-off gaps, as [`Window`]s, and the timer_list subtracts what they cover from its
//! own gap.
//!
//! Nor is a gap an event when the hypervisor did not run the vCPU through it (steal time),
//! or the whole VM stood still with its clock running. Where the kernel accounts steal
//! ([`Steal`]), a gap that would be ordinary without the steal accounted over it is a
//! [`Verdict::Steal`]; one that is still an event without it is an event of what remains.
//! The kernel accounts steal only at its tick, which may come right after the hrtimer
//! run that ends the gap, so the hrtimer may have to wait for it ([`Decision::Wait`]).

/// Nanoseconds per millisecond.
pub(crate) const NSEC_PER_MSEC: u64 = 1_000_000;
/// Nanoseconds per second.
pub(crate) const NSEC_PER_SEC: u64 = 1_000_000_000;

/// The timer wheel's levels: 64 buckets each, every level 8 times coarser
/// (`kernel/time/timer.c`: LVL_BITS = 6, LVL_CLK_SHIFT = 3).
const WHEEL_LVL_BITS: u32 = 6;
const WHEEL_LVL_CLK_SHIFT: u32 = 3;
const WHEEL_DEPTH: u32 = 9;

/// Jiffies by which the timer wheel may postpone a timer armed `delta` jiffies ahead:
/// the granularity of the level that holds it.
pub(crate) const fn wheel_granularity(delta: u64) -> u64 {
    let mut lvl = 0;
    while lvl + 1 < WHEEL_DEPTH {
        // LVL_START(n + 1) = (LVL_SIZE - 1) << (n * LVL_CLK_SHIFT)
        let next_start = ((1u64 << WHEEL_LVL_BITS) - 1) << (lvl * WHEEL_LVL_CLK_SHIFT);
        if delta < next_start {
            break;
        }
        lvl += 1;
    }
    1u64 << (lvl * WHEEL_LVL_CLK_SHIFT)
}

/// The timer_list's shortest period. Its run costs a timer softirq (about 2000
/// instructions on the bench kernel, measured with the tracepoints around it, against
/// 130 for the callback itself), and every window of two periods is found at the hrtimer's
/// resolution by its looks and the probe: the timer_list is the fallback for what no look
/// saw. At most 250 runs a second, as at HZ 250.
pub(crate) const MIN_SOFT_PERIOD_NS: u64 = 4 * NSEC_PER_MSEC;

const fn max(a: u64, b: u64) -> u64 {
    if a > b {
        a
    } else {
        b
    }
}

/// Whether softirqs that a look at `armed_ns` found held off, and that the probe found
/// running again at `ran_ns`, were held a period (`period_ns`) or more after that look:
/// only then is it a window ([`Rules::probe_latency`]). Needs only the period, so that the
/// probe's common run decides it before it derives the rules.
pub(crate) const fn probe_held_a_period(armed_ns: u64, ran_ns: u64, period_ns: u64) -> bool {
    ran_ns.saturating_sub(armed_ns) >= period_ns
}

/// Everything the samplers need to classify a gap, derived once from the settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Rules {
    /// Hrtimer period P.
    pub(crate) period_ns: u64,
    /// Records are kept for latencies at or above this.
    pub(crate) threshold_ns: u64,
    /// Length of one jiffy.
    pub(crate) jiffy_ns: u64,
    /// The timer_list period in jiffies: P, at least [`MIN_SOFT_PERIOD_NS`], rounded up.
    pub(crate) soft_period_jiffies: u64,
    /// The timer_list period Ps in ns.
    pub(crate) soft_period_ns: u64,
    /// The smallest timer_list gap that is an event: 2Ps + wheel granule + one jiffy.
    pub(crate) soft_event_ns: u64,
}

impl Rules {
    /// Derives the rules; `hz` is the kernel's tick rate (jiffies per second).
    pub(crate) const fn new(period_ns: u64, threshold_ns: u64, hz: u64) -> Self {
        let jiffy_ns = NSEC_PER_SEC / hz;
        let soft_period_jiffies = max(period_ns, MIN_SOFT_PERIOD_NS).div_ceil(jiffy_ns);
        let soft_period_ns = soft_period_jiffies * jiffy_ns;
        let slack = (wheel_granularity(soft_period_jiffies) + 1) * jiffy_ns;
        Self {
            period_ns,
            threshold_ns,
            jiffy_ns,
            soft_period_jiffies,
            soft_period_ns,
            soft_event_ns: 2 * soft_period_ns + slack,
        }
    }

    /// Latency of a hardirq-off event for an hrtimer gap, or `None` for an ordinary gap.
    pub(crate) const fn hard_latency(&self, gap_ns: u64) -> Option<u64> {
        if gap_ns >= 2 * self.period_ns {
            Some(gap_ns - self.period_ns)
        } else {
            None
        }
    }

    /// Latency of a softirq-off event for a timer_list gap, or `None`.
    ///
    /// `hard_overlap_ns` is the part of the gap during which hard interrupts were off (a
    /// hardirq-off event already covers it); it is not counted again as softirq-off.
    pub(crate) const fn soft_latency(&self, gap_ns: u64, hard_overlap_ns: u64) -> Option<u64> {
        let gap = gap_ns.saturating_sub(hard_overlap_ns);
        if gap >= self.soft_event_ns {
            Some(gap - self.soft_period_ns)
        } else {
            None
        }
    }

    /// Whether the timer_list, last run `since_soft_ns` ago, is later than it ever is in
    /// an ordinary gap (a period, a wheel granule and a jiffy): from here on the hrtimer
    /// looks into the window for its cause. Earlier looks would cost every run at small P,
    /// where the timer_list's ordinary gap spans several hrtimer periods.
    pub(crate) const fn soft_overdue(&self, since_soft_ns: u64) -> bool {
        since_soft_ns > self.soft_event_ns - self.soft_period_ns
    }

    /// Whether the timer_list, last run `since_soft_ns` ago, ran lately enough that the
    /// hrtimer has nothing to look at on the softirq side: not overdue, and not starved
    /// long enough for a lower-bound record.
    pub(crate) const fn soft_recent(&self, since_soft_ns: u64) -> bool {
        !self.soft_overdue(since_soft_ns) && since_soft_ns < self.threshold_ns + self.period_ns
    }

    /// Whether the hrtimer should record the softirq side as starved, with a lower-bound
    /// latency: softirqs have not run for `since_soft_ns`, of which `hard_overlap_ns` are
    /// already explained by a hardirq-off window; the rest must reach threshold + P.
    /// Never within an ordinary timer_list gap, which at a small P and a low HZ can be
    /// longer than threshold + P (a 4 ms period, gaps up to 12 ms at P = 1 ms and HZ 250).
    pub(crate) const fn soft_starved(
        &self,
        since_soft_ns: u64,
        hard_overlap_ns: u64,
    ) -> Option<u64> {
        if !self.soft_overdue(since_soft_ns) {
            return None;
        }
        let starved = since_soft_ns.saturating_sub(hard_overlap_ns);
        if starved >= self.threshold_ns + self.period_ns {
            Some(starved - self.period_ns)
        } else {
            None
        }
    }

    /// The late part of an hrtimer gap from `prev` to `now`: from the expiry it missed
    /// (`prev` + P) to `now`. Its length is the latency of a hard event.
    pub(crate) const fn late_window(&self, prev: u64, now: u64) -> Window {
        Window {
            start: prev.saturating_add(self.period_ns),
            end: now,
        }
    }

    /// Whether this CPU's tick takes the hrtimer's samples where it runs (x86: its local
    /// timer interrupt's entry, `sampler::hard`): only where P is at least a tick, so that
    /// a busy CPU's tick comes at least once a period.
    pub(crate) const fn rides_tick(&self) -> bool {
        self.period_ns >= self.jiffy_ns
    }

    /// Whether a local timer interrupt at `now` takes the sample that is due a period after
    /// the last, at `last`: it comes less than half a tick before that (the next tick
    /// would come past it by more).
    pub(crate) const fn ride_due(&self, last: u64, now: u64) -> bool {
        self.rides_tick()
            && now.saturating_add(self.jiffy_ns / 2) >= last.saturating_add(self.period_ns)
    }

    /// How many jiffies after the jiffy read at a sample (`jiffies` when it ran) the
    /// local timer interrupts start to look whether the next is due: a tick less than the
    /// whole ticks in P, so that a jiffies count read a tick behind (the tick that
    /// advances it may not have run yet, on this CPU or the one that keeps time) never
    /// keeps a due tick from looking. `None`: the tick takes no sample.
    pub(crate) const fn ride_gate_jiffies(&self) -> Option<u64> {
        if !self.rides_tick() {
            return None;
        }
        match self.period_ns.checked_div(self.jiffy_ns) {
            Some(n) => Some(n.saturating_sub(1)),
            None => None,
        }
    }

    /// Where the hrtimer waits after a sample that the tick took at `now`: past the tick
    /// that takes the next one (due from half a tick before a period on), so that while
    /// the tick runs the hrtimer never does. Where the tick stops (a `nohz_full` CPU that
    /// runs one task), the hrtimer samples every P and a half tick: the late part of a
    /// gap it ends (`late_window`, from a period after the last sample) may then be up to
    /// half a tick longer than the window in it.
    pub(crate) const fn ride_backstop(&self, now: u64) -> u64 {
        now.saturating_add(self.period_ns)
            .saturating_add(self.jiffy_ns / 2)
    }

    /// Where a softirq-off window first seen by the hrtimer's look at `now` began, as
    /// estimated: halfway back to the previous look at `prev` (at most half a period: the
    /// window began after it, or that look would have seen it), or at `now` when this run
    /// ends a hardirq-off gap (that time is the hardirq-off event's).
    pub(crate) const fn probe_start(&self, prev: u64, now: u64, after_hard_gap: bool) -> u64 {
        if after_hard_gap {
            return now;
        }
        let back = now.saturating_sub(prev);
        let back = if back < self.period_ns {
            back
        } else {
            self.period_ns
        };
        now - back / 2
    }

    /// The softirq probe: queued at `armed_ns` by a look that found softirqs held off (in a
    /// window estimated to have begun at `start_ns`), it ran at `ran_ns`, as soon as
    /// softirqs could. Held for a period or more after that look: a softirq-off event of
    /// `ran_ns - start_ns`. Every window of two periods or more is one (its first look
    /// comes within a period of its start), at an error of at most half a period plus the
    /// probe's own start-up; a shorter hold is not a window.
    pub(crate) const fn probe_latency(
        &self,
        start_ns: u64,
        armed_ns: u64,
        ran_ns: u64,
    ) -> Option<u64> {
        if probe_held_a_period(armed_ns, ran_ns, self.period_ns) {
            Some(ran_ns.saturating_sub(start_ns))
        } else {
            None
        }
    }

    /// How often a CPU looks at its neighbours' last hrtimer runs while none is overdue:
    /// every period, but no more often than an eighth of the threshold (the length from
    /// which an open window is claimed), so that at a small period the look is not paid
    /// every run. A window is claimed at most this much after it passed the threshold.
    pub(crate) const fn watch_interval(&self) -> u64 {
        let eighth = self.threshold_ns / 8;
        if eighth > self.period_ns {
            eighth
        } else {
            self.period_ns
        }
    }

    /// Whether a latency gets a stack record (below the threshold it is only counted).
    pub(crate) const fn is_recorded(&self, latency_ns: u64) -> bool {
        latency_ns >= self.threshold_ns
    }
}

/// A window still open, as of `now`: its length `latency_ns` was measured at `measured_at`
/// and has grown since by the time that passed (its start stays where it was). Returns the
/// length and the time it is measured at; a `now` before `measured_at` changes nothing.
pub(crate) const fn open_as_of(latency_ns: u64, measured_at: u64, now: u64) -> (u64, u64) {
    if now <= measured_at {
        return (latency_ns, measured_at);
    }
    (latency_ns.saturating_add(now - measured_at), now)
}

/// Overlap of the interval [a_start, a_end) with [b_start, b_end), in ns.
pub(crate) const fn overlap(a_start: u64, a_end: u64, b_start: u64, b_end: u64) -> u64 {
    let start = if a_start > b_start { a_start } else { b_start };
    let end = if a_end < b_end { a_end } else { b_end };
    end.saturating_sub(start)
}

/// A stretch of time [start, end) in ns, monotonic; empty when `end <= start`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Window {
    pub(crate) start: u64,
    pub(crate) end: u64,
}

impl Window {
    pub(crate) const EMPTY: Self = Self { start: 0, end: 0 };

    /// Nanoseconds of [start, end) inside this window.
    pub(crate) const fn overlap(&self, start: u64, end: u64) -> u64 {
        overlap(start, end, self.start, self.end)
    }
}

/// Whether `theirs` (a window on another CPU) covers at least half of `ours`: enough to
/// say the two were one incident.
pub(crate) const fn overlaps_most(ours: Window, theirs: Window) -> bool {
    let len = ours.end.saturating_sub(ours.start);
    len > 0 && 2 * theirs.overlap(ours.start, ours.end) >= len
}

/// The idle window to subtract from a softirq gap ending at `now`: the late part of the
/// hrtimer's last run in the idle task (`idle`), extended to `now` if that was also the
/// hrtimer's last run before `now` (`last_hard == idle.end`). The CPU was idle then, so
/// softirqs were not held off before, and it has been waking up since, for less than a
/// period (or the hrtimer would have run again). Where softirqs run on irq exit, that
/// wake-up happens in the idle task and in_idle() excuses it just the same.
pub(crate) const fn idle_until(idle: Window, last_hard: u64, now: u64) -> Window {
    if last_hard == idle.end && idle.end != 0 && now > idle.end {
        Window {
            start: idle.start,
            end: now,
        }
    } else {
        idle
    }
}

/// Nanoseconds of [start, end) inside the union of `windows` (each part counted once).
pub(crate) fn covered_all<const N: usize>(start: u64, end: u64, windows: [Window; N]) -> u64 {
    let mut w = windows.map(|w| Window {
        start: w.start.max(start),
        end: w.end.min(end),
    });
    w.sort_unstable_by_key(|w| w.start);
    let (mut total, mut reach) = (0, start);
    for x in w {
        let from = x.start.max(reach);
        if x.end > from {
            total += x.end - from;
            reach = x.end;
        }
    }
    total
}

/// What the hrtimer knows, when it runs, about how its CPU spent the time since its
/// previous run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SleepEvidence {
    /// This interrupt came into the idle loop itself: the idle task, with no other
    /// interrupt, softirq or NMI level below it.
    pub(crate) idle_loop: bool,
    /// Interrupts the CPU took since the previous run, this one included (NMIs not
    /// counted).
    pub(crate) interrupts: u64,
    /// hrtimer interrupt retries since the previous run: callbacks of one hrtimer
    /// interrupt that ran past the next expiry.
    pub(crate) retries: u32,
    /// A watcher's NMI found this CPU awake during the gap, at least half a period before
    /// this run (`Watch::saw_awake`): inside a hard interrupt handler, or in the idle loop
    /// outside its wait (an IPI function that a polling idle loop ran itself, with no
    /// interrupt counted). The CPU was not asleep then. The one proof left for a callback
    /// that ran before ours, or after ours, in the same pass of the hrtimer queues: that
    /// pass counts one interrupt and, when our callback comes after the spinning one or
    /// the tick drives the hrtimers (low-resolution mode), no retry.
    pub(crate) awake_seen: bool,
    /// How many interrupts the kernel counts for one wake-up by this hrtimer alone
    /// ([`per_wake`]): 1 on most machines, 2 on Xen HVM (its timer event and the upcall
    /// vector are both counted).
    pub(crate) per_wake: u64,
}

/// What one wake-up by the hrtimer alone counts in the CPU's interrupt counts, learnt from
/// the runs: the fewest interrupts counted between two runs that were on time (a gap
/// shorter than `2P`), both in the idle loop with known counts and no retry. Such a run
/// took at least its own interrupt, so the fewest is what one interrupt of ours counts:
/// 1 on most machines, 2 on Xen HVM. `learnt` is the value so far (0: none yet, taken as
/// 1); `interrupts` and `retries` are this run's counts since the previous one
/// ([`SleepEvidence`]), `on_time` whether its gap was ordinary.
pub(crate) const fn per_wake(learnt: u64, interrupts: u64, retries: u32, on_time: bool) -> u64 {
    if !on_time || retries != 0 || interrupts == 0 || interrupts == u64::MAX {
        return learnt;
    }
    if learnt == 0 || interrupts < learnt {
        interrupts
    } else {
        learnt
    }
}

impl SleepEvidence {
    /// Whether the CPU slept through the gap: the interrupt that ran the hrtimer came into
    /// the idle loop, it was the only one since the previous run (it counted no more than
    /// one wake-up by the hrtimer alone counts, [`per_wake`]) (so no handler, softirq
    /// on its exit, or IPI function ran in between), no hrtimer callback of it ran
    /// past an expiry before this one, and no NMI found the CPU awake (in a hard interrupt
    /// handler, or in the idle loop outside its wait) during the gap. A window opened by
    /// an interrupt handler, a timer or softirq callback, or an IPI function fails one of
    /// the four; a hard hrtimer callback that ran in the same pass as ours, and an IPI
    /// function that a polling idle loop ran itself (no IPI is sent to a CPU that polls:
    /// it sees the request and runs it from the idle loop with interrupts off, then takes
    /// our interrupt into the idle loop), fail only the last, so where no NMI can be sent
    /// (or the window ended before the watcher's first NMI) they are taken for sleep.
    pub(crate) const fn proves_sleep(&self) -> bool {
        let one = if self.per_wake == 0 { 1 } else { self.per_wake };
        self.idle_loop && self.interrupts <= one && self.retries == 0 && !self.awake_seen
    }
}

/// What one sampler gap means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// An ordinary gap: nothing to report.
    Ordinary,
    /// Long, but the CPU is proven to have slept through it and woken late (deep C-state,
    /// a hypervisor not running the vCPU): not an irq-off section, counted as an idle gap.
    IdleLate,
    /// An irq-off event of this latency (ns).
    Event(u64),
    /// Long only because the hypervisor did not run the vCPU (steal time the kernel
    /// accounted over it): without that steal it would be an ordinary gap. Not an event,
    /// counted as a steal gap.
    Steal,
    /// Long only because no sampled CPU ran over it (a stall of the whole machine: a
    /// paused VM, `stall::silence`): without that span it would be an ordinary gap. Not an
    /// event, counted as a stall gap.
    Stall,
}

/// The kernel's steal-time count of a CPU (`kcpustat_cpu(cpu).cpustat[CPUTIME_STEAL]`,
/// ns), read on that CPU at the run before a gap and now. It stays 0 where the kernel
/// accounts no steal (no paravirt steal clock: bare metal, QEMU TCG), and it moves only at
/// that CPU's tick (`steal_account_process_time`, from `account_process_tick`) and at its
/// exit from dyntick idle: a tick that has not yet run since the vCPU came back has not
/// yet accounted the steal of the gap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Steal {
    /// The count at the run before the gap.
    pub(crate) before: u64,
    /// The count now.
    pub(crate) now: u64,
}

impl Steal {
    /// Whether the kernel accounts steal on this CPU: its count is not 0. (Until it has
    /// accounted any, this CPU's gaps are judged as on bare metal.)
    pub(crate) const fn accounted(&self) -> bool {
        self.before != 0 || self.now != 0
    }

    /// Steal accounted between the two reads; the count wraps.
    pub(crate) const fn delta(&self) -> u64 {
        self.now.wrapping_sub(self.before)
    }
}

/// The part of a gap that lay in silences of the whole machine, as read from the pulse
/// (`stall::silent_ns`).
///
/// A beat that ends a silence is seen by the other CPUs (the machine's last beat moved)
/// a moment before its silence is posted; a vCPU that the host deschedules in that moment
/// (or a single-threaded emulator that runs the other vCPUs then) makes the moment long.
/// A gap judged in it would miss the silence, so the read says whether it is whole.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Silent {
    /// Nanoseconds of the gap inside the silences posted so far (for the hrtimer, those its
    /// CPU came back from: `stall::came_back`).
    pub(crate) ns: u64,
    /// No silence was being posted: `ns` is all of the gap's silence that the pulse will
    /// ever know. If not, a gap that is an event without it waits for a later read.
    pub(crate) complete: bool,
    /// Part of `ns` lies in a *lone* silence: one that a sampled CPU slept through with
    /// its hrtimer parked (on a VM, `stall` module docs). Nothing shows that the machine
    /// stood still rather than that the CPUs awake had interrupts off, so no evidence of
    /// this CPU takes it out: it stays in the window, as every CPU late together.
    pub(crate) lone: bool,
}

impl Silent {
    /// Whether a CPU whose `evidence` proves a stall (`stall::Evidence::proves_stall`) may
    /// take this silence out of its gap: never where part of it is lone.
    pub(crate) const fn taken_with(self, evidence: bool) -> bool {
        evidence && !self.lone
    }

    /// `ns` of silence, known whole, none of it lone.
    pub(crate) const fn known(ns: u64) -> Self {
        Self {
            ns,
            complete: true,
            lone: false,
        }
    }
}

/// The longest wait for the steal of a gap that ended in the idle loop
/// ([`Rules::steal_settled_after`]): an event of an idle CPU is counted at most this late.
pub(crate) const IDLE_STEAL_WAIT_NS: u64 = NSEC_PER_SEC;

/// The hrtimer's decision on a gap, where it may have to wait for the tick to account the
/// gap's steal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Decision {
    /// The verdict is known.
    Now(Verdict),
    /// Still an event with the steal accounted so far, but the tick may not yet have
    /// accounted the gap's steal: decide at a later run ([`Rules::steal_settled`]).
    Wait,
}

impl Rules {
    /// The hrtimer's verdict on `gap_ns`; `asleep`: [`SleepEvidence::proves_sleep`].
    pub(crate) const fn hard_verdict(&self, gap_ns: u64, asleep: bool) -> Verdict {
        match self.hard_latency(gap_ns) {
            Some(_) if asleep => Verdict::IdleLate,
            Some(latency) => Verdict::Event(latency),
            None => Verdict::Ordinary,
        }
    }

    /// The hrtimer's decision on `gap_ns`, given the steal the kernel accounted on this CPU
    /// from the run before the gap until now, and whether that count is `settled` (a tick
    /// has run since the gap ended, [`Rules::steal_settled`]).
    ///
    /// Where the kernel accounts no steal, it is [`Rules::hard_verdict`] at once. Else the
    /// steal (at most the latency) is taken out of the gap: if what remains is an ordinary
    /// gap, the verdict is [`Verdict::Steal`] at once; if it is still an event, it is an
    /// event of the remaining latency once settled, and [`Decision::Wait`] before (more of
    /// the gap's steal may still be accounted). A gap proven asleep stays an idle gap.
    pub(crate) const fn hard_decision(
        &self,
        gap_ns: u64,
        asleep: bool,
        steal: Steal,
        settled: bool,
    ) -> Decision {
        let latency = match self.hard_verdict(gap_ns, asleep) {
            Verdict::Event(latency) if steal.accounted() => latency,
            v => return Decision::Now(v),
        };
        let delta = steal.delta();
        let stolen = if delta < latency { delta } else { latency };
        match self.hard_latency(gap_ns - stolen) {
            None => Decision::Now(Verdict::Steal),
            Some(rest) if settled => Decision::Now(Verdict::Event(rest)),
            Some(_) => Decision::Wait,
        }
    }

    /// [`Rules::hard_decision`] for a gap of which `silent_ns` lay in a stall of the
    /// whole machine (`stall::silent_ns`: no sampled CPU ran then). The stall is taken out
    /// first: if what remains is an ordinary gap, the verdict is [`Verdict::Stall`] at
    /// once, before any other evidence (the machine stood still, so nothing on this CPU
    /// can have been held off then); otherwise the rest is decided as a gap of its own,
    /// so that an irq-off window around a stall is reported without the stall's length.
    /// With no silence it is exactly [`Rules::hard_decision`]. An event decided while a
    /// silence was still being posted (`silent.complete` false) is [`Decision::Wait`]: the
    /// silence may cover it.
    pub(crate) const fn hard_decision_in(
        &self,
        gap_ns: u64,
        asleep: bool,
        steal: Steal,
        settled: bool,
        silent: Silent,
    ) -> Decision {
        match self.hard_decision_silent(gap_ns, asleep, steal, settled, silent.ns) {
            Decision::Now(Verdict::Event(_)) if !silent.complete => Decision::Wait,
            d => d,
        }
    }

    const fn hard_decision_silent(
        &self,
        gap_ns: u64,
        asleep: bool,
        steal: Steal,
        settled: bool,
        silent_ns: u64,
    ) -> Decision {
        if silent_ns > 0 && self.hard_latency(gap_ns).is_some() {
            let silent = if silent_ns < gap_ns {
                silent_ns
            } else {
                gap_ns
            };
            if self.hard_latency(gap_ns - silent).is_none() {
                return Decision::Now(Verdict::Stall);
            }
            return self.hard_decision(gap_ns - silent, asleep, steal, settled);
        }
        self.hard_decision(gap_ns, asleep, steal, settled)
    }

    /// [`Rules::soft_verdict_steal`] for a gap of which `silent_ns` lay in a stall of the
    /// whole machine. The stall explains the gap as steal does (the two are counted
    /// together, at most once with the windows); a gap that only the stall makes ordinary
    /// is a [`Verdict::Stall`].
    pub(crate) const fn soft_verdict_in(
        &self,
        gap_ns: u64,
        hard_ns: u64,
        hard_or_idle_ns: u64,
        steal_ns: u64,
        silent_ns: u64,
    ) -> Verdict {
        let without = self.soft_verdict_steal(gap_ns, hard_ns, hard_or_idle_ns, steal_ns);
        if silent_ns == 0 {
            return without;
        }
        let with = self.soft_verdict_steal(
            gap_ns,
            hard_ns,
            hard_or_idle_ns,
            steal_ns.saturating_add(silent_ns),
        );
        match (without, with) {
            (Verdict::Event(_), Verdict::Steal) => Verdict::Stall,
            _ => with,
        }
    }

    /// Whether a run at `now` may take the steal count as holding the steal of a gap that
    /// ended at `end`: more than a jiffy later, a tick has run in between (unless this
    /// CPU's tick is stopped: dyntick idle, which accounts steal at its exit, or nohz_full).
    pub(crate) const fn steal_settled(&self, end: u64, now: u64) -> bool {
        now.saturating_sub(end) > self.jiffy_ns
    }

    /// [`Rules::steal_settled`] for a gap that ended in the idle loop (`ended_idle`). There
    /// the CPU's tick may be stopped (dyntick idle), and the kernel accounts the steal of
    /// an idle period only when it ends: the count read a jiffy later may still miss the
    /// gap's steal (a KVM guest whose idle vCPU the host ran late shows 0). So such a gap
    /// is settled only once a run found the CPU out of the idle loop since (`left_idle`:
    /// the idle period ended, its steal accounted), or at the latest [`IDLE_STEAL_WAIT_NS`]
    /// after it ended, when it is decided with the steal known by then.
    pub(crate) const fn steal_settled_after(
        &self,
        end: u64,
        now: u64,
        ended_idle: bool,
        left_idle: bool,
    ) -> bool {
        self.steal_settled(end, now)
            && (!ended_idle || left_idle || now.saturating_sub(end) >= IDLE_STEAL_WAIT_NS)
    }

    /// [`Rules::soft_verdict`] where the kernel accounted `steal_ns` of steal on this CPU
    /// over the gap. The steal explains the gap like an idle-late window does, but counted
    /// at most once with the idle-late windows (a vCPU not run while idle is in both) and
    /// never inside the windows reported already (their latencies are steal-free): the
    /// gap is explained by at least max(`hard_or_idle_ns`, `hard_ns` + steal). Still an
    /// event beyond that: an event of the rest. Explained only with the steal: a steal
    /// gap. With no steal it is exactly [`Rules::soft_verdict`]. (The timer_list runs from
    /// the timer softirq that the tick raises after accounting steal, so its count is
    /// current.)
    pub(crate) const fn soft_verdict_steal(
        &self,
        gap_ns: u64,
        hard_ns: u64,
        hard_or_idle_ns: u64,
        steal_ns: u64,
    ) -> Verdict {
        let with_steal = hard_ns.saturating_add(steal_ns);
        let explained = if with_steal > hard_or_idle_ns {
            with_steal
        } else {
            hard_or_idle_ns
        };
        match self.soft_latency(gap_ns, explained) {
            Some(latency) => Verdict::Event(latency),
            None => match self.soft_verdict(gap_ns, hard_ns, hard_or_idle_ns) {
                Verdict::Event(_) => Verdict::Steal,
                v => v,
            },
        }
    }

    /// The timer_list's verdict on `gap_ns`. Of the gap, `hard_ns` is covered by windows
    /// reported already (a hardirq-off event, a softirq-off event of the probe) and
    /// `hard_or_idle_ns` (>= `hard_ns`) by those or an idle-late window. Where the timer_list itself runs (a
    /// softirq on irq exit from idle, or ktimers/N) is no evidence either way: only the
    /// hrtimer's proven idle windows excuse a gap.
    pub(crate) const fn soft_verdict(
        &self,
        gap_ns: u64,
        hard_ns: u64,
        hard_or_idle_ns: u64,
    ) -> Verdict {
        match self.soft_latency(gap_ns, hard_or_idle_ns) {
            Some(latency) => Verdict::Event(latency),
            // Long only because of a late wake-up from idle: counted like one.
            None if self.soft_latency(gap_ns, hard_ns).is_some() => Verdict::IdleLate,
            None => Verdict::Ordinary,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = NSEC_PER_MSEC;

    /// Claim: the timer wheel postpones a timer armed fewer than 63 jiffies ahead by at
    /// most 1 jiffy, one armed 63 to 503 ahead by 8, and one 504 or more ahead (1000) by
    /// 64.
    #[test]
    fn wheel_granularity_follows_levels() {
        assert_eq!(wheel_granularity(1), 1);
        assert_eq!(wheel_granularity(62), 1);
        assert_eq!(wheel_granularity(63), 8);
        assert_eq!(wheel_granularity(503), 8);
        assert_eq!(wheel_granularity(504), 64);
        assert_eq!(wheel_granularity(1000), 64);
    }

    /// Claim: at P = 10 ms an hrtimer gap below two periods (10 ms, 20 ms - 1 ns) is
    /// ordinary, and a gap of 2P or more is an event of the gap less one period (20 ms
    /// gives 10 ms, 107 ms gives 97 ms).
    #[test]
    fn hard_events_start_at_two_periods() {
        let r = Rules::new(10 * MS, 50 * MS, 1000);
        assert_eq!(r.hard_latency(10 * MS), None);
        assert_eq!(r.hard_latency(20 * MS - 1), None);
        assert_eq!(r.hard_latency(20 * MS), Some(10 * MS));
        assert_eq!(r.hard_latency(107 * MS), Some(97 * MS));
    }

    /// Claim: at HZ 1000 and P = 10 ms the timer_list runs every 10 jiffies and its
    /// smallest event gap is 22 ms: a 21 ms gap is ordinary, a 110 ms gap an event of 100
    /// ms, and none at all when a 100 ms hardirq-off window covers it.
    #[test]
    fn soft_rule_at_hz_1000_p_10() {
        let r = Rules::new(10 * MS, 50 * MS, 1000);
        assert_eq!(r.soft_period_jiffies, 10);
        assert_eq!(r.soft_event_ns, 22 * MS);
        assert_eq!(r.soft_latency(21 * MS, 0), None);
        assert_eq!(r.soft_latency(110 * MS, 0), Some(100 * MS));
        // A gap fully explained by a hardirq-off window is not a softirq event.
        assert_eq!(r.soft_latency(110 * MS, 100 * MS), None);
    }

    /// Fault 2 of the original: P below two jiffies made every tick gap an event. For every
    /// allowed P and common HZ, the largest ordinary timer_list gap (one period plus a wheel
    /// granule plus a jiffy) must not be an event.
    #[test]
    fn no_false_soft_events_from_jiffies() {
        for hz in [100, 250, 300, 1000] {
            for p_ms in 1..=1000 {
                let r = Rules::new(p_ms * MS, 2 * p_ms * MS, hz);
                let worst_ordinary =
                    r.soft_period_ns + (wheel_granularity(r.soft_period_jiffies) + 1) * r.jiffy_ns;
                assert_eq!(
                    r.soft_latency(worst_ordinary, 0),
                    None,
                    "hz={hz} p={p_ms}ms"
                );
                assert!(r.soft_latency(r.soft_event_ns, 0).is_some());
            }
        }
    }

    /// The hrtimer looks into a softirq window only once it is longer than any ordinary
    /// timer_list gap, and before it becomes an event.
    #[test]
    fn window_looks_start_after_every_ordinary_gap() {
        for hz in [100, 250, 300, 1000] {
            for p_ms in 1..=100 {
                let r = Rules::new(p_ms * MS, 2 * p_ms * MS, hz);
                let worst_ordinary =
                    r.soft_period_ns + (wheel_granularity(r.soft_period_jiffies) + 1) * r.jiffy_ns;
                assert!(!r.soft_overdue(worst_ordinary), "hz={hz} p={p_ms}ms");
                assert!(r.soft_overdue(r.soft_event_ns - r.soft_period_ns + 1));
                assert!(r.soft_overdue(r.soft_event_ns));
                // Nothing is skipped that a look or a lower-bound record would need.
                for since in [
                    r.soft_event_ns - r.soft_period_ns + 1,
                    r.threshold_ns + r.period_ns,
                ] {
                    assert!(!r.soft_recent(since));
                }
                assert!(r
                    .soft_starved(worst_ordinary.min(r.threshold_ns + r.period_ns - 1), 0)
                    .is_none());
            }
        }
    }

    /// Claim: the hrtimer records softirqs as starved only once they went without running
    /// for threshold + P beyond any hardirq-off window (60 ms at P = 10, threshold 50:
    /// latency 50 ms; 160 ms with 99 ms hardirq-off: 51 ms; 104 ms with 99 ms: nothing),
    /// and never within an ordinary timer_list gap (up to 12 ms at P = 1 ms, HZ 250).
    #[test]
    fn lower_bound_needs_threshold_plus_period_of_own_starvation() {
        let r = Rules::new(10 * MS, 50 * MS, 1000);
        // bh off: the hrtimer keeps running every 10 ms, softirqs stale for 60 ms.
        assert_eq!(r.soft_starved(59 * MS, 0), None);
        assert_eq!(r.soft_starved(60 * MS, 0), Some(50 * MS));
        // hard irqs off for 99 ms: softirqs were stale only because of that, also at the
        // next hrtimer run before the timer_list had its turn.
        assert_eq!(r.soft_starved(104 * MS, 99 * MS), None);
        // ... but softirqs starved 60 ms beyond a hardirq-off window are reported.
        assert_eq!(r.soft_starved(160 * MS, 99 * MS), Some(51 * MS));
        // P = 1 ms at HZ 250: the timer_list runs every 4 ms and may come 12 ms apart (a
        // period, a wheel granule, a jiffy); a 3.5 ms wait (threshold + P = 3 ms) is an
        // ordinary gap, not a starved window (seen as an ongoing record on an idle
        // debian-7.3 while reading records).
        let r = Rules::new(MS, 2 * MS, 250);
        assert_eq!(r.soft_starved(3 * MS + MS / 2, 0), None);
        assert_eq!(r.soft_starved(12 * MS, 0), None);
        assert!(r.soft_starved(12 * MS + 1, 0).is_some());
    }

    /// Claim: `overlaps_most` holds when the other window covers at least half of ours ([0,
    /// 150) or [120, 1000) of [100, 200)), not when it covers less ([0, 149)) or only
    /// touches it ([200, 300)), and never for an empty window of ours.
    #[test]
    fn overlapping_most_of_a_window() {
        let ours = Window {
            start: 100,
            end: 200,
        };
        assert!(overlaps_most(ours, Window { start: 0, end: 150 }));
        assert!(overlaps_most(
            ours,
            Window {
                start: 120,
                end: 1000
            }
        ));
        assert!(!overlaps_most(ours, Window { start: 0, end: 149 }));
        assert!(!overlaps_most(
            ours,
            Window {
                start: 200,
                end: 300
            }
        ));
        assert!(!overlaps_most(Window::EMPTY, Window { start: 0, end: 300 }));
    }

    /// Claim: `open_as_of` lengthens an open window by the time since it was measured (60
    /// ms at 1 s is 660 ms at 1.6 s, its start unchanged), changes nothing for a clock read
    /// at or before the measurement, and saturates instead of overflowing at the clock's
    /// end.
    #[test]
    fn an_open_window_grows_with_the_time_since_it_was_measured() {
        // Measured 60 ms long at t = 1 s: 600 ms later it is 660 ms long, measured then, so
        // that its start (t - length) stays at 940 ms.
        let (len, at) = open_as_of(
            60 * NSEC_PER_MSEC,
            1_000 * NSEC_PER_MSEC,
            1_600 * NSEC_PER_MSEC,
        );
        assert_eq!((len, at), (660 * NSEC_PER_MSEC, 1_600 * NSEC_PER_MSEC));
        assert_eq!(at - len, 1_000 * NSEC_PER_MSEC - 60 * NSEC_PER_MSEC);
        // A reader whose clock read is older than the measurement changes nothing.
        assert_eq!(open_as_of(5, 100, 90), (5, 100));
        assert_eq!(open_as_of(5, 100, 100), (5, 100));
        // No overflow at the clock's end.
        assert_eq!(open_as_of(u64::MAX - 1, 1, u64::MAX).0, u64::MAX);
    }

    /// Claim: `overlap` of two half-open intervals is the length they share: 5 for [0, 10)
    /// and [5, 20), 0 for intervals that only touch, the whole inner one when one contains
    /// the other.
    #[test]
    fn overlap_of_intervals() {
        assert_eq!(overlap(0, 10, 5, 20), 5);
        assert_eq!(overlap(0, 10, 10, 20), 0);
        assert_eq!(overlap(5, 6, 0, 20), 1);
    }

    fn w(start: u64, end: u64) -> Window {
        Window { start, end }
    }

    /// Claim: `covered` gives the time of [start, end) inside either of two windows, the
    /// union counted once: disjoint windows add up, overlapping or equal ones count once,
    /// parts outside [start, end) are clipped, and empty or torn (end < start) windows add
    /// nothing.
    #[test]
    fn covered_counts_the_union_once() {
        // Disjoint windows add up; only the part inside [start, end) counts.
        assert_eq!(covered_all(0, 100, [w(10, 20), w(50, 70)]), 30);
        assert_eq!(covered_all(15, 60, [w(10, 20), w(50, 70)]), 15);
        // Overlapping windows count their union.
        assert_eq!(covered_all(0, 100, [w(10, 40), w(30, 60)]), 50);
        assert_eq!(covered_all(0, 100, [w(10, 60), w(20, 30)]), 50);
        assert_eq!(covered_all(0, 100, [w(10, 40), w(10, 40)]), 30);
        // Empty windows (before the first event, or torn into end < start) add nothing.
        assert_eq!(covered_all(0, 100, [Window::EMPTY, Window::EMPTY]), 0);
        assert_eq!(covered_all(0, 100, [w(40, 30), w(10, 20)]), 10);
        assert_eq!(covered_all(5, 100, [Window::EMPTY, w(0, 10)]), 5);
    }

    /// Claim: the late window of an hrtimer gap runs from the missed expiry (previous run +
    /// P) to the run that ended the gap, so its length is the hard event's latency (97 ms
    /// for a 107 ms gap), and an ordinary gap's late window is empty.
    #[test]
    fn late_window_starts_at_the_missed_expiry() {
        let r = Rules::new(10 * MS, 50 * MS, 1000);
        // Previous run at 1000 ms, next at 1107 ms: latency 97 ms, from 1010 ms on.
        let lw = r.late_window(1000 * MS, 1107 * MS);
        assert_eq!(lw, w(1010 * MS, 1107 * MS));
        assert_eq!(r.hard_latency(107 * MS), Some(lw.end - lw.start));
        // An ordinary gap has an empty late window.
        assert_eq!(r.late_window(1000 * MS, 1005 * MS).overlap(0, u64::MAX), 0);
    }

    /// The periods (ms) and tick rates the tick's rules are tested at: P from a tick to 20
    /// ticks, HZ 100 to 1000.
    const RIDE_CASES: [(u64, u64); 6] = [
        (1, 1000),
        (10, 1000),
        (10, 250),
        (4, 250),
        (5, 250),
        (20, 100),
    ];

    /// Claim: where P is at least a tick, a running tick takes every sample: for each tick
    /// phase, the first tick at which a sample is due comes before the hrtimer's backstop,
    /// and the gap it ends is ordinary (no ride makes an event); the backstop's own gap is
    /// ordinary too. Below a tick (P = 1 ms at HZ 250) the tick takes none.
    #[test]
    fn rides_take_every_sample_before_the_backstop() {
        for (p_ms, hz) in RIDE_CASES {
            let r = Rules::new(p_ms * MS, 50 * MS, hz);
            assert!(r.rides_tick());
            let tick = r.jiffy_ns;
            for phase in (0..tick).step_by((tick / 7) as usize) {
                let last = 1000 * MS + phase;
                let backstop = r.ride_backstop(last);
                // The ticks after the sample at `last`, on the grid of whole ticks.
                let first = (last / tick + 1) * tick;
                let due = (0..)
                    .map(|k| first + k * tick)
                    .find(|&t| r.ride_due(last, t))
                    .unwrap_or(u64::MAX);
                assert!(due < backstop, "P {p_ms} ms HZ {hz} phase {phase}");
                assert!(r.hard_ordinary(due - last), "P {p_ms} ms HZ {hz}");
                assert!(r.hard_ordinary(backstop - last), "P {p_ms} ms HZ {hz}");
                // Not due before half a tick short of a period.
                assert!(due + tick / 2 >= last + r.period_ns);
            }
        }
        let below = Rules::new(MS, 50 * MS, 250);
        assert!(!below.rides_tick());
        assert!(!below.ride_due(0, 10 * MS));
        assert_eq!(below.ride_gate_jiffies(), None);
    }

    /// Claim: the jiffies gate in front of the tick's look never keeps a due tick from
    /// looking: with the jiffies count read at the sample and at each later tick either
    /// current or a tick behind (the tick that advances it may not have run yet), the
    /// first tick at which a sample is due always finds the gate open; and at most three
    /// ticks before it look (P = 10 ms at HZ 1000: 4 of 10 ticks at most, not every one).
    #[test]
    fn ride_gate_opens_by_the_due_tick() {
        for (p_ms, hz) in RIDE_CASES {
            let r = Rules::new(p_ms * MS, 50 * MS, hz);
            let gate = r.ride_gate_jiffies().unwrap_or(u64::MAX);
            let tick = r.jiffy_ns;
            for phase in (0..tick).step_by((tick / 5) as usize) {
                let last = 1000 * MS + phase;
                // The sample ran in the tick of jiffy j (on the grid, at or before `last`).
                let j = last / tick;
                let due_k = (1..)
                    .find(|&k| r.ride_due(last, (j + k) * tick))
                    .unwrap_or(0);
                for read_at_sample in [j, j - 1] {
                    let from = read_at_sample + gate;
                    for read_at_due in [j + due_k, j + due_k - 1] {
                        assert!(read_at_due >= from, "P {p_ms} ms HZ {hz} phase {phase}");
                    }
                    // Ticks before the due one that find it open (read a tick ahead at worst).
                    let early = (1..due_k).filter(|&k| j + k >= from).count();
                    assert!(early <= 3, "P {p_ms} ms HZ {hz}: {early} early looks");
                }
            }
        }
    }

    /// Claim: at P = 10 ms a 15 ms hrtimer gap is ordinary, asleep or not; a 107 ms gap is
    /// an event of 97 ms unless sleep is proven, then it is idle-late.
    #[test]
    fn hard_verdicts() {
        let r = Rules::new(10 * MS, 50 * MS, 1000);
        assert_eq!(r.hard_verdict(15 * MS, false), Verdict::Ordinary);
        assert_eq!(r.hard_verdict(15 * MS, true), Verdict::Ordinary);
        assert_eq!(r.hard_verdict(107 * MS, false), Verdict::Event(97 * MS));
        assert_eq!(r.hard_verdict(107 * MS, true), Verdict::IdleLate);
    }

    /// On PREEMPT_RT (and with threadirqs) the timer_list runs in ktimers/N, never in the
    /// idle task: a late wake-up from idle is told by the hrtimer's idle window instead.
    ///
    /// Model: the timer_list last ran at `s0`, is due at `ds` (its period, plus up to the
    /// wheel's postponement). The CPU idles; the hrtimer runs on time every P, last at `r`
    /// before the CPU stops at `x` (a deep C-state, a vCPU not run) until `w`, which is
    /// at or after `ds`. At `w` the hrtimer runs first (hard interrupt, in the idle task)
    /// if it is due by then (`r + P <= w`), and records its late part; ktimers/N runs the
    /// timer_list `after` later (less than a period: other threads first, or the vCPU
    /// stalled again). The softirq side must never count an event.
    #[test]
    fn late_wake_up_from_idle_is_never_a_soft_event() {
        for hz in [100, 250, 300, 1000] {
            for p_ms in [1, 4, 10, 100] {
                let r = Rules::new(p_ms * MS, 50 * MS.max(2 * p_ms * MS), hz);
                let (p, ps, j) = (r.period_ns, r.soft_period_ns, r.jiffy_ns);
                let postponed = wheel_granularity(r.soft_period_jiffies) * j;
                let s0 = 1_000 * MS;
                let mut idle_late_seen = 0;
                for x in [s0, s0 + ps / 2, s0 + ps, s0 + ps + postponed] {
                    for r_back in [0, p / 3, p - 1] {
                        let last_hard = x - r_back;
                        for ds in [(s0 + ps).max(x), s0 + ps + postponed] {
                            if ds < x {
                                continue;
                            }
                            for stall in
                                [0, p / 2, p, p + p / 2, 2 * p - 1, 2 * p, 3 * p, 1000 * MS]
                            {
                                let w = ds + stall;
                                let idle = if last_hard + p <= w {
                                    if r.hard_verdict(w - last_hard, true) == Verdict::IdleLate {
                                        idle_late_seen += 1;
                                    }
                                    r.late_window(last_hard, w)
                                } else {
                                    // Its on-time run in idle before the stall: late by 0.
                                    Window {
                                        start: last_hard,
                                        end: last_hard,
                                    }
                                };
                                // The last hrtimer run: at the wake-up if it was due, else
                                // its on-time run before the stall.
                                let hard_last = if last_hard + p <= w { w } else { last_hard };
                                for after in [0, j / 2, j, p - 1] {
                                    let now = w + after;
                                    let gap = now - s0;
                                    let idle = idle_until(idle, hard_last, now);
                                    let both = covered_all(s0, now, [Window::EMPTY, idle]);
                                    let v = r.soft_verdict(gap, 0, both);
                                    assert!(
                                        !matches!(v, Verdict::Event(_)),
                                        "hz={hz} p={p_ms}ms x={x} r={last_hard} ds={ds} w={w} after={after}: {v:?}"
                                    );
                                    // Idle-late whenever the gap alone would be an event.
                                    if r.soft_latency(gap, 0).is_some() {
                                        assert_eq!(v, Verdict::IdleLate);
                                    }
                                }
                            }
                        }
                    }
                }
                assert!(idle_late_seen > 0);
            }
        }
    }

    /// Claim: `idle_until` extends the idle window to now only when the hrtimer's last run
    /// was the one that ended it; after a later run elsewhere, with no idle window yet, or
    /// with now at its end, the window is returned unchanged.
    #[test]
    fn idle_window_extends_to_now_only_after_the_last_hrtimer_run() {
        let idle = w(10, 20);
        assert_eq!(idle_until(idle, 20, 25), w(10, 25));
        // The hrtimer ran since (not in idle): the CPU has been busy, nothing is added.
        assert_eq!(idle_until(idle, 30, 35), idle);
        // No idle run yet.
        assert_eq!(idle_until(Window::EMPTY, 0, 35), Window::EMPTY);
        assert_eq!(idle_until(idle, 20, 20), idle);
    }

    /// Idle windows only excuse lateness: a long softirq-off section is still an event.
    #[test]
    fn sections_after_idle_are_still_events() {
        let r = Rules::new(10 * MS, 50 * MS, 1000);
        // Timer_list at 0; the hrtimer ran in idle at 5 ms (on time); bh off from 6 to
        // 106 ms, the hrtimer running every 10 ms meanwhile, not in idle.
        let idle = w(5 * MS, 5 * MS);
        let now = 106 * MS;
        let idle = idle_until(idle, 105 * MS, now);
        let v = r.soft_verdict(now, 0, covered_all(0, now, [Window::EMPTY, idle]));
        assert_eq!(v, Verdict::Event(96 * MS));
        // PREEMPT_RT: the bh-off task slept (on a lock) and the CPU idled meanwhile; the
        // hrtimer ran in idle up to 105 ms. Only the last, unfinished period is excused.
        let idle = idle_until(w(105 * MS, 105 * MS), 105 * MS, now);
        let v = r.soft_verdict(now, 0, covered_all(0, now, [Window::EMPTY, idle]));
        assert_eq!(v, Verdict::Event(95 * MS));
    }

    /// The hrtimer may be late by less than a period at the wake-up (no idle gap of its
    /// own) while the timer_list, due earlier, is late by more: its window still counts.
    #[test]
    fn short_idle_window_still_explains_the_soft_gap() {
        let r = Rules::new(10 * MS, 50 * MS, 1000);
        // Timer_list ran at 0, due at 10 ms; hrtimer last ran at 9 ms (due at 19 ms); the
        // CPU slept through both and woke at 27 ms: the hrtimer is 8 ms late (ordinary),
        // the timer_list 17 ms (its gap of 27 ms alone would be an event).
        assert_eq!(r.hard_verdict(18 * MS, true), Verdict::Ordinary);
        let idle = r.late_window(9 * MS, 27 * MS);
        assert_eq!(r.soft_latency(27 * MS, 0), Some(17 * MS));
        let v = r.soft_verdict(27 * MS, 0, covered_all(0, 27 * MS, [Window::EMPTY, idle]));
        assert_eq!(v, Verdict::IdleLate);
    }

    /// Claim: at P = 10 ms a 12 ms timer_list gap is ordinary; a 110 ms gap is an event of
    /// 100 ms when nothing explains it, ordinary when a hardirq-off window covers it,
    /// idle-late when an idle-late window covers it; a 160 ms gap with a 50 ms idle window
    /// is still an event of 100 ms.
    #[test]
    fn soft_verdicts() {
        let r = Rules::new(10 * MS, 50 * MS, 1000);
        // Ordinary.
        assert_eq!(r.soft_verdict(12 * MS, 0, 0), Verdict::Ordinary);
        // Softirqs off 100 ms, no window explains it: an event, wherever the timer_list
        // ran (also in the idle task, after a long softirq handler on an idle CPU).
        assert_eq!(r.soft_verdict(110 * MS, 0, 0), Verdict::Event(100 * MS));
        // Fully explained by a hardirq-off window: ordinary (the hard event counts it).
        assert_eq!(
            r.soft_verdict(110 * MS, 100 * MS, 100 * MS),
            Verdict::Ordinary
        );
        // Explained by a proven idle-late window: idle-late, not an event.
        assert_eq!(r.soft_verdict(110 * MS, 0, 100 * MS), Verdict::IdleLate);
        // Softirqs off 100 ms beyond a 50 ms idle window: still an event, of the rest.
        assert_eq!(
            r.soft_verdict(160 * MS, 0, 50 * MS),
            Verdict::Event(100 * MS)
        );
    }

    /// Claim: `covered_all` gives the time of [start, end) inside the union of any number
    /// of windows (each part counted once, clipped to [start, end), empty and torn windows
    /// adding nothing), and for two windows agrees with `covered`.
    #[test]
    fn covered_all_counts_the_union() {
        assert_eq!(covered_all(0, 100, [w(10, 20), w(50, 70), w(15, 60)]), 60);
        assert_eq!(covered_all(0, 100, [w(10, 20), w(30, 40), w(50, 60)]), 30);
        assert_eq!(covered_all(15, 55, [w(10, 20), w(30, 40), w(50, 60)]), 20);
        assert_eq!(
            covered_all(0, 100, [Window::EMPTY, w(40, 30), w(0, 200)]),
            100
        );
    }

    /// The probe detects every softirq-off window of two periods or more, wherever it
    /// falls between the looks, within half a period (the probe's start-up aside), and
    /// never a hold shorter than a period after the look that queued it.
    #[test]
    fn probe_detects_from_two_periods_within_half_a_period() {
        for p_ms in [1, 4, 10] {
            let r = Rules::new(p_ms * MS, 50 * MS, 250);
            let p = r.period_ns;
            for d in [2 * p, 2 * p + p / 3, 5 * p, 100 * MS] {
                for phase in 0..10 {
                    // Looks at k * p; the window starts at `s`, after the look at 0.
                    let s = 1 + phase * (p - 1) / 10;
                    let (prev, first) = (0, p);
                    let end = s + d;
                    let start = r.probe_start(prev, first, false);
                    let Some(lat) = r.probe_latency(start, first, end) else {
                        panic!("p={p_ms}ms d={d} s={s}: not detected");
                    };
                    let err = lat.abs_diff(d);
                    assert!(
                        err <= p / 2,
                        "p={p_ms}ms d={d} s={s}: latency {lat}, err {err}"
                    );
                }
            }
            // Held for less than a period after the look: no window.
            assert_eq!(r.probe_latency(0, p, 2 * p - 1), None);
            // Right after a hardirq-off gap: the window is counted from that run only.
            assert_eq!(r.probe_start(0, 5 * p, true), 5 * p);
        }
    }

    /// The watcher looks every period, but at most every eighth of the threshold.
    #[test]
    fn watch_interval_is_a_period_or_an_eighth_of_the_threshold() {
        assert_eq!(Rules::new(10 * MS, 50 * MS, 1000).watch_interval(), 10 * MS);
        assert_eq!(Rules::new(MS, 25 * MS, 1000).watch_interval(), 25 * MS / 8);
        assert_eq!(Rules::new(MS, 2 * MS, 1000).watch_interval(), MS);
    }

    fn evidence(idle_loop: bool, interrupts: u64, retries: u32) -> SleepEvidence {
        SleepEvidence {
            idle_loop,
            interrupts,
            retries,
            awake_seen: false,
            per_wake: 0,
        }
    }

    /// Replays a CPU's runs through [`per_wake`] and [`SleepEvidence::proves_sleep`]: each
    /// run is (interrupts counted since the previous run, retries, gap in periods). Returns
    /// the verdict of the last run.
    fn replay_sleep(runs: &[(u64, u32, u64)]) -> (u64, bool) {
        let mut learnt = 0;
        let mut asleep = false;
        for &(interrupts, retries, periods) in runs {
            let e = SleepEvidence {
                idle_loop: true,
                interrupts,
                retries,
                awake_seen: false,
                per_wake: learnt,
            };
            asleep = e.proves_sleep();
            learnt = per_wake(learnt, interrupts, retries, periods < 2);
        }
        (learnt, asleep)
    }

    /// Xen HVM counts two interrupts for each wake-up by our hrtimer (its timer event and
    /// the upcall vector): learnt from the on-time runs, a late wake-up that counted two
    /// proves sleep there, and one with an IPI function in it (three) still does not. On a
    /// machine that counts one, two is no sleep. Before anything is learnt, one is taken.
    #[test]
    fn xen_counts_two_interrupts_per_wake() {
        let on_time = [(2, 0, 1); 20];
        let mut runs = on_time.to_vec();
        runs.push((2, 0, 30));
        assert_eq!(replay_sleep(&runs), (2, true));
        runs.push((3, 0, 30));
        assert_eq!(replay_sleep(&runs), (2, false));
        // A retry (another hrtimer's callback ran past our expiry) is never sleep.
        runs.push((2, 1, 30));
        assert_eq!(replay_sleep(&runs), (2, false));
        // Native: one per wake; an IPI function's window (two) is not sleep.
        let mut native = [(1, 0, 1); 20].to_vec();
        native.push((2, 0, 30));
        assert_eq!(replay_sleep(&native), (1, false));
        native.push((1, 0, 30));
        assert_eq!(replay_sleep(&native), (1, true));
        // Nothing learnt yet: one.
        assert_eq!(replay_sleep(&[(2, 0, 30)]), (0, false));
        assert_eq!(replay_sleep(&[(1, 0, 30)]), (0, true));
        // Late runs, runs with retries or unknown counts teach nothing; an on-time run that
        // took a second interrupt does not raise what was learnt.
        assert_eq!(per_wake(1, 5, 0, false), 1);
        assert_eq!(per_wake(1, 5, 1, true), 1);
        assert_eq!(per_wake(0, u64::MAX, 0, true), 0);
        assert_eq!(per_wake(1, 3, 0, true), 1);
    }

    /// Only a run that came into the idle loop, as the only interrupt since the previous
    /// run, with no hrtimer callback overrunning before it, proves that the CPU slept.
    #[test]
    fn sleep_takes_all_three_proofs() {
        // A late wake-up: the hrtimer's own interrupt woke the idle loop.
        assert!(evidence(true, 1, 0).proves_sleep());
        // Where the timer interrupt is not counted at all.
        assert!(evidence(true, 0, 0).proves_sleep());
        // An IPI function (or a device interrupt handler) spun, then returned to the idle
        // loop, and the hrtimer's interrupt came in right after it: two interrupts.
        assert!(!evidence(true, 2, 0).proves_sleep());
        // Another hrtimer's callback spun in the same hrtimer interrupt: a retry.
        assert!(!evidence(true, 1, 1).proves_sleep());
        // A softirq handler (a timer_list or tasklet callback) on irq exit from idle: the
        // idle task is current, but the hrtimer interrupted the softirq.
        assert!(!evidence(false, 1, 0).proves_sleep());
    }

    /// A hard hrtimer callback that spun in the same pass of the hrtimer queues as ours,
    /// on an idle CPU: one interrupt, into the idle loop, and no retry (ours ran after it
    /// in that pass, or before it with the tick driving the hrtimers in low-resolution
    /// mode). Only the watcher's NMI, which found the CPU inside that handler, tells it
    /// from a late wake-up: with it the gap is an event of the window's length; without
    /// it (no NMI could be sent), an idle gap, the documented miss. An IPI function that a
    /// polling idle loop ran itself (no IPI sent, none counted) shows the same evidence,
    /// the NMI having found the idle loop outside its wait.
    #[test]
    fn a_callback_in_the_same_pass_is_seen_only_by_the_nmi() {
        let r = Rules::new(10 * MS, 50 * MS, 1000);
        let gap = 130 * MS;
        let mut e = evidence(true, 1, 0);
        assert_eq!(r.hard_verdict(gap, e.proves_sleep()), Verdict::IdleLate);
        e.awake_seen = true;
        assert!(!e.proves_sleep());
        assert_eq!(
            r.hard_verdict(gap, e.proves_sleep()),
            Verdict::Event(120 * MS)
        );
        // On Xen HVM, where a wake-up counts two interrupts, likewise.
        e.per_wake = 2;
        e.interrupts = 2;
        assert!(!e.proves_sleep());
        e.awake_seen = false;
        assert!(e.proves_sleep());
    }

    /// The three hardirq-off windows in interrupt context on an idle CPU (an IPI function,
    /// a hard hrtimer callback, a timer_list callback with interrupts off), as the hrtimer
    /// sees them when it finally runs 120 ms late: each is an event of the window's length;
    /// only a real sleep is an idle gap. (A timer_list callback with interrupts on does not
    /// delay the hrtimer: it runs inside it, on time, and sees a softirq handler.)
    #[test]
    fn interrupt_context_windows_on_an_idle_cpu_are_events() {
        let r = Rules::new(10 * MS, 50 * MS, 250);
        let gap = 130 * MS;
        let cases = [
            ("ipi", evidence(true, 2, 0)),
            ("hrtimer", evidence(true, 1, 1)),
            ("timer_list, interrupts off", evidence(false, 1, 0)),
        ];
        for (what, e) in cases {
            assert_eq!(
                r.hard_verdict(gap, e.proves_sleep()),
                Verdict::Event(120 * MS),
                "{what}"
            );
        }
        assert_eq!(
            r.hard_verdict(gap, evidence(true, 1, 0).proves_sleep()),
            Verdict::IdleLate
        );
    }

    fn steal(before: u64, now: u64) -> Steal {
        Steal { before, now }
    }

    /// Without steal accounting (bare metal, QEMU TCG: the count stays 0) every decision is
    /// the plain verdict, at once: no waiting, whatever the gap.
    #[test]
    fn no_steal_accounting_decides_as_before() {
        let r = Rules::new(10 * MS, 50 * MS, 250);
        for gap in [0, 15 * MS, 20 * MS, 107 * MS, 10_000 * MS] {
            for asleep in [false, true] {
                for settled in [false, true] {
                    assert_eq!(
                        r.hard_decision(gap, asleep, steal(0, 0), settled),
                        Decision::Now(r.hard_verdict(gap, asleep))
                    );
                }
            }
        }
        assert!(!steal(0, 0).accounted());
    }

    /// A vCPU not run for 100 ms, the steal accounted by the time the hrtimer runs (the
    /// tick ran first in the same interrupt): a steal gap at once, never an event.
    #[test]
    fn gap_fully_covered_by_steal() {
        let r = Rules::new(10 * MS, 50 * MS, 250);
        let s = steal(5 * MS, 5 * MS + 100 * MS);
        assert_eq!(
            r.hard_decision(110 * MS, false, s, false),
            Decision::Now(Verdict::Steal)
        );
        assert_eq!(
            r.hard_decision(110 * MS, false, s, true),
            Decision::Now(Verdict::Steal)
        );
        // More steal than the latency (steal of the periods around the gap): still one
        // steal gap.
        assert_eq!(
            r.hard_decision(110 * MS, false, steal(0, 500 * MS), true),
            Decision::Now(Verdict::Steal)
        );
        // Steal leaving less than a period of the latency: the rest is an ordinary gap.
        assert_eq!(
            r.hard_decision(110 * MS, false, steal(1, 1 + 91 * MS), false),
            Decision::Now(Verdict::Steal)
        );
        // An ordinary gap stays ordinary, with or without steal.
        assert_eq!(
            r.hard_decision(15 * MS, false, s, false),
            Decision::Now(Verdict::Ordinary)
        );
    }

    /// The remainder rule: steal covering only part of the gap is taken out of its latency;
    /// an event of the rest if the rest is still an event (two periods of gap or more).
    #[test]
    fn gap_partly_covered_by_steal() {
        let r = Rules::new(10 * MS, 50 * MS, 250);
        // 100 ms late, of which 30 ms stolen: an event of 70 ms, recorded (>= 50 ms).
        let s = steal(7, 7 + 30 * MS);
        assert_eq!(
            r.hard_decision(110 * MS, false, s, true),
            Decision::Now(Verdict::Event(70 * MS))
        );
        assert!(r.is_recorded(70 * MS));
        // 100 ms late, 60 ms stolen: an event of 40 ms, counted but below the threshold.
        assert_eq!(
            r.hard_decision(110 * MS, false, steal(7, 7 + 60 * MS), true),
            Decision::Now(Verdict::Event(40 * MS))
        );
        assert!(!r.is_recorded(40 * MS));
        // 100 ms late, 90 ms stolen: exactly one period remains, still an event (gap 2P).
        assert_eq!(
            r.hard_decision(110 * MS, false, steal(7, 7 + 90 * MS), true),
            Decision::Now(Verdict::Event(10 * MS))
        );
        // ... one ns more and the rest is ordinary: a steal gap.
        assert_eq!(
            r.hard_decision(110 * MS, false, steal(7, 7 + 90 * MS + 1), true),
            Decision::Now(Verdict::Steal)
        );
        // Before it is settled, a partial steal may still grow: wait.
        assert_eq!(r.hard_decision(110 * MS, false, s, false), Decision::Wait);
    }

    /// A gap with no steal on a CPU where the kernel accounts steal: an irq-off section
    /// (or a vCPU whose steal the tick has not yet accounted). It waits for the tick,
    /// then it is the full event.
    #[test]
    fn gap_with_no_steal_waits_for_the_tick() {
        let r = Rules::new(10 * MS, 50 * MS, 250);
        let s = steal(3 * MS, 3 * MS);
        assert_eq!(r.hard_decision(110 * MS, false, s, false), Decision::Wait);
        assert_eq!(
            r.hard_decision(110 * MS, false, s, true),
            Decision::Now(Verdict::Event(100 * MS))
        );
        // Proven asleep: an idle gap at once, steal or not.
        assert_eq!(
            r.hard_decision(110 * MS, true, s, false),
            Decision::Now(Verdict::IdleLate)
        );
        assert_eq!(
            r.hard_decision(110 * MS, true, steal(3, 3 + 100 * MS), false),
            Decision::Now(Verdict::IdleLate)
        );
    }

    /// The hrtimer ran before the tick that accounts the gap's steal: it waits; at its next
    /// run the tick has accounted it, and the gap is a steal gap, not an event. Modelled
    /// at every HZ and period, with the decision taken at each later run.
    #[test]
    fn steal_accounted_late() {
        for hz in [100, 250, 300, 1000] {
            for p_ms in [1, 4, 10, 100] {
                let r = Rules::new(p_ms * MS, 50 * MS.max(2 * p_ms * MS), hz);
                let (p, j) = (r.period_ns, r.jiffy_ns);
                let (prev, freeze) = (1_000 * MS, 200 * MS);
                let end = prev + p + freeze;
                let gap = end - prev;
                let before = 42 * MS;
                // At the end: not yet accounted.
                assert_eq!(
                    r.hard_decision(gap, false, steal(before, before), false),
                    Decision::Wait,
                    "hz={hz} p={p_ms}"
                );
                // The runs after it, on time: the tick, right after the hrtimer in the same
                // interrupt, has accounted the freeze.
                let mut decided = None;
                for k in 1..=(j / p + 2) {
                    let now = end + k * p;
                    let d = r.hard_decision(
                        gap,
                        false,
                        steal(before, before + freeze),
                        r.steal_settled(end, now),
                    );
                    if let Decision::Now(v) = d {
                        decided = Some(v);
                        break;
                    }
                }
                assert_eq!(decided, Some(Verdict::Steal), "hz={hz} p={p_ms}");
                // A real irq-off section (no steal) is decided as an event once a jiffy has
                // passed: at most a jiffy and a period after it ended.
                let mut at = None;
                for k in 1..=(j / p + 2) {
                    let now = end + k * p;
                    if let Decision::Now(v) = r.hard_decision(
                        gap,
                        false,
                        steal(before, before),
                        r.steal_settled(end, now),
                    ) {
                        at = Some((now - end, v));
                        break;
                    }
                }
                let Some((after, v)) = at else {
                    panic!("hz={hz} p={p_ms}: never decided")
                };
                assert_eq!(v, Verdict::Event(gap - p));
                assert!(
                    after > j && after <= j + p,
                    "hz={hz} p={p_ms}: decided {after} ns after"
                );
            }
        }
    }

    /// Claim: at HZ 100 a gap's steal count is settled only more than a jiffy (10 ms) after
    /// the gap ended: not at its end, not at exactly a jiffy, and never for a clock read
    /// before the end.
    #[test]
    fn steal_is_settled_after_a_jiffy() {
        let r = Rules::new(MS, 50 * MS, 100);
        assert!(!r.steal_settled(100 * MS, 100 * MS));
        assert!(!r.steal_settled(100 * MS, 110 * MS));
        assert!(r.steal_settled(100 * MS, 110 * MS + 1));
        // A clock read before the end (another CPU's time) is never settled.
        assert!(!r.steal_settled(100 * MS, 90 * MS));
    }

    /// The steal count wraps: the difference of two reads is still the steal between them.
    #[test]
    fn steal_count_wraps() {
        let r = Rules::new(10 * MS, 50 * MS, 250);
        let s = steal(u64::MAX - 40 * MS + 1, 60 * MS);
        assert!(s.accounted());
        assert_eq!(s.delta(), 100 * MS);
        assert_eq!(
            r.hard_decision(110 * MS, false, s, false),
            Decision::Now(Verdict::Steal)
        );
        let s = steal(u64::MAX - 10 * MS + 1, 20 * MS);
        assert_eq!(
            r.hard_decision(110 * MS, false, s, true),
            Decision::Now(Verdict::Event(70 * MS))
        );
        // Through 0 exactly: accounted, and the whole difference.
        let s = steal(u64::MAX - 100 * MS + 1, 0);
        assert!(s.accounted());
        assert_eq!(
            r.hard_decision(110 * MS, false, s, false),
            Decision::Now(Verdict::Steal)
        );
    }

    /// The timer_list: no steal gives the verdicts of a gap without steal; steal explains
    /// a gap like an idle window, counted once with it; a section beyond the steal is
    /// still an event of the rest.
    #[test]
    fn soft_verdicts_with_steal() {
        let r = Rules::new(10 * MS, 50 * MS, 1000);
        for gap in [12 * MS, 22 * MS, 110 * MS, 160 * MS] {
            for (hard, hoi) in [
                (0, 0),
                (0, 50 * MS),
                (100 * MS, 100 * MS),
                (20 * MS, 60 * MS),
            ] {
                assert_eq!(
                    r.soft_verdict_steal(gap, hard, hoi, 0),
                    r.soft_verdict(gap, hard, hoi),
                    "gap={gap} hard={hard} hoi={hoi}"
                );
            }
        }
        // The vCPU not run for 100 ms: a steal gap, not an event.
        assert_eq!(
            r.soft_verdict_steal(110 * MS, 0, 0, 100 * MS),
            Verdict::Steal
        );
        // Partly: 100 ms of gap beyond 10 ms of steal: an event of the rest (90 ms).
        assert_eq!(
            r.soft_verdict_steal(110 * MS, 0, 0, 10 * MS),
            Verdict::Event(90 * MS)
        );
        // An idle vCPU not run: the idle window and the steal are the same 100 ms, counted
        // once; a 60 ms bh-off section after it is still an event.
        assert_eq!(
            r.soft_verdict_steal(170 * MS, 0, 100 * MS, 100 * MS),
            Verdict::Event(60 * MS)
        );
        // ... and without it, the idle window explains it first: an idle gap.
        assert_eq!(
            r.soft_verdict_steal(110 * MS, 0, 100 * MS, 100 * MS),
            Verdict::IdleLate
        );
        // Covered by a reported hardirq-off window: ordinary, steal or not.
        assert_eq!(
            r.soft_verdict_steal(110 * MS, 100 * MS, 100 * MS, 100 * MS),
            Verdict::Ordinary
        );
        // A hardirq-off event of 50 ms (its steal taken out) and 50 ms of steal: explained.
        assert_eq!(
            r.soft_verdict_steal(110 * MS, 50 * MS, 50 * MS, 50 * MS),
            Verdict::Steal
        );
    }

    /// The run: idle CPUs, the VM stopped for 300 ms, nothing in the guest turned
    /// interrupts off. Each CPU's gap (its last run before the stop to its first after)
    /// lies in the silence but for its first period and a half: a stall, never an event,
    /// whatever the sleep evidence or the steal (TCG accounts none).
    #[test]
    fn stopped_vm_is_a_stall() {
        let r = Rules::new(10 * MS, 50 * MS, 250);
        for asleep in [false, true] {
            for settled in [false, true] {
                assert_eq!(
                    r.hard_decision_in(
                        310 * MS,
                        asleep,
                        steal(0, 0),
                        settled,
                        Silent::known(295 * MS)
                    ),
                    Decision::Now(Verdict::Stall)
                );
            }
        }
        // The timer_list's gap over the same stop: a stall too.
        let soft = 300 * MS + 2 * r.soft_period_ns;
        assert_eq!(r.soft_verdict_in(soft, 0, 0, 0, 295 * MS), Verdict::Stall);
    }

    /// A real 100 ms window with the other CPU running on time leaves no silence: decided
    /// as a gap without silence is, an event of its whole length.
    #[test]
    fn window_without_silence_is_unchanged() {
        let r = Rules::new(10 * MS, 50 * MS, 250);
        assert_eq!(
            r.hard_decision_in(110 * MS, false, steal(0, 0), false, Silent::known(0)),
            Decision::Now(Verdict::Event(100 * MS))
        );
        assert_eq!(
            r.hard_decision_in(110 * MS, true, steal(0, 0), false, Silent::known(0)),
            Decision::Now(Verdict::IdleLate)
        );
        let soft = 100 * MS + 2 * r.soft_period_ns;
        assert_eq!(
            r.soft_verdict_in(soft, 0, 0, 0, 0),
            r.soft_verdict_steal(soft, 0, 0, 0)
        );
    }

    /// A 100 ms window that a 300 ms stop of the VM overlaps: what lies outside the
    /// silence is still an event, of that length (the stop's part cannot be told: the
    /// VM did not run, with or without interrupts); inside a stall it is not.
    #[test]
    fn window_around_a_stall_keeps_its_outside() {
        let r = Rules::new(10 * MS, 50 * MS, 250);
        assert_eq!(
            r.hard_decision_in(410 * MS, false, steal(0, 0), false, Silent::known(300 * MS)),
            Decision::Now(Verdict::Event(100 * MS))
        );
        // With steal accounted too, the rest waits for the tick, as any gap with steal does.
        assert_eq!(
            r.hard_decision_in(
                410 * MS,
                false,
                steal(1, 1 + 5 * MS),
                false,
                Silent::known(300 * MS)
            ),
            Decision::Wait
        );
        assert_eq!(
            r.hard_decision_in(
                410 * MS,
                false,
                steal(1, 1 + 5 * MS),
                true,
                Silent::known(300 * MS)
            ),
            Decision::Now(Verdict::Event(95 * MS))
        );
        // An ordinary gap stays ordinary, silence or not.
        assert_eq!(
            r.hard_decision_in(15 * MS, false, steal(0, 0), false, Silent::known(15 * MS)),
            Decision::Now(Verdict::Ordinary)
        );
        // A softirq-off window beyond the stall: an event of the rest.
        let soft = 400 * MS + 2 * r.soft_period_ns;
        assert_eq!(
            r.soft_verdict_in(soft, 0, 0, 0, 300 * MS),
            Verdict::Event(soft - 300 * MS - r.soft_period_ns)
        );
    }

    /// The CI failure of `vm-stall` (busy CPUs, a loaded host): after a 300 ms stop, the
    /// other vCPU's beat had moved the machine's last beat but not yet posted the silence
    /// when this CPU judged its 310 ms gap, and found none of it silent. A gap judged so
    /// waits instead of being an event, and the later read, with the silence posted, finds
    /// a stall. Without a post in flight nothing changes; a gap that is no event never
    /// waits for one.
    #[test]
    fn silence_being_posted_is_waited_for() {
        let r = Rules::new(10 * MS, 50 * MS, 250);
        let posting = |ns| Silent {
            ns,
            complete: false,
            lone: false,
        };
        for asleep in [false, true] {
            let now = r.hard_decision_in(310 * MS, asleep, steal(0, 0), false, posting(0));
            let later =
                r.hard_decision_in(310 * MS, asleep, steal(0, 0), true, Silent::known(295 * MS));
            if asleep {
                assert_eq!(now, Decision::Now(Verdict::IdleLate));
            } else {
                assert_eq!(now, Decision::Wait);
            }
            assert_eq!(later, Decision::Now(Verdict::Stall));
        }
        assert_eq!(
            r.hard_decision_in(310 * MS, false, steal(0, 0), false, Silent::known(0)),
            Decision::Now(Verdict::Event(300 * MS))
        );
        assert_eq!(
            r.hard_decision_in(15 * MS, false, steal(0, 0), false, posting(0)),
            Decision::Now(Verdict::Ordinary)
        );
        // A silence already seen is still taken out while another is being posted.
        assert_eq!(
            r.hard_decision_in(310 * MS, false, steal(0, 0), false, posting(295 * MS)),
            Decision::Now(Verdict::Stall)
        );
    }

    /// KVM steal on a NOHZ-idle CPU: the host ran the idle vCPU 100 ms late, and the
    /// guest accounts that steal only when the CPU leaves dyntick idle. The runs after
    /// the gap, still idle, see no steal and wait (a jiffy is not enough there); the first
    /// run out of the idle loop sees the steal accounted: a steal gap, never an event. A
    /// CPU that stays idle is decided at most a second late, as an event of what is known.
    #[test]
    fn kvm_steal_on_a_nohz_idle_cpu() {
        let r = Rules::new(10 * MS, 50 * MS, 250);
        let (prev, end) = (1_000 * MS, 1_110 * MS);
        let gap = end - prev;
        let before = 7 * MS;
        // At the end: no steal yet; then idle runs every period for half a second.
        assert_eq!(
            r.hard_decision(gap, false, steal(before, before), false),
            Decision::Wait
        );
        for k in 1..50 {
            let now = end + k * r.period_ns;
            let settled = r.steal_settled_after(end, now, true, false);
            assert!(!settled, "idle run {k} settled");
            assert_eq!(
                r.hard_decision(gap, false, steal(before, before), settled),
                Decision::Wait
            );
        }
        // The CPU leaves idle: dyntick exit accounts the 100 ms.
        let now = end + 500 * MS;
        let settled = r.steal_settled_after(end, now, true, true);
        assert!(settled);
        assert_eq!(
            r.hard_decision(gap, false, steal(before, before + 100 * MS), settled),
            Decision::Now(Verdict::Steal)
        );
        // A CPU that stays idle: settled a second after the end, an event of what is known.
        assert!(!r.steal_settled_after(end, end + IDLE_STEAL_WAIT_NS - 1, true, false));
        assert!(r.steal_settled_after(end, end + IDLE_STEAL_WAIT_NS, true, false));
        assert_eq!(
            r.hard_decision(gap, false, steal(before, before), true),
            Decision::Now(Verdict::Event(100 * MS))
        );
        // A gap that did not end in the idle loop settles after a jiffy, idle exit or not.
        assert!(r.steal_settled_after(end, end + r.jiffy_ns + 1, false, false));
    }
}
