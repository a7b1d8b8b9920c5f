// SPDX-License-Identifier: GPL-2.0
//! The watcher's state: an entry per CPU, whether NMIs are used (and why not), and what
//! the watcher counted; and an open window as it sees one.

use kernel::prelude::*;
use kernel::sync::atomic::{Atomic, Relaxed};

use super::watched::Watched;
use crate::cpu_table::CpuTable;
use crate::ffi;

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
    pub(super) cpus: CpuTable<KBox<Watched>>,
    /// The watcher runs at all (module parameter `watch`).
    pub(crate) enabled: bool,
    /// 0, or why NMIs are not used (`Unavailable`).
    pub(super) reason: Atomic<u32>,
    /// The NMI handler is registered (sampling enabled, the feature available).
    pub(super) active: Atomic<bool>,
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
    pub(super) ring_version: Atomic<u64>,
    /// Every CPU's sampler is being started or stopped ([`Watch::switch_all`]): the rings
    /// are worked out once at the end, not per CPU.
    pub(super) switching_all: Atomic<bool>,
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

    pub(super) fn nmi_usable(&self) -> bool {
        self.active.load(Relaxed) && self.reason.load(Relaxed) == 0
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
