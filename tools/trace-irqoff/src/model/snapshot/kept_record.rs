// SPDX-License-Identifier: GPL-2.0
//! A kept record: one window, its stacks, its in-window profile, the window that
//! overlapped it, and what was found out about its culprit.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::kind::{Cause, EndedBy, Kind};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    pub cpu: u32,
    pub kind: Kind,
    /// Softirq records of format v2; none for hardirq records and before v2.
    #[serde(default)]
    pub cause: Option<Cause>,
    /// In v2, a softirq window still open when the file was read (latency so far); in v1,
    /// a softirq record taken by the hrtimer while softirqs were starved.
    pub lower_bound: bool,
    pub latency_ns: u64,
    /// When the window ended (the open window of v2: when it was read), CLOCK_MONOTONIC.
    pub timestamp_ns: u64,
    /// The same in wall-clock time, RFC 3339 UTC, converted with the boot time at read;
    /// absent when the module gives no timestamp (the original's `trace_latency`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wall_time: Option<String>,
    /// When the window started (`timestamp_ns - latency_ns`), in wall-clock time the same
    /// way; for the text views (JSON has both numbers).
    #[serde(skip)]
    pub start_wall_time: Option<String>,
    pub pid: i32,
    pub comm: String,
    /// For ksoftirqd-wait: how long the softirq thread was seen runnable but not running
    /// during the window (0: not seen, or unknown).
    #[serde(default)]
    pub runnable_ns: u64,
    /// Symbolised frames where the window ended, culprit first: `func+0x1f/0x80 [module]`.
    pub stack: Vec<String>,
    /// Whether `stack` shows the culprit. Not where the window was an interrupt handler,
    /// timer or softirq callback, or IPI function that had returned when the sampler ran
    /// (the module says so; before it did, always assumed).
    #[serde(default = "yes")]
    pub end_shows_culprit: bool,
    /// The task running while the window was open, and its stack then (the hrtimer's
    /// sample): what ran instead of the softirq thread. 0, empty and empty when not taken.
    #[serde(default)]
    pub window_pid: i32,
    #[serde(default)]
    pub window_comm: String,
    #[serde(default)]
    pub window_stack: Vec<String>,
    /// A window on another CPU that overlapped this one.
    #[serde(default)]
    pub overlap: Option<Overlap>,
    /// Of the latency, the part in which every CPU was late together and this CPU showed
    /// no evidence of being stopped: a host pause, `stop_machine()` or a lock convoy,
    /// which the guest cannot tell apart, kept in the window (0: none; absent from modules
    /// before it).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub together_ns: u64,
    /// Which of the module's samplers ended (measured) the window: `hrtimer` (every
    /// hardirq-off window, and a window still open), `probe` or `timer` (a softirq-off
    /// window); it sets how exactly the length is known (`precision`). Absent from
    /// modules before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_by: Option<EndedBy>,
    /// `window_stack` is the function a `stop_machine()` call ran on this CPU within the
    /// window (the module's probes saw the call), `window_comm` the stopper thread that ran
    /// it: the culprit, while `stack` ends in the call's `multi_cpu_stop` as on every CPU
    /// the call held. False from modules before it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stop_callback: bool,
    /// A window still open when the file was read (format v2 `lower_bound=1`: a softirq
    /// window, or a hardirq window seen by the watcher): its latency so far, no end stack.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ongoing: bool,
    /// Where the window was while it was open: the distinct stacks sampled in it, with
    /// counts (module with the watcher; none before, or without samples).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<Profile>,
    /// The range the true length lies in, from the module's period and HZ (see
    /// `precision`); absent for a window still open and for the original module.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub true_latency_min_ns: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub true_latency_max_ns: Option<u64>,
    /// The cgroup v2 id of the culprit task (`pid`), taken with it; absent from modules
    /// before it, and where the kernel has no cgroups.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cgroup_id: Option<u64>,
    /// Its path under the cgroup2 mount (`/` first), looked up when the file was read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cgroup: Option<String>,
    /// What the path says the task ran in (`cgroup::classify`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cgroup_class: Option<crate::model::cgroup_class::Class>,
    /// The id was looked up and no cgroup has it any more.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cgroup_gone: bool,
    /// Build ids (hex) of the modules in its stacks, by module name: taken at capture where
    /// the kernel prints them in stack traces (`[module BUILDID]`, kept out of the frames),
    /// else read from `/sys/module` when the records were read. What `--lines` finds a
    /// module's debug information by, also after it was unloaded.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub build_ids: BTreeMap<String, String>,
    /// `records --lines`: the source lines of its frames, by frame as shown in its stacks;
    /// frames without debug information are left out (absent without `--lines`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub lines: BTreeMap<String, Vec<SourceLine>>,
}

impl Record {
    /// A record of `kind` on `cpu` with every other field empty, for struct update syntax.
    pub fn new(cpu: u32, kind: Kind) -> Self {
        Self {
            cpu,
            kind,
            cause: None,
            lower_bound: false,
            latency_ns: 0,
            timestamp_ns: 0,
            wall_time: None,
            start_wall_time: None,
            pid: 0,
            comm: String::new(),
            runnable_ns: 0,
            stack: Vec::new(),
            end_shows_culprit: true,
            window_pid: 0,
            window_comm: String::new(),
            window_stack: Vec::new(),
            overlap: None,
            together_ns: 0,
            ended_by: None,
            stop_callback: false,
            ongoing: false,
            profile: None,
            true_latency_min_ns: None,
            true_latency_max_ns: None,
            cgroup_id: None,
            cgroup: None,
            cgroup_class: None,
            cgroup_gone: false,
            build_ids: BTreeMap::new(),
            lines: BTreeMap::new(),
        }
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn yes() -> bool {
    true
}

/// What tells records apart between two reads of the file.
pub type RecordKey = (u32, Kind, u64, u64);

impl Record {
    /// CPU, kind, timestamp and latency: no two windows share them.
    pub fn key(&self) -> RecordKey {
        (self.cpu, self.kind, self.timestamp_ns, self.latency_ns)
    }
}

/// Where a frame is in the source: innermost first, one per function inlined there, the
/// last being the frame's own function (`--lines`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceLine {
    /// The function whose code this is (demangled).
    pub function: String,
    /// The source file, as the debug information names it.
    pub file: String,
    pub line: u32,
}

/// A window's in-window profile: the stacks sampled while it was open, most-seen first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Profile {
    /// Samples taken.
    pub samples: u64,
    /// Their weight in sampler periods (a sample counts as many periods as its stride:
    /// sampling thins out in long windows), so weights are proportional to time.
    pub weight: u64,
    /// Distinct stacks the module saw; only the most-seen are kept in `stacks`.
    pub distinct: u64,
    /// Weight that fitted no stack of the module's table.
    pub other: u64,
    pub stacks: Vec<ProfileStack>,
}

impl Profile {
    /// The weight of the stacks not kept (and `other`): `weight` minus the kept counts.
    pub fn unkept(&self) -> u64 {
        self.weight
            .saturating_sub(self.stacks.iter().map(|s| s.count).sum())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProfileStack {
    /// Weight in sampler periods.
    pub count: u64,
    /// Innermost first, like `Record::stack`.
    pub frames: Vec<String>,
}

/// The window on another CPU that overlapped a record's window.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Overlap {
    pub cpu: u32,
    pub kind: Kind,
    /// That CPU's record: its latency, or none when it was not found (still open, or
    /// not kept); pid and comm are then 0 and empty.
    pub latency_ns: Option<u64>,
    pub pid: i32,
    pub comm: String,
}

/// The first of `records` (in their order) that is a window of at least `ms`, ended: in
/// format v2 a lower bound is a window still open, whose own record follows when it ends.
pub fn first_at_least(records: &[Record], ms: u64, version: u32) -> Option<&Record> {
    records
        .iter()
        .find(|r| r.latency_ns >= ms.saturating_mul(1_000_000) && !(r.lower_bound && version >= 2))
}
