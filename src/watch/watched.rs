// SPDX-License-Identifier: GPL-2.0
//! One CPU as the watcher sees it: who claimed its open window, the NMI asked of it, the
//! samples of its window, what NMIs found it doing, the CPUs it watches.

use kernel::sync::atomic::{Atomic, Relaxed};

use super::stuck::StuckSlot;
use crate::cost::Cost;
use crate::logic::profile;
use crate::records::LiveProfile;

/// What NMIs found a CPU doing in a window: the last window in which one of them found it
/// so, and when the first such NMI of that window came. Written only by the NMI on that CPU.
pub(super) struct Sighting {
    pub(super) window: Atomic<u64>,
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
    pub(super) fn note(&self, window: u64, now: u64) {
        if self.window.load(Relaxed) != window {
            self.at.store(now, Relaxed);
            self.window.store(window, Relaxed);
        }
    }

    /// Whether an NMI found it during `window`, at least half a period before the window
    /// ended at `end`.
    pub(super) fn before(&self, window: u64, end: u64, period_ns: u64) -> bool {
        self.window.load(Relaxed) == window
            && end.saturating_sub(self.at.load(Relaxed)) >= period_ns / 2
    }
}

/// No CPU, in [`Watched::ring`].
pub(super) const NO_CPU: u32 = u32::MAX;

/// One CPU as watched by the others. Its claim and NMI fields are written only while the
/// CPU is overdue (by its watcher and by the NMI on it): nothing here is written on the
/// common path.
pub(crate) struct Watched {
    /// `profile::claim` word of its watcher, 0 before any.
    pub(super) claim: Atomic<u64>,
    /// When the watcher last ran on its claim.
    pub(super) owner_seen: Atomic<u64>,
    /// The NMI asked of this CPU and not yet answered: 0 when none, `SENDING | cpu` while
    /// the watcher on `cpu` sends it, then when it was sent. Set only by the one watcher
    /// whose compare-exchange from 0 won, which alone then sends; cleared by the NMI
    /// handler on this CPU when it claims an NMI (`Watch::nmi`), or by this CPU's own
    /// hrtimer once the NMI cannot be on its way any more (`Watch::settle`): never while
    /// one of ours may still arrive. Kept across disable and enable.
    pub(super) nmi_pending: Atomic<u64>,
    /// When the watcher asked for the pending NMI (its run's time): the round trip.
    pub(super) nmi_asked: Atomic<u64>,
    /// The last NMI sent (its `nmi_pending` stamp), and the last one found late (not
    /// answered within half a period).
    pub(super) last_sent: Atomic<u64>,
    pub(super) late_of: Atomic<u64>,
    /// This CPU's NMI count (`ffi::nmi_count`) before the pending request was sent, and
    /// when a watcher first saw it moved since (0: not yet): `profile::remote_settle`.
    pub(super) nmis_at_send: Atomic<u64>,
    pub(super) nmis_moved_at: Atomic<u64>,
    /// How much less the watcher trusts this CPU's NMIs: it asks at most every 2^slow
    /// runs. One more for each NMI that came late, one less for each on time.
    pub(super) slow: Atomic<u32>,
    /// The window it was sent for, and its sample's weight.
    pub(super) nmi_window: Atomic<u64>,
    pub(super) nmi_weight: Atomic<u32>,
    /// NMIs sent in the claimed window, and watcher runs since the last one.
    pub(super) sent: Atomic<u32>,
    pub(super) since: Atomic<u32>,
    /// The last windows announced on the tracepoint: at the threshold, at the stuck length.
    pub(super) announced: Atomic<u64>,
    pub(super) stuck: Atomic<u64>,
    /// The stuck line the watcher posted for the namer to log.
    pub(super) stuck_line: StuckSlot,
    /// The in-window samples of its open hardirq-off window (written by the NMI on it).
    pub(crate) profile: LiveProfile,
    /// An NMI that found this CPU inside a hard interrupt handler.
    pub(super) handler: Sighting,
    /// An NMI that found this CPU awake (anywhere but the idle loop's wait: running the
    /// window's culprit, in a task, a handler or an IPI function run from the idle loop).
    pub(super) awake: Sighting,
    /// The last window counted as stuck without an NMI that found this CPU awake.
    pub(super) unconfirmed: Atomic<u64>,
    /// The CPUs this one watches (`NO_CPU`: none), worked out in process context by
    /// `Watch::ring_changed`; its hrtimer copies them when the ring version moved.
    pub(super) ring: [Atomic<u32>; 2],
    /// The CPUs that watch this one (those whose `ring` holds it; `NO_CPU`: none), worked
    /// out with the rings: this CPU wakes those that sleep with their hrtimers parked.
    pub(super) watchers: [Atomic<u32>; 2],
    /// Sleeping watchers this CPU woke to watch it, and how often its own hrtimer parked
    /// while it slept (the `sleep` line). Written by its own CPU only.
    pub(super) watcher_wakes: Atomic<u64>,
    pub(super) parks: Atomic<u64>,
    /// When this CPU last woke from a sleep with its hrtimer parked (its `last_hard_ns`
    /// then): while its last run is that wake-up, interrupts were on up to it, so an open
    /// window there is counted from it, not from a period after it. Written by its own CPU.
    pub(super) woke_at: Atomic<u64>,
    /// Time spent in the NMI handler on this CPU for samples.
    pub(crate) nmi_cost: Cost,
    /// From sending an NMI to this CPU to its handler running here.
    pub(crate) nmi_rtt: Cost,
}

impl Watched {
    pub(super) fn new() -> Self {
        Self {
            claim: Atomic::new(0),
            owner_seen: Atomic::new(0),
            nmi_pending: Atomic::new(0),
            nmi_asked: Atomic::new(0),
            last_sent: Atomic::new(0),
            late_of: Atomic::new(0),
            nmis_at_send: Atomic::new(0),
            nmis_moved_at: Atomic::new(0),
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
            watchers: [const { Atomic::new(NO_CPU) }; 2],
            watcher_wakes: Atomic::new(0),
            parks: Atomic::new(0),
            woke_at: Atomic::new(0),
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
