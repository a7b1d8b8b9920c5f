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
//!
//! A CPU that sleeps with its hrtimer parked (`sampler::sleep`) is not watched (nothing
//! runs there) and does not watch: `sleepers` wakes a sleeping watcher for a CPU that is
//! awake.
//!
//! Its parts: `state` (the [`Watch`] and its entry per CPU, `watched`), `rings` (which
//! CPUs each one watches, and which watch it), `sleepers` (the watchers of sleeping CPUs),
//! `nmi` (asking for NMIs and taking them), `stuck` (the stuck line, from the watcher to
//! the namer). The watcher's run, its claim and its
//! announcements are here.

use kernel::prelude::*;
use kernel::sync::atomic::{Acquire, Full, Relaxed};
use kernel::time::{delay::fsleep, Delta};

use crate::ffi::tracepoints;
use crate::ffi::{self, Symbol, COMM_LEN};
use crate::logic::gap::{Rules, NSEC_PER_MSEC};
use crate::logic::profile::{self, ClaimStep, Stuck};
use crate::peers::Peers;
use crate::records::comm_str;

mod nmi;
mod rings;
mod sleepers;
mod state;
mod stuck;
mod watched;

pub(crate) use nmi::PendingSeen;
pub(crate) use rings::Ring;
pub(crate) use state::{Ongoing, Unavailable, Watch};
use stuck::StuckLine;
pub(crate) use watched::Watched;
use watched::NO_CPU;

/// NMIs sent into a window without a sample coming back, after which the window is
/// announced without its task (it may be in a CPU whose NMIs come late).
const ANNOUNCE_WITHOUT_SAMPLE: u32 = 3;

/// Longest wait at unload for NMIs still on their way (see [`Watch::drain`]).
const DRAIN_MS: u32 = 10_000;

/// How long a CPU whose hrtimer last ran at `last` has been overdue at `now`: the time
/// past its next expiry, on a machine a host can stop without the part in which no
/// sampled CPU ran (maybe a stall of the whole machine, not yet judged: the hardirq side
/// decides when the CPU is back, with its evidence, `stall::Evidence`; this length only
/// paces the watcher's NMIs and its announcements of a window still open). On bare metal
/// nothing is taken out, as on the hardirq side. The stall lookup only when the plain
/// length could be one, so the common look costs nothing more.
fn open_length(peers: &Peers, last: u64, now: u64, rules: &Rules) -> u64 {
    let length_ns = now.saturating_sub(last).saturating_sub(rules.period_ns);
    if length_ns < rules.threshold_ns / 4 || !peers.vm() {
        return length_ns;
    }
    length_ns.saturating_sub(peers.silent_ns(last, now))
}

impl Watch {
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

    /// The open hardirq-off window of `cpu` at `now`, if its hrtimer is overdue past the
    /// threshold.
    pub(crate) fn ongoing(
        &self,
        peers: &Peers,
        cpu: u32,
        now: u64,
        rules: &Rules,
    ) -> Option<Ongoing> {
        let peer = peers.get(cpu)?;
        // Asleep with its hrtimer parked: no window is open there.
        if peer.parked_since.load(Acquire) != 0 {
            return None;
        }
        let last = peer.last_hard_ns.load(Relaxed);
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
            // Asleep, its hrtimer parked: nothing runs there to hold interrupts off (its
            // first interrupt wakes it, and its last run is set then, before this clears).
            if peer.parked_since.load(Acquire) != 0 {
                continue;
            }
            let last = peer.last_hard_ns.load(Relaxed);
            if last == 0 {
                // Stopped: going offline, maybe not yet out of the online mask when the
                // ring was worked out. Work it out again at the next look.
                ring.version = 0;
                continue;
            }
            let mut length_ns = open_length(peers, last, now, rules);
            // Its last run is a wake-up from a parked sleep: interrupts were on up to it
            // (it slept), so the window open since is as long as the time since, not a
            // period less (a handler that holds them off from the wake-up's entry).
            if self.get(t).is_some_and(|w| w.woke_at.load(Relaxed) == last) {
                length_ns = length_ns.saturating_add(rules.period_ns);
            }
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
            Stuck::Log => self.log_stuck(
                w,
                t,
                o,
                StuckLine {
                    ms: o.length_ns / NSEC_PER_MSEC,
                    pid,
                    comm,
                    top,
                    module,
                },
            ),
        }
    }

    /// The stuck tracepoint for `t`'s window `o`, once, and its log line, which the namer
    /// writes in process context: naming a module frame walks the module's symbol table,
    /// never done here in hard interrupt context. `line`: the task and frames the watcher's
    /// last sample found in it.
    fn log_stuck(&self, w: &Watched, t: u32, o: Ongoing, line: StuckLine) {
        w.stuck.store(o.window, Relaxed);
        tracepoints::irqoff_ongoing(t, o.length_ns, line.pid, &line.comm, true);
        if w.stuck_line.post(&line) {
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
}
