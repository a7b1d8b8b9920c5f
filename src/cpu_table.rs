// SPDX-License-Identifier: GPL-2.0

//! Per-CPU entries made when a CPU first comes online, and kept until unload: memory
//! follows the CPUs that ran while the module was loaded, not the CPU numbers the kernel
//! can have (`nr_cpu_ids`: up to Debian's NR_CPUS of 8192 on machines that report that
//! many possible CPUs). What stays per possible CPU is the index: one [`SetOnce`] (16
//! bytes) each.

use kernel::prelude::*;
use kernel::sync::SetOnce;

/// An entry per CPU that came online, indexed by CPU number.
///
/// # Invariants
///
/// An entry, once made, stays until the table is dropped: references from
/// [`CpuTable::get`] live as long as the table.
pub(crate) struct CpuTable<T> {
    slots: VVec<SetOnce<T>>,
}

impl<T> CpuTable<T> {
    /// A table for CPU numbers below `nr_cpus`, without entries.
    pub(crate) fn new(nr_cpus: u32) -> Result<Self> {
        let mut slots = VVec::with_capacity(nr_cpus as usize, GFP_KERNEL)?;
        for _ in 0..nr_cpus {
            slots.push(SetOnce::new(), GFP_KERNEL)?;
        }
        Ok(Self { slots })
    }

    /// The entry of `cpu`, if it has one. Any context; never waits.
    pub(crate) fn get(&self, cpu: u32) -> Option<&T> {
        self.slots.get(cpu as usize)?.as_ref()
    }

    /// The entry of `cpu`, made by `make` if it has none yet. Process context; the callers
    /// for one CPU are serialised (the load, then CPU hotplug), so `make` runs at most
    /// once per CPU.
    pub(crate) fn get_or_make(&self, cpu: u32, make: impl FnOnce() -> Result<T>) -> Result<&T> {
        let slot = self.slots.get(cpu as usize).ok_or(EINVAL)?;
        if slot.as_ref().is_none() {
            // Callers are serialised: nothing populates it between the check and here.
            slot.populate(make()?);
        }
        slot.as_ref().ok_or(EINVAL)
    }

    /// The entries made, with their CPU numbers, in CPU order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (u32, &T)> {
        (0u32..)
            .zip(self.slots.iter())
            .filter_map(|(cpu, s)| Some((cpu, s.as_ref()?)))
    }

    /// The CPU numbers the table covers (`nr_cpu_ids`).
    pub(crate) fn nr(&self) -> u32 {
        u32::try_from(self.slots.len()).unwrap_or(u32::MAX)
    }

    /// Entries made.
    pub(crate) fn made(&self) -> usize {
        self.iter().count()
    }

    /// Bytes of one entry of the index (one per CPU number).
    pub(crate) fn index_entry_bytes(&self) -> usize {
        core::mem::size_of::<SetOnce<T>>()
    }
}
