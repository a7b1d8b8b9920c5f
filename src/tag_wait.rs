// SPDX-License-Identifier: GPL-2.0

//! blk-mq tag starvation: counters of submitters that had to sleep for a tag, per device x
//! hardware queue x pool, and a log2 histogram of how long they slept, fed by the hooks in
//! `tag_wait/hooks.c` (the upstream block:block_rq_tag_wait tracepoint, or a kprobe shim on
//! kernels without it). Every wait also fires trace_irqoff:block_rq_tag_wait. Tracking has
//! its own switch and costs nothing while off: no hook is registered. Unrelated to irq-off
//! detection: nothing of the sampler reads it, and nothing here reads the sampler.
//!
//! This file holds the tables and what the hooks do to them; in `tag_wait/`:
//! - [`hooks`]: the sources (`hooks.c`, and `hooks.h`, the feature's part of the C/Rust
//!   boundary), the tracepoint (`trace.c`, `trace.h`), and what the C hooks hand over,
//!   reduced to calls on [`TagWait`];
//! - [`key`]: the counters' keys, pure logic (`core` only), host-tested by
//!   `tools/tio-logic`;
//! - [`switch`]: the source chosen at load, and tracking switched on and off;
//! - [`file`]: the `tag_wait` file and the tag-wait lines of `records` and `counters`.
//!
//! The module wires it in at its edges only: `State` holds a [`TagWait`] (cleared with the
//! counts, sized with the module), `entry.rs` forwards the C hooks' calls, `procfs`
//! registers the `tag_wait` file and places [`file`]'s lines, and `trace_irqoff_main.rs`
//! takes the `tag_wait_kprobe` parameter (`logic::params`) and picks the source.

mod file;
mod hooks;
pub(crate) mod key;
mod switch;

pub(crate) use hooks::{raw, TagSource};
pub(crate) use switch::choose_source;

use kernel::new_mutex;
use kernel::prelude::*;
use kernel::sync::atomic::{Atomic, Relaxed};
use kernel::sync::Mutex;

use crate::counts::Counts;
use crate::ffi;
use crate::logic::histogram::log2_bucket;
use crate::phase::PhaseCell;
use key::{home_slot, Pool, TagKey, PROBE_LIMIT};

/// Distinct (device, hctx, pool) triples counted at once; a key that finds the
/// `PROBE_LIMIT` slots in its reach taken by counters that still count goes to
/// `overflow`; one that finds an aged counter (`key::aged`) takes its slot.
const SLOTS: usize = 256;
/// Waits timed at once; more are counted in `missed`.
const PENDING: usize = 128;
/// Tasks between a kick and its finish_wait at once (kprobe source); a task that finds no
/// free entry has its wait counted in `unattributed`.
const CALLERS: usize = 256;
/// `enum tio_tag_pool`: index of a pool in a kick's copy.
const POOLS: usize = hooks::raw::TIO_TAG_POOLS as usize;

/// What the kick hook copied for one task while its hctx was valid (kprobe source). Only
/// integers: a stale entry can misattribute at worst, never reach freed memory. Written
/// and read by the owning task only, once it has claimed `task`.
struct Caller {
    /// Address of the owning `task_struct`, 0 while free (compared, never dereferenced).
    task: Atomic<u64>,
    dev: Atomic<u32>,
    hctx: Atomic<u32>,
    /// Addresses of the hctx's `sbitmap_queue`s by pool (0: none), and their depths.
    pools: [Atomic<u64>; POOLS],
    nr_tags: [Atomic<u32>; POOLS],
}

/// A kick as the hook copied it.
struct Kick {
    task: u64,
    dev: u32,
    hctx: u32,
    pools: [u64; POOLS],
    nr_tags: [u32; POOLS],
}

/// `Pool` of index `i` of `enum tio_tag_pool`.
fn pool_of(i: usize) -> Pool {
    Pool {
        sched: i >= 2,
        reserved: i % 2 == 1,
    }
}

/// A wait being timed: the address of its on-stack `struct sbq_wait` (0: free) and when
/// it began.
struct Pending {
    wait: Atomic<u64>,
    start_ns: Atomic<u64>,
}

/// One counter: its key (0 while free), its count, and when it last counted.
struct Slot {
    key: Atomic<u64>,
    waits: Atomic<u64>,
    last_ns: Atomic<u64>,
}

#[pin_data]
pub(crate) struct TagWait {
    /// Chosen at load time.
    pub(crate) source: TagSource,
    /// The registered hooks while tracking is on.
    #[pin]
    hooks: Mutex<Option<hooks::Registered>>,
    /// Tracking on or off, as readers see it (set under `hooks`).
    phase: PhaseCell,
    slots: VVec<Slot>,
    /// Waits whose key found no free slot.
    pub(crate) overflow: Atomic<u64>,
    /// Waits the kprobe shim could not attribute to a hardware queue.
    pub(crate) unattributed: Atomic<u64>,
    /// Of those, kicks not kept because every entry in reach held another task's.
    pub(crate) callers_full: Atomic<u64>,
    /// Waits of counters that gave their slot to a new key (aged, `key::aged`).
    pub(crate) aged_out: Atomic<u64>,
    pending: VVec<Pending>,
    /// Kprobe source: each waiting task's kick, until its finish_wait.
    callers: VVec<Caller>,
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
        let mut slots = VVec::with_capacity(SLOTS, GFP_KERNEL)?;
        for _ in 0..SLOTS {
            slots.push(
                Slot {
                    key: Atomic::new(0),
                    waits: Atomic::new(0),
                    last_ns: Atomic::new(0),
                },
                GFP_KERNEL,
            )?;
        }
        let mut pending = VVec::with_capacity(PENDING, GFP_KERNEL)?;
        for _ in 0..PENDING {
            pending.push(
                Pending {
                    wait: Atomic::new(0),
                    start_ns: Atomic::new(0),
                },
                GFP_KERNEL,
            )?;
        }
        let mut callers = VVec::with_capacity(CALLERS, GFP_KERNEL)?;
        for _ in 0..CALLERS {
            callers.push(
                Caller {
                    task: Atomic::new(0),
                    dev: Atomic::new(0),
                    hctx: Atomic::new(0),
                    pools: [const { Atomic::new(0) }; POOLS],
                    nr_tags: [const { Atomic::new(0) }; POOLS],
                },
                GFP_KERNEL,
            )?;
        }
        Ok(try_pin_init!(Self {
            source,
            pending,
            callers,
            missed: Atomic::new(0),
            hooks <- new_mutex!(None),
            phase: PhaseCell::new(),
            slots,
            overflow: Atomic::new(0),
            unattributed: Atomic::new(0),
            callers_full: Atomic::new(0),
            aged_out: Atomic::new(0),
            durations: Counts::new(),
        }? Error))
    }

    /// Bytes of the counter and timing tables.
    pub(crate) fn allocated_bytes(&self) -> usize {
        use crate::logic::sizes::vmalloc_bytes;
        vmalloc_bytes(self.slots.capacity() * core::mem::size_of::<Slot>())
            + vmalloc_bytes(self.pending.capacity() * core::mem::size_of::<Pending>())
            + vmalloc_bytes(self.callers.capacity() * core::mem::size_of::<Caller>())
    }

    /// A submitter is about to sleep for a tag (hook context: no sleeping, no locks). At
    /// most `PROBE_LIMIT` slots are looked at.
    pub(crate) fn wait(&self, key: TagKey, nr_tags: u32) {
        hooks::block_rq_tag_wait(
            key.dev,
            key.hctx,
            nr_tags,
            key.pool.sched,
            key.pool.reserved,
        );
        // The hooks run in kprobe context (int3, NMI-like): a clock that never waits.
        self.count(key, ffi::now_ns_nmi());
    }

    /// Counts a wait of `key` at `now`: its counter, a free slot, or an aged one.
    fn count(&self, key: TagKey, now: u64) {
        let packed = key.pack();
        let mut oldest: Option<&Slot> = None;
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
                slot.last_ns.store(now, Relaxed);
                return;
            }
            if oldest.is_none_or(|o| slot.last_ns.load(Relaxed) < o.last_ns.load(Relaxed)) {
                oldest = Some(slot);
            }
        }
        // Every slot in reach taken: the counter that has not counted for longest gives its
        // slot away if it is aged (one CAS decides between racing takers).
        if let Some(slot) = oldest.filter(|s| key::aged(s.last_ns.load(Relaxed), now)) {
            let old = slot.key.load(Relaxed);
            if old != 0 && slot.key.cmpxchg(old, packed, Relaxed).is_ok() {
                self.aged_out.add(slot.waits.xchg(1, Relaxed), Relaxed);
                slot.last_ns.store(now, Relaxed);
                return;
            }
        }
        self.overflow.add(1, Relaxed);
    }

    /// The entry of `task`, if it has one.
    fn caller(&self, task: u64) -> Option<&Caller> {
        probe(&self.callers, task).find(|c| c.task.load(Relaxed) == task)
    }

    /// Kprobe source: `kick.task` kicked a hardware queue in blk_mq_get_tag; keeps the copy
    /// until the task's finish_wait (hook context). Replaces the task's previous kick.
    fn kick(&self, kick: &Kick) {
        if kick.task == 0 {
            return;
        }
        let entry = self.caller(kick.task).or_else(|| {
            // Only this task claims entries for its own address: no duplicate can appear. A
            // compare-and-swap only on an entry seen free: the others are only read.
            probe(&self.callers, kick.task).find(|c| {
                c.task.load(Relaxed) == 0 && c.task.cmpxchg(0, kick.task, Relaxed).is_ok()
            })
        });
        // No free entry in reach: the wait will be counted as unattributed.
        let Some(c) = entry else {
            self.callers_full.add(1, Relaxed);
            return;
        };
        c.dev.store(kick.dev, Relaxed);
        c.hctx.store(kick.hctx, Relaxed);
        for i in 0..POOLS {
            c.pools[i].store(kick.pools[i], Relaxed);
            c.nr_tags[i].store(kick.nr_tags[i], Relaxed);
        }
    }

    /// Kprobe source: `task` is about to sleep on the pool whose `sbitmap_queue` is at `bt`
    /// (hook context). Counted on its kick's hardware queue if that kick has this pool.
    pub(crate) fn prepare(&self, task: u64, bt: u64) {
        let found = self.caller(task).and_then(|c| {
            let i = (0..POOLS).find(|&i| bt != 0 && c.pools[i].load(Relaxed) == bt)?;
            let key = TagKey {
                dev: c.dev.load(Relaxed),
                hctx: c.hctx.load(Relaxed),
                pool: pool_of(i),
            };
            Some((key, c.nr_tags[i].load(Relaxed)))
        });
        match found {
            Some((key, nr)) => self.wait(key, nr),
            None => {
                self.unattributed.add(1, Relaxed);
            }
        }
    }

    /// Kprobe source: `task` passed a finish_wait in blk_mq_get_tag: its kick is dropped.
    pub(crate) fn done(&self, task: u64) {
        if let Some(c) = self.caller(task) {
            c.task.store(0, Relaxed);
        }
    }

    /// Entries held by tasks between a kick and its finish_wait.
    pub(crate) fn callers_held(&self) -> usize {
        self.callers
            .iter()
            .filter(|c| c.task.load(Relaxed) != 0)
            .count()
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
                f(Row {
                    key: TagKey::unpack(k),
                    waits,
                });
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
        self.callers_full.store(0, Relaxed);
        self.aged_out.store(0, Relaxed);
        self.missed.store(0, Relaxed);
        self.durations.clear();
    }
}

/// The slots of `table` a key may use, in the order it looks for its slot: from its home
/// slot on, wrapping around (linear probing), at most `PROBE_LIMIT` of them.
fn probe<T>(table: &[T], key: u64) -> impl Iterator<Item = &T> {
    let home = home_slot(key, table.len().max(1));
    let (before, after) = table.split_at(home.min(table.len()));
    Iterator::chain(after.iter(), before.iter()).take(PROBE_LIMIT)
}

/// `Pool` from the hook's flags.
fn pool(is_sched: bool, is_reserved: bool) -> Pool {
    Pool {
        sched: is_sched,
        reserved: is_reserved,
    }
}

/// KUnit: compiled only with `CONFIG_KUNIT=y` (the macro gates the module on it), run when
/// the module loads.
#[kunit_tests(trace_irqoff_tag_wait)]
mod kunit {
    use super::*;

    const BT_HW: u64 = 0xffff_8880_0000_1000;
    const BT_SCHED: u64 = 0xffff_8880_0000_2000;

    fn kick(task: u64, dev: u32) -> Kick {
        Kick {
            task,
            dev,
            hctx: 1,
            pools: [BT_HW, BT_HW + 8, BT_SCHED, BT_SCHED + 8],
            nr_tags: [2, 0, 4, 0],
        }
    }

    fn waits(tw: &TagWait, dev: u32, sched: bool) -> u64 {
        let mut n = 0;
        tw.for_each(|row| {
            if row.key.dev == dev && row.key.pool.sched == sched {
                n += row.waits;
            }
        });
        n
    }

    /// Claim: a task's wait on the scheduler pool after its kick counts once on the kick's
    /// device and that pool, and the task holds one caller entry until `done` releases it.
    #[test]
    fn a_wait_is_counted_on_its_kick() -> Result {
        let tw = KBox::pin_init(TagWait::new(TagSource::None)?, GFP_KERNEL)?;
        tw.kick(&kick(0x100, 5));
        tw.prepare(0x100, BT_SCHED);
        assert_eq!(waits(&tw, 5, true), 1);
        assert_eq!(tw.callers_held(), 1);
        tw.done(0x100);
        assert_eq!(tw.callers_held(), 0);
        Ok(())
    }

    /// Claim: a wait with no kick of its task, after its kick was finished by `done`, or on
    /// a pool its kick did not list is counted unattributed (3 in all), and no device gets
    /// a wait.
    #[test]
    fn no_kick_no_attribution() -> Result {
        let tw = KBox::pin_init(TagWait::new(TagSource::None)?, GFP_KERNEL)?;
        // Another task's kick, a finished one, and a pool the kick did not have.
        tw.kick(&kick(0x200, 6));
        tw.prepare(0x100, BT_HW);
        tw.done(0x200);
        tw.prepare(0x200, BT_HW);
        tw.kick(&kick(0x300, 7));
        tw.prepare(0x300, 0xdead_0000);
        assert_eq!(tw.unattributed.load(Relaxed), 3);
        assert_eq!(waits(&tw, 6, false) + waits(&tw, 7, false), 0);
        Ok(())
    }

    /// Claim: a task's second kick replaces its first: its wait counts on the newer kick's
    /// device (9), none on the older (5), and the task still holds one caller entry.
    #[test]
    fn a_new_kick_replaces_the_old() -> Result {
        let tw = KBox::pin_init(TagWait::new(TagSource::None)?, GFP_KERNEL)?;
        tw.kick(&kick(0x100, 5));
        tw.kick(&kick(0x100, 9));
        tw.prepare(0x100, BT_HW);
        assert_eq!((waits(&tw, 5, false), waits(&tw, 9, false)), (0, 1));
        assert_eq!(tw.callers_held(), 1);
        Ok(())
    }

    /// `n` distinct values `value(i)` (i >= 1) whose home slot in a table of `len` is the
    /// same: they compete for the same `PROBE_LIMIT` entries.
    fn colliding(len: usize, n: usize, value: impl Fn(u64) -> u64) -> KVec<u64> {
        let mut out = KVec::new();
        let home = home_slot(value(1), len);
        let mut i = 1u64;
        while out.len() < n && i < 1_000_000 {
            if home_slot(value(i), len) == home {
                let _ = out.push(value(i), GFP_KERNEL);
            }
            i += 1;
        }
        out
    }

    /// A kick looks at most `PROBE_LIMIT` entries: with those held by other tasks, the
    /// next task's kick is counted in `callers_full` and its wait left unattributed.
    #[test]
    fn a_full_reach_leaves_waits_unattributed() -> Result {
        let tw = KBox::pin_init(TagWait::new(TagSource::None)?, GFP_KERNEL)?;
        let tasks = colliding(CALLERS, PROBE_LIMIT + 1, |i| i * 0x40);
        assert_eq!(tasks.len(), PROBE_LIMIT + 1);
        for &t in &tasks[..PROBE_LIMIT] {
            tw.kick(&kick(t, 1));
        }
        assert_eq!(tw.callers_held(), PROBE_LIMIT);
        let extra = tasks[PROBE_LIMIT];
        tw.kick(&kick(extra, 2));
        tw.prepare(extra, BT_HW);
        assert_eq!(
            (
                waits(&tw, 2, false),
                tw.unattributed.load(Relaxed),
                tw.callers_full.load(Relaxed)
            ),
            (0, 1, 1)
        );
        Ok(())
    }

    /// Counters whose keys share a reach: a new key overflows while they count, and takes
    /// the slot of the one that has not counted for longest once it is aged.
    #[test]
    fn an_aged_counter_gives_its_slot_to_a_new_key() -> Result {
        let tw = KBox::pin_init(TagWait::new(TagSource::None)?, GFP_KERNEL)?;
        let keys = colliding(SLOTS, PROBE_LIMIT + 1, |i| {
            TagKey {
                dev: i as u32,
                hctx: 0,
                pool: pool(false, false),
            }
            .pack()
        });
        assert_eq!(keys.len(), PROBE_LIMIT + 1);
        let key = |packed: u64| TagKey::unpack(packed);
        // Every counter last counted at T, the first at T - 1.
        const T: u64 = 1_000_000;
        for &k in &keys[..PROBE_LIMIT] {
            tw.count(key(k), if k == keys[0] { T - 1 } else { T });
            tw.count(key(k), if k == keys[0] { T - 1 } else { T });
        }
        let new = key(keys[PROBE_LIMIT]);
        // A minute after T - 1, only the first has been idle for a minute.
        tw.count(new, T - 2 + key::AGE_NS);
        assert_eq!(tw.overflow.load(Relaxed), 1);
        tw.count(new, T - 1 + key::AGE_NS);
        assert_eq!(tw.aged_out.load(Relaxed), 2);
        assert_eq!(waits(&tw, new.dev, new.pool.sched), 1);
        assert!(tw.slots.iter().all(|s| s.key.load(Relaxed) != keys[0]));
        Ok(())
    }
}
