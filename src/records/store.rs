// SPDX-License-Identifier: GPL-2.0

//! The worst events of one CPU and kind ([`RecordStore`]), what the namer takes from and
//! gives back to its slots ([`NameJob`]), and the store's KUnit tests.

use crate::ffi::compat::{smp_rmb, smp_wmb};
use crate::ffi::NoPreempt;
use crate::logic::names::{Packer, REGION_LEN};
use crate::logic::retention::{self, Decision};
use crate::records::slot::*;
use crate::records::types::*;
use kernel::prelude::*;
use kernel::sync::atomic::{Acquire, Atomic, Relaxed, Release};

/// The worst events of one CPU and kind.
pub(crate) struct RecordStore {
    slots: VVec<Slot>,
    /// Slots in use (published with Release after the slot is written).
    used: Atomic<u32>,
    /// Generation of the contents; stale when it differs from the global one.
    generation: Atomic<u64>,
    /// Events not kept because every kept one was at least as bad.
    dropped: Atomic<u64>,
    /// Kept events overwritten by a worse one.
    replaced: Atomic<u64>,
    /// Non-zero when a record was written with frames the namer has to name.
    unnamed: Atomic<u32>,
}

/// What the namer takes from one slot and gives back: the frames of its stacks (the two
/// of the record, then the profile's others), then their names.
pub(crate) struct NameJob {
    seq: u32,
    nr: [usize; NAME_JOB_STACKS],
    frames: [[u64; MAX_FRAMES]; NAME_JOB_STACKS],
    named: [u32; NAME_JOB_STACKS],
    names: [[u8; REGION_LEN]; NAME_JOB_STACKS],
    /// One stack's module frame names, each formatted once: where each is, and its length.
    scratch: [u8; REGION_LEN],
    scratch_at: [(u16, u16); MAX_FRAMES],
}

const NAME_JOB_STACKS: usize = 2 + PROFILE_EXTRA;

/// Records a namer's pass named, and how long they waited for it.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Waits {
    pub(crate) named: u64,
    pub(crate) max_ns: u64,
    pub(crate) sum_ns: u64,
}

impl NameJob {
    pub(crate) const fn new() -> Self {
        Self {
            seq: 0,
            nr: [0; NAME_JOB_STACKS],
            frames: [[0; MAX_FRAMES]; NAME_JOB_STACKS],
            named: [0; NAME_JOB_STACKS],
            names: [[0; REGION_LEN]; NAME_JOB_STACKS],
            scratch: [0; REGION_LEN],
            scratch_at: [(0, 0); MAX_FRAMES],
        }
    }

    /// Names the frames taken, so that readers do not look them up on every read:
    /// `format` writes a frame's name into its buffer and returns its length. Frames in
    /// code that can be unloaded (`vanishing`) come first, as they cannot be named later;
    /// the others, in frame order, as long as the region has room (`names::Packer`:
    /// names are packed in frame order). A frame left out is named when read.
    fn name_frames(
        &mut self,
        vanishing: &impl Fn(u64) -> bool,
        format: &mut impl FnMut(u64, &mut [u8]) -> usize,
    ) {
        let mut buf = [0u8; NAME_BUF];
        for k in 0..NAME_JOB_STACKS {
            let len = if k < 2 { REGION_LEN } else { PROFILE_NAME_LEN };
            let frames = &self.frames[k][..self.nr[k].min(MAX_FRAMES)];
            // The module frames, each formatted once (a lookup walks the module's symbol
            // table) into the scratch region, as far as the region has room.
            let mut chosen = 0u32;
            let mut used = 0;
            for (i, &addr) in frames.iter().enumerate() {
                if !vanishing(addr) {
                    continue;
                }
                let n = format(addr, &mut buf).min(NAME_BUF);
                if n > 0 && used + n < len {
                    self.scratch[used..used + n].copy_from_slice(&buf[..n]);
                    self.scratch_at[i] = (used as u16, n as u16);
                    used += n + 1;
                    chosen |= 1 << i;
                }
            }
            // Then the core-kernel frames that fit, in frame order.
            for (i, &addr) in frames.iter().enumerate() {
                if vanishing(addr) {
                    continue;
                }
                let n = format(addr, &mut buf).min(NAME_BUF);
                if n > 0 && used + n < len {
                    used += n + 1;
                    chosen |= 1 << i;
                }
            }
            // Packed in frame order (`names::Packer`).
            let mut packer = if k < 2 {
                Packer::new()
            } else {
                Packer::with_len(len)
            };
            let region = &mut self.names[k];
            region.fill(0);
            for (i, &addr) in frames.iter().enumerate() {
                if chosen & (1 << i) == 0 {
                    continue;
                }
                let name = if vanishing(addr) {
                    let (at, n) = self.scratch_at[i];
                    &self.scratch[usize::from(at)..usize::from(at) + usize::from(n)]
                } else {
                    let n = format(addr, &mut buf).min(NAME_BUF);
                    &buf[..n]
                };
                if let Some(at) = packer.place(i, name.len()) {
                    region[at..at + name.len()].copy_from_slice(name);
                }
            }
            self.named[k] = packer.named();
        }
    }
}

impl RecordStore {
    pub(crate) fn new(capacity: usize) -> Result<Self> {
        let mut slots = VVec::with_capacity(capacity, GFP_KERNEL)?;
        for _ in 0..capacity {
            slots.push(Slot::new(), GFP_KERNEL)?;
        }
        Ok(Self {
            slots,
            used: Atomic::new(0),
            generation: Atomic::new(0),
            dropped: Atomic::new(0),
            replaced: Atomic::new(0),
            unnamed: Atomic::new(0),
        })
    }

    /// The namer's pass over this store: names the frames of every record written since
    /// the last pass (`NameJob::name_frames`). Process context (it formats symbols,
    /// walking a module's symbol table for each of its frames); one namer at a time.
    ///
    /// Returns the records named and how long they waited for their names (from the end
    /// of their window to now, `now_ns` on the records' clock).
    pub(crate) fn name_records(
        &self,
        generation: u64,
        job: &mut NameJob,
        vanishing: &impl Fn(u64) -> bool,
        format: &mut impl FnMut(u64, &mut [u8]) -> usize,
        now_ns: impl Fn() -> u64,
    ) -> Waits {
        let mut w = Waits {
            named: 0,
            max_ns: 0,
            sum_ns: 0,
        };
        if self.unnamed.xchg(0, Acquire) == 0 {
            return w;
        }
        for slot in &self.slots[..self.used(generation)] {
            // A slot being rewritten now gets its names in the pass its writer asks for.
            if slot.take_for_naming(job) {
                job.name_frames(vanishing, format);
                slot.put_names(job);
                let waited = now_ns().saturating_sub(slot.timestamp_ns.load(Relaxed));
                w.named += 1;
                w.max_ns = w.max_ns.max(waited);
                w.sum_ns = w.sum_ns.saturating_add(waited);
            }
        }
        w
    }

    fn used(&self, generation: u64) -> usize {
        if self.generation.load(Acquire) != generation {
            return 0;
        }
        (self.used.load(Acquire) as usize).min(self.slots.len())
    }

    /// Offers an event; if it is kept, `fill` writes its stacks into the slot chosen for
    /// it. Only this store's writers call this, all on its CPU. Never sleeps: fine in any
    /// context.
    ///
    /// One writer at a time: preemption is off from the choice of the slot to the end of
    /// the fill. On PREEMPT_RT the softirq store has two writers on one CPU that may
    /// preempt each other (the timer_list in ktimers/N, the softirq probe in
    /// ksoftirqd/N); a writer preempted between choosing a slot and filling it would
    /// otherwise let the other choose the same slot, or count a slot twice.
    pub(crate) fn offer(
        &self,
        header: &Header,
        generation: u64,
        fill: impl FnOnce(&mut Writer<'_>),
    ) {
        let _one_writer = NoPreempt::new();
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
        let (i, insert) =
            match retention::decide(&kept[..used], self.slots.len(), header.latency_ns) {
                Decision::Insert(i) => (i, true),
                Decision::Replace(i) => (i, false),
                Decision::Drop => {
                    self.dropped.fetch_add(1, Relaxed);
                    return;
                }
            };
        let Some(slot) = self.slots.get(i) else {
            return;
        };
        fill(&mut Writer::begin(slot, header));
        if insert {
            self.used.store((used + 1) as u32, Release);
        } else {
            self.replaced.fetch_add(1, Relaxed);
        }
        // Naming a module's frame walks its symbol table: never here, in interrupt
        // context, but by the namer, within milliseconds (and before the module goes);
        // it names the others too, once, so that reads do not. Kicked from the next
        // softirq sampler run, with interrupts on: its wake-up is no irq-off time.
        self.unnamed.store(1, Release);
        crate::ffi::namer_want();
    }

    /// Bytes of the slot array.
    pub(crate) fn allocated_bytes(&self) -> usize {
        crate::logic::sizes::vmalloc_bytes(self.slots.capacity() * core::mem::size_of::<Slot>())
    }

    /// Number of records a reader of `generation` sees.
    pub(crate) fn len(&self, generation: u64) -> usize {
        self.used(generation)
    }

    /// Copies the header of record `i` (< `len`), without its stacks; the sequence count
    /// of its slot it was read at, `None` as for [`RecordStore::read_at`].
    pub(crate) fn read_header(&self, i: usize, out: &mut Header) -> Option<u32> {
        self.slots.get(i).and_then(|slot| slot.read_header(out))
    }

    /// Copies record `i` (< `len`) into `out`; the sequence count of its slot it was read
    /// at, `None` if there is none, or it could not be read consistently (its writer stayed
    /// inside it for 100 ms, which a writer that cannot be preempted never does). Process
    /// context only: it may sleep.
    pub(crate) fn read_at(&self, i: usize, out: &mut Record) -> Option<u32> {
        self.slots.get(i).and_then(|slot| slot.read_at(out))
    }

    /// The sequence count of slot `i` now (odd while its writer is inside).
    pub(crate) fn seq(&self, i: usize) -> Option<u32> {
        self.slots.get(i).map(|s| s.seq.load(Acquire))
    }

    /// The readers' word of slot `i` (see `Slot::resolved`).
    pub(crate) fn resolved(&self, i: usize) -> u64 {
        self.slots.get(i).map_or(0, |s| s.resolved.load(Relaxed))
    }

    pub(crate) fn set_resolved(&self, i: usize, w: u64) {
        if let Some(s) = self.slots.get(i) {
            s.resolved.store(w, Relaxed);
        }
    }

    /// Timestamp of record `i`, for ordering without copying whole records.
    pub(crate) fn timestamp(&self, i: usize) -> u64 {
        self.slots
            .get(i)
            .map_or(0, |s| s.timestamp_ns.load(Relaxed))
    }

    /// (dropped, replaced) since the last clear.
    pub(crate) fn drops(&self, generation: u64) -> (u64, u64) {
        if self.generation.load(Acquire) != generation {
            return (0, 0);
        }
        (self.dropped.load(Relaxed), self.replaced.load(Relaxed))
    }
}

/// The namer's exchange with a slot.
impl Slot {
    /// Publishes the names of `job` for the version it was taken from. If the writer has
    /// replaced that version since, readers of the new one ignore them (`named_for`). The
    /// namer only (one at a time): preemption is off inside, so a reader never waits for a
    /// preempted namer.
    fn put_names(&self, job: &NameJob) {
        let _no_preempt = NoPreempt::new();
        let n = self.name_seq.load(Relaxed);
        self.name_seq.store(n.wrapping_add(1), Relaxed);
        smp_wmb();
        for (k, st) in self.stacks.iter().enumerate() {
            st.put_names(job.named[k], &job.names[k]);
        }
        for (k, st) in self.profile.extra.iter().enumerate() {
            st.put_names(job.named[2 + k], &job.names[2 + k][..PROFILE_NAME_LEN]);
        }
        self.named_for.store(job.seq.wrapping_add(1), Relaxed);
        self.name_seq.store(n.wrapping_add(2), Release);
    }

    /// The namer's copy of the frames of the version now in the slot; false if there is
    /// none to name (the writer is inside, or this version is named already).
    fn take_for_naming(&self, job: &mut NameJob) -> bool {
        let s = self.seq.load(Acquire);
        if s & 1 != 0 || self.named_for.load(Relaxed) == s.wrapping_add(1) {
            return false;
        }
        job.seq = s;
        for (k, st) in self.stacks.iter().enumerate() {
            job.nr[k] = st.frames_into(&mut job.frames[k]);
        }
        for (k, st) in self.profile.extra.iter().enumerate() {
            job.nr[2 + k] = st.frames_into(&mut job.frames[2 + k]);
        }
        smp_rmb();
        self.seq.load(Relaxed) == s
    }
}

/// KUnit: compiled only with `CONFIG_KUNIT=y` (the macro gates the module on it), run when
/// the module loads.
#[kunit_tests(trace_irqoff_records)]
mod kunit {
    use super::*;
    use crate::logic::backoff::Backoff;

    fn header(latency_ns: u64, timestamp_ns: u64) -> Header {
        Header::new(latency_ns, timestamp_ns, 7, *b"kunit\0\0\0\0\0\0\0\0\0\0\0")
    }

    fn latencies(store: &RecordStore, generation: u64) -> Result<KVec<u64>> {
        let mut r = KBox::new(Record::empty(), GFP_KERNEL)?;
        let mut v = KVec::new();
        for i in 0..store.len(generation) {
            assert!(store.read_at(i, &mut r).is_some());
            v.push(r.header.latency_ns, GFP_KERNEL)?;
        }
        v.sort_unstable();
        Ok(v)
    }

    /// Claim: a store of three keeps the first three offers; once full, a smaller latency
    /// (5) is dropped and a larger one (40) replaces the smallest kept (10), leaving 20,
    /// 30, 40, and `drops` counts one dropped and one replaced.
    #[test]
    fn insertion_fills_then_keeps_the_worst() -> Result {
        let store = RecordStore::new(3)?;
        for (i, lat) in [10u64, 30, 20].into_iter().enumerate() {
            store.offer(&header(lat, i as u64), 1, |_| {});
        }
        assert_eq!(store.len(1), 3);
        // Full: a smaller one is dropped, a larger one replaces the smallest kept.
        store.offer(&header(5, 9), 1, |_| {});
        store.offer(&header(40, 10), 1, |_| {});
        assert_eq!(&latencies(&store, 1)?[..], &[20u64, 30, 40][..]);
        assert_eq!(store.drops(1), (1, 1));
        Ok(())
    }

    /// Claim: a reader of a new generation sees none of the records offered under the old
    /// one, and the first offer under the new generation starts the store afresh with only
    /// its own record.
    #[test]
    fn a_new_generation_starts_empty() -> Result {
        let store = RecordStore::new(2)?;
        store.offer(&header(10, 1), 1, |_| {});
        assert_eq!(store.len(2), 0);
        store.offer(&header(20, 2), 2, |_| {});
        assert_eq!(store.len(2), 1);
        assert_eq!(&latencies(&store, 2)?[..], &[20u64][..]);
        Ok(())
    }

    /// Claim: a writer replaces the whole record in its slot (no frame of the old one
    /// stays), and its header reads back as written, the sampler that ended it too.
    #[test]
    fn writer_fills_the_slot_in_place() -> Result {
        let store = RecordStore::new(1)?;
        store.offer(&header(10, 1), 1, |w| {
            w.frames(Which::End, &[0x1000, 0x2000])
        });
        // The replacing writer starts from a clean slot: no frame of the old record stays.
        let with_cgroup = Header {
            cgroup_id: 4242,
            ended_by: crate::logic::grammar::EndedBy::Timer,
            ..header(20, 2)
        };
        store.offer(&with_cgroup, 1, |w| w.frames(Which::Window, &[0x3000]));
        let mut r = KBox::new(Record::empty(), GFP_KERNEL)?;
        assert!(store.read_at(0, &mut r).is_some());
        assert_eq!(r.header.latency_ns, 20);
        assert_eq!(r.header.pid, 7);
        assert_eq!(r.header.cgroup_id, 4242);
        assert_eq!(r.header.ended_by, crate::logic::grammar::EndedBy::Timer);
        assert_eq!(r.stack(Which::End).frames().len(), 0);
        assert_eq!(r.stack(Which::Window).frames(), &[0x3000u64][..]);
        Ok(())
    }

    /// The namer's names belong to the version of the record they were taken from: a
    /// reader of a newer version never sees them, and the next pass names that one.
    #[test]
    fn names_belong_to_the_version_they_were_taken_from() -> Result {
        let store = RecordStore::new(1)?;
        let module = 0x5000u64;
        let vanishing = |addr: u64| addr == module;
        let mut format = |addr: u64, buf: &mut [u8]| {
            let name: &[u8] = if addr == module { b"mine" } else { b"core" };
            buf[..name.len()].copy_from_slice(name);
            name.len()
        };
        let mut job = KBox::new(NameJob::new(), GFP_KERNEL)?;
        let mut r = KBox::new(Record::empty(), GFP_KERNEL)?;
        store.offer(&header(10, 1), 1, |w| {
            w.frames(Which::End, &[0x1000, module])
        });
        assert!(store.read_at(0, &mut r).is_some());
        assert_eq!(r.stack(Which::End).name(1), None);
        assert_eq!(
            store.name_records(1, &mut job, &vanishing, &mut format, || 5),
            Waits {
                named: 1,
                max_ns: 4,
                sum_ns: 4
            }
        );
        assert!(store.read_at(0, &mut r).is_some());
        assert_eq!(r.stack(Which::End).name(0), Some(&b"core"[..]));
        assert_eq!(r.stack(Which::End).name(1), Some(&b"mine"[..]));
        // Nothing new: the next pass names nothing.
        assert_eq!(
            store.name_records(1, &mut job, &vanishing, &mut format, || 5),
            Waits {
                named: 0,
                max_ns: 0,
                sum_ns: 0
            }
        );

        // Taken from one version, the writer replaces it before the names are put.
        store.offer(&header(20, 2), 1, |w| w.frames(Which::End, &[module]));
        let slot = &store.slots[0];
        assert!(slot.take_for_naming(&mut job));
        job.name_frames(&vanishing, &mut format);
        store.offer(&header(30, 3), 1, |w| {
            w.frames(Which::End, &[0x2000, module])
        });
        slot.put_names(&job);
        assert!(store.read_at(0, &mut r).is_some());
        assert_eq!(r.header.latency_ns, 30);
        assert_eq!(r.stack(Which::End).name(0), None);
        assert_eq!(r.stack(Which::End).name(1), None);
        assert_eq!(
            store.name_records(1, &mut job, &vanishing, &mut format, || 5),
            Waits {
                named: 1,
                max_ns: 2,
                sum_ns: 2
            }
        );
        assert!(store.read_at(0, &mut r).is_some());
        assert_eq!(r.stack(Which::End).name(1), Some(&b"mine"[..]));
        Ok(())
    }

    /// Frames in module text are named first: core-kernel ones only fill the room left.
    #[test]
    fn module_frames_come_first() -> Result {
        let mut job = KBox::new(NameJob::new(), GFP_KERNEL)?;
        let module = 0x5000u64;
        // 32 core frames of 40-byte names would take 1312 bytes: more than a region.
        job.nr[0] = MAX_FRAMES;
        for (i, f) in job.frames[0].iter_mut().enumerate() {
            *f = 0x1000 + i as u64;
        }
        job.frames[0][MAX_FRAMES - 1] = module;
        job.name_frames(&|a: u64| a == module, &mut |_addr: u64, buf: &mut [u8]| {
            buf[..40].fill(b'x');
            40
        });
        let named = job.named[0];
        // The module frame is named.
        assert!(named & (1 << (MAX_FRAMES - 1)) != 0);
        // The rest: as many core frames as fit beside it, the first ones.
        let fit = (REGION_LEN - 41) / 41;
        assert_eq!(named, (1u32 << (MAX_FRAMES - 1)) | ((1u32 << fit) - 1));
        Ok(())
    }

    /// Claim: `retry_read` repeats an attempt until it succeeds (the fifth here); against a
    /// writer that never leaves, `retry_read_with` a backoff of 7 spins and 5 sleeps sleeps
    /// exactly 5 times, makes (7 + 1) * 5 + 7 + 1 attempts and returns false.
    #[test]
    fn retry_read_retries_then_gives_up() {
        let mut n = 0;
        assert!(retry_read(|| {
            n += 1;
            n == 5
        }));
        assert_eq!(n, 5);
        // A writer that never leaves: the reader gives up after its backoff (sleeps
        // counted here instead of slept; a short backoff of the same shape).
        let (spins, naps) = (7u32, 5u32);
        let mut tries = 0u32;
        let mut sleeps = 0u32;
        assert!(!retry_read_with(
            Backoff::new(spins, naps),
            || {
                tries += 1;
                false
            },
            || sleeps += 1
        ));
        assert_eq!(sleeps, naps);
        assert_eq!(tries, (spins + 1) * naps + spins + 1);
    }
}
