// SPDX-License-Identifier: GPL-2.0

//! The namer: names the frames of records that are in code that can be unloaded
//! (modules), in process context, soon after the capture and before the module goes.
//!
//! Naming an address in a module (`%pS`) walks that module's whole symbol table: for a
//! driver with tens of thousands of symbols, a millisecond or more per frame under
//! emulation. The samplers capture in hard interrupt context, where that cost would be
//! the tool's own irq-off window, growing with a module the tool does not control. So a
//! capture saves addresses only and kicks the namer ([`crate::ffi::namer_kick`]: an unbound
//! work item); the namer writes the names into the record's name area
//! ([`RecordStore::name_records`]). A module notifier runs the namer when a module goes
//! (`MODULE_STATE_GOING`: after its exit function, while its symbols are still there), so
//! every record captured in a module's code is named before its names are gone, and keeps
//! them after `rmmod`.
//!
//! The namer names the core-kernel frames of a record too, as far as its name area has
//! room after the module frames, so that reads need not look them up again; those left
//! out are named when read (core-kernel text never goes).

use kernel::new_mutex;
use kernel::prelude::*;
use kernel::sync::atomic::{Atomic, Relaxed};
use kernel::sync::Mutex;

use crate::ffi;
use crate::records::{NameJob, RecordStore};

/// The name of a frame (`func+0x1f/0x80 [module]`), written into `buf`; its length.
fn format(addr: u64, buf: &mut [u8]) -> usize {
    ffi::format_symbol(buf, addr)
}

/// The namer's buffer and what it did (shown in `records`).
#[pin_data]
pub(crate) struct Namer {
    /// The buffer a pass works in; its lock makes one pass at a time.
    #[pin]
    job: Mutex<KBox<NameJob>>,
    passes: Atomic<u64>,
    named: Atomic<u64>,
    /// The longest a record waited for its names, from the end of its window, and the
    /// sum of those waits.
    max_wait_ns: Atomic<u64>,
    wait_sum_ns: Atomic<u64>,
}

/// What [`Namer::stats`] reports.
pub(crate) struct NamerStats {
    pub(crate) passes: u64,
    pub(crate) named: u64,
    pub(crate) max_wait_ns: u64,
    pub(crate) wait_sum_ns: u64,
}

impl Namer {
    pub(crate) fn new() -> Result<impl PinInit<Self, Error>> {
        let job = KBox::new(NameJob::new(), GFP_KERNEL)?;
        Ok(try_pin_init!(Self {
            job <- new_mutex!(job),
            passes: Atomic::new(0),
            named: Atomic::new(0),
            max_wait_ns: Atomic::new(0),
            wait_sum_ns: Atomic::new(0),
        }? Error))
    }

    /// Bytes it allocated (its buffer).
    pub(crate) fn allocated_bytes(&self) -> usize {
        crate::logic::sizes::kmalloc_bytes(core::mem::size_of::<NameJob>())
    }

    /// One pass over `stores`: names every record written with frames in module text since
    /// the last pass. Process context; a pass waits for one running.
    pub(crate) fn run<'a>(&self, stores: impl Iterator<Item = &'a RecordStore>, generation: u64) {
        let mut job = self.job.lock();
        let (mut named, mut max, mut sum) = (0, 0, 0);
        for store in stores {
            let w = store.name_records(
                generation,
                &mut job,
                &ffi::text_can_vanish,
                &mut format,
                ffi::now_ns,
            );
            named += w.named;
            max = max.max(w.max_ns);
            sum += w.sum_ns;
        }
        self.passes.add(1, Relaxed);
        self.named.add(named, Relaxed);
        self.wait_sum_ns.add(sum, Relaxed);
        if max > self.max_wait_ns.load(Relaxed) {
            self.max_wait_ns.store(max, Relaxed);
        }
    }

    pub(crate) fn stats(&self) -> NamerStats {
        NamerStats {
            passes: self.passes.load(Relaxed),
            named: self.named.load(Relaxed),
            max_wait_ns: self.max_wait_ns.load(Relaxed),
            wait_sum_ns: self.wait_sum_ns.load(Relaxed),
        }
    }
}
