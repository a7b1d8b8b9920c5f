// SPDX-License-Identifier: GPL-2.0

//! Per-CPU, per-kind stores of the worst events since the last clear, and the one open
//! softirq window a CPU may have.
//!
//! Each store has one writer: the sampler of its CPU and kind, which never runs twice at
//! once. It writes a record in place ([`Writer`]), so the hard interrupt path keeps no copy
//! of a record on its stack. Readers (the /proc files, on any CPU) copy a slot under its
//! sequence count and retry if the writer was inside it, so no reader ever sees a
//! half-written record, and the writer never waits for a reader (it may run in hard
//! interrupt context, where no lock that sleeps on PREEMPT_RT may be taken). A clear only
//! bumps a generation number; the writer empties its store when it next sees a new
//! generation, readers ignore stale ones.
//!
//! The kernel's seqcount rule holds: the writer is not preemptible inside a slot. The
//! hrtimer writes in hard interrupt context; the timer_list, which on PREEMPT_RT runs in
//! the preemptible ktimers/N thread, writes with preemption disabled. Otherwise a reader of
//! higher priority on the writer's CPU could preempt it mid-slot and spin forever. Readers
//! also never spin unboundedly: after a few spins they sleep, and in the end give up.
//!
//! A record holds two stacks: where the window ended ([`Which::End`]: where the sampler
//! finally ran) and, for softirq windows, one taken inside it by the hrtimer
//! ([`Which::Window`]). Frames in code that can be unloaded carry their names, taken at
//! capture (`names.rs`).

use kernel::prelude::*;
use kernel::sync::atomic::{Acquire, Atomic, Relaxed, Release};
use kernel::time::{delay::fsleep, Delta};

use crate::backoff::{Backoff, Step};
use crate::cause::{Cause, Samples};
use crate::compat::{smp_rmb, smp_wmb};
use crate::ffi::{NoPreempt, COMM_LEN};
use crate::names::{self, Packer, REGION_LEN};
use crate::retention::{self, Decision};

/// Failed attempts a reader spins before it sleeps: a write is some 100 stores.
const READ_SPINS: u32 = 100;
/// Sleeps before a reader gives up on a slot (100 ms in all).
const READ_SLEEPS: u32 = 1000;
/// One sleep: long enough to be a real sleep (fsleep busy-waits below 10 µs).
const READ_SLEEP: Delta = Delta::from_micros(100);

/// Longest name copied from one record to another.
const NAME_BUF: usize = 512;

/// Frames kept per stack.
pub(crate) const MAX_FRAMES: usize = 32;
/// Largest number of records per CPU and kind (module parameter bound).
pub(crate) const MAX_RECORDS: usize = 64;
/// u64 words of a record's name region.
const NAME_WORDS: usize = REGION_LEN / 8;
const _: () = assert!(REGION_LEN % 8 == 0 && MAX_FRAMES <= 32);

/// The two kinds of section the module detects.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Kind {
    Hardirq,
    Softirq,
}

impl Kind {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kind::Hardirq => "hard",
            Kind::Softirq => "soft",
        }
    }
}

/// The stacks of a record.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Which {
    /// Where the window ended: the code the sampler interrupted or ran after.
    End = 0,
    /// Inside a softirq window, taken by the hrtimer while it was open.
    Window = 1,
}

/// One stack as read back, culprit first.
#[derive(Clone)]
pub(crate) struct Stack {
    nr: usize,
    frames: [u64; MAX_FRAMES],
}

impl Stack {
    const fn empty() -> Self {
        Self { nr: 0, frames: [0; MAX_FRAMES] }
    }

    pub(crate) fn frames(&self) -> &[u64] {
        &self.frames[..self.nr.min(MAX_FRAMES)]
    }
}

/// What a writer sets first: everything but the stacks.
pub(crate) struct Header {
    pub(crate) latency_ns: u64,
    pub(crate) timestamp_ns: u64,
    pub(crate) pid: i32,
    pub(crate) comm: [u8; COMM_LEN],
    /// A softirq window still open: `latency_ns` is its length so far.
    pub(crate) ongoing: bool,
    /// Softirq windows only.
    pub(crate) cause: Option<Cause>,
    /// How long the softirq thread was seen waiting to run (0: not seen).
    pub(crate) runnable_ns: u64,
    /// What the hrtimer saw inside a softirq window.
    pub(crate) samples: Samples,
    /// Softirq windows: jiffies that passed from its start to the capture.
    pub(crate) jiffies: u64,
    /// Another CPU whose hardirq-off window overlapped this one.
    pub(crate) overlap_cpu: Option<u32>,
}

impl Header {
    /// A finished window's header with nothing else known yet.
    pub(crate) const fn new(latency_ns: u64, timestamp_ns: u64, pid: i32, comm: [u8; COMM_LEN]) -> Self {
        Self {
            latency_ns,
            timestamp_ns,
            pid,
            comm,
            ongoing: false,
            cause: None,
            runnable_ns: 0,
            samples: Samples { total: 0, bh_off: 0, idle: 0 },
            jiffies: 0,
            overlap_cpu: None,
        }
    }
}

/// One event with its culprit, as read back.
pub(crate) struct Record {
    pub(crate) header: Header,
    /// The task running when the window stack was taken.
    pub(crate) window_pid: i32,
    pub(crate) window_comm: [u8; COMM_LEN],
    pub(crate) stacks: [Stack; 2],
    /// Names taken at capture: which frames of each stack have one, and the names.
    named: [u32; 2],
    names: [u8; REGION_LEN],
}

/// A comm up to its NUL.
pub(crate) fn comm_str(comm: &[u8; COMM_LEN]) -> &[u8] {
    let end = comm.iter().position(|&b| b == 0).unwrap_or(COMM_LEN);
    &comm[..end]
}

impl Record {
    pub(crate) const fn empty() -> Self {
        Self {
            header: Header::new(0, 0, 0, [0; COMM_LEN]),
            window_pid: 0,
            window_comm: [0; COMM_LEN],
            stacks: [Stack::empty(), Stack::empty()],
            named: [0; 2],
            names: [0; REGION_LEN],
        }
    }

    /// The name frame `i` of a stack got at capture, if it is in code that can be unloaded.
    pub(crate) fn name(&self, which: Which, i: usize) -> Option<&[u8]> {
        names::name_of(&self.names, self.named, which as usize, i)
    }

    pub(crate) fn comm(&self) -> &[u8] {
        comm_str(&self.header.comm)
    }

    pub(crate) fn stack(&self, which: Which) -> &Stack {
        &self.stacks[which as usize]
    }

    /// The window [start, end) in ns: it ended at the timestamp.
    pub(crate) fn window(&self) -> (u64, u64) {
        let h = &self.header;
        (h.timestamp_ns.saturating_sub(h.latency_ns), h.timestamp_ns)
    }
}

fn pack_comm(c: &[u8; COMM_LEN]) -> [u64; 2] {
    [
        u64::from_ne_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]),
        u64::from_ne_bytes([c[8], c[9], c[10], c[11], c[12], c[13], c[14], c[15]]),
    ]
}

fn unpack_comm(w: [u64; 2]) -> [u8; COMM_LEN] {
    let [a, b] = [w[0].to_ne_bytes(), w[1].to_ne_bytes()];
    [a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]
}

/// Flags word: bit 0 ongoing, bits 1..=2 cause (0 none, 1 bh-off, 2 ksoftirqd-wait).
fn flags(h: &Header) -> u32 {
    let cause = match h.cause {
        None => 0,
        Some(Cause::BhOff) => 1,
        Some(Cause::KsoftirqdWait) => 2,
    };
    u32::from(h.ongoing) | (cause << 1)
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
    Samples { total: f(0), bh_off: f(SAMPLE_BITS), idle: f(2 * SAMPLE_BITS) }
}

/// One stack's storage.
struct SlotStack {
    nr: Atomic<u32>,
    frames: [Atomic<u64>; MAX_FRAMES],
}

impl SlotStack {
    fn new() -> Self {
        Self { nr: Atomic::new(0), frames: [const { Atomic::new(0) }; MAX_FRAMES] }
    }

    fn read(&self, out: &mut Stack) {
        out.nr = (self.nr.load(Relaxed) as usize).min(MAX_FRAMES);
        for (dst, src) in out.frames[..out.nr].iter_mut().zip(self.frames.iter()) {
            *dst = src.load(Relaxed);
        }
    }

    fn copy_from(&self, other: &SlotStack) {
        self.nr.store(other.nr.load(Relaxed), Relaxed);
        for (d, s) in self.frames.iter().zip(other.frames.iter()) {
            d.store(s.load(Relaxed), Relaxed);
        }
    }
}

/// A record's name region as atomics (see `names.rs`).
struct SlotNames {
    named: [Atomic<u32>; 2],
    bytes: [Atomic<u64>; NAME_WORDS],
}

impl SlotNames {
    fn new() -> Self {
        Self { named: [const { Atomic::new(0) }; 2], bytes: [const { Atomic::new(0) }; NAME_WORDS] }
    }

    fn read(&self, named: &mut [u32; 2], out: &mut [u8; REGION_LEN]) {
        *named = [self.named[0].load(Relaxed), self.named[1].load(Relaxed)];
        if *named == [0, 0] {
            return;
        }
        for (i, src) in self.bytes.iter().enumerate() {
            for (j, b) in src.load(Relaxed).to_ne_bytes().into_iter().enumerate() {
                if let Some(d) = out.get_mut(i * 8 + j) {
                    *d = b;
                }
            }
        }
    }

    fn byte(&self, at: usize) -> u8 {
        self.bytes.get(at / 8).map_or(0, |w| w.load(Relaxed).to_ne_bytes()[at % 8])
    }

    /// Stores `b` at byte `at` (single writer: read-modify-write).
    fn put_byte(&self, at: usize, b: u8) {
        if let Some(word) = self.bytes.get(at / 8) {
            let mut bytes = word.load(Relaxed).to_ne_bytes();
            bytes[at % 8] = b;
            word.store(u64::from_ne_bytes(bytes), Relaxed);
        }
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
struct Slot {
    seq: Atomic<u32>,
    latency_ns: Atomic<u64>,
    timestamp_ns: Atomic<u64>,
    pid: Atomic<i32>,
    window_pid: Atomic<i32>,
    flags: Atomic<u32>,
    runnable_ns: Atomic<u64>,
    /// `Samples` as three 21-bit fields: total, bh_off, idle.
    samples: Atomic<u64>,
    jiffies: Atomic<u64>,
    /// CPU + 1 of an overlapping hardirq-off window, 0 for none.
    overlap: Atomic<u32>,
    comm: [Atomic<u64>; 2],
    window_comm: [Atomic<u64>; 2],
    stacks: [SlotStack; 2],
    names: SlotNames,
}

impl Slot {
    fn new() -> Self {
        Self {
            seq: Atomic::new(0),
            latency_ns: Atomic::new(0),
            timestamp_ns: Atomic::new(0),
            pid: Atomic::new(0),
            window_pid: Atomic::new(0),
            flags: Atomic::new(0),
            runnable_ns: Atomic::new(0),
            samples: Atomic::new(0),
            jiffies: Atomic::new(0),
            overlap: Atomic::new(0),
            comm: [const { Atomic::new(0) }; 2],
            window_comm: [const { Atomic::new(0) }; 2],
            stacks: [SlotStack::new(), SlotStack::new()],
            names: SlotNames::new(),
        }
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
        let h = &mut out.header;
        h.latency_ns = self.latency_ns.load(Relaxed);
        h.timestamp_ns = self.timestamp_ns.load(Relaxed);
        h.pid = self.pid.load(Relaxed);
        let flags = self.flags.load(Relaxed);
        h.ongoing = flags & 1 != 0;
        h.cause = cause_of(flags);
        h.runnable_ns = self.runnable_ns.load(Relaxed);
        h.samples = unpack_samples(self.samples.load(Relaxed));
        h.jiffies = self.jiffies.load(Relaxed);
        h.overlap_cpu = self.overlap.load(Relaxed).checked_sub(1);
        h.comm = unpack_comm([self.comm[0].load(Relaxed), self.comm[1].load(Relaxed)]);
        out.window_pid = self.window_pid.load(Relaxed);
        out.window_comm = unpack_comm([self.window_comm[0].load(Relaxed), self.window_comm[1].load(Relaxed)]);
        for (dst, src) in out.stacks.iter_mut().zip(self.stacks.iter()) {
            src.read(dst);
        }
        self.names.read(&mut out.named, &mut out.names);
        smp_rmb();
        self.seq.load(Relaxed) == s1
    }
}

/// The single writer inside a slot: the sequence count is odd and preemption off while it
/// lives; dropping it publishes the record.
pub(crate) struct Writer<'a> {
    slot: &'a Slot,
    seq: u32,
    packer: Packer,
    // Dropped after `drop` made `seq` even again.
    _no_preempt: NoPreempt,
}

impl<'a> Writer<'a> {
    fn begin(slot: &'a Slot, header: &Header) -> Self {
        let no_preempt = NoPreempt::new();
        let seq = slot.seq.load(Relaxed);
        // INVARIANT: `seq` turns odd with preemption disabled, and even again in `drop`,
        // before `_no_preempt` is dropped.
        slot.seq.store(seq.wrapping_add(1), Relaxed);
        smp_wmb();
        slot.latency_ns.store(header.latency_ns, Relaxed);
        slot.timestamp_ns.store(header.timestamp_ns, Relaxed);
        slot.pid.store(header.pid, Relaxed);
        slot.flags.store(flags(header), Relaxed);
        slot.runnable_ns.store(header.runnable_ns, Relaxed);
        slot.samples.store(pack_samples(header.samples), Relaxed);
        slot.jiffies.store(header.jiffies, Relaxed);
        slot.overlap.store(header.overlap_cpu.map_or(0, |c| c.saturating_add(1)), Relaxed);
        let [a, b] = pack_comm(&header.comm);
        slot.comm[0].store(a, Relaxed);
        slot.comm[1].store(b, Relaxed);
        slot.window_pid.store(0, Relaxed);
        for s in &slot.stacks {
            s.nr.store(0, Relaxed);
        }
        for n in &slot.names.named {
            n.store(0, Relaxed);
        }
        Self { slot, seq, packer: Packer::new(), _no_preempt: no_preempt }
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

    /// Stores the name of frame `frame` of a stack, if it fits; false if not. The names of
    /// the end stack must come first.
    pub(crate) fn name(&mut self, which: Which, frame: usize, name: &[u8]) -> bool {
        let Some(at) = self.packer.place(which as usize, frame, name.len()) else {
            return false;
        };
        let n = &self.slot.names;
        for (i, &b) in name.iter().enumerate() {
            n.put_byte(at + i, b);
        }
        n.put_byte(at + name.len(), 0);
        n.named[which as usize].store(self.packer.named()[which as usize], Relaxed);
        true
    }

    /// Copies the window stack and task of `pending`'s record, if it is still for
    /// `window_start` and could be read consistently; true if copied.
    pub(crate) fn window_from(&mut self, pending: &Pending, window_start: u64) -> bool {
        let from = &pending.slot;
        let s1 = from.seq.load(Acquire);
        if s1 & 1 != 0 || pending.window.load(Acquire) != window_start {
            return false;
        }
        let (src, dst) = (&from.stacks[Which::Window as usize], &self.slot.stacks[Which::Window as usize]);
        dst.copy_from(src);
        self.slot.window_pid.store(from.window_pid.load(Relaxed), Relaxed);
        for (d, s) in self.slot.window_comm.iter().zip(from.window_comm.iter()) {
            d.store(s.load(Relaxed), Relaxed);
        }
        self.copy_window_names(&from.names);
        smp_rmb();
        if from.seq.load(Relaxed) != s1 {
            dst.nr.store(0, Relaxed);
            self.slot.names.named[Which::Window as usize].store(0, Relaxed);
            return false;
        }
        true
    }

    /// Appends the window stack's names of `from` after this record's end-stack names, as
    /// many as fit.
    fn copy_window_names(&mut self, from: &SlotNames) {
        let named = [from.named[0].load(Relaxed), from.named[1].load(Relaxed)];
        // Skip the source's end-stack names: its window names follow them.
        let mut at = 0;
        let mut skip = named[0].count_ones();
        while skip > 0 && at < REGION_LEN {
            if from.byte(at) == 0 {
                skip -= 1;
            }
            at += 1;
        }
        let mut buf = [0u8; NAME_BUF];
        for frame in (0..32).filter(|f| named[1] & (1 << f) != 0) {
            let mut len = 0;
            while at < REGION_LEN && from.byte(at) != 0 {
                if let Some(b) = buf.get_mut(len) {
                    *b = from.byte(at);
                    len += 1;
                }
                at += 1;
            }
            at += 1;
            self.name(Which::Window, frame, &buf[..len]);
        }
    }
}

impl Drop for Writer<'_> {
    fn drop(&mut self) {
        self.slot.seq.store(self.seq.wrapping_add(2), Release);
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

    /// Offers an event; if it is kept, `fill` writes its stacks into the slot chosen for
    /// it. Only this store's writer calls this. Never sleeps: fine in any context.
    pub(crate) fn offer(&self, header: &Header, generation: u64, fill: impl FnOnce(&mut Writer<'_>)) {
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
        let (i, insert) = match retention::decide(&kept[..used], self.slots.len(), header.latency_ns) {
            Decision::Insert(i) => (i, true),
            Decision::Replace(i) => (i, false),
            Decision::Drop => {
                self.dropped.fetch_add(1, Relaxed);
                return;
            }
        };
        let Some(slot) = self.slots.get(i) else { return };
        fill(&mut Writer::begin(slot, header));
        if insert {
            self.used.store((used + 1) as u32, Release);
        } else {
            self.replaced.fetch_add(1, Relaxed);
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

/// A CPU's softirq window that the hrtimer found open past the threshold, with the stack
/// it took inside it. The timer_list moves that stack into the window's record when the
/// window ends; until then readers show it as ongoing.
///
/// The hrtimer writes it, at most once per window; the timer_list of the same CPU reads
/// and closes it.
pub(crate) struct Pending {
    slot: Slot,
    /// Start of the open window it belongs to (the timer_list's last run), 0 when none.
    window: Atomic<u64>,
    /// Generation it was written in; stale after a clear.
    generation: Atomic<u64>,
}

impl Pending {
    pub(crate) fn new() -> Self {
        Self { slot: Slot::new(), window: Atomic::new(0), generation: Atomic::new(0) }
    }

    /// Opens the window starting at `window_start` (the hrtimer only): `fill` writes its
    /// window stack.
    pub(crate) fn open(&self, window_start: u64, header: &Header, generation: u64, fill: impl FnOnce(&mut Writer<'_>)) {
        self.window.store(0, Release);
        fill(&mut Writer::begin(&self.slot, header));
        self.generation.store(generation, Relaxed);
        self.window.store(window_start, Release);
    }

    /// Closes the window (the timer_list, after it ended).
    pub(crate) fn close(&self) {
        self.window.store(0, Release);
    }

    /// Copies the open window of `generation` into `out`; false if none. May sleep.
    pub(crate) fn read(&self, generation: u64, out: &mut Record) -> bool {
        let w = self.window.load(Acquire);
        w != 0
            && self.generation.load(Relaxed) == generation
            && self.slot.read(out)
            && self.window.load(Acquire) == w
    }
}
