// SPDX-License-Identifier: GPL-2.0
//! The module's state as one value: what `parse::records` reads from
//! `/proc/trace_irqoff/records` and `counters` (see Documentation/trace-irqoff.rst),
//! serialised as the CLI's JSON.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Number of log2 buckets; bucket k holds [2^k, 2^(k+1)) ms.
pub const NR_BUCKETS: usize = tio_logic::hist::NR_BUCKETS;

#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    clap::ValueEnum,
    Hash,
    PartialOrd,
    Ord,
)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Hard interrupts were off.
    Hard,
    /// Softirqs could not run.
    Soft,
}

impl Kind {
    pub fn label(self) -> &'static str {
        match self {
            Kind::Hard => "hardirq-off",
            Kind::Soft => "softirq-off",
        }
    }
}

/// Why softirqs could not run (records format v2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Hash, PartialOrd, Ord)]
#[serde(rename_all = "kebab-case")]
pub enum Cause {
    /// Bottom halves were disabled, or a softirq handler ran long.
    BhOff,
    /// Softirqs were pending with bottom halves enabled, deferred to the softirq thread
    /// (ksoftirqd/N, or ktimers/N), which did not get the CPU.
    KsoftirqdWait,
}

impl Cause {
    /// The name the module and the JSON use.
    pub fn name(self) -> &'static str {
        self.grammar().name()
    }

    /// The cause a name of the module's files stands for.
    pub fn parse(s: &str) -> Option<Self> {
        tio_logic::grammar::Cause::parse(s).map(|c| match c {
            tio_logic::grammar::Cause::BhOff => Cause::BhOff,
            tio_logic::grammar::Cause::KsoftirqdWait => Cause::KsoftirqdWait,
        })
    }

    /// The cause in the module's grammar.
    pub fn grammar(self) -> tio_logic::grammar::Cause {
        match self {
            Cause::BhOff => tio_logic::grammar::Cause::BhOff,
            Cause::KsoftirqdWait => tio_logic::grammar::Cause::KsoftirqdWait,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Config {
    pub enabled: bool,
    /// The CPUs sampled (a CPU list; "-": none), and the nohz_full ones, which are not by
    /// default; absent from modules without a `cpus` selection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpus: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nohz_full: Option<String>,
    pub period_ns: u64,
    pub threshold_ns: u64,
    pub hz: u64,
    pub records_per_cpu: u32,
    pub soft_period_ns: u64,
    pub soft_event_ns: u64,
    /// When the counts and records began (the load or the last clear), and when sampling
    /// was last enabled (0: off), CLOCK_MONOTONIC; absent from older modules.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counts_since_ns: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled_since_ns: Option<u64>,
    /// The clock anchor the file was read with: CLOCK_REALTIME minus CLOCK_MONOTONIC then,
    /// so that wall-clock times are right wherever a saved file is read; absent from
    /// older modules (this machine's is used then).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub realtime_offset_ns: Option<u64>,
    /// The same two in wall-clock time (RFC 3339 UTC), set where the records' are.
    #[serde(skip)]
    pub counts_since: Option<String>,
    #[serde(skip)]
    pub enabled_since: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cpu {
    pub cpu: u32,
    pub online: bool,
    pub hard_events: u64,
    pub soft_events: u64,
    /// Events not kept because the buffer held only worse ones.
    pub dropped: u64,
    /// Kept records overwritten by a worse event.
    pub replaced: u64,
    /// Gaps that ended in the idle loop (late wake-ups, not irq-off sections; not events).
    #[serde(default)]
    pub idle_gaps: u64,
    /// Timer_list gaps in which the hrtimer found softirqs free to run (a late timer, not
    /// a softirq-off window; not events); 0 before the module counted them.
    #[serde(default)]
    pub late_timer_gaps: u64,
    /// Gaps long only because of steal time the kernel accounted over them (the
    /// hypervisor did not run the vCPU; not events); 0 where it accounts none, and before
    /// the module counted them.
    #[serde(default)]
    pub steal_gaps: u64,
    /// Gaps long only because the whole machine stood still over them (no sampled CPU
    /// ran: a stall, see [`Stalls`]; not events); 0 before the module counted them.
    #[serde(default)]
    pub stall_gaps: u64,
    /// Softirq events by cause (they add up to `soft_events`); 0 before format v2.
    #[serde(default)]
    pub soft_bh_off_events: u64,
    #[serde(default)]
    pub soft_ksoftirqd_wait_events: u64,
    /// Log2 histogram counts per kind (bucket k: [2^k, 2^(k+1)) ms).
    pub hard_hist: Vec<u64>,
    pub soft_hist: Vec<u64>,
    /// `soft_hist` split by cause; empty before format v2 (the split is unknown then).
    #[serde(default)]
    pub soft_bh_off_hist: Vec<u64>,
    #[serde(default)]
    pub soft_ksoftirqd_wait_hist: Vec<u64>,
    /// Exact sums of the latencies counted in each histogram (module 0.1.0 since records v2
    /// with `*_sum_ns`); `None` where the module does not say, and only an estimate exists.
    #[serde(default)]
    pub sums_ns: Sums,
    /// Every counter of the `cpu` line the module declares
    /// (`tio_logic::grammar::cpu_counters`) that the line has, by key; empty where the
    /// CPU was not read from a `cpu` line. The fields above are the ones the views use by
    /// name; this carries every counter, a new one too, to `--json` and the metrics.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub counters: BTreeMap<String, u64>,
}

impl Cpu {
    /// A CPU with nothing counted (online, no histograms).
    pub fn new(cpu: u32) -> Self {
        Self {
            cpu,
            online: true,
            hard_events: 0,
            soft_events: 0,
            dropped: 0,
            replaced: 0,
            idle_gaps: 0,
            late_timer_gaps: 0,
            steal_gaps: 0,
            stall_gaps: 0,
            soft_bh_off_events: 0,
            soft_ksoftirqd_wait_events: 0,
            hard_hist: Vec::new(),
            soft_hist: Vec::new(),
            soft_bh_off_hist: Vec::new(),
            soft_ksoftirqd_wait_hist: Vec::new(),
            sums_ns: Sums::default(),
            counters: BTreeMap::new(),
        }
    }
}

/// The exact sums of a CPU's histograms, in ns, where the module gives them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sums {
    pub hard: Option<u64>,
    pub soft: Option<u64>,
    pub soft_bh_off: Option<u64>,
    pub soft_ksoftirqd_wait: Option<u64>,
}

impl Cpu {
    /// The exact sum in ns of the histogram `hist(kind, cause)` names, if known.
    pub fn sum_ns(&self, kind: Kind, cause: Option<Cause>) -> Option<u64> {
        match (kind, cause) {
            (Kind::Hard, _) => self.sums_ns.hard,
            (Kind::Soft, None) => self.sums_ns.soft,
            (Kind::Soft, Some(Cause::BhOff)) => self.sums_ns.soft_bh_off,
            (Kind::Soft, Some(Cause::KsoftirqdWait)) => self.sums_ns.soft_ksoftirqd_wait,
        }
    }

    /// The histogram of `kind`, narrowed to `cause` for softirqs (empty when unknown).
    pub fn hist(&self, kind: Kind, cause: Option<Cause>) -> &[u64] {
        match (kind, cause) {
            (Kind::Hard, _) => &self.hard_hist,
            (Kind::Soft, None) => &self.soft_hist,
            (Kind::Soft, Some(Cause::BhOff)) => &self.soft_bh_off_hist,
            (Kind::Soft, Some(Cause::KsoftirqdWait)) => &self.soft_ksoftirqd_wait_hist,
        }
    }
}

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
    pub cgroup_class: Option<crate::model::cgroup::Class>,
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

/// The watcher: stacks of hardirq-off windows still open, taken by NMI from another CPU.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Watcher {
    pub available: bool,
    /// Its NMI handler is registered (while sampling is enabled).
    pub active: bool,
    /// Why it is not available: "arch", "register-failed", "nmi-timeout", "off".
    pub reason: Option<String>,
    pub max_window_samples: u64,
    pub stuck_ns: u64,
    pub nmi_sent: u64,
    pub nmi_answered: u64,
    /// Sent NMIs that another NMI handler took (or the kernel swallowed as back-to-back),
    /// settled by their CPU; 0 before the module counted them.
    #[serde(default)]
    pub nmi_lost: u64,
    pub nmi_stale: u64,
    pub nmi_missed: u64,
    /// Windows overdue past the stuck length that no NMI found running anything but the
    /// idle loop (a vCPU not run, a frozen VM): no stuck line; 0 before the module counted.
    #[serde(default)]
    pub stuck_unconfirmed: u64,
}

/// A hardirq-off window still open when the file was read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ongoing {
    pub cpu: u32,
    pub kind: Kind,
    /// Its length so far.
    pub latency_ns: u64,
    /// When it started, CLOCK_MONOTONIC.
    pub start_ns: u64,
    /// The task of its latest in-window sample; 0 and empty before any.
    pub pid: i32,
    pub comm: String,
    /// In-window samples taken so far.
    pub samples: u64,
    /// The CPU watching it, if one does.
    pub watcher_cpu: Option<u32>,
    /// The cgroup v2 id of that task (absent from modules before it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cgroup_id: Option<u64>,
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

/// The first of `records` (in their order) that is a window of at least `ms`, ended: in
/// format v2 a lower bound is a window still open, whose own record follows when it ends.
pub fn first_at_least(records: &[Record], ms: u64, version: u32) -> Option<&Record> {
    records
        .iter()
        .find(|r| r.latency_ns >= ms.saturating_mul(1_000_000) && !(r.lower_bound && version >= 2))
}

/// What happened between two snapshots: per-CPU counts and histograms counted in between,
/// and the records that appeared.
pub fn delta(before: &Snapshot, after: &Snapshot) -> (Vec<Cpu>, Vec<Record>) {
    let old: std::collections::HashSet<RecordKey> =
        before.records.iter().map(Record::key).collect();
    let records = after
        .records
        .iter()
        .filter(|r| !old.contains(&r.key()))
        .cloned()
        .collect();
    let cpus = after
        .cpus
        .iter()
        .map(|a| {
            let b = before.cpus.iter().find(|b| b.cpu == a.cpu);
            let sub = |x: u64, y: Option<u64>| x.saturating_sub(y.unwrap_or(0));
            let subv = |x: &Vec<u64>, y: Option<&Vec<u64>>| {
                x.iter()
                    .enumerate()
                    .map(|(i, v)| v.saturating_sub(y.and_then(|y| y.get(i).copied()).unwrap_or(0)))
                    .collect()
            };
            Cpu {
                cpu: a.cpu,
                online: a.online,
                hard_events: sub(a.hard_events, b.map(|b| b.hard_events)),
                soft_events: sub(a.soft_events, b.map(|b| b.soft_events)),
                soft_bh_off_events: sub(a.soft_bh_off_events, b.map(|b| b.soft_bh_off_events)),
                soft_ksoftirqd_wait_events: sub(
                    a.soft_ksoftirqd_wait_events,
                    b.map(|b| b.soft_ksoftirqd_wait_events),
                ),
                dropped: sub(a.dropped, b.map(|b| b.dropped)),
                replaced: sub(a.replaced, b.map(|b| b.replaced)),
                idle_gaps: sub(a.idle_gaps, b.map(|b| b.idle_gaps)),
                late_timer_gaps: sub(a.late_timer_gaps, b.map(|b| b.late_timer_gaps)),
                steal_gaps: sub(a.steal_gaps, b.map(|b| b.steal_gaps)),
                stall_gaps: sub(a.stall_gaps, b.map(|b| b.stall_gaps)),
                hard_hist: subv(&a.hard_hist, b.map(|b| &b.hard_hist)),
                soft_hist: subv(&a.soft_hist, b.map(|b| &b.soft_hist)),
                soft_bh_off_hist: subv(&a.soft_bh_off_hist, b.map(|b| &b.soft_bh_off_hist)),
                soft_ksoftirqd_wait_hist: subv(
                    &a.soft_ksoftirqd_wait_hist,
                    b.map(|b| &b.soft_ksoftirqd_wait_hist),
                ),
                sums_ns: {
                    let d = |x: Option<u64>, y: Option<Option<u64>>| {
                        x.map(|x| x.saturating_sub(y.flatten().unwrap_or(0)))
                    };
                    Sums {
                        hard: d(a.sums_ns.hard, b.map(|b| b.sums_ns.hard)),
                        soft: d(a.sums_ns.soft, b.map(|b| b.sums_ns.soft)),
                        soft_bh_off: d(a.sums_ns.soft_bh_off, b.map(|b| b.sums_ns.soft_bh_off)),
                        soft_ksoftirqd_wait: d(
                            a.sums_ns.soft_ksoftirqd_wait,
                            b.map(|b| b.sums_ns.soft_ksoftirqd_wait),
                        ),
                    }
                },
                counters: a
                    .counters
                    .iter()
                    .map(|(k, &x)| {
                        let y = b.and_then(|b| b.counters.get(k).copied());
                        (k.clone(), x.saturating_sub(y.unwrap_or(0)))
                    })
                    .collect(),
            }
        })
        .collect();
    (cpus, records)
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

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Snapshot {
    pub version: u32,
    pub config: Config,
    pub cpus: Vec<Cpu>,
    pub records: Vec<Record>,
    /// The watcher of windows still open (absent on module versions without it).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub watcher: Option<Watcher>,
    /// Hardirq-off windows still open, as the watcher saw them.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub ongoing: Vec<Ongoing>,
    /// Tag-wait tracking (absent on module versions without it).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub tag_wait: Option<crate::tagwait::TagWait>,
    /// Stalls of the whole machine (the `stall` line; absent on module versions without
    /// it, which cannot tell a stall from a window).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub stalls: Option<Stalls>,
    /// Histograms as the original module's `distribute` printed them, when the snapshot
    /// was read from a module without a `records` file (per-CPU counts are then unknown).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub original_hist: Option<Vec<(Kind, Vec<Row>)>>,
    /// The longest window per CPU, kind and cause, when the snapshot was read from the
    /// `counters` file (which has no records to take it from).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub worst: Option<Vec<Worst>>,
}

impl Snapshot {
    /// Sets the wall-clock times of the config and the records from `clock`, and keeps
    /// its anchor, so that JSON written from it carries the anchor too.
    pub fn stamp(&mut self, clock: &crate::clock::Clock) {
        let c = &mut self.config;
        c.realtime_offset_ns = Some(clock.realtime_offset_ns());
        c.counts_since = c.counts_since_ns.map(|ns| clock.rfc3339(ns));
        c.enabled_since = c
            .enabled_since_ns
            .filter(|ns| *ns != 0)
            .map(|ns| clock.rfc3339(ns));
        for r in self.records.iter_mut().filter(|r| r.timestamp_ns != 0) {
            r.wall_time = Some(clock.rfc3339(r.timestamp_ns));
            r.start_wall_time = Some(clock.rfc3339(r.timestamp_ns.saturating_sub(r.latency_ns)));
        }
        if let Some(st) = self.stalls.as_mut().filter(|st| st.latest_end_ns != 0) {
            st.latest_end_time = Some(clock.rfc3339(st.latest_end_ns));
        }
    }
}

/// Stalls of the whole machine: spans in which no sampled CPU's hrtimer ran at all (a VM
/// paused by its host, a stopped emulator, a live migration's pause). Not irq-off
/// windows: the module counts them apart, and the CPUs' gaps over them as `stall_gaps`.
/// The `stall` line of the records and counters files, since the last clear.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stalls {
    /// Silences of a period or more, and of those, the ones at least the threshold long.
    pub count: u64,
    pub over_threshold: u64,
    /// Their total and longest length.
    pub sum_ns: u64,
    pub longest_ns: u64,
    /// The latest one's span, CLOCK_MONOTONIC (0 and 0 before any).
    pub latest_start_ns: u64,
    pub latest_end_ns: u64,
    /// When the latest one ended, RFC 3339 UTC, set where the records' times are (the text
    /// views; JSON has the numbers).
    #[serde(skip)]
    pub latest_end_time: Option<String>,
}

impl Stalls {
    /// The counts of a list of stalls (a recording's), `threshold_ns` deciding which are
    /// over the threshold.
    pub fn of(list: &[Stall], threshold_ns: u64) -> Self {
        let mut st = Stalls::default();
        for s in list {
            st.count += 1;
            st.sum_ns += s.length_ns;
            st.longest_ns = st.longest_ns.max(s.length_ns);
            if s.length_ns >= threshold_ns {
                st.over_threshold += 1;
            }
            if s.end_ns >= st.latest_end_ns {
                (st.latest_start_ns, st.latest_end_ns) = (s.start_ns, s.end_ns);
                st.latest_end_time = s.end_time.clone();
            }
        }
        st
    }

    /// The stalls of a recording's span: those of its list (from the event stream), else
    /// as many as the module counted over it (lengths unknown then: 0); none where neither
    /// says there was one.
    pub fn of_span(list: &[Stall], counted: Option<u64>, threshold_ns: u64) -> Option<Self> {
        let counted = counted.unwrap_or(0);
        if list.is_empty() && counted == 0 {
            return None;
        }
        let st = Stalls::of(list, threshold_ns);
        // Some the stream did not carry: the list's lengths are not those of all of them.
        Some(if counted > st.count {
            Stalls {
                count: counted,
                ..Stalls::default()
            }
        } else {
            st
        })
    }

    /// The stalls counted since `before` was read (all of them where there is no
    /// `before`, or the counters were cleared since). The longest is known only where it
    /// is new since, or the only one: 0 (unknown) otherwise.
    pub fn since(&self, before: Option<&Stalls>) -> Stalls {
        let Some(b) = before.filter(|b| self.count >= b.count && self.count > 0) else {
            return self.clone();
        };
        let count = self.count - b.count;
        let sum_ns = self.sum_ns.saturating_sub(b.sum_ns);
        let longest_ns = if self.longest_ns > b.longest_ns {
            self.longest_ns
        } else if count == 1 {
            sum_ns
        } else {
            0
        };
        let latest = count > 0;
        Stalls {
            count,
            over_threshold: self.over_threshold.saturating_sub(b.over_threshold),
            sum_ns,
            longest_ns: if count > 0 { longest_ns } else { 0 },
            latest_start_ns: if latest { self.latest_start_ns } else { 0 },
            latest_end_ns: if latest { self.latest_end_ns } else { 0 },
            latest_end_time: self.latest_end_time.clone().filter(|_| latest),
        }
    }

    /// The latest stall, as the stream would carry it (without the CPU); none before any.
    pub fn latest(&self) -> Option<Stall> {
        (self.count > 0 && self.latest_end_ns != 0)
            .then(|| Stall::new(None, self.latest_start_ns, self.latest_end_ns))
    }
}

/// One stall of the whole machine (`trace_irqoff:stall` in the event stream, or the
/// latest one of the `stall` line): no sampled CPU ran from `start_ns` to `end_ns`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stall {
    /// The CPU that ran first after it (unknown for the `stall` line's latest one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<u32>,
    /// Its span, CLOCK_MONOTONIC, and length.
    pub start_ns: u64,
    pub end_ns: u64,
    pub length_ns: u64,
    /// The same span in wall-clock time (RFC 3339 UTC), where the clock anchor is known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_time: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_time: Option<String>,
}

impl Stall {
    pub fn new(cpu: Option<u32>, start_ns: u64, end_ns: u64) -> Self {
        Self {
            cpu,
            start_ns,
            end_ns,
            length_ns: end_ns.saturating_sub(start_ns),
            start_time: None,
            end_time: None,
        }
    }

    /// The same stall with its wall-clock times from `clock`.
    pub fn stamped(mut self, clock: &crate::clock::Clock) -> Self {
        self.start_time = Some(clock.rfc3339(self.start_ns));
        self.end_time = Some(clock.rfc3339(self.end_ns));
        self
    }

    /// What tells two stalls apart (a stall is machine-wide: no two share a span).
    pub fn key(&self) -> (u64, u64) {
        (self.start_ns, self.end_ns)
    }
}

/// One row of the original module's `distribute` histogram: [lo, hi] ms and its count.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Row {
    pub lo_ms: u64,
    pub hi_ms: u64,
    pub count: u64,
}

/// A `worst` line of the `counters` file: the longest window of a CPU that `records`
/// shows (its records and its windows still open), per kind and softirq cause; 0: none.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Worst {
    pub cpu: u32,
    pub hard_ns: u64,
    pub soft_ns: u64,
    pub soft_bh_off_ns: u64,
    pub soft_ksoftirqd_wait_ns: u64,
}

impl Worst {
    /// The longest window of `kind`, narrowed to `cause` for softirqs.
    pub fn of(&self, kind: Kind, cause: Option<Cause>) -> u64 {
        match (kind, cause) {
            (Kind::Hard, _) => self.hard_ns,
            (Kind::Soft, None) => self.soft_ns,
            (Kind::Soft, Some(Cause::BhOff)) => self.soft_bh_off_ns,
            (Kind::Soft, Some(Cause::KsoftirqdWait)) => self.soft_ksoftirqd_wait_ns,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stalls(count: u64, sum_ns: u64, longest_ns: u64, latest: (u64, u64)) -> Stalls {
        Stalls {
            count,
            over_threshold: count,
            sum_ns,
            longest_ns,
            latest_start_ns: latest.0,
            latest_end_ns: latest.1,
            latest_end_time: None,
        }
    }

    /// Claim: the stalls since an earlier read are the counts' differences; the longest
    /// is given only where it is known (a new longest, or a single stall), 0 otherwise;
    /// after a clear (counts went down) or without an earlier read, all of them.
    #[test]
    fn stalls_since_an_earlier_read() {
        let before = stalls(2, 400, 300, (10, 310));
        let after = stalls(3, 450, 300, (1000, 1050));
        let d = after.since(Some(&before));
        assert_eq!(
            (d.count, d.sum_ns, d.longest_ns, d.latest_end_ns),
            (1, 50, 50, 1050)
        );
        let d = stalls(4, 900, 450, (2000, 2450)).since(Some(&before));
        assert_eq!((d.count, d.sum_ns, d.longest_ns), (2, 500, 450));
        let d = stalls(4, 460, 300, (2000, 2030)).since(Some(&before));
        assert_eq!((d.count, d.sum_ns, d.longest_ns), (2, 60, 0));
        let d = before.since(Some(&before));
        assert_eq!(
            (d.count, d.sum_ns, d.longest_ns, d.latest_end_ns),
            (0, 0, 0, 0)
        );
        let cleared = stalls(1, 20, 20, (5000, 5020));
        assert_eq!(cleared.since(Some(&before)), cleared);
        assert_eq!(after.since(None), after);
    }

    /// Claim: a list of stalls (a recording's) counts as the module counts: how many, how
    /// many at least the threshold, total, longest and the latest; a span whose module
    /// counted more than its list holds keeps the count and no lengths; no stall, none.
    #[test]
    fn stalls_of_a_list_and_of_a_span() {
        let list = [
            Stall::new(Some(0), 100, 400),
            Stall::new(Some(1), 1000, 1020),
        ];
        let st = Stalls::of(&list, 50);
        assert_eq!(
            (st.count, st.over_threshold, st.sum_ns, st.longest_ns),
            (2, 1, 320, 300)
        );
        assert_eq!((st.latest_start_ns, st.latest_end_ns), (1000, 1020));
        assert_eq!(Stalls::of_span(&list, Some(2), 50), Some(st.clone()));
        assert_eq!(Stalls::of_span(&list, None, 50), Some(st));
        let more = Stalls::of_span(&list, Some(3), 50).unwrap();
        assert_eq!((more.count, more.sum_ns, more.longest_ns), (3, 0, 0));
        assert_eq!(Stalls::of_span(&[], Some(0), 50), None);
        assert_eq!(Stalls::of_span(&[], None, 50), None);
    }
}
