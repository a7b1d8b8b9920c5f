// SPDX-License-Identifier: GPL-2.0
//! The watcher's NMIs: asking one of a CPU in an open window, the handler that takes
//! the stack it interrupted, the CPU's own hrtimer settling one that was lost, and what
//! NMIs found the CPU doing.

use kernel::sync::atomic::{Acquire, Full, Relaxed, Release};

use super::state::Watch;
use super::watched::Watched;
use crate::capture;
use crate::ffi::{self, COMM_LEN};
use crate::logic::gap::{Rules, NSEC_PER_MSEC};
use crate::logic::profile::{self, RemoteSettle};
use crate::peers::Peers;
use crate::records::{SampledTask, MAX_FRAMES};

/// At most this many doublings of the spacing between NMIs to a CPU whose NMIs came late:
/// then every 64th watcher run.
const MAX_SLOW: u32 = 6;

/// In [`Watched::nmi_pending`]: a request being sent, by the watcher whose CPU is in the
/// low bits (so that two senders never mistake each other's request for their own). A
/// sent request holds the time it was sent at, below this bit.
const SENDING: u64 = 1 << 63;

/// An NMI of ours reaches a CPU that runs with NMIs unblocked within microseconds of its
/// send (hardware, and hypervisors, which kick the target vCPU); a request still pending
/// after its CPU ran this long, in its own hrtimer, past the time it saw the request sent
/// is one whose NMI was taken by another handler or swallowed (see [`Watch::settle`]).
const LOST_AFTER_NS: u64 = NSEC_PER_MSEC;

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

impl Watch {
    /// The claimer's NMI for `t`, if one is due. One not answered within half a period is
    /// counted as missed (once) and makes the watcher trust that CPU less; it is never
    /// given up on (it may still come, and must find its claim), so no other is sent to
    /// that CPU before it is answered or its CPU settles it ([`Watch::settle`]).
    pub(super) fn ask(&self, w: &Watched, me: u32, t: u32, window: u64, now: u64, rules: &Rules) {
        // Acquire: a request seen here comes with the NMI count its sender read before it.
        let pending = w.nmi_pending.load(Acquire);
        if pending != 0 && pending & SENDING == 0 && self.settle_remote(w, t, pending, now) {
            return;
        }
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
                // Before the send: an NMI counted after this is ours or a later one.
                w.nmis_at_send
                    .store(ffi::nmi_count(t).unwrap_or(0), Relaxed);
                w.nmis_moved_at.store(0, Relaxed);
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
        let task = SampledTask {
            pid,
            comm: &comm,
            cgroup_id,
        };
        w.profile
            .sample(window, w.nmi_weight.load(Relaxed), frames, task, now);
        if !ffi::nmi_interrupted_idle_wait() {
            w.awake.note(window, now);
        }
        if ffi::nmi_interrupted_hardirq() {
            w.handler.note(window, now);
        }
        w.nmi_cost.add(ffi::now_ns_nmi().saturating_sub(t0));
        true
    }

    /// On `cpu`'s own hrtimer, at its watcher runs (every `watch_interval`; hard interrupt
    /// context: NMIs are not blocked):
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
    ///
    /// The common run, with no request pending, is inline; one with a request sent is
    /// [`Watch::settle_sent`].
    #[inline]
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
        self.settle_sent(w, p, seen, now);
    }

    /// [`Watch::settle`] where `w`'s request `p` was sent (as loaded).
    #[inline(never)]
    fn settle_sent(&self, w: &Watched, p: u64, seen: &mut PendingSeen, now: u64) {
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

    /// A watcher's settle of request `p` pending on `t` (sent, as loaded), whose own
    /// hrtimer may not run to settle it for the rest of a long window: once `t` has taken
    /// an NMI after the send and [`profile::LOST_REMOTE_NS`] more went by, ours was taken
    /// by another handler or swallowed (`profile::remote_settle`), and the request is
    /// cleared and counted as lost, so that a foreign NMI later in the window is reported
    /// unknown. Returns whether it cleared it. Out of line: only runs with a request
    /// pending come here.
    #[inline(never)]
    fn settle_remote(&self, w: &Watched, t: u32, p: u64, now: u64) -> bool {
        let Some(count) = ffi::nmi_count(t) else {
            return false;
        };
        let moved_at = w.nmis_moved_at.load(Relaxed);
        match profile::remote_settle(w.nmis_at_send.load(Relaxed), count, moved_at, now) {
            RemoteSettle::Wait => false,
            RemoteSettle::Moved => {
                w.nmis_moved_at.store(now.max(1), Relaxed);
                false
            }
            RemoteSettle::Lost => {
                w.nmis_moved_at.store(0, Relaxed);
                if w.nmi_pending.cmpxchg(p, 0, Relaxed).is_ok() {
                    self.nmi_lost.add(1, Relaxed);
                    return true;
                }
                false
            }
        }
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
}
