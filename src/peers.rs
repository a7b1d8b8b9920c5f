// SPDX-License-Identifier: GPL-2.0

//! What each CPU's hrtimer publishes for the other CPUs: when it last ran and its last
//! hardirq-off window. A record on one CPU uses it to name an overlapping hardirq-off
//! window on another (a CPU waiting for an IPI that a CPU with interrupts off cannot
//! answer, say).
//!
//! Only the owning CPU's hrtimer writes its entry; other CPUs read it only when they
//! record an event, so the common path shares no cache line for writing. Long windows
//! are also posted on a small board (`overlap`), which a record joins with instead of
//! looking at every CPU.

use kernel::prelude::*;
use kernel::sync::atomic::{Acquire, Atomic, Full, Relaxed, Release};

use crate::ffi;
use crate::ffi::tracepoints;
use crate::logic::gap::{Silent, Window};
use crate::logic::overlap::{self, PeerNow, Posted, BOARD_SLOTS, OPEN};
use crate::logic::stall::{self, stamp, PARKED, SILENCE_SLOTS};

/// A window written by one CPU's hrtimer and read by anyone.
///
/// A write stores `start`, then `end`, and `end` changes with every write (it is the time of
/// the write), so a read that sees the same `end` before and after `start` has a
/// consistent pair. On the writer's CPU an interrupt's stores are seen in program order;
/// another CPU may rarely see a mixed pair, which only a heuristic (overlap) reads.
pub(crate) struct WindowCell {
    start: Atomic<u64>,
    end: Atomic<u64>,
}

impl WindowCell {
    pub(crate) const fn new() -> Self {
        Self {
            start: Atomic::new(0),
            end: Atomic::new(0),
        }
    }

    pub(crate) fn set(&self, w: Window) {
        self.start.store(w.start, Relaxed);
        self.end.store(w.end, Relaxed);
    }

    pub(crate) fn get(&self) -> Window {
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

/// One CPU's entry, alone in its cache line: its owner writes it every period, and the
/// watchers of other CPUs read it every period.
#[repr(align(64))]
pub(crate) struct Peer {
    /// Last hrtimer run (ns, monotonic); 0 while its sampler is stopped.
    pub(crate) last_hard_ns: Atomic<u64>,
    /// Its last hardirq-off window.
    pub(crate) hard_off: WindowCell,
    /// Hardirq-off windows reported at their whole length although every CPU was late
    /// together over part of them, with no evidence that this CPU was stopped rather than
    /// holding interrupts off (`stall::Evidence`): a host pause, `stop_machine()` or a
    /// lock convoy. Since the last clear.
    pub(crate) together_events: Atomic<u64>,
    /// Sampled while sampling is on (the `cpus` selection); changed only while it is off.
    selected: Atomic<bool>,
    /// Its samplers run: set before a start, cleared after a stop, each time before the
    /// watchers' rings are worked out again (`Watch::ring_changed`).
    sampling: Atomic<bool>,
    /// The hrtimer run after which a watcher last posted its window as open (once per
    /// window).
    open_posted: Atomic<u64>,
    /// Its samplers could not be set up when it last came online (no memory for its
    /// state, or the callback ran elsewhere): it is not sampled, and the `config` line's
    /// `unsampled` list says so. The CPU came online all the same.
    unsampled: Atomic<bool>,
    /// The longest of its samplers' starts with hard interrupts off, ns
    /// (`Peers::started_off`).
    online_max_ns: Atomic<u64>,
    /// When its CPU went to sleep with its hrtimer parked (`sampler::sleep`); 0 while it
    /// is awake. Written by its own CPU only, with interrupts off: `last_hard_ns` is
    /// stored before this is cleared (release), so a watcher that loads 0 here (acquire)
    /// finds the wake-up's time there or later.
    pub(crate) parked_since: Atomic<u64>,
    /// Its CPU sleeps in the idle loop, its hrtimer parked or not (a watcher keeps it
    /// queued while a CPU it watches is awake). Written by its own CPU only.
    pub(crate) sleeping: Atomic<bool>,
    /// A CPU it watches woke it to watch (`Watch::wake_a_watcher`), set before the wake:
    /// its wake-up wakes no watcher of its own. Cleared by its own CPU.
    pub(crate) woken_to_watch: Atomic<bool>,
}

impl Peer {
    /// The longest of its samplers' starts with hard interrupts off so far, ns.
    pub(crate) fn online_max_ns(&self) -> u64 {
        self.online_max_ns.load(Relaxed)
    }
}

/// One post of the board: `end` is written last, 0 while being written.
struct BoardSlot {
    cpu: Atomic<u32>,
    start: Atomic<u64>,
    end: Atomic<u64>,
}

/// The latest long hardirq-off windows of all CPUs (`overlap`): what a record joins with
/// to name an overlapping window on another CPU, in [`BOARD_SLOTS`] looks.
struct Board {
    slots: [BoardSlot; BOARD_SLOTS],
    next: Atomic<u32>,
}

impl Board {
    const fn new() -> Self {
        Self {
            slots: [const {
                BoardSlot {
                    cpu: Atomic::new(0),
                    start: Atomic::new(0),
                    end: Atomic::new(0),
                }
            }; BOARD_SLOTS],
            next: Atomic::new(0),
        }
    }

    /// Posts a window in the next slot, over the oldest post. Any context; never waits.
    fn post(&self, p: Posted) {
        let i = self.next.fetch_add(1, Relaxed) as usize % BOARD_SLOTS;
        let Some(slot) = self.slots.get(i) else {
            return;
        };
        slot.end.store(0, Relaxed);
        slot.cpu.store(p.cpu, Relaxed);
        slot.start.store(p.start, Relaxed);
        slot.end.store(p.end, Release);
    }

    /// The posts that read whole (the same `end` before and after). Two writers racing
    /// for one slot (more than [`BOARD_SLOTS`] posts at once) may leave it mixed, which
    /// only a heuristic reads.
    fn posts(&self) -> impl Iterator<Item = Posted> + '_ {
        self.slots.iter().filter_map(|s| {
            let end = s.end.load(Acquire);
            let (cpu, start) = (s.cpu.load(Relaxed), s.start.load(Relaxed));
            (end != 0 && s.end.load(Relaxed) == end).then_some(Posted { cpu, start, end })
        })
    }
}

/// The machine's pulse (`logic::stall`): the last beat of any sampled CPU's hrtimer, and
/// the latest silences, spans in which none ran. Written at most about twice per period
/// in all (the beat), once per park and wake-up of a sleeping CPU, and once per silence (a
/// post): a shared word, never a lock.
struct Pulse {
    /// The last beat's time, its lowest bit [`PARKED`] if that beat was the park that left
    /// every sampled CPU parked (as set by [`stamp`]); 0: none yet.
    last: Atomic<u64>,
    /// Sampled CPUs whose hrtimer is parked (`sampler::sleep`): raised by a park, lowered
    /// by its wake-up or by its sampler's stop.
    parked: Atomic<u32>,
    slots: [SilenceSlot; SILENCE_SLOTS],
    next: Atomic<u32>,
    /// Beats that end a silence and have not yet posted it: raised before the beat moves
    /// `last`, lowered after the post, so that a CPU that sees the new beat and then no
    /// post in flight sees the post (`Peers::silent`).
    posting: Atomic<u32>,
    /// Silences posted (stalls of the whole machine), their total and longest length, the
    /// latest one, and those at least the threshold long.
    count: Atomic<u64>,
    sum_ns: Atomic<u64>,
    longest_ns: Atomic<u64>,
    latest: WindowCell,
    over_threshold: Atomic<u64>,
}

/// One silence of the pulse: `end` is written last, 0 while being written.
struct SilenceSlot {
    start: Atomic<u64>,
    end: Atomic<u64>,
    /// A sampled CPU slept through it with its hrtimer parked (`Silent::lone`).
    lone: Atomic<bool>,
}

/// What the pulse has counted (the `stall` line of the records and counters files).
pub(crate) struct StallCounts {
    pub(crate) count: u64,
    pub(crate) sum_ns: u64,
    pub(crate) longest_ns: u64,
    pub(crate) over_threshold: u64,
    pub(crate) latest: Window,
}

impl Pulse {
    const fn new() -> Self {
        Self {
            last: Atomic::new(0),
            parked: Atomic::new(0),
            slots: [const {
                SilenceSlot {
                    start: Atomic::new(0),
                    end: Atomic::new(0),
                    lone: Atomic::new(false),
                }
            }; SILENCE_SLOTS],
            next: Atomic::new(0),
            posting: Atomic::new(0),
            count: Atomic::new(0),
            sum_ns: Atomic::new(0),
            longest_ns: Atomic::new(0),
            latest: WindowCell::new(),
            over_threshold: Atomic::new(0),
        }
    }

    /// Posts a silence over the oldest one, `lone` if a sampled CPU slept through it
    /// parked. Any context; never waits.
    fn post(&self, s: Window, lone: bool) {
        let i = self.next.fetch_add(1, Relaxed) as usize % SILENCE_SLOTS;
        let Some(slot) = self.slots.get(i) else {
            return;
        };
        slot.end.store(0, Relaxed);
        slot.start.store(s.start, Relaxed);
        slot.lone.store(lone, Relaxed);
        slot.end.store(s.end, Release);
    }

    /// Moves the last beat from `raw` to a beat at `now` that ends silence `s`, and posts
    /// `s` if this beat won the move: `posting` is raised before the move and lowered after
    /// the post (both fully ordered), so that a reader that sees the beat also sees the
    /// post in flight or the post itself (`Peers::silent`). Whether it won.
    fn beat_posting(&self, raw: u64, now: u64, s: Window, lone: bool) -> bool {
        self.posting.fetch_add(1, Full);
        let won = self.last.cmpxchg(raw, stamp(now, false), Full).is_ok();
        if won {
            self.post(s, lone);
        }
        self.posting.fetch_sub(1, Full);
        won
    }

    /// The posts that read whole (the same `end` before and after), each with whether it
    /// is lone.
    fn silences(&self) -> impl Iterator<Item = (Window, bool)> + '_ {
        self.slots.iter().filter_map(|s| {
            let end = s.end.load(Acquire);
            let start = s.start.load(Relaxed);
            let lone = s.lone.load(Relaxed);
            (end != 0 && s.end.load(Relaxed) == end).then_some((Window { start, end }, lone))
        })
    }

    /// Nanoseconds of [`from`, `to`) in the silences a CPU whose sampler ran again at `to`
    /// came back from (`stall::silent_ns`), all of them and the lone ones. Constant time.
    fn silent_in(&self, from: u64, to: u64, back_ns: u64) -> (u64, u64) {
        let all = stall::silent_ns(from, to, back_ns, self.silences().map(|(w, _)| w));
        let lone = stall::silent_ns(
            from,
            to,
            back_ns,
            self.silences().filter(|&(_, lone)| lone).map(|(w, _)| w),
        );
        (all, lone)
    }
}

/// How many sampled CPUs after the one that ends a silence are asked whether they sleep
/// ([`Peers::neighbour_sleeps`]).
const SLEEP_LOOKS: usize = 2;

/// Every possible CPU's entry, indexed by CPU number.
pub(crate) struct Peers {
    cpus: VVec<Peer>,
    board: Board,
    pulse: Pulse,
    /// CPUs whose samplers run: the pulse proves a stall only with two or more.
    nr_sampling: Atomic<u32>,
    /// A host can stop the machine (`ffi::under_hypervisor`, read at load): without one
    /// no silence is a stall (`stall::Evidence`).
    vm: bool,
    /// The sleep probes are registered: an idle CPU's hrtimer parks while it sleeps, and
    /// its timer_list is deferrable (`sampler::sleep`). Set at load, before any sampler
    /// starts.
    parking: Atomic<bool>,
}

impl Peers {
    pub(crate) fn new(nr_cpus: u32) -> Result<Self> {
        let mut cpus = VVec::with_capacity(nr_cpus as usize, GFP_KERNEL)?;
        for _ in 0..nr_cpus {
            // By default every CPU but the nohz_full ones, which are isolated from the
            // tick for a reason: our timers and NMIs would be their jitter.
            let selected = Atomic::new(!ffi::cpu_nohz_full(cpus.len() as u32));
            cpus.push(
                Peer {
                    last_hard_ns: Atomic::new(0),
                    hard_off: WindowCell::new(),
                    together_events: Atomic::new(0),
                    selected,
                    sampling: Atomic::new(false),
                    open_posted: Atomic::new(0),
                    unsampled: Atomic::new(false),
                    online_max_ns: Atomic::new(0),
                    parked_since: Atomic::new(0),
                    sleeping: Atomic::new(false),
                    woken_to_watch: Atomic::new(false),
                },
                GFP_KERNEL,
            )?;
        }
        Ok(Self {
            cpus,
            board: Board::new(),
            pulse: Pulse::new(),
            nr_sampling: Atomic::new(0),
            vm: ffi::under_hypervisor(),
            parking: Atomic::new(false),
        })
    }

    /// Whether idle CPUs park their hrtimers while they sleep (the sleep probes are
    /// registered).
    pub(crate) fn parking(&self) -> bool {
        self.parking.load(Relaxed)
    }

    /// Says that the sleep probes are registered (at load, before any sampler starts).
    pub(crate) fn set_parking(&self) {
        self.parking.store(true, Relaxed);
    }

    /// Whether a host can stop this machine (the CPU reports a hypervisor): only then can
    /// a silence be a stall.
    pub(crate) fn vm(&self) -> bool {
        self.vm
    }

    pub(crate) fn get(&self, cpu: u32) -> Option<&Peer> {
        self.cpus.get(cpu as usize)
    }

    /// Whether `cpu` is in the `cpus` selection.
    pub(crate) fn selected(&self, cpu: u32) -> bool {
        self.get(cpu).is_some_and(|p| p.selected.load(Relaxed))
    }

    /// Records whether `cpu`'s samplers could be set up when it last came online.
    pub(crate) fn set_unsampled(&self, cpu: u32, unsampled: bool) {
        if let Some(p) = self.get(cpu) {
            p.unsampled.store(unsampled, Relaxed);
        }
    }

    /// `cpu`'s samplers started with hard interrupts off for `ns` (on `cpu`, in that
    /// section): the longest is kept, the one stretch the module keeps them off outside
    /// its samplers' handlers.
    pub(crate) fn started_off(&self, cpu: u32, ns: u64) {
        if let Some(p) = self.get(cpu) {
            if ns > p.online_max_ns.load(Relaxed) {
                p.online_max_ns.store(ns, Relaxed);
            }
        }
    }

    /// Whether `cpu` came online last without its samplers (`Peers::set_unsampled`).
    pub(crate) fn unsampled(&self, cpu: u32) -> bool {
        self.get(cpu).is_some_and(|p| p.unsampled.load(Relaxed))
    }

    /// Whether `cpu`'s samplers run (between their start and stop).
    pub(crate) fn sampling(&self, cpu: u32) -> bool {
        self.get(cpu).is_some_and(|p| p.sampling.load(Relaxed))
    }

    /// Records that `cpu`'s samplers start or have stopped (process context; hotplug and
    /// the enable switch serialise the callers). A start also forgets the last beat: the
    /// time in which no CPU sampled is not a silence of a running machine.
    pub(crate) fn set_sampling(&self, cpu: u32, on: bool) {
        if let Some(p) = self.get(cpu) {
            if p.sampling.xchg(on, Relaxed) != on {
                let n = self.nr_sampling.load(Relaxed);
                self.nr_sampling
                    .store(if on { n + 1 } else { n.saturating_sub(1) }, Relaxed);
            }
        }
        if on {
            self.pulse.last.store(0, Relaxed);
        }
    }

    /// An hrtimer run at `now` (hard interrupt context, any sampled CPU), or a timer_list
    /// run at `now` that ends a gap long enough to be an event (softirq context: its CPU
    /// runs with interrupts on, as an hrtimer run shows): beats if the
    /// machine's last beat is half a period old, and posts the silence that beat ends, if
    /// any, while two or more CPUs sample. Constant time; one shared word written at most
    /// about twice per period machine-wide.
    ///
    /// A beat that ends a silence moves `last` and posts it in `Pulse::beat_posting`, so
    /// that a reader that sees the beat also sees either the post in flight or the post
    /// itself ([`Peers::silent`]).
    ///
    /// The common run, which finds the last beat younger than half a period, only loads
    /// it, and a beat that ends no silence only moves it (both inline); a beat that may
    /// end one is [`Peers::beat_silence`].
    #[inline]
    pub(crate) fn beat(&self, cpu: u32, now: u64, period_ns: u64, threshold_ns: u64) {
        let raw = self.pulse.last.load(Acquire);
        let last = raw & !PARKED;
        if !stall::beats(last, now, period_ns) {
            return;
        }
        match stall::silence(last, now, period_ns) {
            // Whoever moved `last` first beat: a lost race leaves it as that one left it.
            None => {
                let _ = self.pulse.last.cmpxchg(raw, stamp(now, false), Full);
            }
            Some(s) => self.beat_silence(raw, s, cpu, now, threshold_ns),
        }
    }

    /// `cpu` parked its hrtimer at `now` to sleep (hard interrupts off, in the idle loop):
    /// a beat ([`Peers::beat`]: it was alive, interrupts on, up to here), and the machine's
    /// last beat moves here, whatever its age, saying whether every sampled CPU is now
    /// parked: then a wake-up after it does not take the time in which every CPU slept for
    /// a silence ([`Peers::beat_awake`]). A CPU that sleeps with its hrtimer queued (a
    /// watcher of a CPU that was awake) is not parked: it has a run to miss.
    pub(crate) fn beat_park(&self, cpu: u32, now: u64, period_ns: u64, threshold_ns: u64) {
        self.beat(cpu, now, period_ns, threshold_ns);
        let parked = self.pulse.parked.fetch_add(1, Full).saturating_add(1);
        let all = parked >= self.nr_sampling.load(Relaxed);
        let raw = self.pulse.last.load(Acquire);
        // A later beat of another CPU (awake) stands.
        if raw & !PARKED <= now {
            let _ = self.pulse.last.cmpxchg(raw, stamp(now, all), Full);
        }
    }

    /// One parked CPU fewer: its wake-up ([`Peers::beat_awake`]), or its sampler's stop,
    /// whose section unparks it for good. Never below none: a stop at the teardown (on
    /// another CPU) that races its CPU's wake-up may lower it once too often. A few tries
    /// at most: a count left too high only keeps a wake-up from posting a lone silence, as
    /// before they existed.
    pub(crate) fn unparked(&self) {
        let parked = &self.pulse.parked;
        let mut n = parked.load(Relaxed);
        for _ in 0..4 {
            if n == 0 {
                return;
            }
            match parked.cmpxchg(n, n - 1, Full) {
                Ok(_) => return,
                Err(now) => n = now,
            }
        }
    }

    /// A CPU woke at `now` from a sleep with its hrtimer parked (hard interrupt context):
    /// the machine's last beat moves here. A sleeping CPU has no run to miss, and the time
    /// in which every CPU slept is not a silence of a running machine: after the park that
    /// left every sampled CPU parked, the last beat only moves. After any other beat some
    /// CPU had its hrtimer queued, due within a period, and no CPU has run since: on a VM,
    /// the span from half a period after it is posted as a lone silence (this CPU slept
    /// through it), which only says that every CPU with a run to miss was late together
    /// (`Silent::lone`). A host that paused
    /// the machine while one CPU was awake and the others slept leaves this: the sleeper
    /// woken (its interrupt became pending in the pause) may run before the awake CPU's
    /// hrtimer does.
    pub(crate) fn beat_awake(&self, now: u64, period_ns: u64) {
        self.unparked();
        let pulse = &self.pulse;
        let raw = pulse.last.load(Acquire);
        let last = raw & !PARKED;
        if last >= now {
            return;
        }
        let lone = if self.vm && self.nr_sampling.load(Relaxed) >= 2 {
            stall::wake_silence(raw, now, period_ns)
        } else {
            None
        };
        match lone {
            Some(s) => {
                pulse.beat_posting(raw, now, s, true);
            }
            None => {
                let _ = pulse.last.cmpxchg(raw, stamp(now, false), Full);
            }
        }
    }

    /// Whether one of the sampled CPUs after `cpu` (the first [`SLEEP_LOOKS`] of them, in at
    /// most `2 * SLEEP_LOOKS` looks) sleeps with its hrtimer parked: it had no run to miss,
    /// so a silence that `cpu` ends is lone, not every CPU late together. Constant time.
    fn neighbour_sleeps(&self, cpu: u32) -> bool {
        let n = self.cpus.len();
        let mut found = 0;
        for step in 1..=2 * SLEEP_LOOKS {
            if found == SLEEP_LOOKS || step >= n {
                break;
            }
            let Some(p) = self.cpus.get((cpu as usize + step) % n) else {
                break;
            };
            if !p.sampling.load(Relaxed) {
                continue;
            }
            if p.parked_since.load(Acquire) != 0 {
                return true;
            }
            found += 1;
        }
        false
    }

    /// [`Peers::beat`]'s beat at `now` that ends silence `s` (the last beat, as loaded,
    /// having been `raw`): posted while two or more CPUs sample. Where one of the next
    /// sampled CPUs sleeps with its hrtimer parked it is lone (that CPU had no run to miss):
    /// posted on a VM only, where a host pause with one CPU awake cannot be told from a
    /// window of that CPU, and never counted as a stall. On bare metal no pause exists, and
    /// a lone silence would only call one CPU's window every CPU late together.
    #[inline(never)]
    fn beat_silence(&self, raw: u64, s: Window, cpu: u32, now: u64, threshold_ns: u64) {
        let pulse = &self.pulse;
        let sampling = self.nr_sampling.load(Relaxed);
        let lone = sampling >= 2 && self.neighbour_sleeps(cpu);
        if sampling < 2 || (lone && !self.vm) {
            let _ = pulse.last.cmpxchg(raw, stamp(now, false), Full);
            return;
        }
        if !pulse.beat_posting(raw, now, s, lone) || lone {
            return;
        }
        let len = s.end - s.start;
        pulse.count.add(1, Relaxed);
        pulse.sum_ns.add(len, Relaxed);
        if len > pulse.longest_ns.load(Relaxed) {
            pulse.longest_ns.store(len, Relaxed);
        }
        if len >= threshold_ns {
            pulse.over_threshold.add(1, Relaxed);
        }
        pulse.latest.set(s);
        tracepoints::stall(cpu, s.start, s.end);
    }

    /// The part of the gap [`from`, `to`) of a CPU whose hrtimer ran again at `to` in
    /// which no sampled CPU ran, counting only the silences that CPU came back from
    /// (`stall::came_back`: within their length, or `back_ns`, its period, if that is
    /// longer, of their end), and whether that
    /// is all of it: not if a beat that ends a silence had moved the machine's last beat
    /// but not yet posted. Constant time; for a run after its own [`Peers::beat`]: a
    /// silence that ends inside its gap was then ended by a beat before this read's
    /// (acquiring) load of the last beat, which orders that beat's raise of `posting`, and
    /// its lowering the post, before what is read here.
    pub(crate) fn silent(&self, from: u64, to: u64, back_ns: u64) -> Silent {
        let pulse = &self.pulse;
        let _ = pulse.last.load(Acquire);
        let complete = pulse.posting.load(Acquire) == 0;
        let (ns, lone_ns) = pulse.silent_in(from, to, back_ns);
        Silent {
            ns,
            complete,
            lone: lone_ns > 0,
        }
    }

    /// Nanoseconds of [`from`, `to`) in which no sampled CPU ran, as posted so far (a
    /// silence still being posted is not in it: see [`Peers::silent`]), for the softirq
    /// samplers: every silence counts, whenever the softirq sampler ran again (softirqs
    /// held off after the machine resumed do not show whether the CPU was stopped).
    /// Constant time.
    pub(crate) fn silent_ns(&self, from: u64, to: u64) -> u64 {
        let (all, lone) = self.pulse.silent_in(from, to, u64::MAX);
        all.saturating_sub(lone)
    }

    /// Nanoseconds of [`from`, `to`) in which every CPU may have been late together, for a
    /// softirq-side window, which never waits for a post: [`Peers::silent_ns`] if no
    /// silence is being posted, else all of it up to the machine's last beat (the beat
    /// posting a silence that ends there, from a start not yet known). Never drops a
    /// window: it only marks more of it as uncertain. Constant time.
    pub(crate) fn together_bound_ns(&self, from: u64, to: u64) -> u64 {
        let s = self.silent(from, to, u64::MAX);
        if s.complete {
            return s.ns;
        }
        let last = self.pulse.last.load(Acquire) & !PARKED;
        to.min(last).saturating_sub(from).max(s.ns)
    }

    /// The stalls counted so far.
    pub(crate) fn stalls(&self) -> StallCounts {
        let p = &self.pulse;
        StallCounts {
            count: p.count.load(Relaxed),
            sum_ns: p.sum_ns.load(Relaxed),
            longest_ns: p.longest_ns.load(Relaxed),
            over_threshold: p.over_threshold.load(Relaxed),
            latest: p.latest.get(),
        }
    }

    /// Forgets the stalls counted (the counters' reset).
    pub(crate) fn reset_stalls(&self) {
        let p = &self.pulse;
        p.count.store(0, Relaxed);
        p.sum_ns.store(0, Relaxed);
        p.longest_ns.store(0, Relaxed);
        p.over_threshold.store(0, Relaxed);
        p.latest.set(Window::EMPTY);
    }

    /// Takes `cpu` out of the selection. Only while sampling is off.
    pub(crate) fn deselect(&self, cpu: u32) {
        if let Some(p) = self.get(cpu) {
            p.selected.store(false, Relaxed);
        }
    }

    /// Adds CPUs `first..=last` to the selection. Only while sampling is off.
    pub(crate) fn select(&self, first: u32, last: u32) {
        for cpu in first..=last {
            if let Some(p) = self.get(cpu) {
                p.selected.store(true, Relaxed);
            }
        }
    }

    /// `cpu`'s hrtimer measured a hardirq-off window (its own hrtimer only): its last
    /// window for the softirq side, and if it is half the threshold long (shorter ones
    /// cannot cover most of a record) a post on the board for records on other CPUs.
    pub(crate) fn hard_off(&self, cpu: u32, w: Window, threshold_ns: u64) {
        if let Some(p) = self.get(cpu) {
            p.hard_off.set(w);
        }
        if w.end.saturating_sub(w.start).saturating_mul(2) >= threshold_ns {
            self.board.post(Posted {
                cpu,
                start: w.start,
                end: w.end,
            });
        }
    }

    /// A watcher found `cpu`'s window open since its hrtimer's run `last` for
    /// `length_ns`: posted once per window, from a quarter of the threshold on (a window
    /// that covers most of a record is at least half the threshold long by then).
    ///
    /// The common look, at a window shorter than that, is inline and reads nothing.
    #[inline]
    pub(crate) fn open_seen(&self, cpu: u32, last: u64, length_ns: u64, threshold_ns: u64) {
        if length_ns >= threshold_ns / 4 {
            self.open_post(cpu, last);
        }
    }

    /// [`Peers::open_seen`]'s post, once per window.
    #[inline(never)]
    fn open_post(&self, cpu: u32, last: u64) {
        let Some(p) = self.get(cpu) else { return };
        if p.open_posted.load(Relaxed) == last || p.open_posted.xchg(last, Relaxed) == last {
            return;
        }
        self.board.post(Posted {
            cpu,
            start: last,
            end: OPEN,
        });
    }

    /// Another CPU whose hardirq-off window covers most of `ours` (on `cpu`, ending now):
    /// one that ended already, or one still open (its hrtimer overdue by `period_ns` or
    /// more). The one covering most wins. Joins the board's [`BOARD_SLOTS`] posts, not
    /// every CPU: fine in hard interrupt context.
    pub(crate) fn hardirq_overlap(&self, cpu: u32, ours: Window, period_ns: u64) -> Option<u32> {
        overlap::best(cpu, ours, period_ns, self.board.posts(), |c| PeerNow {
            online: ffi::cpu_online(c),
            last_hard_ns: self.get(c).map_or(0, |p| p.last_hard_ns.load(Relaxed)),
        })
    }

    /// Bytes of one CPU number's entry (the table is vmalloc'd for every CPU number: its
    /// selection must outlive a CPU's absence).
    pub(crate) fn entry_bytes(&self) -> usize {
        core::mem::size_of::<Peer>()
    }
}
