// SPDX-License-Identifier: GPL-2.0

//! The seqcount slot one record lives in, its writer, and the readers' retry rule.
//!
//! A slot has one writer ([`Writer`], in place: the hard interrupt path keeps no copy of a
//! record on its stack) and any number of readers, which copy it under its sequence count
//! and retry while the writer is inside; after a few spins they sleep, and in the end give
//! up. The name area has a sequence count and a writer of its own (the namer).

use crate::ffi::compat::{smp_rmb, smp_wmb};
use crate::ffi::{NoPreempt, COMM_LEN};
use crate::logic::backoff::{Backoff, Step};
use crate::logic::cause::{Cause, Samples};
use crate::logic::grammar::EndedBy;
use crate::records::types::*;
use kernel::sync::atomic::{Acquire, Atomic, Relaxed, Release};
use kernel::time::{delay::fsleep, Delta};

/// Failed attempts a reader spins before it sleeps: a write is some 100 stores.
const READ_SPINS: u32 = 100;
/// Sleeps before a reader gives up on a slot (100 ms in all).
const READ_SLEEPS: u32 = 1000;
/// One sleep: long enough to be a real sleep (fsleep busy-waits below 10 µs).
const READ_SLEEP: Delta = Delta::from_micros(100);

/// Repeats `attempt` (one try of a seqcount read) while the writer is inside: spins, then
/// sleeps, then gives up after the [`Backoff`]; true once an attempt succeeds. Process
/// context only: it may sleep.
pub(super) fn retry_read(attempt: impl FnMut() -> bool) -> bool {
    retry_read_with(Backoff::new(READ_SPINS, READ_SLEEPS), attempt, || {
        fsleep(READ_SLEEP)
    })
}

/// [`retry_read`] with the backoff and the sleep given: the KUnit test counts the
/// attempts of a short backoff without sleeping (the full one is a hundred thousand
/// attempts, seconds of guest time on an emulated KASAN kernel; its shape is tested in
/// `backoff`).
pub(super) fn retry_read_with(
    mut backoff: Backoff,
    mut attempt: impl FnMut() -> bool,
    mut sleep: impl FnMut(),
) -> bool {
    loop {
        if attempt() {
            return true;
        }
        match backoff.next() {
            Step::Spin => core::hint::spin_loop(),
            Step::Sleep => sleep(),
            Step::GiveUp => return false,
        }
    }
}

pub(super) fn pack_comm(c: &[u8; COMM_LEN]) -> [u64; 2] {
    [
        u64::from_ne_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]),
        u64::from_ne_bytes([c[8], c[9], c[10], c[11], c[12], c[13], c[14], c[15]]),
    ]
}

pub(super) fn unpack_comm(w: [u64; 2]) -> [u8; COMM_LEN] {
    let [a, b] = [w[0].to_ne_bytes(), w[1].to_ne_bytes()];
    [
        a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], b[0], b[1], b[2], b[3], b[4], b[5], b[6],
        b[7],
    ]
}

/// Flags word: bit 0 ongoing, bits 1..=2 cause (0 none, 1 bh-off, 2 ksoftirqd-wait), bit 3
/// the end stack does not show the culprit, bits 4..=5 the sampler that ended the window
/// (0 hrtimer, 1 probe, 2 timer), bit 6 the in-window stack is a stop_machine() call's
/// function.
fn flags(h: &Header) -> u32 {
    let cause = match h.cause {
        None => 0,
        Some(Cause::BhOff) => 1,
        Some(Cause::KsoftirqdWait) => 2,
    };
    let ended_by = match h.ended_by {
        EndedBy::Hrtimer => 0,
        EndedBy::Probe => 1,
        EndedBy::Timer => 2,
    };
    u32::from(h.ongoing)
        | (cause << 1)
        | (u32::from(!h.end_shows_culprit) << 3)
        | (ended_by << 4)
        | (u32::from(h.stop_callback) << 6)
}

fn ended_by_of(flags: u32) -> EndedBy {
    match (flags >> 4) & 3 {
        1 => EndedBy::Probe,
        2 => EndedBy::Timer,
        _ => EndedBy::Hrtimer,
    }
}

fn cause_of(flags: u32) -> Option<Cause> {
    match (flags >> 1) & 3 {
        1 => Some(Cause::BhOff),
        2 => Some(Cause::KsoftirqdWait),
        _ => None,
    }
}

const SAMPLE_BITS: u32 = 21;
const SAMPLE_MAX: u32 = (1 << SAMPLE_BITS) - 1;

fn pack_samples(s: Samples) -> u64 {
    let f = |v: u32| u64::from(v.min(SAMPLE_MAX));
    f(s.total) | (f(s.bh_off) << SAMPLE_BITS) | (f(s.idle) << (2 * SAMPLE_BITS))
}

fn unpack_samples(v: u64) -> Samples {
    let f = |shift: u32| ((v >> shift) & u64::from(SAMPLE_MAX)) as u32;
    Samples {
        total: f(0),
        bh_off: f(SAMPLE_BITS),
        idle: f(2 * SAMPLE_BITS),
    }
}

/// One stack's storage: up to `F` frames, `W` words of names.
pub(super) struct SlotStack<const F: usize = MAX_FRAMES, const W: usize = NAME_WORDS> {
    pub(super) nr: Atomic<u32>,
    pub(super) named: Atomic<u32>,
    pub(super) frames: [Atomic<u64>; F],
    pub(super) names: [Atomic<u64>; W],
}

impl<const F: usize, const W: usize> SlotStack<F, W> {
    /// Writes the name region `names` (bytes, zero-padded) and its bits. Only the namer,
    /// inside the slot's name sequence count.
    pub(super) fn put_names(&self, named: u32, names: &[u8]) {
        for (i, word) in self.names.iter().enumerate() {
            let mut bytes = [0u8; 8];
            for (j, b) in bytes.iter_mut().enumerate() {
                *b = names.get(i * 8 + j).copied().unwrap_or(0);
            }
            word.store(u64::from_ne_bytes(bytes), Relaxed);
        }
        self.named.store(named, Relaxed);
    }

    pub(super) const fn new() -> Self {
        Self {
            nr: Atomic::new(0),
            named: Atomic::new(0),
            frames: [const { Atomic::new(0) }; F],
            names: [const { Atomic::new(0) }; W],
        }
    }

    pub(super) fn len(&self) -> usize {
        (self.nr.load(Relaxed) as usize).min(F)
    }

    /// Sets the frames (at most `F`), without names.
    pub(super) fn set_frames(&self, frames: impl Iterator<Item = u64>) {
        let mut n = 0;
        for (dst, src) in self.frames.iter().zip(frames) {
            dst.store(src, Relaxed);
            n += 1;
        }
        self.nr.store(n as u32, Relaxed);
    }

    /// Keeps only its bottom `c` frames (the single writer).
    pub(super) fn keep_bottom(&self, c: usize) {
        let len = self.len();
        let c = c.min(len);
        for t in 0..c {
            self.frames[t].store(self.frames[len - c + t].load(Relaxed), Relaxed);
        }
        self.nr.store(c as u32, Relaxed);
    }

    /// Whether it holds the same frames as `other`.
    pub(super) fn same_as(&self, other: &Self) -> bool {
        let len = self.len();
        len == other.len()
            && self.frames[..len]
                .iter()
                .zip(&other.frames[..len])
                .all(|(a, b)| a.load(Relaxed) == b.load(Relaxed))
    }

    /// Whether it holds exactly `frames`.
    pub(super) fn holds(&self, frames: &[u64]) -> bool {
        self.len() == frames.len()
            && self
                .frames
                .iter()
                .zip(frames)
                .all(|(a, &b)| a.load(Relaxed) == b)
    }

    /// Copies the frames, and the names if `names` (they belong to the version read).
    pub(super) fn read<const L: usize>(&self, out: &mut Stack<F, L>, names: bool) {
        out.nr = self.len();
        out.named = if names { self.named.load(Relaxed) } else { 0 };
        for (dst, src) in out.frames[..out.nr].iter_mut().zip(self.frames.iter()) {
            *dst = src.load(Relaxed);
        }
        if out.named != 0 {
            for (i, src) in self.names.iter().enumerate() {
                let bytes = src.load(Relaxed).to_ne_bytes();
                for (j, b) in bytes.into_iter().enumerate() {
                    if let Some(d) = out.names.get_mut(i * 8 + j) {
                        *d = b;
                    }
                }
            }
        }
    }

    /// Copies `other`'s frames (not its names: the namer names this copy).
    pub(super) fn copy_frames_from(&self, other: &SlotStack<F, W>) {
        self.nr.store(other.nr.load(Relaxed), Relaxed);
        for (d, s) in self.frames.iter().zip(other.frames.iter()) {
            d.store(s.load(Relaxed), Relaxed);
        }
    }

    /// Copies the frames into `out` (at most its length); returns how many.
    pub(super) fn frames_into(&self, out: &mut [u64]) -> usize {
        let n = self.len().min(out.len());
        for (d, s) in out[..n].iter_mut().zip(self.frames.iter()) {
            *d = s.load(Relaxed);
        }
        n
    }
}

/// A record's storage, all atomics so that racing reads are defined behaviour.
///
/// # Invariants
///
/// `seq` is odd only while the store's single writer holds a [`Writer`] on the slot, and
/// the writer cannot be preempted meanwhile. So a reader that finds `seq` odd waits for a
/// writer running on another CPU, never for one it has preempted: on the reader's own CPU
/// a writer finishes before the reader runs again.
pub(super) struct Slot {
    pub(super) seq: Atomic<u32>,
    pub(super) latency_ns: Atomic<u64>,
    pub(super) timestamp_ns: Atomic<u64>,
    pub(super) pid: Atomic<i32>,
    pub(super) cgroup_id: Atomic<u64>,
    pub(super) together_ns: Atomic<u64>,
    pub(super) window_pid: Atomic<i32>,
    pub(super) flags: Atomic<u32>,
    pub(super) runnable_ns: Atomic<u64>,
    /// `Samples` as three 21-bit fields: total, bh_off, idle.
    pub(super) samples: Atomic<u64>,
    pub(super) jiffies: Atomic<u64>,
    /// CPU + 1 of an overlapping hardirq-off window, 0 for none.
    pub(super) overlap: Atomic<u32>,
    /// What readers resolved of its record (`overlap::Resolved`; 0: nothing). Written by
    /// readers only, outside the sequence count; each word names the count it is for.
    pub(super) resolved: Atomic<u64>,
    pub(super) comm: [Atomic<u64>; 2],
    pub(super) window_comm: [Atomic<u64>; 2],
    pub(super) stacks: [SlotStack; 2],
    pub(super) profile: SlotProfile,
    /// The name area's sequence count: odd while the namer writes the stacks' names.
    pub(super) name_seq: Atomic<u32>,
    /// The slot's `seq` + 1 of the version whose frames the names belong to (0: none; a
    /// published `seq` is even, so this is odd once set).
    pub(super) named_for: Atomic<u32>,
}

/// A record's profile: header and the stacks beyond its window stack.
pub(super) struct SlotProfile {
    pub(super) samples: Atomic<u32>,
    pub(super) weight: Atomic<u32>,
    pub(super) other: Atomic<u32>,
    pub(super) distinct: Atomic<u32>,
    pub(super) counts: [Atomic<u32>; 1 + PROFILE_EXTRA],
    pub(super) extra: [SlotStack<PROFILE_FRAMES, { PROFILE_NAME_LEN / 8 }>; PROFILE_EXTRA],
}

impl SlotProfile {
    pub(super) fn new() -> Self {
        Self {
            samples: Atomic::new(0),
            weight: Atomic::new(0),
            other: Atomic::new(0),
            distinct: Atomic::new(0),
            counts: [const { Atomic::new(0) }; 1 + PROFILE_EXTRA],
            extra: [const { SlotStack::new() }; PROFILE_EXTRA],
        }
    }

    pub(super) fn read(&self, out: &mut Profile, names: bool) {
        out.samples = self.samples.load(Relaxed);
        out.weight = self.weight.load(Relaxed);
        out.other = self.other.load(Relaxed);
        out.distinct = self.distinct.load(Relaxed);
        for (d, s) in out.counts.iter_mut().zip(self.counts.iter()) {
            *d = s.load(Relaxed);
        }
        for (d, s) in out.extra.iter_mut().zip(self.extra.iter()) {
            s.read(d, names);
        }
    }
}

impl Slot {
    pub(super) fn new() -> Self {
        Self {
            seq: Atomic::new(0),
            latency_ns: Atomic::new(0),
            timestamp_ns: Atomic::new(0),
            pid: Atomic::new(0),
            cgroup_id: Atomic::new(0),
            together_ns: Atomic::new(0),
            window_pid: Atomic::new(0),
            flags: Atomic::new(0),
            runnable_ns: Atomic::new(0),
            samples: Atomic::new(0),
            jiffies: Atomic::new(0),
            overlap: Atomic::new(0),
            resolved: Atomic::new(0),
            comm: [const { Atomic::new(0) }; 2],
            window_comm: [const { Atomic::new(0) }; 2],
            stacks: [SlotStack::new(), SlotStack::new()],
            profile: SlotProfile::new(),
            name_seq: Atomic::new(0),
            named_for: Atomic::new(0),
        }
    }

    /// A consistent copy into `out`, retrying while the writer is inside the slot; false if
    /// the slot stayed busy for the whole [`Backoff`] (`out` is then unspecified).
    ///
    /// Process context only: it may sleep.
    pub(super) fn read(&self, out: &mut Record) -> bool {
        self.read_at(out).is_some()
    }

    /// [`Slot::read`], with the sequence count it was read at.
    pub(super) fn read_at(&self, out: &mut Record) -> Option<u32> {
        let mut at = 0;
        retry_read(|| self.try_read(out).map(|s| at = s).is_some()).then_some(at)
    }

    /// Copies the header only (no stacks): what a reader needs to compare records. May
    /// sleep, like [`Slot::read`].
    /// The sequence count it was read at, if it was.
    pub(super) fn read_header(&self, out: &mut Header) -> Option<u32> {
        let mut at = 0;
        let ok = retry_read(|| {
            let s1 = self.seq.load(Acquire);
            if s1 & 1 != 0 {
                return false;
            }
            at = s1;
            self.load_header(out);
            smp_rmb();
            self.seq.load(Relaxed) == s1
        });
        ok.then_some(at)
    }

    /// Loads the header words into `h`; the caller checks the sequence count around it.
    pub(super) fn load_header(&self, h: &mut Header) {
        h.latency_ns = self.latency_ns.load(Relaxed);
        h.timestamp_ns = self.timestamp_ns.load(Relaxed);
        h.pid = self.pid.load(Relaxed);
        h.cgroup_id = self.cgroup_id.load(Relaxed);
        h.together_ns = self.together_ns.load(Relaxed);
        let flags = self.flags.load(Relaxed);
        h.ongoing = flags & 1 != 0;
        h.cause = cause_of(flags);
        h.end_shows_culprit = flags & 8 == 0;
        h.ended_by = ended_by_of(flags);
        h.stop_callback = flags & (1 << 6) != 0;
        h.runnable_ns = self.runnable_ns.load(Relaxed);
        h.samples = unpack_samples(self.samples.load(Relaxed));
        h.jiffies = self.jiffies.load(Relaxed);
        h.overlap_cpu = self.overlap.load(Relaxed).checked_sub(1);
        h.comm = unpack_comm([self.comm[0].load(Relaxed), self.comm[1].load(Relaxed)]);
    }

    /// One attempt of [`Slot::read`]: the sequence count it read at, `None` if the writer
    /// was inside the slot.
    pub(super) fn try_read(&self, out: &mut Record) -> Option<u32> {
        let s1 = self.seq.load(Acquire);
        let n1 = self.name_seq.load(Acquire);
        if s1 & 1 != 0 || n1 & 1 != 0 {
            return None;
        }
        let names = self.named_for.load(Relaxed) == s1.wrapping_add(1);
        self.load_header(&mut out.header);
        out.window_pid = self.window_pid.load(Relaxed);
        out.window_comm = unpack_comm([
            self.window_comm[0].load(Relaxed),
            self.window_comm[1].load(Relaxed),
        ]);
        for (dst, src) in out.stacks.iter_mut().zip(self.stacks.iter()) {
            src.read(dst, names);
        }
        self.profile.read(&mut out.profile, names);
        smp_rmb();
        (self.seq.load(Relaxed) == s1 && self.name_seq.load(Relaxed) == n1).then_some(s1)
    }
}

/// The single writer inside a slot: the sequence count is odd and preemption off while it
/// lives; dropping it publishes the record.
pub(crate) struct Writer<'a> {
    pub(super) slot: &'a Slot,
    seq: u32,
    // Dropped after `drop` made `seq` even again.
    _no_preempt: NoPreempt,
}

impl<'a> Writer<'a> {
    pub(super) fn begin(slot: &'a Slot, header: &Header) -> Self {
        let no_preempt = NoPreempt::new();
        let seq = slot.seq.load(Relaxed);
        // INVARIANT: `seq` turns odd with preemption disabled, and even again in `drop`,
        // before `_no_preempt` is dropped.
        slot.seq.store(seq.wrapping_add(1), Relaxed);
        smp_wmb();
        slot.latency_ns.store(header.latency_ns, Relaxed);
        slot.timestamp_ns.store(header.timestamp_ns, Relaxed);
        slot.pid.store(header.pid, Relaxed);
        slot.cgroup_id.store(header.cgroup_id, Relaxed);
        slot.together_ns.store(header.together_ns, Relaxed);
        slot.flags.store(flags(header), Relaxed);
        slot.runnable_ns.store(header.runnable_ns, Relaxed);
        slot.samples.store(pack_samples(header.samples), Relaxed);
        slot.jiffies.store(header.jiffies, Relaxed);
        slot.overlap.store(
            header.overlap_cpu.map_or(0, |c| c.saturating_add(1)),
            Relaxed,
        );
        let [a, b] = pack_comm(&header.comm);
        slot.comm[0].store(a, Relaxed);
        slot.comm[1].store(b, Relaxed);
        slot.window_pid.store(0, Relaxed);
        for s in &slot.stacks {
            s.nr.store(0, Relaxed);
        }
        for s in &slot.profile.extra {
            s.nr.store(0, Relaxed);
        }
        slot.profile.samples.store(0, Relaxed);
        slot.profile.distinct.store(0, Relaxed);
        Self {
            slot,
            seq,
            _no_preempt: no_preempt,
        }
    }

    /// The task running when the window stack was taken.
    pub(crate) fn window_task(&mut self, pid: i32, comm: &[u8; COMM_LEN]) {
        self.slot.window_pid.store(pid, Relaxed);
        let [a, b] = pack_comm(comm);
        self.slot.window_comm[0].store(a, Relaxed);
        self.slot.window_comm[1].store(b, Relaxed);
    }

    /// Sets the frames of a stack (at most [`MAX_FRAMES`]).
    pub(crate) fn frames(&mut self, which: Which, frames: &[u64]) {
        let s = &self.slot.stacks[which as usize];
        let nr = frames.len().min(MAX_FRAMES);
        for (dst, &src) in s.frames.iter().zip(frames[..nr].iter()) {
            dst.store(src, Relaxed);
        }
        s.nr.store(nr as u32, Relaxed);
    }
}

impl Drop for Writer<'_> {
    fn drop(&mut self) {
        self.slot.seq.store(self.seq.wrapping_add(2), Release);
    }
}
