// SPDX-License-Identifier: GPL-2.0

//! The live profile of a CPU's open window ([`LiveProfile`]) and a reader's copy of it
//! ([`LiveView`]).

use crate::ffi::compat::{smp_rmb, smp_wmb};
use crate::ffi::COMM_LEN;
use crate::logic::profile::{self, PROFILE_STACKS};
use crate::records::slot::*;
use crate::records::types::*;
use kernel::sync::atomic::{Acquire, Atomic, Relaxed, Release};

/// The task a sample found running: its pid, name and cgroup v2 id.
#[derive(Clone, Copy)]
pub(crate) struct SampledTask<'a> {
    pub(crate) pid: i32,
    pub(crate) comm: &'a [u8; COMM_LEN],
    pub(crate) cgroup_id: u64,
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
    cgroup_id: Atomic<u64>,
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
    /// The cgroup v2 id of that task.
    pub(crate) cgroup_id: u64,
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
            cgroup_id: 0,
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
            cgroup_id: Atomic::new(0),
            counts: [const { Atomic::new(0) }; PROFILE_STACKS],
            stacks: [const { SlotStack::new() }; PROFILE_STACKS],
            latest: SlotStack::new(),
        }
    }

    /// Adds one sample of `window` (the writer only): `frames` weighs `weight` periods,
    /// `task` was running. A sample of a new window starts a new profile. Never waits;
    /// any context.
    pub(crate) fn sample(
        &self,
        window: u64,
        weight: u32,
        frames: &[u64],
        task: SampledTask<'_>,
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
        self.pid.store(task.pid, Relaxed);
        let [a, b] = pack_comm(task.comm);
        self.comm[0].store(a, Relaxed);
        self.comm[1].store(b, Relaxed);
        self.cgroup_id.store(task.cgroup_id, Relaxed);
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
        out.cgroup_id = self.cgroup_id.load(Relaxed);
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

/// A record's copy of the live profile.
impl Writer<'_> {
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
}
