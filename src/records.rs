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
//! ([`Which::Window`]).
//!
//! Frames in code that can be unloaded (modules) need their names taken while that code is
//! loaded, but naming one walks its module's whole symbol table: the capture, in hard
//! interrupt context, saves only addresses. The names are written afterwards, in process
//! context, by the namer (`namer.rs`): a slot's name area has a writer of its own (the
//! namer, one at a time) and a sequence count of its own, and says which version of the
//! slot (its sequence count) its names belong to; readers take the names only for the
//! version of the record they read. The capture's writer never touches the name area.

use kernel::prelude::*;
use kernel::sync::atomic::{Acquire, Atomic, Relaxed, Release};
use kernel::time::{delay::fsleep, Delta};

use crate::compat::{smp_rmb, smp_wmb};
use crate::ffi::{NoPreempt, COMM_LEN};
use crate::logic::backoff::{Backoff, Step};
use crate::logic::cause::{Cause, Samples};
use crate::logic::gap;
use crate::logic::grammar::KindName;
use crate::logic::names::{self, Packer, REGION_LEN};
use crate::logic::params;
use crate::logic::profile::{self, PROFILE_STACKS};
use crate::logic::retention::{self, Decision};

/// Failed attempts a reader spins before it sleeps: a write is some 100 stores.
const READ_SPINS: u32 = 100;
/// Sleeps before a reader gives up on a slot (100 ms in all).
const READ_SLEEPS: u32 = 1000;
/// One sleep: long enough to be a real sleep (fsleep busy-waits below 10 µs).
const READ_SLEEP: Delta = Delta::from_micros(100);

/// Repeats `attempt` (one try of a seqcount read) while the writer is inside: spins, then
/// sleeps, then gives up after the [`Backoff`]; true once an attempt succeeds. Process
/// context only: it may sleep.
fn retry_read(attempt: impl FnMut() -> bool) -> bool {
    retry_read_with(Backoff::new(READ_SPINS, READ_SLEEPS), attempt, || {
        fsleep(READ_SLEEP)
    })
}

/// [`retry_read`] with the backoff and the sleep given: the KUnit test counts the
/// attempts of a short backoff without sleeping (the full one is a hundred thousand
/// attempts, seconds of guest time on an emulated KASAN kernel; its shape is tested in
/// `backoff`).
fn retry_read_with(
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

/// Frames kept per stack.
pub(crate) const MAX_FRAMES: usize = 32;
/// Room for one frame's name taken at capture (`func+0x1f/0x80 [module]`); a longer name
/// is cut here.
pub(crate) const NAME_BUF: usize = 256;
/// Largest number of records per CPU and kind (module parameter bound).
pub(crate) const MAX_RECORDS: usize = params::RECORDS_PER_CPU.max as usize;
/// u64 words of one stack's name region.
const NAME_WORDS: usize = REGION_LEN / 8;
const _: () = assert!(REGION_LEN % 8 == 0 && MAX_FRAMES <= 32);

/// The two kinds of section the module detects.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Kind {
    Hardirq,
    Softirq,
}

impl Kind {
    /// The kind as the files name it (`logic::grammar`).
    pub(crate) const fn grammar(self) -> KindName {
        match self {
            Kind::Hardirq => KindName::Hard,
            Kind::Softirq => KindName::Soft,
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

/// Frames kept per stack of a record's profile beyond its most-seen one.
pub(crate) const PROFILE_FRAMES: usize = 16;
/// Bytes of names of such a stack.
const PROFILE_NAME_LEN: usize = 192;
/// Stacks of a record's profile besides the most-seen one (its window stack).
pub(crate) const PROFILE_EXTRA: usize = 3;
const _: () = assert!(PROFILE_NAME_LEN % 8 == 0 && PROFILE_FRAMES <= MAX_FRAMES);

/// One stack as read back, culprit first, with the names taken at capture: up to `F`
/// frames, `L` bytes of names.
#[derive(Clone)]
pub(crate) struct Stack<const F: usize = MAX_FRAMES, const L: usize = REGION_LEN> {
    nr: usize,
    frames: [u64; F],
    named: u32,
    names: [u8; L],
}

/// A stack of a record's profile beyond the first.
pub(crate) type SmallStack = Stack<PROFILE_FRAMES, PROFILE_NAME_LEN>;
/// A stack of a live profile: raw frames, named when its window ends.
pub(crate) type RawStack = Stack<MAX_FRAMES, 0>;

impl<const F: usize, const L: usize> Stack<F, L> {
    pub(crate) const fn empty() -> Self {
        Self {
            nr: 0,
            frames: [0; F],
            named: 0,
            names: [0; L],
        }
    }

    pub(crate) fn frames(&self) -> &[u64] {
        &self.frames[..self.nr.min(F)]
    }

    /// The name frame `i` got at capture, if it is in code that can be unloaded.
    pub(crate) fn name(&self, i: usize) -> Option<&[u8]> {
        names::name_of(&self.names, self.named, i)
    }

    /// The name taken at capture for the frame at `addr`, if this stack has one for it.
    pub(crate) fn name_of_addr(&self, addr: u64) -> Option<&[u8]> {
        self.frames()
            .iter()
            .position(|&a| a == addr)
            .and_then(|i| self.name(i))
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
    /// The stack where the window ended shows its culprit. Not so where the window was an
    /// interrupt handler, timer or softirq callback, or IPI function that had returned
    /// when the sampler ran: then the in-window stack names it.
    pub(crate) end_shows_culprit: bool,
}

impl Header {
    /// A finished window's header with nothing else known yet.
    pub(crate) const fn new(
        latency_ns: u64,
        timestamp_ns: u64,
        pid: i32,
        comm: [u8; COMM_LEN],
    ) -> Self {
        Self {
            latency_ns,
            timestamp_ns,
            pid,
            comm,
            ongoing: false,
            cause: None,
            runnable_ns: 0,
            samples: Samples {
                total: 0,
                bh_off: 0,
                idle: 0,
            },
            jiffies: 0,
            overlap_cpu: None,
            end_shows_culprit: true,
        }
    }
}

/// A record's in-window profile as read back: its most-seen stack is the record's window
/// stack ([`Which::Window`]), the next ones are `extra`.
pub(crate) struct Profile {
    /// Samples taken (NMIs answered, or hrtimer looks); 0: no profile.
    pub(crate) samples: u32,
    /// Their weight in sampler periods (see `profile::next_sample`).
    pub(crate) weight: u32,
    /// Weight of samples whose stack did not fit the live profile's table.
    pub(crate) other: u32,
    /// Distinct stacks seen (the live table's, up to `PROFILE_STACKS`).
    pub(crate) distinct: u32,
    /// Weight of the window stack, then of each `extra` stack.
    pub(crate) counts: [u32; 1 + PROFILE_EXTRA],
    pub(crate) extra: [SmallStack; PROFILE_EXTRA],
}

impl Profile {
    const fn empty() -> Self {
        Self {
            samples: 0,
            weight: 0,
            other: 0,
            distinct: 0,
            counts: [0; 1 + PROFILE_EXTRA],
            extra: [const { SmallStack::empty() }; PROFILE_EXTRA],
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
    pub(crate) profile: Profile,
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
            profile: Profile::empty(),
        }
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
    [
        a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], b[0], b[1], b[2], b[3], b[4], b[5], b[6],
        b[7],
    ]
}

/// Flags word: bit 0 ongoing, bits 1..=2 cause (0 none, 1 bh-off, 2 ksoftirqd-wait), bit 3
/// the end stack does not show the culprit.
fn flags(h: &Header) -> u32 {
    let cause = match h.cause {
        None => 0,
        Some(Cause::BhOff) => 1,
        Some(Cause::KsoftirqdWait) => 2,
    };
    u32::from(h.ongoing) | (cause << 1) | (u32::from(!h.end_shows_culprit) << 3)
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
struct SlotStack<const F: usize = MAX_FRAMES, const W: usize = NAME_WORDS> {
    nr: Atomic<u32>,
    named: Atomic<u32>,
    frames: [Atomic<u64>; F],
    names: [Atomic<u64>; W],
}

impl<const F: usize, const W: usize> SlotStack<F, W> {
    const fn new() -> Self {
        Self {
            nr: Atomic::new(0),
            named: Atomic::new(0),
            frames: [const { Atomic::new(0) }; F],
            names: [const { Atomic::new(0) }; W],
        }
    }

    fn len(&self) -> usize {
        (self.nr.load(Relaxed) as usize).min(F)
    }

    /// Sets the frames (at most `F`), without names.
    fn set_frames(&self, frames: impl Iterator<Item = u64>) {
        let mut n = 0;
        for (dst, src) in self.frames.iter().zip(frames) {
            dst.store(src, Relaxed);
            n += 1;
        }
        self.nr.store(n as u32, Relaxed);
    }

    /// Keeps only its bottom `c` frames (the single writer).
    fn keep_bottom(&self, c: usize) {
        let len = self.len();
        let c = c.min(len);
        for t in 0..c {
            self.frames[t].store(self.frames[len - c + t].load(Relaxed), Relaxed);
        }
        self.nr.store(c as u32, Relaxed);
    }

    /// Whether it holds the same frames as `other`.
    fn same_as(&self, other: &Self) -> bool {
        let len = self.len();
        len == other.len()
            && self.frames[..len]
                .iter()
                .zip(&other.frames[..len])
                .all(|(a, b)| a.load(Relaxed) == b.load(Relaxed))
    }

    /// Whether it holds exactly `frames`.
    fn holds(&self, frames: &[u64]) -> bool {
        self.len() == frames.len()
            && self
                .frames
                .iter()
                .zip(frames)
                .all(|(a, &b)| a.load(Relaxed) == b)
    }

    /// Copies the frames, and the names if `names` (they belong to the version read).
    fn read<const L: usize>(&self, out: &mut Stack<F, L>, names: bool) {
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
    fn copy_frames_from(&self, other: &SlotStack<F, W>) {
        self.nr.store(other.nr.load(Relaxed), Relaxed);
        for (d, s) in self.frames.iter().zip(other.frames.iter()) {
            d.store(s.load(Relaxed), Relaxed);
        }
    }

    /// Copies the frames into `out` (at most its length); returns how many.
    fn frames_into(&self, out: &mut [u64]) -> usize {
        let n = self.len().min(out.len());
        for (d, s) in out[..n].iter_mut().zip(self.frames.iter()) {
            *d = s.load(Relaxed);
        }
        n
    }

    /// Writes the name region `names` (bytes, zero-padded) and its bits. Only the namer,
    /// inside the slot's name sequence count.
    fn put_names(&self, named: u32, names: &[u8]) {
        for (i, word) in self.names.iter().enumerate() {
            let mut bytes = [0u8; 8];
            for (j, b) in bytes.iter_mut().enumerate() {
                *b = names.get(i * 8 + j).copied().unwrap_or(0);
            }
            word.store(u64::from_ne_bytes(bytes), Relaxed);
        }
        self.named.store(named, Relaxed);
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
    /// What readers resolved of its record (`overlap::Resolved`; 0: nothing). Written by
    /// readers only, outside the sequence count; each word names the count it is for.
    resolved: Atomic<u64>,
    comm: [Atomic<u64>; 2],
    window_comm: [Atomic<u64>; 2],
    stacks: [SlotStack; 2],
    profile: SlotProfile,
    /// The name area's sequence count: odd while the namer writes the stacks' names.
    name_seq: Atomic<u32>,
    /// The slot's `seq` + 1 of the version whose frames the names belong to (0: none; a
    /// published `seq` is even, so this is odd once set).
    named_for: Atomic<u32>,
}

/// A record's profile: header and the stacks beyond its window stack.
struct SlotProfile {
    samples: Atomic<u32>,
    weight: Atomic<u32>,
    other: Atomic<u32>,
    distinct: Atomic<u32>,
    counts: [Atomic<u32>; 1 + PROFILE_EXTRA],
    extra: [SlotStack<PROFILE_FRAMES, { PROFILE_NAME_LEN / 8 }>; PROFILE_EXTRA],
}

impl SlotProfile {
    fn new() -> Self {
        Self {
            samples: Atomic::new(0),
            weight: Atomic::new(0),
            other: Atomic::new(0),
            distinct: Atomic::new(0),
            counts: [const { Atomic::new(0) }; 1 + PROFILE_EXTRA],
            extra: [const { SlotStack::new() }; PROFILE_EXTRA],
        }
    }

    fn read(&self, out: &mut Profile, names: bool) {
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
            resolved: Atomic::new(0),
            comm: [const { Atomic::new(0) }; 2],
            window_comm: [const { Atomic::new(0) }; 2],
            stacks: [SlotStack::new(), SlotStack::new()],
            profile: SlotProfile::new(),
            name_seq: Atomic::new(0),
            named_for: Atomic::new(0),
        }
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

    /// A consistent copy into `out`, retrying while the writer is inside the slot; false if
    /// the slot stayed busy for the whole [`Backoff`] (`out` is then unspecified).
    ///
    /// Process context only: it may sleep.
    fn read(&self, out: &mut Record) -> bool {
        self.read_at(out).is_some()
    }

    /// [`Slot::read`], with the sequence count it was read at.
    fn read_at(&self, out: &mut Record) -> Option<u32> {
        let mut at = 0;
        retry_read(|| self.try_read(out).map(|s| at = s).is_some()).then_some(at)
    }

    /// Copies the header only (no stacks): what a reader needs to compare records. May
    /// sleep, like [`Slot::read`].
    /// The sequence count it was read at, if it was.
    fn read_header(&self, out: &mut Header) -> Option<u32> {
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
    fn load_header(&self, h: &mut Header) {
        h.latency_ns = self.latency_ns.load(Relaxed);
        h.timestamp_ns = self.timestamp_ns.load(Relaxed);
        h.pid = self.pid.load(Relaxed);
        let flags = self.flags.load(Relaxed);
        h.ongoing = flags & 1 != 0;
        h.cause = cause_of(flags);
        h.end_shows_culprit = flags & 8 == 0;
        h.runnable_ns = self.runnable_ns.load(Relaxed);
        h.samples = unpack_samples(self.samples.load(Relaxed));
        h.jiffies = self.jiffies.load(Relaxed);
        h.overlap_cpu = self.overlap.load(Relaxed).checked_sub(1);
        h.comm = unpack_comm([self.comm[0].load(Relaxed), self.comm[1].load(Relaxed)]);
    }

    /// One attempt of [`Slot::read`]: the sequence count it read at, `None` if the writer
    /// was inside the slot.
    fn try_read(&self, out: &mut Record) -> Option<u32> {
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
    slot: &'a Slot,
    seq: u32,
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

    /// Copies the profile of the window `window` from `live` (its most-seen stack becomes
    /// the window stack, with the task of the latest sample). True if copied; false if
    /// `live` holds another window or changed meanwhile.
    pub(crate) fn profile_from(&mut self, live: &LiveProfile, window: u64) -> bool {
        window != 0 && self.copy_profile(live, window)
    }

    /// [`Writer::profile_from`]'s copy, under `live`'s sequence count.
    fn copy_profile(&mut self, live: &LiveProfile, window: u64) -> bool {
        let s1 = live.seq.load(Acquire);
        if s1 & 1 != 0 || live.window.load(Relaxed) != window {
            return false;
        }
        let nr = (live.nr.load(Relaxed) as usize).min(PROFILE_STACKS);
        let mut counts = [0u32; PROFILE_STACKS];
        for (c, src) in counts.iter_mut().zip(live.counts.iter()).take(nr) {
            *c = src.load(Relaxed);
        }
        let (order, n) = profile::by_count::<PROFILE_STACKS>(&counts[..nr]);
        let p = &self.slot.profile;
        p.samples.store(live.samples.load(Relaxed), Relaxed);
        p.weight.store(live.weight.load(Relaxed), Relaxed);
        p.other.store(live.other.load(Relaxed), Relaxed);
        p.distinct.store(n as u32, Relaxed);
        for (k, &i) in order[..n].iter().enumerate().take(1 + PROFILE_EXTRA) {
            let src = &live.stacks[i];
            let frames = src.frames[..src.len()].iter().map(|f| f.load(Relaxed));
            match k.checked_sub(1) {
                None => self.slot.stacks[Which::Window as usize].set_frames(frames),
                Some(e) => p.extra[e].set_frames(frames),
            }
            p.counts[k].store(counts[i], Relaxed);
        }
        self.slot.window_pid.store(live.pid.load(Relaxed), Relaxed);
        for (d, s) in self.slot.window_comm.iter().zip(live.comm.iter()) {
            d.store(s.load(Relaxed), Relaxed);
        }
        smp_rmb();
        if live.seq.load(Relaxed) != s1 {
            p.samples.store(0, Relaxed);
            p.distinct.store(0, Relaxed);
            self.slot.stacks[Which::Window as usize]
                .nr
                .store(0, Relaxed);
            return false;
        }
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
        let (src, dst) = (
            &from.stacks[Which::Window as usize],
            &self.slot.stacks[Which::Window as usize],
        );
        dst.copy_frames_from(src);
        self.slot
            .window_pid
            .store(from.window_pid.load(Relaxed), Relaxed);
        for (d, s) in self.slot.window_comm.iter().zip(from.window_comm.iter()) {
            d.store(s.load(Relaxed), Relaxed);
        }
        smp_rmb();
        if from.seq.load(Relaxed) != s1 {
            dst.nr.store(0, Relaxed);
            return false;
        }
        true
    }
}

impl Drop for Writer<'_> {
    fn drop(&mut self) {
        self.slot.seq.store(self.seq.wrapping_add(2), Release);
    }
}

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
    /// it. Only this store's writer calls this. Never sleeps: fine in any context.
    pub(crate) fn offer(
        &self,
        header: &Header,
        generation: u64,
        fill: impl FnOnce(&mut Writer<'_>),
    ) {
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
        // it names the others too, once, so that reads do not.
        self.unnamed.store(1, Release);
        crate::ffi::namer_kick();
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
        Self {
            slot: Slot::new(),
            window: Atomic::new(0),
            generation: Atomic::new(0),
        }
    }

    /// Opens the window starting at `window_start` (the hrtimer only): `fill` writes its
    /// window stack.
    pub(crate) fn open(
        &self,
        window_start: u64,
        header: &Header,
        generation: u64,
        fill: impl FnOnce(&mut Writer<'_>),
    ) {
        self.window.store(0, Release);
        fill(&mut Writer::begin(&self.slot, header));
        self.generation.store(generation, Relaxed);
        self.window.store(window_start, Release);
    }

    /// Start of the open window, 0 when none.
    pub(crate) fn window_start(&self) -> u64 {
        self.window.load(Acquire)
    }

    /// Closes the window (the timer_list, after it ended).
    pub(crate) fn close(&self) {
        self.window.store(0, Release);
    }

    /// Copies the header of the open window of `generation` into `out`, its length as of
    /// `now` (the hrtimer wrote it when the window passed the threshold; it has been open
    /// since); false if none. May sleep.
    pub(crate) fn read_header(&self, generation: u64, now: u64, out: &mut Header) -> bool {
        let w = self.window.load(Acquire);
        let open = w != 0
            && self.generation.load(Relaxed) == generation
            && self.slot.read_header(out).is_some()
            && self.window.load(Acquire) == w;
        if open {
            (out.latency_ns, out.timestamp_ns) =
                gap::open_as_of(out.latency_ns, out.timestamp_ns, now);
        }
        open
    }

    /// Copies the open window of `generation` into `out`, its length as of `now` (as
    /// [`Self::read_header`]); false if none. May sleep.
    pub(crate) fn read(&self, generation: u64, now: u64, out: &mut Record) -> bool {
        let w = self.window.load(Acquire);
        let open = w != 0
            && self.generation.load(Relaxed) == generation
            && self.slot.read(out)
            && self.window.load(Acquire) == w;
        if open {
            let h = &mut out.header;
            (h.latency_ns, h.timestamp_ns) = gap::open_as_of(h.latency_ns, h.timestamp_ns, now);
        }
        open
    }
}

/// The profile of one CPU's open window, sampled while it lasts: distinct stacks with
/// their weights, and the latest sample's stack and task.
///
/// Its single writer runs on that CPU: the NMI handler (hardirq-off windows) or the
/// hrtimer (softirq-off windows). The writer never waits: it writes under a sequence
/// count, and readers retry. A reader on the writer's own CPU is never interrupted by a
/// write of the window it reads: the hrtimer reads the hardirq-off profile only after it
/// ended the window, and the NMI writes only while the window it was sent for is open.
pub(crate) struct LiveProfile {
    seq: Atomic<u32>,
    /// The window it belongs to (the sampler's last run before it), 0 when none.
    window: Atomic<u64>,
    samples: Atomic<u32>,
    weight: Atomic<u32>,
    other: Atomic<u32>,
    /// Distinct stacks in `stacks`.
    nr: Atomic<u32>,
    /// The latest sample: when, and the task it interrupted.
    last_ns: Atomic<u64>,
    pid: Atomic<i32>,
    comm: [Atomic<u64>; 2],
    counts: [Atomic<u32>; PROFILE_STACKS],
    stacks: [SlotStack<MAX_FRAMES, 0>; PROFILE_STACKS],
    latest: SlotStack<MAX_FRAMES, 0>,
}

/// A consistent copy of a [`LiveProfile`].
pub(crate) struct LiveView {
    pub(crate) window: u64,
    pub(crate) samples: u32,
    pub(crate) weight: u32,
    pub(crate) other: u32,
    pub(crate) last_ns: u64,
    pub(crate) pid: i32,
    pub(crate) comm: [u8; COMM_LEN],
    /// Distinct stacks, most-seen first, with their weights.
    pub(crate) nr: usize,
    pub(crate) counts: [u32; PROFILE_STACKS],
    pub(crate) stacks: [RawStack; PROFILE_STACKS],
    pub(crate) latest: RawStack,
}

impl LiveView {
    pub(crate) const fn empty() -> Self {
        Self {
            window: 0,
            samples: 0,
            weight: 0,
            other: 0,
            last_ns: 0,
            pid: 0,
            comm: [0; COMM_LEN],
            nr: 0,
            counts: [0; PROFILE_STACKS],
            stacks: [const { RawStack::empty() }; PROFILE_STACKS],
            latest: RawStack::empty(),
        }
    }
}

impl LiveProfile {
    pub(crate) fn new() -> Self {
        Self {
            seq: Atomic::new(0),
            window: Atomic::new(0),
            samples: Atomic::new(0),
            weight: Atomic::new(0),
            other: Atomic::new(0),
            nr: Atomic::new(0),
            last_ns: Atomic::new(0),
            pid: Atomic::new(0),
            comm: [const { Atomic::new(0) }; 2],
            counts: [const { Atomic::new(0) }; PROFILE_STACKS],
            stacks: [const { SlotStack::new() }; PROFILE_STACKS],
            latest: SlotStack::new(),
        }
    }

    /// Adds one sample of `window` (the writer only): `frames` weighs `weight` periods.
    /// A sample of a new window starts a new profile. Never waits; any context.
    pub(crate) fn sample(
        &self,
        window: u64,
        weight: u32,
        frames: &[u64],
        pid: i32,
        comm: &[u8; COMM_LEN],
        now: u64,
    ) {
        let frames = &frames[..frames.len().min(MAX_FRAMES)];
        let seq = self.seq.load(Relaxed);
        self.seq.store(seq.wrapping_add(1), Relaxed);
        smp_wmb();
        if self.window.load(Relaxed) != window {
            self.samples.store(0, Relaxed);
            self.weight.store(0, Relaxed);
            self.other.store(0, Relaxed);
            self.nr.store(0, Relaxed);
            self.window.store(window, Relaxed);
        }
        let nr = (self.nr.load(Relaxed) as usize).min(PROFILE_STACKS);
        match self.stacks[..nr].iter().position(|s| s.holds(frames)) {
            Some(i) => {
                self.counts[i].add(weight, Relaxed);
            }
            None if nr < PROFILE_STACKS => {
                self.stacks[nr].set_frames(frames.iter().copied());
                self.counts[nr].store(weight, Relaxed);
                self.nr.store(nr as u32 + 1, Relaxed);
            }
            None => self.merge(frames, weight),
        }
        self.latest.set_frames(frames.iter().copied());
        self.samples.add(1, Relaxed);
        self.weight.add(weight, Relaxed);
        self.last_ns.store(now, Relaxed);
        self.pid.store(pid, Relaxed);
        let [a, b] = pack_comm(comm);
        self.comm[0].store(a, Relaxed);
        self.comm[1].store(b, Relaxed);
        self.seq.store(seq.wrapping_add(2), Release);
    }

    /// A new stack for a full table: the two closest of the table's stacks and the new one
    /// merge into their common bottom part (`profile::closest_pair`). The writer only.
    fn merge(&self, frames: &[u64], weight: u32) {
        const NEW: usize = PROFILE_STACKS;
        let len = |i: usize| {
            if i == NEW {
                frames.len()
            } else {
                self.stacks[i].len()
            }
        };
        let at = |i: usize, k: usize| match i {
            NEW => frames.get(k).copied().unwrap_or(0),
            _ => self.stacks[i].frames[k].load(Relaxed),
        };
        let common = |i: usize, j: usize| {
            profile::common_suffix(len(i), len(j), |a, b| at(i, a) == at(j, b))
        };
        let Some((i, j, c)) = profile::closest_pair(NEW + 1, common) else {
            self.other.add(weight, Relaxed);
            return;
        };
        self.stacks[i].keep_bottom(c);
        if j == NEW {
            self.counts[i].add(weight, Relaxed);
        } else {
            self.counts[i].add(self.counts[j].load(Relaxed), Relaxed);
            self.stacks[j].set_frames(frames.iter().copied());
            self.counts[j].store(weight, Relaxed);
        }
        // Cut short, it may now be another stored stack: one entry for both.
        let nr = (self.nr.load(Relaxed) as usize).min(PROFILE_STACKS);
        if let Some(k) = (0..nr).find(|&k| k != i && self.stacks[k].same_as(&self.stacks[i])) {
            self.counts[k].add(self.counts[i].load(Relaxed), Relaxed);
            let last = nr - 1;
            if i != last {
                self.stacks[i].set_frames(
                    self.stacks[last].frames[..self.stacks[last].len()]
                        .iter()
                        .map(|f| f.load(Relaxed)),
                );
                self.counts[i].store(self.counts[last].load(Relaxed), Relaxed);
            }
            self.nr.store(last as u32, Relaxed);
        }
    }

    /// The latest sample's task, top frame and first frame in code that can be unloaded
    /// (0: none), if it holds `window` and a sample. Tries a few times only: for the
    /// watcher (hard interrupt context on another CPU).
    pub(crate) fn peek(
        &self,
        window: u64,
        vanishing: impl Fn(u64) -> bool,
    ) -> Option<(i32, [u8; COMM_LEN], u64, u64)> {
        for _ in 0..4 {
            let s1 = self.seq.load(Acquire);
            if s1 & 1 != 0 {
                core::hint::spin_loop();
                continue;
            }
            let ok = self.window.load(Relaxed) == window && self.samples.load(Relaxed) != 0;
            let pid = self.pid.load(Relaxed);
            let comm = unpack_comm([self.comm[0].load(Relaxed), self.comm[1].load(Relaxed)]);
            let frames = &self.latest.frames[..self.latest.len()];
            let top = frames.first().map_or(0, |f| f.load(Relaxed));
            let module = frames
                .iter()
                .map(|f| f.load(Relaxed))
                .find(|&f| vanishing(f))
                .unwrap_or(0);
            smp_rmb();
            if self.seq.load(Relaxed) == s1 {
                return ok.then_some((pid, comm, top, module));
            }
        }
        None
    }

    /// One attempt at a consistent copy; false if the writer was inside.
    fn try_read(&self, out: &mut LiveView) -> bool {
        let s1 = self.seq.load(Acquire);
        if s1 & 1 != 0 {
            return false;
        }
        out.window = self.window.load(Relaxed);
        out.samples = self.samples.load(Relaxed);
        out.weight = self.weight.load(Relaxed);
        out.other = self.other.load(Relaxed);
        out.last_ns = self.last_ns.load(Relaxed);
        out.pid = self.pid.load(Relaxed);
        out.comm = unpack_comm([self.comm[0].load(Relaxed), self.comm[1].load(Relaxed)]);
        let nr = (self.nr.load(Relaxed) as usize).min(PROFILE_STACKS);
        let mut counts = [0u32; PROFILE_STACKS];
        for (c, src) in counts.iter_mut().zip(self.counts.iter()).take(nr) {
            *c = src.load(Relaxed);
        }
        let (order, n) = profile::by_count::<PROFILE_STACKS>(&counts[..nr]);
        out.nr = n;
        for (k, &i) in order[..n].iter().enumerate() {
            out.counts[k] = counts[i];
            self.stacks[i].read(&mut out.stacks[k], false);
        }
        self.latest.read(&mut out.latest, false);
        smp_rmb();
        self.seq.load(Relaxed) == s1
    }

    /// A consistent copy into `out`, of any window; false if none could be taken. Process
    /// context only: it may sleep.
    pub(crate) fn read(&self, out: &mut LiveView) -> bool {
        retry_read(|| self.try_read(out))
    }
}

/// KUnit: compiled only with `CONFIG_KUNIT=y` (the macro gates the module on it), run when
/// the module loads.
#[kunit_tests(trace_irqoff_records)]
mod kunit {
    use super::*;

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

    #[test]
    fn writer_fills_the_slot_in_place() -> Result {
        let store = RecordStore::new(1)?;
        store.offer(&header(10, 1), 1, |w| {
            w.frames(Which::End, &[0x1000, 0x2000])
        });
        // The replacing writer starts from a clean slot: no frame of the old record stays.
        store.offer(&header(20, 2), 1, |w| w.frames(Which::Window, &[0x3000]));
        let mut r = KBox::new(Record::empty(), GFP_KERNEL)?;
        assert!(store.read_at(0, &mut r).is_some());
        assert_eq!(r.header.latency_ns, 20);
        assert_eq!(r.header.pid, 7);
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
