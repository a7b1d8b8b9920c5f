// SPDX-License-Identifier: GPL-2.0

//! blk-mq tag starvation: counters of submitters that had to sleep for a tag, per device x
//! hardware queue x pool, and a log2 histogram of how long they slept, fed by the hooks in
//! `tag_wait_hooks.c` (the upstream block:block_rq_tag_wait tracepoint, or a kprobe shim on
//! kernels without it). Every wait also fires trace_irqoff:block_rq_tag_wait. Tracking has
//! its own switch and costs nothing while off: no hook is registered.

use kernel::new_mutex;
use kernel::prelude::*;
use kernel::sync::atomic::{Atomic, Relaxed};
use kernel::sync::Mutex;

use crate::counts::Counts;
use crate::histogram::log2_bucket;
use crate::ffi::{self, TagSource};
use crate::tag_key::{home_slot, Pool, TagKey};

/// Distinct (device, hctx, pool) triples counted; more go to `overflow`.
const SLOTS: usize = 256;
/// Waits timed at once; more are counted in `missed`.
const PENDING: usize = 128;

/// A wait being timed: the address of its on-stack `struct sbq_wait` (0: free) and when
/// it began.
struct Pending {
    wait: Atomic<u64>,
    start_ns: Atomic<u64>,
}

/// One counter: its key (0 while free) and its count.
struct Slot {
    key: Atomic<u64>,
    waits: Atomic<u64>,
}

#[pin_data]
pub(crate) struct TagWait {
    /// Chosen at load time.
    pub(crate) source: TagSource,
    /// The registered hooks while tracking is on.
    #[pin]
    hooks: Mutex<Option<ffi::TagWaitHooks>>,
    slots: KVec<Slot>,
    /// Waits whose key found no free slot.
    pub(crate) overflow: Atomic<u64>,
    /// Waits the kprobe shim could not attribute to a hardware queue.
    pub(crate) unattributed: Atomic<u64>,
    pending: KVec<Pending>,
    /// Waits not timed because too many were being timed at once.
    pub(crate) missed: Atomic<u64>,
    /// How long submitters slept for a tag, log2 buckets of µs.
    pub(crate) durations: Counts,
}

/// A counter as read back.
pub(crate) struct Row {
    pub(crate) key: TagKey,
    pub(crate) waits: u64,
}

impl TagWait {
    pub(crate) fn new(source: TagSource) -> Result<impl PinInit<Self, Error>> {
        let mut slots = KVec::with_capacity(SLOTS, GFP_KERNEL)?;
        for _ in 0..SLOTS {
            slots.push(Slot { key: Atomic::new(0), waits: Atomic::new(0) }, GFP_KERNEL)?;
        }
        let mut pending = KVec::with_capacity(PENDING, GFP_KERNEL)?;
        for _ in 0..PENDING {
            pending.push(Pending { wait: Atomic::new(0), start_ns: Atomic::new(0) }, GFP_KERNEL)?;
        }
        Ok(try_pin_init!(Self {
            source,
            pending,
            missed: Atomic::new(0),
            hooks <- new_mutex!(None),
            slots,
            overflow: Atomic::new(0),
            unattributed: Atomic::new(0),
            durations: Counts::new(),
        }? Error))
    }

    /// Bytes of the counter and timing tables.
    pub(crate) fn allocated_bytes(&self) -> usize {
        self.slots.capacity() * core::mem::size_of::<Slot>() + self.pending.capacity() * core::mem::size_of::<Pending>()
    }

    pub(crate) fn is_enabled(&self) -> bool {
        self.hooks.lock().is_some()
    }

    /// Switches tracking on or off; EOPNOTSUPP when no source is available.
    pub(crate) fn set_enabled(&self, on: bool) -> Result {
        let mut hooks = self.hooks.lock();
        match (on, hooks.is_some()) {
            (true, false) => {
                // Waits begun under an earlier registration never end here.
                for p in self.pending.iter() {
                    p.wait.store(0, Relaxed);
                }
                *hooks = Some(ffi::TagWaitHooks::register(self.source)?);
            }
            (false, true) => *hooks = None,
            _ => {}
        }
        Ok(())
    }

    /// A submitter is about to sleep for a tag (hook context: no sleeping, no locks).
    pub(crate) fn wait(&self, key: TagKey, nr_tags: u32) {
        crate::tracepoints::block_rq_tag_wait(key.dev, key.hctx, nr_tags, key.pool.sched, key.pool.reserved);
        let packed = key.pack();
        for slot in probe(&self.slots, packed) {
            let mut k = slot.key.load(Relaxed);
            if k == 0 {
                // Claim the free slot; a racing waiter may have claimed it for the same key.
                k = match slot.key.cmpxchg(0, packed, Relaxed) {
                    Ok(_) => packed,
                    Err(current) => current,
                };
            }
            if k == packed {
                slot.waits.add(1, Relaxed);
                return;
            }
        }
        self.overflow.add(1, Relaxed);
    }

    /// A wait identified by `wait` begins (hook context).
    pub(crate) fn start(&self, wait: u64, now_ns: u64) {
        for p in probe(&self.pending, wait) {
            if p.wait.cmpxchg(0, wait, Relaxed).is_ok() {
                p.start_ns.store(now_ns, Relaxed);
                return;
            }
        }
        self.missed.add(1, Relaxed);
    }

    /// The wait identified by `wait` ends (hook context): its duration is counted.
    pub(crate) fn end(&self, wait: u64, now_ns: u64) {
        for p in probe(&self.pending, wait) {
            if p.wait.load(Relaxed) == wait {
                let start = p.start_ns.load(Relaxed);
                p.wait.store(0, Relaxed);
                let us = now_ns.saturating_sub(start) / 1000;
                self.durations.add_value(log2_bucket(us), us);
                return;
            }
        }
    }

    /// Calls `f` for each counter with waits, in slot order.
    pub(crate) fn for_each(&self, mut f: impl FnMut(Row)) {
        for slot in self.slots.iter() {
            let k = slot.key.load(Relaxed);
            let waits = slot.waits.load(Relaxed);
            if k != 0 && waits != 0 {
                f(Row { key: TagKey::unpack(k), waits });
            }
        }
    }

    /// Zeroes every count (keys stay: a racing wait is then still counted in its row).
    pub(crate) fn clear(&self) {
        for slot in self.slots.iter() {
            slot.waits.store(0, Relaxed);
        }
        self.overflow.store(0, Relaxed);
        self.unattributed.store(0, Relaxed);
        self.missed.store(0, Relaxed);
        self.durations.clear();
    }
}

/// The slots of `table` in the order a key looks for its slot: from its home slot on,
/// wrapping around (linear probing).
fn probe<T>(table: &[T], key: u64) -> impl Iterator<Item = &T> {
    let home = home_slot(key, table.len().max(1));
    let (before, after) = table.split_at(home.min(table.len()));
    Iterator::chain(after.iter(), before.iter())
}

/// `Pool` from the hook's flags.
pub(crate) fn pool(is_sched: bool, is_reserved: bool) -> Pool {
    Pool { sched: is_sched, reserved: is_reserved }
}
