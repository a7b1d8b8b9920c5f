// SPDX-License-Identifier: GPL-2.0
//! Which CPUs each CPU watches: its next one or two sampling CPUs in a ring, worked out
//! in process context whenever a sampler starts or stops, and copied by each hrtimer; and
//! which CPUs watch each (its watchers, for `sleepers`).

use kernel::sync::atomic::{Relaxed, Release};

use super::state::Watch;
use super::watched::NO_CPU;
use crate::ffi;
use crate::logic::profile;
use crate::peers::Peers;

/// The CPUs one CPU watches, as its hrtimer last worked them out, and the
/// [`Watch::ring_version`] it did so at (0: never). Owned by that hrtimer.
pub(crate) struct Ring {
    pub(super) version: u64,
    pub(super) watched: [Option<u32>; 2],
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
        let nr = self.cpus.nr();
        profile::rings(nr, |c| peers.sampling(c), |c, ring| self.set_ring(c, ring));
        // The watchers of each: the rings of the mirrored ring (a CPU watches its next one
        // or two sampling CPUs, so it is watched by its previous one or two).
        profile::rings(
            nr,
            |c| peers.sampling(mirror(nr, c)),
            |c, ring| self.set_mirrored_watchers(nr, c, ring),
        );
        self.ring_version_bump();
        r
    }

    /// Sets the watchers of the CPU that is `c` in the mirrored ring, from `ring`, its ring
    /// there (mirrored CPU numbers too).
    fn set_mirrored_watchers(&self, nr: u32, c: u32, ring: [Option<u32>; 2]) {
        self.set_watchers(mirror(nr, c), ring.map(|o| o.map(|x| mirror(nr, x))));
    }

    fn set_watchers(&self, cpu: u32, watchers: [Option<u32>; 2]) {
        if let Some(w) = self.get(cpu) {
            for (slot, c) in w.watchers.iter().zip(watchers) {
                slot.store(c.unwrap_or(NO_CPU), Relaxed);
            }
        }
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
        profile::rings_around(
            nr,
            mirror(nr, cpu),
            |c| peers.sampling(mirror(nr, c)),
            |c, ring| self.set_mirrored_watchers(nr, c, ring),
        );
        self.ring_version_bump();
    }
}

/// CPU `c` of a ring of `nr` counted the other way round (an involution).
fn mirror(nr: u32, c: u32) -> u32 {
    nr.saturating_sub(1).saturating_sub(c)
}
