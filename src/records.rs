// SPDX-License-Identifier: GPL-2.0

//! Per-CPU, per-kind stores of the worst events since the last clear.
//!
//! Each store has one writer: the sampler of its CPU and kind, which never runs twice at
//! once. Readers (the /proc files, on any CPU) copy a slot under its sequence count and
//! retry if the writer was inside it, so no reader ever sees a half-written record, and the
//! writer never waits for a reader (it may run in hard interrupt context, where no lock
//! that sleeps on PREEMPT_RT may be taken). A clear only bumps a generation number; the
//! writer empties its store when it next sees a new generation, readers ignore stale ones.
//!
//! The kernel's seqcount rule holds: the writer is not preemptible inside a slot. The
//! hrtimer writes in hard interrupt context; the timer_list, which on PREEMPT_RT runs in
//! the preemptible ktimers/N thread, writes with preemption disabled. Otherwise a reader of
//! higher priority on the writer's CPU could preempt it mid-slot and spin forever. Readers
//! also never spin unboundedly: after a few spins they sleep, and in the end give up.

use kernel::prelude::*;
use kernel::sync::atomic::{Acquire, Atomic, Relaxed, Release};
use kernel::time::{delay::fsleep, Delta};

use crate::backoff::{Backoff, Step};
use crate::compat::{smp_rmb, smp_wmb};
use crate::ffi::NoPreempt;
use crate::retention::{self, Decision};

/// Failed attempts a reader spins before it sleeps: a write is some 40 stores.
const READ_SPINS: u32 = 100;
/// Sleeps before a reader gives up on a slot (100 ms in all).
const READ_SLEEPS: u32 = 1000;
/// One sleep: long enough to be a real sleep (fsleep busy-waits below 10 µs).
const READ_SLEEP: Delta = Delta::from_micros(100);

/// Frames kept per record.
pub(crate) const MAX_FRAMES: usize = 32;
/// Bytes of a task's comm (stored as two u64 words).
pub(crate) const COMM_LEN: usize = 16;
/// Largest number of records per CPU and kind (module parameter bound).
pub(crate) const MAX_RECORDS: usize = 64;

/// One event with its culprit, as stored and as read back.
#[derive(Clone)]
pub(crate) struct Record {
    pub(crate) latency_ns: u64,
    pub(crate) timestamp_ns: u64,
    pub(crate) pid: i32,
    pub(crate) lower_bound: bool,
    pub(crate) comm: [u8; COMM_LEN],
    pub(crate) nr_frames: usize,
    pub(crate) frames: [u64; MAX_FRAMES],
}

impl Record {
    pub(crate) const fn empty() -> Self {
        Self {
            latency_ns: 0,
            timestamp_ns: 0,
            pid: 0,
            lower_bound: false,
            comm: [0; COMM_LEN],
            nr_frames: 0,
            frames: [0; MAX_FRAMES],
        }
    }

    /// The comm up to its NUL.
    pub(crate) fn comm(&self) -> &[u8] {
        let end = self.comm.iter().position(|&b| b == 0).unwrap_or(COMM_LEN);
        &self.comm[..end]
    }

    pub(crate) fn frames(&self) -> &[u64] {
        &self.frames[..self.nr_frames.min(MAX_FRAMES)]
    }
}

/// A record's storage, all atomics so that racing reads are defined behaviour.
///
/// # Invariants
///
/// `seq` is odd only while the store's single writer is inside [`Slot::write`], and the
/// writer cannot be preempted meanwhile. So a reader that finds `seq` odd waits for a
/// writer running on another CPU, never for one it has preempted: on the reader's own CPU
/// a writer finishes before the reader runs again.
struct Slot {
    /// Odd while the writer is inside the slot.
    seq: Atomic<u32>,
    latency_ns: Atomic<u64>,
    timestamp_ns: Atomic<u64>,
    pid: Atomic<i32>,
    /// Bit 0: lower bound; bits 8..: number of frames.
    flags: Atomic<u32>,
    comm: [Atomic<u64>; 2],
    frames: [Atomic<u64>; MAX_FRAMES],
}

impl Slot {
    fn new() -> Self {
        Self {
            seq: Atomic::new(0),
            latency_ns: Atomic::new(0),
            timestamp_ns: Atomic::new(0),
            pid: Atomic::new(0),
            flags: Atomic::new(0),
            comm: [const { Atomic::new(0) }; 2],
            frames: [const { Atomic::new(0) }; MAX_FRAMES],
        }
    }

    /// Only the store's single writer calls this. Never sleeps: fine in any context.
    fn write(&self, r: &Record) {
        // Dropped at the end, after `seq` is even again.
        let _no_preempt = NoPreempt::new();
        let seq = self.seq.load(Relaxed);
        // INVARIANT: `seq` turns odd with preemption disabled, and even again before
        // `_no_preempt` is dropped.
        self.seq.store(seq.wrapping_add(1), Relaxed);
        smp_wmb();
        self.latency_ns.store(r.latency_ns, Relaxed);
        self.timestamp_ns.store(r.timestamp_ns, Relaxed);
        self.pid.store(r.pid, Relaxed);
        let nr = r.nr_frames.min(MAX_FRAMES);
        self.flags.store(u32::from(r.lower_bound) | ((nr as u32) << 8), Relaxed);
        let c = &r.comm;
        self.comm[0].store(u64::from_ne_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]), Relaxed);
        self.comm[1].store(u64::from_ne_bytes([c[8], c[9], c[10], c[11], c[12], c[13], c[14], c[15]]), Relaxed);
        for (dst, &src) in self.frames.iter().zip(r.frames[..nr].iter()) {
            dst.store(src, Relaxed);
        }
        self.seq.store(seq.wrapping_add(2), Release);
    }

    /// A consistent copy into `out`, retrying while the writer is inside the slot; false if
    /// the slot stayed busy for the whole [`Backoff`] (`out` is then unspecified).
    ///
    /// Process context only: it may sleep.
    fn read(&self, out: &mut Record) -> bool {
        let mut backoff = Backoff::new(READ_SPINS, READ_SLEEPS);
        loop {
            if self.try_read(out) {
                return true;
            }
            match backoff.next() {
                Step::Spin => core::hint::spin_loop(),
                Step::Sleep => fsleep(READ_SLEEP),
                Step::GiveUp => return false,
            }
        }
    }

    /// One attempt of [`Slot::read`]: false if the writer was inside the slot.
    fn try_read(&self, out: &mut Record) -> bool {
        let s1 = self.seq.load(Acquire);
        if s1 & 1 != 0 {
            return false;
        }
        out.latency_ns = self.latency_ns.load(Relaxed);
        out.timestamp_ns = self.timestamp_ns.load(Relaxed);
        out.pid = self.pid.load(Relaxed);
        let flags = self.flags.load(Relaxed);
        out.lower_bound = flags & 1 != 0;
        out.nr_frames = ((flags >> 8) as usize).min(MAX_FRAMES);
        let [a, b] = [self.comm[0].load(Relaxed).to_ne_bytes(), self.comm[1].load(Relaxed).to_ne_bytes()];
        out.comm = [
            a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
        ];
        for (dst, src) in out.frames[..out.nr_frames].iter_mut().zip(self.frames.iter()) {
            *dst = src.load(Relaxed);
        }
        smp_rmb();
        self.seq.load(Relaxed) == s1
    }
}

/// The worst events of one CPU and kind.
pub(crate) struct RecordStore {
    slots: KVec<Slot>,
    /// Slots in use (published with Release after the slot is written).
    used: Atomic<u32>,
    /// Generation of the contents; stale when it differs from the global one.
    generation: Atomic<u64>,
    /// Events not kept because every kept one was at least as bad.
    dropped: Atomic<u64>,
    /// Kept events overwritten by a worse one.
    replaced: Atomic<u64>,
}

impl RecordStore {
    pub(crate) fn new(capacity: usize) -> Result<Self> {
        let mut slots = KVec::with_capacity(capacity, GFP_KERNEL)?;
        for _ in 0..capacity {
            slots.push(Slot::new(), GFP_KERNEL)?;
        }
        Ok(Self {
            slots,
            used: Atomic::new(0),
            generation: Atomic::new(0),
            dropped: Atomic::new(0),
            replaced: Atomic::new(0),
        })
    }

    fn used(&self, generation: u64) -> usize {
        if self.generation.load(Acquire) != generation {
            return 0;
        }
        (self.used.load(Acquire) as usize).min(self.slots.len())
    }

    /// Offers an event; only this store's writer calls this.
    pub(crate) fn offer(&self, r: &Record, generation: u64) {
        if self.generation.load(Relaxed) != generation {
            self.used.store(0, Release);
            self.dropped.store(0, Relaxed);
            self.replaced.store(0, Relaxed);
            self.generation.store(generation, Release);
        }
        let used = self.used.load(Relaxed) as usize;
        let mut kept = [0u64; MAX_RECORDS];
        for (k, slot) in kept.iter_mut().zip(self.slots[..used].iter()) {
            *k = slot.latency_ns.load(Relaxed);
        }
        match retention::decide(&kept[..used], self.slots.len(), r.latency_ns) {
            Decision::Insert(i) => {
                self.slots[i].write(r);
                self.used.store((used + 1) as u32, Release);
            }
            Decision::Replace(i) => {
                self.slots[i].write(r);
                self.replaced.fetch_add(1, Relaxed);
            }
            Decision::Drop => {
                self.dropped.fetch_add(1, Relaxed);
            }
        }
    }

    /// Bytes of the slot array.
    pub(crate) fn allocated_bytes(&self) -> usize {
        self.slots.capacity() * core::mem::size_of::<Slot>()
    }

    /// Number of records a reader of `generation` sees.
    pub(crate) fn len(&self, generation: u64) -> usize {
        self.used(generation)
    }

    /// Copies record `i` (< `len`) into `out`; false if there is none, or it could not be
    /// read consistently (its writer stayed inside it for 100 ms, which a writer that
    /// cannot be preempted never does). Process context only: it may sleep.
    pub(crate) fn read(&self, i: usize, out: &mut Record) -> bool {
        self.slots.get(i).is_some_and(|slot| slot.read(out))
    }

    /// Timestamp of record `i`, for ordering without copying whole records.
    pub(crate) fn timestamp(&self, i: usize) -> u64 {
        self.slots.get(i).map_or(0, |s| s.timestamp_ns.load(Relaxed))
    }

    /// (dropped, replaced) since the last clear.
    pub(crate) fn drops(&self, generation: u64) -> (u64, u64) {
        if self.generation.load(Acquire) != generation {
            return (0, 0);
        }
        (self.dropped.load(Relaxed), self.replaced.load(Relaxed))
    }
}
