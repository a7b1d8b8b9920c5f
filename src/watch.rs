// SPDX-License-Identifier: GPL-2.0

//! The watcher: a CPU whose interrupts are off cannot run its own sampler, so the other
//! CPUs' hrtimers look at it, and an NMI takes its stack while the window is still open.
//!
//! The hrtimer of CPU c reads the last hrtimer run of the next one or two online CPUs in
//! a ring (`profile::watched`): one or two loads, no write, no lock; every period, but at
//! most every eighth of the threshold while none is overdue (`Rules::watch_interval`),
//! and every run while one is. A CPU whose
//! hrtimer is overdue by more than the threshold has an open hardirq-off window. One
//! watcher claims it (`profile::claim_step`), and from then on, every period, sends it an
//! NMI (thinned after `max_window_samples`, see `profile::next_sample`). The NMI handler,
//! which sees only NMIs no other handler claimed (`Watch::nmi`), takes the stack it
//! interrupted into that CPU's live profile, but only for an NMI the module asked for and
//! only while the window it was sent for is still open. The claimer
//! also fires `irqoff_ongoing` when the window passes the threshold and again, with a
//! rate-limited line in the kernel log, when it passes the stuck length, but only once an
//! NMI of the window has found the CPU running something other than the idle loop: a vCPU
//! the hypervisor is not running (or a VM frozen with its clock running) answers no NMI
//! and is not "stuck"; such windows are counted (`stuck_unconfirmed`). When the window
//! ends, the CPU's own hrtimer links the profile into the window's record.
//!
//! Where NMIs cannot be sent (not x86_64) or do not arrive, the feature says so in the
//! `records` file and does nothing else; ongoing windows are still shown, without stacks.
//! Where they cannot be sent, nothing can confirm a window, and the stuck line is logged
//! at the stuck length as it stands.

use kernel::prelude::*;
use kernel::sync::atomic::{Acquire, Atomic, Full, Relaxed, Release};
use kernel::time::{delay::fsleep, Delta};

use crate::capture;
use crate::cost::Cost;
use crate::cpu_table::CpuTable;
use crate::ffi::tracepoints;
use crate::ffi::{self, Symbol, COMM_LEN};
use crate::logic::gap::{Rules, NSEC_PER_MSEC};
use crate::logic::profile::{self, ClaimStep, Stuck};
use crate::peers::Peers;
use crate::records::{comm_str, LiveProfile, MAX_FRAMES};

/// At most this many doublings of the spacing between NMIs to a CPU whose NMIs came late:
/// then every 64th watcher run.
const MAX_SLOW: u32 = 6;

/// NMIs sent into a window without a sample coming back, after which the window is
/// announced without its task (it may be in a CPU whose NMIs come late).
const ANNOUNCE_WITHOUT_SAMPLE: u32 = 3;

/// Longest wait at unload for NMIs still on their way (see [`Watch::drain`]).
const DRAIN_MS: u32 = 10_000;

/// How long a CPU whose hrtimer last ran at `last` has been overdue at `now`: the time
/// past its next expiry, without the part in which no sampled CPU ran (a stall of the
/// whole machine is no window of this CPU's). The stall lookup only when the plain length
/// could be one, so the common look costs nothing more.
fn open_length(peers: &Peers, last: u64, now: u64, rules: &Rules) -> u64 {
    let length_ns = now.saturating_sub(last).saturating_sub(rules.period_ns);
    if length_ns < rules.threshold_ns / 4 {
        return length_ns;
    }
    length_ns.saturating_sub(peers.silent_ns(last, now))
}
/// In [`Watched::nmi_pending`]: a request being sent, by the watcher whose CPU is in the
/// low bits (so that two senders never mistake each other's request for their own). A
/// sent request holds the time it was sent at, below this bit.
const SENDING: u64 = 1 << 63;

/// An NMI of ours reaches a CPU that runs with NMIs unblocked within microseconds of its
/// send (hardware, and hypervisors, which kick the target vCPU); a request still pending
/// after its CPU ran this long, in its own hrtimer, past the time it saw the request sent
/// is one whose NMI was taken by another handler or swallowed (see [`Watch::settle`]).
const LOST_AFTER_NS: u64 = NSEC_PER_MSEC;

/// Why the watcher's NMIs are not used.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u32)]
pub(crate) enum Unavailable {
    /// The module parameter `watch=0`.
    Off = 1,
    /// This architecture offers no way to send an NMI to one CPU (not x86_64).
    Arch = 2,
    /// Registering the NMI handler failed.
    Register = 3,
}

impl Unavailable {
    fn from_u32(v: u32) -> Option<Self> {
        Some(match v {
            1 => Self::Off,
            2 => Self::Arch,
            3 => Self::Register,
            _ => return None,
        })
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Off => "off",
            Self::Arch => "arch",
            Self::Register => "register-failed",
        }
    }
}

/// What NMIs found a CPU doing in a window: the last window in which one of them found it
/// so, and when the first such NMI of that window came. Written only by the NMI on that CPU.
struct Sighting {
    window: Atomic<u64>,
    at: Atomic<u64>,
}

impl Sighting {
    const fn new() -> Self {
        Self {
            window: Atomic::new(0),
            at: Atomic::new(0),
        }
    }

    /// An NMI at `now`, in `window`, found it: kept if it is the window's first.
    fn note(&self, window: u64, now: u64) {
        if self.window.load(Relaxed) != window {
            self.at.store(now, Relaxed);
            self.window.store(window, Relaxed);
        }
    }

    /// Whether an NMI found it during `window`, at least half a period before the window
    /// ended at `end`.
    fn before(&self, window: u64, end: u64, period_ns: u64) -> bool {
        self.window.load(Relaxed) == window
            && end.saturating_sub(self.at.load(Relaxed)) >= period_ns / 2
    }
}

/// No CPU, in [`Watched::ring`].
const NO_CPU: u32 = u32::MAX;

/// One CPU as watched by the others. Its claim and NMI fields are written only while the
/// CPU is overdue (by its watcher and by the NMI on it): nothing here is written on the
/// common path.
pub(crate) struct Watched {
    /// `profile::claim` word of its watcher, 0 before any.
    claim: Atomic<u64>,
    /// When the watcher last ran on its claim.
    owner_seen: Atomic<u64>,
    /// The NMI asked of this CPU and not yet answered: 0 when none, `SENDING | cpu` while
    /// the watcher on `cpu` sends it, then when it was sent. Set only by the one watcher
    /// whose compare-exchange from 0 won, which alone then sends; cleared by the NMI
    /// handler on this CPU when it claims an NMI (`Watch::nmi`), or by this CPU's own
    /// hrtimer once the NMI cannot be on its way any more (`Watch::settle`): never while
    /// one of ours may still arrive. Kept across disable and enable.
    nmi_pending: Atomic<u64>,
    /// When the watcher asked for the pending NMI (its run's time): the round trip.
    nmi_asked: Atomic<u64>,
    /// The last NMI sent (its `nmi_pending` stamp), and the last one found late (not
    /// answered within half a period).
    last_sent: Atomic<u64>,
    late_of: Atomic<u64>,
    /// How much less the watcher trusts this CPU's NMIs: it asks at most every 2^slow
    /// runs. One more for each NMI that came late, one less for each on time.
    slow: Atomic<u32>,
    /// The window it was sent for, and its sample's weight.
    nmi_window: Atomic<u64>,
    nmi_weight: Atomic<u32>,
    /// NMIs sent in the claimed window, and watcher runs since the last one.
    sent: Atomic<u32>,
    since: Atomic<u32>,
    /// The last windows announced on the tracepoint: at the threshold, at the stuck length.
    announced: Atomic<u64>,
    stuck: Atomic<u64>,
    /// The stuck line the watcher posted for the namer to log.
    stuck_line: StuckSlot,
    /// The in-window samples of its open hardirq-off window (written by the NMI on it).
    pub(crate) profile: LiveProfile,
    /// An NMI that found this CPU inside a hard interrupt handler.
    handler: Sighting,
    /// An NMI that found this CPU awake (anywhere but the idle loop's wait: running the
    /// window's culprit, in a task, a handler or an IPI function run from the idle loop).
    awake: Sighting,
    /// The last window counted as stuck without an NMI that found this CPU awake.
    unconfirmed: Atomic<u64>,
    /// The CPUs this one watches (`NO_CPU`: none), worked out in process context by
    /// [`Watch::ring_changed`]; its hrtimer copies them when the ring version moved.
    ring: [Atomic<u32>; 2],
    /// Time spent in the NMI handler on this CPU for samples.
    pub(crate) nmi_cost: Cost,
    /// From sending an NMI to this CPU to its handler running here.
    pub(crate) nmi_rtt: Cost,
}

impl Watched {
    fn new() -> Self {
        Self {
            claim: Atomic::new(0),
            owner_seen: Atomic::new(0),
            nmi_pending: Atomic::new(0),
            nmi_asked: Atomic::new(0),
            last_sent: Atomic::new(0),
            late_of: Atomic::new(0),
            slow: Atomic::new(0),
            nmi_window: Atomic::new(0),
            nmi_weight: Atomic::new(0),
            sent: Atomic::new(0),
            since: Atomic::new(0),
            announced: Atomic::new(0),
            stuck: Atomic::new(0),
            stuck_line: StuckSlot::new(),
            profile: LiveProfile::new(),
            handler: Sighting::new(),
            awake: Sighting::new(),
            unconfirmed: Atomic::new(0),
            ring: [const { Atomic::new(NO_CPU) }; 2],
            nmi_cost: Cost::new(),
            nmi_rtt: Cost::new(),
        }
    }

    /// Its watcher, if it is claimed for `window`.
    pub(crate) fn watcher(&self, window: u64) -> Option<u32> {
        let c = self.claim.load(Relaxed);
        if profile::claim_is_on(c, window) {
            profile::claim_owner(c)
        } else {
            None
        }
    }
}

/// A stuck window's log line, before its frames are named.
struct StuckLine {
    ms: u64,
    pid: i32,
    comm: [u8; COMM_LEN],
    /// The in-window stack's top frame, and its first frame in module text (0: none).
    top: u64,
    module: u64,
}

/// One [`StuckLine`] passed from the watcher (hard interrupt context, the window's one
/// claimer) to the namer (process context): a line posted while the last one is not yet
/// logged is dropped, like one over the log's rate limit.
struct StuckSlot {
    /// 0: empty; 1: being written or read; 2: a line is in.
    state: Atomic<u32>,
    ms: Atomic<u64>,
    pid: Atomic<i32>,
    comm: [Atomic<u64>; 2],
    top: Atomic<u64>,
    module: Atomic<u64>,
}

impl StuckSlot {
    const fn new() -> Self {
        Self {
            state: Atomic::new(0),
            ms: Atomic::new(0),
            pid: Atomic::new(0),
            comm: [const { Atomic::new(0) }; 2],
            top: Atomic::new(0),
            module: Atomic::new(0),
        }
    }

    /// Posts `l` if the slot is empty; true if posted.
    fn post(&self, l: &StuckLine) -> bool {
        if self.state.cmpxchg(0, 1, Acquire).is_err() {
            return false;
        }
        self.ms.store(l.ms, Relaxed);
        self.pid.store(l.pid, Relaxed);
        for (d, c) in self.comm.iter().zip(l.comm.chunks(8)) {
            let mut b = [0u8; 8];
            b[..c.len()].copy_from_slice(c);
            d.store(u64::from_ne_bytes(b), Relaxed);
        }
        self.top.store(l.top, Relaxed);
        self.module.store(l.module, Relaxed);
        self.state.store(2, Release);
        true
    }

    /// Takes the posted line, if any, and empties the slot.
    fn take(&self) -> Option<StuckLine> {
        if self.state.cmpxchg(2, 1, Acquire).is_err() {
            return None;
        }
        let mut comm = [0u8; COMM_LEN];
        for (c, s) in comm.chunks_mut(8).zip(self.comm.iter()) {
            c.copy_from_slice(&s.load(Relaxed).to_ne_bytes()[..c.len()]);
        }
        let l = StuckLine {
            ms: self.ms.load(Relaxed),
            pid: self.pid.load(Relaxed),
            comm,
            top: self.top.load(Relaxed),
            module: self.module.load(Relaxed),
        };
        self.state.store(0, Release);
        Some(l)
    }
}

/// An open hardirq-off window of one CPU, as another CPU sees it.
#[derive(Clone, Copy)]
pub(crate) struct Ongoing {
    /// The CPU's last hrtimer run: the window's id.
    pub(crate) window: u64,
    /// Its length so far (overdue time minus one period).
    pub(crate) length_ns: u64,
}

/// The watcher's state: per CPU, and what it found.
pub(crate) struct Watch {
    /// Per CPU that came online (`State::cpu_came_online`).
    cpus: CpuTable<KBox<Watched>>,
    /// The watcher runs at all (module parameter `watch`).
    pub(crate) enabled: bool,
    /// 0, or why NMIs are not used (`Unavailable`).
    reason: Atomic<u32>,
    /// The NMI handler is registered (sampling enabled, the feature available).
    active: Atomic<bool>,
    /// Samples per window at full rate (`max_window_samples`).
    pub(crate) max_samples: u32,
    /// Length at which an open window is reported as stuck.
    pub(crate) stuck_ns: u64,
    pub(crate) nmi_sent: Atomic<u64>,
    /// NMIs the handler claimed: one per request, by the first NMI that reached the
    /// unknown-NMI path while it was pending (ours, or one nobody else claimed).
    pub(crate) nmi_answered: Atomic<u64>,
    /// Requests settled by their CPU's hrtimer: the NMI was taken without reaching our
    /// handler (another NMI handler claimed it, or the kernel swallowed it as the second
    /// half of a back-to-back pair).
    pub(crate) nmi_lost: Atomic<u64>,
    /// Answered after their window ended: nothing taken.
    pub(crate) nmi_stale: Atomic<u64>,
    pub(crate) nmi_missed: Atomic<u64>,
    /// Windows overdue past the stuck length with no NMI sample outside the idle loop
    /// (`profile::Stuck::Unconfirmed`): not logged.
    pub(crate) stuck_unconfirmed: Atomic<u64>,
    /// Bumped whenever a CPU's sampler starts or stops: the ring of watched CPUs may have
    /// changed ([`Ring`]).
    ring_version: Atomic<u64>,
    /// Every CPU's sampler is being started or stopped ([`Watch::switch_all`]): the rings
    /// are worked out once at the end, not per CPU.
    switching_all: Atomic<bool>,
}

/// A request of its own CPU's that its hrtimer saw sent, and when (its own clock): see
/// [`Watch::settle`]. Owned by that hrtimer.
pub(crate) struct PendingSeen {
    stamp: u64,
    at: u64,
}

impl PendingSeen {
    pub(crate) const fn new() -> Self {
        Self { stamp: 0, at: 0 }
    }
}

/// The CPUs one CPU watches, as its hrtimer last worked them out, and the
/// [`Watch::ring_version`] it did so at (0: never). Owned by that hrtimer.
pub(crate) struct Ring {
    version: u64,
    watched: [Option<u32>; 2],
}

impl Ring {
    pub(crate) const fn new() -> Self {
        Self {
            version: 0,
            watched: [None, None],
        }
    }
}

impl Watch {
    pub(crate) fn new(
        nr_cpus: u32,
        enabled: bool,
        max_samples: u32,
        stuck_ns: u64,
    ) -> Result<Self> {
        let cpus = CpuTable::new(nr_cpus)?;
        let reason = if !enabled {
            Some(Unavailable::Off)
        } else if !ffi::nmi_supported() {
            Some(Unavailable::Arch)
        } else {
            None
        };
        Ok(Self {
            cpus,
            enabled,
            reason: Atomic::new(reason.map_or(0, |r| r as u32)),
            active: Atomic::new(false),
            max_samples,
            stuck_ns,
            nmi_sent: Atomic::new(0),
            nmi_answered: Atomic::new(0),
            nmi_lost: Atomic::new(0),
            nmi_stale: Atomic::new(0),
            nmi_missed: Atomic::new(0),
            stuck_unconfirmed: Atomic::new(0),
            ring_version: Atomic::new(1),
            switching_all: Atomic::new(false),
        })
    }

    pub(crate) fn get(&self, cpu: u32) -> Option<&Watched> {
        self.cpus.get(cpu).map(|w| &**w)
    }

    /// Makes the entry of `cpu` at its first online (process context; see
    /// [`CpuTable::get_or_make`]).
    pub(crate) fn cpu_came_online(&self, cpu: u32) -> Result {
        self.cpus
            .get_or_make(cpu, || Ok(KBox::new(Watched::new(), GFP_KERNEL)?))
            .map(|_| ())
    }

    /// Why NMIs are not used, if they are not.
    pub(crate) fn unavailable(&self) -> Option<Unavailable> {
        Unavailable::from_u32(self.reason.load(Relaxed))
    }

    pub(crate) fn is_active(&self) -> bool {
        self.active.load(Relaxed)
    }

    fn nmi_usable(&self) -> bool {
        self.active.load(Relaxed) && self.reason.load(Relaxed) == 0
    }

    /// At enable, before the samplers start: registers the NMI handler into `handler` if
    /// the feature is available and it is not registered yet, and lets the watcher ask for
    /// NMIs. The handler then stays registered until unload ([`Watch::drain`]), so that an
    /// NMI of ours that comes late, after a disable, still finds it. Failing to register
    /// changes nothing else. Process context, control lock held.
    pub(crate) fn start(&self, handler: &mut Option<ffi::NmiHandler>) {
        if handler.is_none() {
            match self.unavailable() {
                None | Some(Unavailable::Register) => {}
                Some(_) => return,
            }
            match ffi::NmiHandler::register() {
                Ok(h) => {
                    *handler = Some(h);
                    self.reason.store(0, Relaxed);
                }
                Err(e) => {
                    pr_warn!("watcher: registering the NMI handler failed ({:?}); in-window stacks unavailable\n", e);
                    self.reason.store(Unavailable::Register as u32, Relaxed);
                    return;
                }
            }
        }
        self.active.store(true, Relaxed);
    }

    /// At disable, after the samplers stopped: no more NMIs are asked for. Those on their
    /// way still find the handler.
    pub(crate) fn stop(&self) {
        self.active.store(false, Relaxed);
    }

    /// At unload, after [`Watch::stop`], before the caller unregisters the handler: waits
    /// until no NMI of ours is on its way to an online CPU (an offline CPU dropped its
    /// one). An online CPU takes an NMI within microseconds even with interrupts off, and
    /// its hrtimer, while it runs, settles a request whose NMI another handler took
    /// ([`Watch::settle`]); one still pending after [`DRAIN_MS`] is named in the log
    /// (a CPU stuck beyond what the handler could help, or one whose NMI was taken by
    /// another handler after its sampler stopped). Process context.
    pub(crate) fn drain(&self) {
        for ms in 0..=DRAIN_MS {
            let mut waiting = None;
            for (cpu, w) in self.cpus.iter() {
                if w.nmi_pending.load(Relaxed) == 0 {
                    continue;
                }
                if ffi::cpu_online(cpu) {
                    waiting = Some(cpu);
                } else {
                    w.nmi_pending.store(0, Relaxed);
                }
            }
            let Some(cpu) = waiting else { return };
            if ms == DRAIN_MS {
                pr_warn!(
                    "watcher: cpu {} has not answered an NMI sent {} s ago; unloading anyway\n",
                    cpu,
                    DRAIN_MS / 1000
                );
                return;
            }
            fsleep(Delta::from_millis(1));
        }
    }

    /// Runs `switch`, which starts or stops every CPU's sampler (enable, disable,
    /// unload), with the rings left alone per CPU, then works every ring out once, in
    /// O(CPUs) (`profile::rings`), with CPU hotplug held off so that no single CPU's update
    /// comes between: an enable or disable is linear in CPUs, not quadratic. Until then a
    /// watcher watches the CPUs it watched before (a stopped one is never overdue).
    pub(crate) fn switch_all<R>(&self, peers: &Peers, switch: impl FnOnce() -> R) -> R {
        self.switching_all.store(true, Relaxed);
        let r = switch();
        let _held = ffi::CpusHeld::new();
        self.switching_all.store(false, Relaxed);
        profile::rings(
            self.cpus.nr(),
            |c| peers.sampling(c),
            |c, ring| self.set_ring(c, ring),
        );
        self.ring_version_bump();
        r
    }

    fn set_ring(&self, cpu: u32, ring: [Option<u32>; 2]) {
        if let Some(w) = self.get(cpu) {
            for (slot, c) in w.ring.iter().zip(ring) {
                slot.store(c.unwrap_or(NO_CPU), Relaxed);
            }
        }
    }

    /// After the rings: an hrtimer that sees the new version copies them.
    fn ring_version_bump(&self) {
        let v = self.ring_version.load(Relaxed);
        self.ring_version.store(v.wrapping_add(1), Release);
    }

    /// The sampler of `cpu` started or stopped (process context: CPU hotplug): works out
    /// again the watched CPUs of the CPUs that watch it, or would, among the sampling ones,
    /// and its own (`profile::rings_around`), so that no hrtimer has to: O(the CPUs
    /// between it and its neighbours that sample). Hotplug serialises the callers; during
    /// [`Watch::switch_all`] it does nothing.
    pub(crate) fn ring_changed(&self, peers: &Peers, cpu: u32) {
        if self.switching_all.load(Relaxed) {
            return;
        }
        let nr = self.cpus.nr();
        profile::rings_around(
            nr,
            cpu,
            |c| peers.sampling(c),
            |c, ring| self.set_ring(c, ring),
        );
        self.ring_version_bump();
    }

    /// The open hardirq-off window of `cpu` at `now`, if its hrtimer is overdue past the
    /// threshold.
    pub(crate) fn ongoing(
        &self,
        peers: &Peers,
        cpu: u32,
        now: u64,
        rules: &Rules,
    ) -> Option<Ongoing> {
        let last = peers.get(cpu)?.last_hard_ns.load(Relaxed);
        if last == 0 || !ffi::cpu_online(cpu) {
            return None;
        }
        let length_ns = open_length(peers, last, now, rules);
        (length_ns >= rules.threshold_ns).then_some(Ongoing {
            window: last,
            length_ns,
        })
    }

    /// One watcher run on CPU `me`, from its hrtimer at `now` (hard interrupt context).
    /// The common path: one or two loads of other CPUs' last runs.
    /// Returns whether a watched CPU is overdue (the caller then looks again next run).
    /// `ring`: the CPUs `me` watches, worked out again when a sampler started or stopped
    /// since, and after a look found a watched CPU stopped.
    pub(crate) fn run(
        &self,
        ring: &mut Ring,
        peers: &Peers,
        me: u32,
        now: u64,
        rules: &Rules,
    ) -> bool {
        if !self.enabled {
            return false;
        }
        let version = self.ring_version.load(Acquire);
        if version != ring.version {
            if let Some(w) = self.get(me) {
                for (mine, slot) in ring.watched.iter_mut().zip(&w.ring) {
                    let c = slot.load(Relaxed);
                    *mine = (c != NO_CPU).then_some(c);
                }
            }
            ring.version = version;
        }
        let mut busy = false;
        for slot in &ring.watched {
            let Some(t) = *slot else { continue };
            let Some(peer) = peers.get(t) else { continue };
            let last = peer.last_hard_ns.load(Relaxed);
            if last == 0 {
                // Stopped: going offline, maybe not yet out of the online mask when the
                // ring was worked out. Work it out again at the next look.
                ring.version = 0;
                continue;
            }
            let length_ns = open_length(peers, last, now, rules);
            peers.open_seen(t, last, length_ns, rules.threshold_ns);
            if length_ns >= rules.threshold_ns {
                busy = true;
                self.overdue(
                    me,
                    t,
                    Ongoing {
                        window: last,
                        length_ns,
                    },
                    now,
                    rules,
                );
            }
        }
        busy
    }

    /// `t` is overdue: claim it, ask for a sample, announce.
    #[inline(never)]
    fn overdue(&self, me: u32, t: u32, o: Ongoing, now: u64, rules: &Rules) {
        let Some(w) = self.get(t) else { return };
        let current = w.claim.load(Relaxed);
        match profile::claim_step(
            current,
            o.window,
            me,
            now,
            w.owner_seen.load(Relaxed),
            3 * rules.period_ns,
        ) {
            ClaimStep::Theirs => return,
            ClaimStep::Mine => {}
            ClaimStep::Take { first } => {
                // Seen alive before the claim is published (the compare-exchange orders
                // it): another watcher that reads the new claim never finds it stale.
                w.owner_seen.store(now, Relaxed);
                if w.claim
                    .cmpxchg(current, profile::claim(o.window, me), Full)
                    .is_err()
                {
                    return;
                }
                if first {
                    w.sent.store(0, Relaxed);
                    w.since.store(0, Relaxed);
                }
            }
        }
        w.owner_seen.store(now, Relaxed);
        if self.nmi_usable() {
            self.ask(w, me, t, o.window, now, rules);
        }
        let sample = w.profile.peek(o.window, ffi::text_can_vanish);
        let (pid, comm, top, module) = sample.unwrap_or((0, [0; COMM_LEN], 0, 0));
        // Announced with the task once the first sample is in (or when none will come).
        let ready = sample.is_some()
            || !self.nmi_usable()
            || w.sent.load(Relaxed) >= ANNOUNCE_WITHOUT_SAMPLE;
        if ready && w.announced.load(Relaxed) != o.window {
            w.announced.store(o.window, Relaxed);
            tracepoints::irqoff_ongoing(t, o.length_ns, pid, &comm, false);
        }
        let busy_seen = w.awake.window.load(Relaxed) == o.window;
        match profile::stuck_step(
            o.length_ns,
            self.stuck_ns,
            w.stuck.load(Relaxed) == o.window,
            busy_seen,
            self.nmi_usable(),
        ) {
            Stuck::Nothing => {}
            Stuck::Unconfirmed => {
                if w.unconfirmed.load(Relaxed) != o.window {
                    w.unconfirmed.store(o.window, Relaxed);
                    self.stuck_unconfirmed.add(1, Relaxed);
                }
            }
            Stuck::Log => self.log_stuck(w, t, o, pid, &comm, top, module),
        }
    }

    /// The stuck tracepoint for `t`'s window `o`, once, and its log line, which the namer
    /// writes in process context: naming a module frame walks the module's symbol table,
    /// never done here in hard interrupt context.
    #[allow(clippy::too_many_arguments)]
    fn log_stuck(
        &self,
        w: &Watched,
        t: u32,
        o: Ongoing,
        pid: i32,
        comm: &[u8; COMM_LEN],
        top: u64,
        module: u64,
    ) {
        w.stuck.store(o.window, Relaxed);
        tracepoints::irqoff_ongoing(t, o.length_ns, pid, comm, true);
        if w.stuck_line.post(&StuckLine {
            ms: o.length_ns / NSEC_PER_MSEC,
            pid,
            comm: *comm,
            top,
            module,
        }) {
            ffi::namer_want();
        }
    }

    /// Logs the stuck lines the watcher posted (process context: the namer's work).
    pub(crate) fn log_stuck_lines(&self) {
        for (t, w) in self.cpus.iter() {
            let Some(l) = w.stuck_line.take() else {
                continue;
            };
            if !ffi::warn_ratelimit() {
                continue;
            }
            let task = core::str::from_utf8(comm_str(&l.comm)).unwrap_or("?");
            let (ms, pid, top, module) = (l.ms, l.pid, l.top, l.module);
            if top != 0 && module != 0 && module != top {
                // The top frame is core code the culprit called (a clock read, a lock):
                // name the culprit's own frame too.
                pr_warn!(
                    "cpu {} has had hard interrupts off for {} ms: {}-{} at {} in {}\n",
                    t,
                    ms,
                    task,
                    pid,
                    Symbol(top),
                    Symbol(module)
                );
            } else if top != 0 {
                pr_warn!(
                    "cpu {} has had hard interrupts off for {} ms: {}-{} at {}\n",
                    t,
                    ms,
                    task,
                    pid,
                    Symbol(top)
                );
            } else {
                pr_warn!(
                    "cpu {} has had hard interrupts off for {} ms (no in-window stack)\n",
                    t,
                    ms
                );
            }
        }
    }

    /// The claimer's NMI for `t`, if one is due. One not answered within half a period is
    /// counted as missed (once) and makes the watcher trust that CPU less; it is never
    /// given up on (it may still come, and must find its claim), so no other is sent to
    /// that CPU before it is answered or its CPU settles it ([`Watch::settle`]).
    fn ask(&self, w: &Watched, me: u32, t: u32, window: u64, now: u64, rules: &Rules) {
        let pending = w.nmi_pending.load(Relaxed);
        if pending != 0 {
            if now.saturating_sub(pending) >= rules.period_ns / 2
                && w.late_of.load(Relaxed) != pending
            {
                w.late_of.store(pending, Relaxed);
                self.nmi_missed.add(1, Relaxed);
                w.slow
                    .store(profile::slower(w.slow.load(Relaxed), MAX_SLOW), Relaxed);
            }
            return;
        }
        // The last one was answered: on time, unless it was found late.
        let last = w.last_sent.xchg(0, Relaxed);
        if last != 0 && w.late_of.load(Relaxed) != last {
            w.slow
                .store(w.slow.load(Relaxed).saturating_sub(1), Relaxed);
        }
        let since = w.since.load(Relaxed).saturating_add(1);
        let sent = w.sent.load(Relaxed);
        match profile::next_sample(sent, since, self.max_samples)
            .filter(|_| profile::trusted(since, w.slow.load(Relaxed)))
        {
            Some(weight) => {
                w.nmi_window.store(window, Relaxed);
                w.nmi_weight.store(weight, Relaxed);
                w.nmi_asked.store(now, Relaxed);
                let sending = SENDING | u64::from(me);
                // One sender per NMI: only the watcher whose compare-exchange from 0 wins
                // sends. The NMI that takes this (xchg, Full) sees the window and weight.
                if w.nmi_pending.cmpxchg(0, sending, Release).is_err() {
                    return;
                }
                if ffi::send_nmi(t).is_err() {
                    // Not online (any more): nothing was sent, so nothing is on its way.
                    // Unless the handler took the request meanwhile (an NMI nobody
                    // claimed) and another watcher made a new one: that one is not ours.
                    let _ = w.nmi_pending.cmpxchg(sending, 0, Relaxed);
                    return;
                }
                // Sent: from now on the request holds the time after the send, which its
                // CPU's hrtimer may settle (`settle`) once it has run long enough past it.
                // If the handler took it already, it stays taken.
                let stamp = ffi::now_ns().clamp(1, SENDING - 1);
                let _ = w.nmi_pending.cmpxchg(sending, stamp, Relaxed);
                w.last_sent.store(stamp, Relaxed);
                w.sent.store(sent.saturating_add(1), Relaxed);
                w.since.store(0, Relaxed);
                self.nmi_sent.add(1, Relaxed);
            }
            None => w.since.store(since, Relaxed),
        }
    }

    /// An NMI on `cpu` (NMI context on `cpu`) that interrupted `ip` and that nothing else
    /// claimed: the handler is registered for unknown NMIs only (`tio_nmi_register`), so
    /// it sees none that another handler (perf, the kernel's backtraces, GHES...) claimed
    /// or that had a platform reason (SERR, IOCHK). Claimed only while an NMI was asked of
    /// this CPU and not yet answered: one claim per request. Takes the interrupted stack
    /// into the CPU's live profile if the window it was sent for is still open. Never
    /// waits.
    pub(crate) fn nmi(&self, peers: &Peers, cpu: u32, ip: u64) -> bool {
        let Some(w) = self.get(cpu) else { return false };
        if w.nmi_pending.xchg(0, Full) == 0 {
            return false;
        }
        let t0 = ffi::now_ns_nmi();
        w.nmi_rtt.add(t0.saturating_sub(w.nmi_asked.load(Relaxed)));
        self.nmi_answered.add(1, Relaxed);
        let window = w.nmi_window.load(Relaxed);
        // This CPU's hrtimer has not run since: the window is still open.
        if peers.get(cpu).map_or(0, |p| p.last_hard_ns.load(Relaxed)) != window {
            self.nmi_stale.add(1, Relaxed);
            return true;
        }
        // The unwind starts at the interrupted registers: the culprit's frames only.
        let mut raw = [0u64; capture::INTERRUPTED_FRAMES];
        let frames = capture::capture_raw(&mut raw, ip, capture::Context::Interrupt, MAX_FRAMES);
        let mut comm = [0u8; COMM_LEN];
        let pid = ffi::current_task(&mut comm);
        let cgroup_id = ffi::current_cgroup_id();
        let now = ffi::now_ns_nmi();
        w.profile.sample(
            window,
            w.nmi_weight.load(Relaxed),
            frames,
            pid,
            &comm,
            cgroup_id,
            now,
        );
        if !ffi::nmi_interrupted_idle_wait() {
            w.awake.note(window, now);
        }
        if ffi::nmi_interrupted_hardirq() {
            w.handler.note(window, now);
        }
        w.nmi_cost.add(ffi::now_ns_nmi().saturating_sub(t0));
        true
    }

    /// On `cpu`'s own hrtimer, every run (hard interrupt context: NMIs are not blocked):
    /// settles a request of this CPU's whose NMI was taken without reaching our handler.
    /// That happens when another NMI_LOCAL handler claims the NMI ours came in (two NMIs
    /// that arrive while one is being handled are latched as one; AMD's perf handler
    /// claims every NMI for a while after its own) or when the kernel swallows ours as
    /// the second half of a back-to-back pair (`default_do_nmi`). Nothing in the NMI says
    /// so; but a sent NMI reaches a CPU that runs with NMIs unblocked within
    /// microseconds. So a request seen sent at one run and still pending at a later run
    /// [`LOST_AFTER_NS`] on (this CPU's clock, this CPU having run in between) cannot
    /// have its NMI still on the way: it is cleared and counted (`nmi_lost`). The common
    /// path: one load of this CPU's own request word.
    pub(crate) fn settle(&self, cpu: u32, seen: &mut PendingSeen, now: u64) {
        if !self.enabled {
            return;
        }
        let Some(w) = self.get(cpu) else { return };
        let p = w.nmi_pending.load(Relaxed);
        if p == 0 || p & SENDING != 0 {
            seen.stamp = 0;
            return;
        }
        if seen.stamp != p {
            // Seen sent for the first time: its send returned before this load.
            seen.stamp = p;
            seen.at = now;
            return;
        }
        if now.saturating_sub(seen.at) < LOST_AFTER_NS {
            return;
        }
        // Still the same request (each holds its own send time), so its NMI came and went.
        if w.nmi_pending.cmpxchg(p, 0, Relaxed).is_ok() {
            self.nmi_lost.add(1, Relaxed);
        }
        seen.stamp = 0;
    }

    /// Whether an NMI found `cpu` awake (outside the idle loop's wait,
    /// [`ffi::nmi_interrupted_idle_wait`]: in a hard interrupt handler, or in an IPI
    /// function that a polling idle loop ran itself) during `window` (its hrtimer run
    /// before it), at least half a period before the window ended at `end`: the CPU did not
    /// sleep through the window. An NMI that came later may have found the interrupt that
    /// the window's end let in (a task re-enabling interrupts takes the pending ones, an IPI
    /// first, before the hrtimer's), or the idle loop between its wake-up and our
    /// interrupt, which is no evidence about the window: seen on the sanitizer kernel,
    /// where an IPI of the clocksource watchdog waited for the end of a task's window and
    /// the one NMI of that window found it.
    pub(crate) fn saw_awake(&self, cpu: u32, window: u64, end: u64, period_ns: u64) -> bool {
        window != 0
            && self
                .get(cpu)
                .is_some_and(|w| w.awake.before(window, end, period_ns))
    }

    /// Whether an NMI found `cpu` inside a hard interrupt handler during `window`, at least
    /// half a period before the window ended at `end` ([`Watch::saw_awake`]): the window
    /// was that handler.
    pub(crate) fn saw_handler(&self, cpu: u32, window: u64, end: u64, period_ns: u64) -> bool {
        window != 0
            && self
                .get(cpu)
                .is_some_and(|w| w.handler.before(window, end, period_ns))
    }

    /// Bytes of a CPU's entry, as kmalloc rounds them (made at its first online).
    pub(crate) fn entry_bytes(&self) -> usize {
        crate::logic::sizes::kmalloc_bytes(core::mem::size_of::<Watched>())
    }

    /// Bytes of one entry of the index by CPU number.
    pub(crate) fn index_entry_bytes(&self) -> usize {
        self.cpus.index_entry_bytes()
    }
}
