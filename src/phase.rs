// SPDX-License-Identifier: GPL-2.0

//! A switch (sampling, or a feature's own tracking) as its files show it. The writer that
//! turns it holds the switch's lock and may wait for every CPU meanwhile (hotplug and
//! kprobe (un)registration); readers never take that lock: they load the [`Phase`] the writer
//! publishes, so a reader never waits for a CPU with interrupts off.

use kernel::sync::atomic::{Atomic, Relaxed};

/// A switch as readers see it. Set only by the writer that holds the switch's lock, read
/// without it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Phase {
    Off,
    /// A writer is turning it on: waiting for every CPU.
    TurningOn,
    On,
    /// A writer is turning it off: waiting for every CPU.
    TurningOff,
}

impl Phase {
    /// In the order of their discriminants (`PhaseCell` stores those).
    const ALL: [Phase; 4] = [Phase::Off, Phase::TurningOn, Phase::On, Phase::TurningOff];

    /// As `enable`, and each feature's switch file, show it.
    pub(crate) const fn name(self) -> &'static str {
        match self {
            Phase::Off => "disabled",
            Phase::TurningOn => "enabling",
            Phase::On => "enabled",
            Phase::TurningOff => "disabling",
        }
    }

    /// Whether it is (still) on somewhere: on, or being turned off.
    pub(crate) const fn is_on(self) -> bool {
        matches!(self, Phase::On | Phase::TurningOff)
    }
}

/// A [`Phase`] readers load without a lock.
pub(crate) struct PhaseCell(Atomic<u32>);

impl PhaseCell {
    pub(crate) const fn new() -> Self {
        Self(Atomic::new(0))
    }

    pub(crate) fn get(&self) -> Phase {
        let i = self.0.load(Relaxed) as usize;
        Phase::ALL.get(i).copied().unwrap_or(Phase::Off)
    }

    /// Only by the holder of the switch's lock.
    pub(crate) fn set(&self, p: Phase) {
        self.0.store(p as u32, Relaxed);
    }
}
