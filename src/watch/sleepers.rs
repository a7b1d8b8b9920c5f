// SPDX-License-Identifier: GPL-2.0
//! The watchers of sleeping CPUs (`sampler::sleep`): a CPU whose hrtimer parks while it
//! sleeps cannot watch, so a CPU that wakes wakes one of its sleeping watchers, a CPU that
//! runs a task wakes them all, and a watcher stays awake while a CPU it watches is. And
//! the counts of the `sleep` line.

use kernel::sync::atomic::{Acquire, Relaxed};

use super::state::Watch;
use super::watched::NO_CPU;
use crate::ffi;
use crate::peers::Peers;

impl Watch {
    /// Whether one of the CPUs `me` watches is awake: sampled and not asleep in the idle
    /// loop. `me` then keeps its own hrtimer queued while it sleeps, to watch it
    /// (`sampler::sleep`). Two loads of each; any context.
    pub(crate) fn watches_awake(&self, peers: &Peers, me: u32) -> bool {
        if !self.enabled {
            return false;
        }
        let Some(w) = self.get(me) else { return false };
        w.ring.iter().any(|slot| {
            let c = slot.load(Relaxed);
            c != NO_CPU
                && c != me
                && peers.sampling(c)
                && peers.get(c).is_some_and(|p| !p.sleeping.load(Relaxed))
        })
    }

    /// From `me`'s hrtimer (hard interrupt context): if `me` runs a task (not the idle
    /// task, whose interrupts and softirqs on an idle CPU are short but for a window, in
    /// which this never runs), wakes those of its watchers that sleep with their hrtimers
    /// parked, so that one watches it while it is awake; a woken watcher does not park
    /// again while `me` is awake ([`Watch::watches_awake`]). O(1): one function call
    /// queued on each at most.
    pub(crate) fn wake_watchers(&self, peers: &Peers, me: u32) {
        if !self.enabled || ffi::in_idle() {
            return;
        }
        let Some(w) = self.get(me) else { return };
        for slot in &w.watchers {
            let c = slot.load(Relaxed);
            if c == NO_CPU || c == me {
                continue;
            }
            if peers
                .get(c)
                .is_some_and(|p| p.parked_since.load(Acquire) != 0)
            {
                ffi::wake_cpu(c);
                w.watcher_wakes.add(1, Relaxed);
            }
        }
    }

    /// From `me`'s wake-up from a sleep (an interrupt's entry, before its handler, or the
    /// idle loop; interrupts off) that is not its own hrtimer's: if every watcher of `me`
    /// sleeps with its hrtimer parked, the first is woken to watch it, marked as woken so
    /// (it wakes none of its own). O(1).
    pub(crate) fn wake_a_watcher(&self, peers: &Peers, me: u32) {
        if !self.enabled {
            return;
        }
        let Some(w) = self.get(me) else { return };
        let mut first = None;
        for slot in &w.watchers {
            let c = slot.load(Relaxed);
            if c == NO_CPU || c == me {
                continue;
            }
            let Some(p) = peers.get(c) else { continue };
            if p.parked_since.load(Acquire) == 0 {
                // Awake: it watches already.
                return;
            }
            first.get_or_insert((c, p));
        }
        if let Some((c, p)) = first {
            p.woken_to_watch.store(true, Relaxed);
            ffi::wake_cpu(c);
            w.watcher_wakes.add(1, Relaxed);
        }
    }

    /// The `sleep` line's sums over every CPU: parks, and sleeping watchers woken. Process
    /// context, O(CPUs).
    pub(crate) fn sleep_counts(&self) -> (u64, u64) {
        (0..self.cpus.nr())
            .filter_map(|c| self.get(c))
            .fold((0, 0), |(p, w), c| {
                (p + c.parks.load(Relaxed), w + c.watcher_wakes.load(Relaxed))
            })
    }

    /// `me` woke at `now` from a sleep with its hrtimer parked, `now` being its last run
    /// from here (on `me`, interrupts off, before it says it is awake).
    pub(crate) fn note_wake(&self, me: u32, now: u64) {
        if let Some(w) = self.get(me) {
            w.woke_at.store(now, Relaxed);
        }
    }

    /// `me`'s hrtimer parked (on `me`, interrupts off).
    pub(crate) fn count_park(&self, me: u32) {
        if let Some(w) = self.get(me) {
            w.parks.add(1, Relaxed);
        }
    }
}
