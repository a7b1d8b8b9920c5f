// SPDX-License-Identifier: GPL-2.0

//! What a record is: its kind, header, stacks and in-window profile, as readers get it
//! (the copy a read makes of a slot), and the limits that size the slots.

use crate::ffi::COMM_LEN;
use crate::logic::cause::{Cause, Samples};
use crate::logic::grammar::{EndedBy, KindName};
use crate::logic::names::{self, REGION_LEN};
use crate::logic::params;

/// Frames kept per stack.
pub(crate) const MAX_FRAMES: usize = 32;
/// Room for one frame's name taken at capture (`func+0x1f/0x80 [module]`); a longer name
/// is cut here.
pub(crate) const NAME_BUF: usize = 256;
/// Largest number of records per CPU and kind (module parameter bound).
pub(crate) const MAX_RECORDS: usize = params::RECORDS_PER_CPU.max as usize;
/// u64 words of one stack's name region.
pub(super) const NAME_WORDS: usize = REGION_LEN / 8;
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
pub(super) const PROFILE_NAME_LEN: usize = 192;
/// Stacks of a record's profile besides the most-seen one (its window stack).
pub(crate) const PROFILE_EXTRA: usize = 3;
const _: () = assert!(PROFILE_NAME_LEN % 8 == 0 && PROFILE_FRAMES <= MAX_FRAMES);

/// One stack as read back, culprit first, with the names taken at capture: up to `F`
/// frames, `L` bytes of names.
#[derive(Clone)]
pub(crate) struct Stack<const F: usize = MAX_FRAMES, const L: usize = REGION_LEN> {
    pub(super) nr: usize,
    pub(super) frames: [u64; F],
    pub(super) named: u32,
    pub(super) names: [u8; L],
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
    /// The task's cgroup v2 id (`ffi::current_cgroup_id`), taken with `pid`; 0: unknown.
    pub(crate) cgroup_id: u64,
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
    /// Of `latency_ns`, the part in which every CPU was late together and this CPU showed
    /// no evidence of being stopped (`stall::Evidence`): a host pause, `stop_machine()` or
    /// a lock convoy, reported as the window it may be. 0: none.
    pub(crate) together_ns: u64,
    /// Which sampler ended (measured) the window: the hrtimer (hardirq-off windows, and a
    /// softirq-off window still open, which its look found), the softirq probe or the
    /// timer_list (`logic::grammar::EndedBy`).
    pub(crate) ended_by: EndedBy,
    /// The in-window stack is the function a `stop_machine()` call ran on this CPU within
    /// the window (one frame, from the probes on stop_machine: `ffi::stop_machine_callback`),
    /// the window's task the stopper thread that ran it; the end stack is where the call's
    /// `multi_cpu_stop` turned interrupts back on.
    pub(crate) stop_callback: bool,
}

impl Header {
    /// A finished window's header with nothing else known yet (its sampler the hrtimer:
    /// a writer of another says so).
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
            cgroup_id: 0,
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
            together_ns: 0,
            ended_by: EndedBy::Hrtimer,
            stop_callback: false,
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
