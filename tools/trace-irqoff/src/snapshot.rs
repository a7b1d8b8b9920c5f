// SPDX-License-Identifier: GPL-2.0
//! The module's state as one value: parsed from `/proc/trace_irqoff/records` (formats v1
//! and v2, see Documentation/trace-irqoff.rst), serialised as the CLI's JSON.

use serde::{Deserialize, Serialize};

/// Oldest and newest format versions this parser understands.
pub const MIN_RECORDS_VERSION: u32 = 1;
pub const RECORDS_VERSION: u32 = 2;
/// The `counters` format version this parser understands, and the `records` format of the
/// modules that have it (its `config`, `cpu` and `hist` lines are those of that format).
pub const COUNTERS_VERSION: u32 = 1;
const COUNTERS_RECORDS_VERSION: u32 = 2;

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
        match self {
            Cause::BhOff => "bh-off",
            Cause::KsoftirqdWait => "ksoftirqd-wait",
        }
    }

    fn parse(s: &str) -> Option<Self> {
        match s {
            "bh-off" => Some(Cause::BhOff),
            "ksoftirqd-wait" => Some(Cause::KsoftirqdWait),
            _ => None,
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
            soft_bh_off_events: 0,
            soft_ksoftirqd_wait_events: 0,
            hard_hist: Vec::new(),
            soft_hist: Vec::new(),
            soft_bh_off_hist: Vec::new(),
            soft_ksoftirqd_wait_hist: Vec::new(),
            sums_ns: Sums::default(),
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

/// blk-mq tag starvation counters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TagWait {
    pub enabled: bool,
    /// "enabling" or "disabling" while a writer waits for every CPU (kprobe
    /// (un)registration); absent otherwise and from modules that do not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub switching: Option<String>,
    /// "tracepoint", "kprobe" or "none".
    pub source: String,
    /// Waits not counted per device: table full / hardware queue unknown.
    pub overflow: u64,
    pub unattributed: u64,
    /// blk_mq_get_tag calls whose duration was not measured.
    pub missed: u64,
    /// Of `unattributed`, kicks not kept because too many tasks waited at once; waits of
    /// rows that gave their entry to a new one (idle for a minute). 0 from older modules.
    #[serde(default)]
    pub kicks_full: u64,
    #[serde(default)]
    pub aged_out: u64,
    pub counts: Vec<TagCount>,
    /// Log2 histogram of wait durations: bucket k holds [2^k, 2^(k+1)) µs.
    pub duration_hist_us: Vec<u64>,
    /// The exact sum of the durations, µs, where the module gives it (`tagwait_sum_us`).
    #[serde(default)]
    pub duration_sum_us: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TagCount {
    pub major: u32,
    pub minor: u32,
    pub hctx: u32,
    /// "hardware" (driver tags) or "scheduler".
    pub pool: String,
    pub reserved: bool,
    pub waits: u64,
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
    pub tag_wait: Option<TagWait>,
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

/// Why the records file could not be read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ParseError {
    #[error("unsupported records format version {0} (this trace-irqoff reads versions {MIN_RECORDS_VERSION} to {RECORDS_VERSION})")]
    Version(String),
    #[error("unsupported counters format version {0} (this trace-irqoff reads version {COUNTERS_VERSION})")]
    CountersVersion(String),
    #[error("line {line}: {what}")]
    Malformed { line: usize, what: String },
    #[error("the records file ends early (no 'end' line)")]
    Truncated,
}

fn malformed(line: usize, what: impl Into<String>) -> ParseError {
    ParseError::Malformed {
        line,
        what: what.into(),
    }
}

/// `key=value` fields of a line after its first word.
struct Fields<'a> {
    line: usize,
    pairs: Vec<(&'a str, &'a str)>,
}

impl<'a> Fields<'a> {
    fn new(line: usize, words: impl Iterator<Item = &'a str>) -> Result<Self, ParseError> {
        let pairs = words
            .map(|w| {
                w.split_once('=')
                    .ok_or_else(|| malformed(line, format!("expected key=value, got '{w}'")))
            })
            .collect::<Result<_, _>>()?;
        Ok(Self { line, pairs })
    }

    fn str(&self, key: &str) -> Result<&'a str, ParseError> {
        self.pairs
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| *v)
            .ok_or_else(|| malformed(self.line, format!("missing '{key}'")))
    }

    fn num<T: std::str::FromStr>(&self, key: &str) -> Result<T, ParseError> {
        let v = self.str(key)?;
        v.parse()
            .map_err(|_| malformed(self.line, format!("'{key}' is not a number: '{v}'")))
    }

    /// A number that older module versions do not print, `None` then.
    fn opt_num<T: std::str::FromStr>(&self, key: &str) -> Result<Option<T>, ParseError> {
        if self.pairs.iter().any(|(k, _)| *k == key) {
            self.num(key).map(Some)
        } else {
            Ok(None)
        }
    }

    /// A number that older module versions do not print.
    fn num_or<T: std::str::FromStr>(&self, key: &str, default: T) -> Result<T, ParseError> {
        if self.pairs.iter().any(|(k, _)| *k == key) {
            self.num(key)
        } else {
            Ok(default)
        }
    }

    fn flag(&self, key: &str) -> Result<bool, ParseError> {
        match self.str(key)? {
            "0" => Ok(false),
            "1" => Ok(true),
            v => Err(malformed(
                self.line,
                format!("'{key}' must be 0 or 1, got '{v}'"),
            )),
        }
    }
}

/// Undoes the module's `\xHH` escaping of comm.
pub fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && b.get(i + 1) == Some(&b'x') {
            if let Some(v) = b
                .get(i + 2..i + 4)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
            {
                out.push(v);
                i += 4;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn kind(n: usize, s: &str) -> Result<Kind, ParseError> {
    match s {
        "hard" => Ok(Kind::Hard),
        "soft" => Ok(Kind::Soft),
        k => Err(malformed(n, format!("unknown kind '{k}'"))),
    }
}

fn counts<'a>(n: usize, words: impl Iterator<Item = &'a str>) -> Result<Vec<u64>, ParseError> {
    words
        .map(|w| {
            w.parse::<u64>()
                .map_err(|_| malformed(n, format!("count '{w}'")))
        })
        .collect()
}

/// The v2 keys of a `record` line, filled into `r`.
fn record_v2(f: &Fields, r: &mut Record) -> Result<(), ParseError> {
    let n = f.line;
    r.cause = match f.str("cause")? {
        "-" => None,
        c => Some(Cause::parse(c).ok_or_else(|| malformed(n, format!("unknown cause '{c}'")))?),
    };
    r.runnable_ns = f.num("runnable_ns")?;
    r.end_shows_culprit = f.num_or::<u8>("end_shows_culprit", 1)? != 0;
    r.window_pid = f.num("window_pid")?;
    r.window_comm = unescape(f.str("window_comm")?);
    let overlap_cpu: i64 = f.num("overlap_cpu")?;
    r.overlap = if overlap_cpu < 0 {
        None
    } else {
        let latency_ns: u64 = f.num("overlap_latency_ns")?;
        Some(Overlap {
            cpu: u32::try_from(overlap_cpu)
                .map_err(|_| malformed(n, format!("overlap_cpu {overlap_cpu}")))?,
            kind: kind(n, f.str("overlap_kind")?)?,
            // A kept record is never 0 ns long: 0 means the other record was not found.
            latency_ns: (latency_ns != 0).then_some(latency_ns),
            pid: f.num("overlap_pid")?,
            comm: unescape(f.str("overlap_comm")?),
        })
    };
    Ok(())
}

/// Parses the whole records file, or the counters file (the same lines without records,
/// and a `worst` line per CPU).
pub fn parse(text: &str) -> Result<Snapshot, ParseError> {
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
    let (_, first) = lines.next().ok_or(ParseError::Truncated)?;
    let (version, mut worst) = if let Some(v) = first.strip_prefix("trace_irqoff counters v") {
        match v.parse::<u32>() {
            Ok(COUNTERS_VERSION) => (COUNTERS_RECORDS_VERSION, Some(Vec::new())),
            _ => return Err(ParseError::CountersVersion(v.to_string())),
        }
    } else {
        let version = first
            .strip_prefix("trace_irqoff records v")
            .ok_or_else(|| ParseError::Version(first.to_string()))?;
        match version.parse::<u32>() {
            Ok(v) if (MIN_RECORDS_VERSION..=RECORDS_VERSION).contains(&v) => (v, None),
            _ => return Err(ParseError::Version(version.to_string())),
        }
    };
    let v2 = version >= 2;
    let mut config = None;
    let mut cpus: Vec<Cpu> = Vec::new();
    let mut records: Vec<Record> = Vec::new();
    // `frame` lines, then `window_frame` lines, still owed to the last record.
    let mut pending_frames = 0usize;
    let mut pending_window = 0usize;
    let mut tag_wait: Option<TagWait> = None;
    let mut watcher: Option<Watcher> = None;
    let mut ongoing: Vec<Ongoing> = Vec::new();
    // `profile_stack` lines, and `profile_frame` lines of the current one, still owed;
    // whether the lines since the last `record` line are all its own (a profile may follow).
    let mut pending_stacks = 0usize;
    let mut pending_profile_frames = 0usize;
    let mut in_record = false;
    let mut ended = false;
    for (n, line) in lines {
        let mut words = line.split(' ');
        let head = words.next().unwrap_or("");
        if pending_frames > 0 && head != "frame" {
            return Err(malformed(
                n,
                format!("expected {pending_frames} more frame lines"),
            ));
        }
        if pending_frames == 0 && pending_window > 0 && head != "window_frame" {
            return Err(malformed(
                n,
                format!("expected {pending_window} more window_frame lines"),
            ));
        }
        if pending_profile_frames > 0 && head != "profile_frame" {
            return Err(malformed(
                n,
                format!("expected {pending_profile_frames} more profile_frame lines"),
            ));
        }
        if pending_profile_frames == 0 && pending_stacks > 0 && head != "profile_stack" {
            return Err(malformed(
                n,
                format!("expected {pending_stacks} more profile_stack lines"),
            ));
        }
        in_record = match head {
            "record" => true,
            "frame" | "window_frame" | "profile" | "profile_stack" | "profile_frame" => in_record,
            _ => false,
        };
        match head {
            "config" => {
                let f = Fields::new(n, words)?;
                config = Some(Config {
                    enabled: f.flag("enabled")?,
                    cpus: f.str("cpus").ok().map(str::to_string),
                    nohz_full: f.str("nohz_full").ok().map(str::to_string),
                    period_ns: f.num("period_ns")?,
                    threshold_ns: f.num("threshold_ns")?,
                    hz: f.num("hz")?,
                    records_per_cpu: f.num("records_per_cpu")?,
                    soft_period_ns: f.num("soft_period_ns")?,
                    soft_event_ns: f.num("soft_event_ns")?,
                    counts_since_ns: f.num("counts_since_ns").ok(),
                    enabled_since_ns: f.num("enabled_since_ns").ok(),
                    realtime_offset_ns: f.num("realtime_offset_ns").ok(),
                    counts_since: None,
                    enabled_since: None,
                });
            }
            "cpu" => {
                let cpu: u32 = words
                    .next()
                    .and_then(|w| w.parse().ok())
                    .ok_or_else(|| malformed(n, "cpu number"))?;
                let f = Fields::new(n, words)?;
                let (bh_off, ksoftirqd_wait) = if v2 {
                    (
                        f.num("soft_bh_off_events")?,
                        f.num("soft_ksoftirqd_wait_events")?,
                    )
                } else {
                    (0, 0)
                };
                cpus.push(Cpu {
                    cpu,
                    online: f.flag("online")?,
                    hard_events: f.num("hard_events")?,
                    soft_events: f.num("soft_events")?,
                    dropped: f.num::<u64>("hard_dropped")? + f.num::<u64>("soft_dropped")?,
                    replaced: f.num::<u64>("hard_replaced")? + f.num::<u64>("soft_replaced")?,
                    idle_gaps: f.num_or("idle_gaps", 0)?,
                    late_timer_gaps: f.num_or("late_timer_gaps", 0)?,
                    steal_gaps: f.num_or("steal_gaps", 0)?,
                    soft_bh_off_events: bh_off,
                    soft_ksoftirqd_wait_events: ksoftirqd_wait,
                    hard_hist: vec![0; NR_BUCKETS],
                    soft_hist: vec![0; NR_BUCKETS],
                    // Before v2 the split is unknown, and an empty histogram says so.
                    soft_bh_off_hist: if v2 { vec![0; NR_BUCKETS] } else { Vec::new() },
                    soft_ksoftirqd_wait_hist: if v2 { vec![0; NR_BUCKETS] } else { Vec::new() },
                    sums_ns: Sums {
                        hard: f.opt_num("hard_sum_ns")?,
                        soft: f.opt_num("soft_sum_ns")?,
                        soft_bh_off: f.opt_num("soft_bh_off_sum_ns")?,
                        soft_ksoftirqd_wait: f.opt_num("soft_ksoftirqd_wait_sum_ns")?,
                    },
                });
            }
            "hist" => {
                let cpu: u32 = words
                    .next()
                    .and_then(|w| w.parse().ok())
                    .ok_or_else(|| malformed(n, "hist cpu"))?;
                let which = words.next().ok_or_else(|| malformed(n, "hist kind"))?;
                let c = cpus
                    .iter_mut()
                    .find(|c| c.cpu == cpu)
                    .ok_or_else(|| malformed(n, "hist of an unknown cpu"))?;
                let slot = match which {
                    "hard" => &mut c.hard_hist,
                    "soft" => &mut c.soft_hist,
                    "soft-bh-off" => &mut c.soft_bh_off_hist,
                    "soft-ksoftirqd-wait" => &mut c.soft_ksoftirqd_wait_hist,
                    // Histograms of a newer module, not known here.
                    _ => continue,
                };
                *slot = counts(n, words)?;
            }
            "record" => {
                let f = Fields::new(n, words)?;
                let mut r = Record {
                    lower_bound: f.flag("lower_bound")?,
                    latency_ns: f.num("latency_ns")?,
                    timestamp_ns: f.num("timestamp_ns")?,
                    pid: f.num("pid")?,
                    comm: unescape(f.str("comm")?),
                    ..Record::new(f.num("cpu")?, kind(n, f.str("kind")?)?)
                };
                r.ongoing = r.lower_bound && v2;
                pending_frames = f.num("frames")?;
                pending_window = 0;
                if v2 {
                    record_v2(&f, &mut r)?;
                    pending_window = f.num("window_frames")?;
                }
                r.stack.reserve(pending_frames);
                r.window_stack.reserve(pending_window);
                records.push(r);
            }
            "frame" => {
                let rec = records
                    .last_mut()
                    .filter(|_| pending_frames > 0)
                    .ok_or_else(|| malformed(n, "frame outside a record"))?;
                rec.stack
                    .push(line["frame ".len().min(line.len())..].to_string());
                pending_frames -= 1;
            }
            "window_frame" => {
                let rec = records
                    .last_mut()
                    .filter(|_| pending_window > 0)
                    .ok_or_else(|| malformed(n, "window_frame outside a record"))?;
                rec.window_stack
                    .push(line["window_frame ".len().min(line.len())..].to_string());
                pending_window -= 1;
            }
            "profile" => {
                let f = Fields::new(n, words)?;
                let rec = records
                    .last_mut()
                    .filter(|r| in_record && r.profile.is_none())
                    .ok_or_else(|| malformed(n, "profile outside a record"))?;
                pending_stacks = f.num("stacks")?;
                rec.profile = Some(Profile {
                    samples: f.num("samples")?,
                    weight: f.num("weight")?,
                    distinct: f.num_or("distinct", pending_stacks as u64)?,
                    other: f.num_or("other", 0)?,
                    stacks: Vec::with_capacity(pending_stacks),
                });
            }
            "profile_stack" => {
                let f = Fields::new(n, words)?;
                let p = records
                    .last_mut()
                    .and_then(|r| r.profile.as_mut())
                    .filter(|_| pending_stacks > 0)
                    .ok_or_else(|| malformed(n, "profile_stack outside a profile"))?;
                pending_profile_frames = f.num("frames")?;
                p.stacks.push(ProfileStack {
                    count: f.num("count")?,
                    frames: Vec::with_capacity(pending_profile_frames),
                });
                pending_stacks -= 1;
            }
            "profile_frame" => {
                let st = records
                    .last_mut()
                    .and_then(|r| r.profile.as_mut())
                    .and_then(|p| p.stacks.last_mut())
                    .filter(|_| pending_profile_frames > 0)
                    .ok_or_else(|| malformed(n, "profile_frame outside a profile stack"))?;
                st.frames
                    .push(line["profile_frame ".len().min(line.len())..].to_string());
                pending_profile_frames -= 1;
            }
            "watcher" => {
                let f = Fields::new(n, words)?;
                watcher = Some(Watcher {
                    available: f.flag("available")?,
                    active: f.flag("active")?,
                    reason: match f.str("reason").unwrap_or("-") {
                        "-" => None,
                        r => Some(r.to_string()),
                    },
                    max_window_samples: f.num_or("max_window_samples", 0)?,
                    stuck_ns: f.num_or("stuck_ns", 0)?,
                    nmi_sent: f.num_or("nmi_sent", 0)?,
                    nmi_answered: f.num_or("nmi_answered", 0)?,
                    nmi_stale: f.num_or("nmi_stale", 0)?,
                    nmi_missed: f.num_or("nmi_missed", 0)?,
                    stuck_unconfirmed: f.num_or("stuck_unconfirmed", 0)?,
                });
            }
            "ongoing" => {
                let f = Fields::new(n, words)?;
                let watcher_cpu: i64 = f.num_or("watcher_cpu", -1)?;
                ongoing.push(Ongoing {
                    cpu: f.num("cpu")?,
                    kind: kind(n, f.str("kind")?)?,
                    latency_ns: f.num("latency_ns")?,
                    start_ns: f.num_or("start_ns", 0)?,
                    pid: f.num_or("pid", 0)?,
                    comm: unescape(f.str("comm").unwrap_or("")),
                    samples: f.num_or("samples", 0)?,
                    watcher_cpu: u32::try_from(watcher_cpu).ok(),
                });
            }
            "tagwait" => {
                let f = Fields::new(n, words)?;
                tag_wait = Some(TagWait {
                    enabled: f.flag("enabled")?,
                    switching: f
                        .str("state")
                        .ok()
                        .filter(|s| matches!(*s, "enabling" | "disabling"))
                        .map(str::to_string),
                    source: f.str("source")?.to_string(),
                    overflow: f.num("overflow")?,
                    unattributed: f.num("unattributed")?,
                    missed: f.num("missed")?,
                    kicks_full: f.num_or("kicks_full", 0)?,
                    aged_out: f.num_or("aged_out", 0)?,
                    counts: Vec::new(),
                    duration_hist_us: vec![0; NR_BUCKETS],
                    duration_sum_us: None,
                });
            }
            "tagwait_count" => {
                let f = Fields::new(n, words)?;
                let tw = tag_wait
                    .as_mut()
                    .ok_or_else(|| malformed(n, "tagwait_count before tagwait"))?;
                tw.counts.push(TagCount {
                    major: f.num("major")?,
                    minor: f.num("minor")?,
                    hctx: f.num("hctx")?,
                    pool: if f.flag("sched")? {
                        "scheduler"
                    } else {
                        "hardware"
                    }
                    .to_string(),
                    reserved: f.flag("reserved")?,
                    waits: f.num("waits")?,
                });
            }
            "tagwait_sum_us" => {
                let tw = tag_wait
                    .as_mut()
                    .ok_or_else(|| malformed(n, "tagwait_sum_us before tagwait"))?;
                let v = words.next().unwrap_or("");
                tw.duration_sum_us =
                    Some(v.parse().map_err(|_| {
                        malformed(n, format!("tagwait_sum_us is not a number: '{v}'"))
                    })?);
            }
            "tagwait_hist_us" => {
                let tw = tag_wait
                    .as_mut()
                    .ok_or_else(|| malformed(n, "tagwait_hist_us before tagwait"))?;
                tw.duration_hist_us = counts(n, words)?;
            }
            "worst" => {
                let Some(worst) = worst.as_mut() else {
                    continue;
                };
                let cpu: u32 = words
                    .next()
                    .and_then(|w| w.parse().ok())
                    .ok_or_else(|| malformed(n, "worst cpu"))?;
                let f = Fields::new(n, words)?;
                worst.push(Worst {
                    cpu,
                    hard_ns: f.num("hard_ns")?,
                    soft_ns: f.num("soft_ns")?,
                    soft_bh_off_ns: f.num("soft_bh_off_ns")?,
                    soft_ksoftirqd_wait_ns: f.num("soft_ksoftirqd_wait_ns")?,
                });
            }
            "end" => {
                ended = true;
                break;
            }
            "" => {}
            // Unknown line types (memory, cost, ...) are for other readers.
            _ => {}
        }
    }
    if !ended
        || pending_frames > 0
        || pending_window > 0
        || pending_stacks > 0
        || pending_profile_frames > 0
    {
        return Err(ParseError::Truncated);
    }
    let config = config.ok_or_else(|| malformed(1, "no config line"))?;
    Ok(Snapshot {
        version,
        config,
        cpus,
        records,
        watcher,
        ongoing,
        tag_wait,
        original_hist: None,
        worst,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delta_counts_only_new_events() {
        let before = parse(V1).unwrap();
        let mut after = before.clone();
        after.cpus[1].hard_events += 2;
        after.cpus[1].hard_hist[6] += 2;
        let mut r = after.records[0].clone();
        r.timestamp_ns += 1;
        after.records.push(r);
        let (cpus, recs) = delta(&before, &after);
        assert_eq!(cpus[1].hard_events, 2);
        assert_eq!(cpus[1].hard_hist[6], 2);
        assert_eq!(cpus[0].hard_events, 0);
        assert_eq!(recs.len(), 1);
    }

    #[test]
    fn unescape_round_trips_module_escapes() {
        assert_eq!(unescape("kworker/1:1\\x20x"), "kworker/1:1 x");
        assert_eq!(unescape("a\\x3db\\x5cc"), "a=b\\c");
        assert_eq!(unescape("plain"), "plain");
        assert_eq!(unescape("bad\\xZZ"), "bad\\xZZ");
    }

    const V1: &str = include_str!("../tests/fixtures/records-v1.txt");
    const V2: &str = include_str!("../tests/fixtures/records-v2.txt");

    #[test]
    fn v1_records_have_no_v2_facts() {
        let s = parse(V1).unwrap();
        assert_eq!(s.version, 1);
        assert_eq!(s.records.len(), 5);
        for r in &s.records {
            assert_eq!(
                (
                    r.cause,
                    r.runnable_ns,
                    r.window_pid,
                    r.window_comm.as_str(),
                    r.overlap.as_ref()
                ),
                (None, 0, 0, "", None)
            );
            assert!(r.window_stack.is_empty());
        }
        let c = &s.cpus[1];
        assert_eq!(
            (
                c.soft_events,
                c.soft_bh_off_events,
                c.soft_ksoftirqd_wait_events
            ),
            (1, 0, 0)
        );
        // The split is unknown, not zero.
        assert!(c.soft_bh_off_hist.is_empty() && c.soft_ksoftirqd_wait_hist.is_empty());
    }

    #[test]
    fn cause_names_match_the_json() {
        for c in [Cause::BhOff, Cause::KsoftirqdWait] {
            assert_eq!(
                serde_json::to_string(&c).unwrap(),
                format!("\"{}\"", c.name())
            );
            assert_eq!(Cause::parse(c.name()), Some(c));
        }
    }

    #[test]
    fn v2_counts_split_by_cause() {
        let s = parse(V2).unwrap();
        assert_eq!(s.version, 2);
        assert_eq!(s.cpus.len(), 4);
        let c = &s.cpus[2];
        assert_eq!(
            (
                c.soft_events,
                c.soft_bh_off_events,
                c.soft_ksoftirqd_wait_events,
                c.idle_gaps
            ),
            (4, 2, 2, 0)
        );
        assert_eq!((c.soft_hist[4], c.soft_hist[5], c.soft_hist[6]), (2, 1, 1));
        assert_eq!(c.soft_bh_off_hist[4], 2);
        assert_eq!(
            (c.soft_ksoftirqd_wait_hist[5], c.soft_ksoftirqd_wait_hist[6]),
            (1, 1)
        );
        assert_eq!(
            c.hist(Kind::Soft, Some(Cause::KsoftirqdWait)),
            c.soft_ksoftirqd_wait_hist.as_slice()
        );
        assert_eq!(s.cpus[1].hard_hist[6], 1);
    }

    #[test]
    fn v2_records_carry_cause_window_and_overlap() {
        let s = parse(V2).unwrap();
        let r = &s.records;
        assert_eq!(r.len(), 5);

        // bh-off, with the stack sampled in the window and a found overlap.
        assert_eq!(
            (r[0].kind, r[0].cause, r[0].lower_bound, r[0].latency_ns),
            (Kind::Soft, Some(Cause::BhOff), false, 100_111_000)
        );
        assert_eq!(r[0].stack.len(), 5);
        assert_eq!(r[0].stack[0], "__local_bh_enable_ip+0x5e/0x80");
        assert_eq!(r[0].window_stack.len(), 6);
        assert_eq!(
            r[0].window_stack[2],
            "irqoff_sample_softirq_window+0x20/0x53 [irqoff_sample]"
        );
        assert_eq!((r[0].window_pid, r[0].window_comm.as_str()), (79, "sh"));
        assert_eq!(
            r[0].overlap,
            Some(Overlap {
                cpu: 1,
                kind: Kind::Hard,
                latency_ns: Some(99_800_123),
                pid: 90,
                comm: "irq_test".into()
            })
        );

        // hard: no cause, no window stack.
        assert_eq!(
            (
                r[1].kind,
                r[1].cause,
                r[1].stack.len(),
                r[1].window_stack.len(),
                r[1].window_pid
            ),
            (Kind::Hard, None, 7, 0, 0)
        );
        assert_eq!(
            r[1].overlap.as_ref().map(|o| (o.cpu, o.kind, o.latency_ns)),
            Some((0, Kind::Soft, Some(100_111_000)))
        );

        // ksoftirqd-wait: how long the thread waited, what ran instead (escaped comm), and an
        // overlap whose record was not found.
        assert_eq!(
            (r[2].cause, r[2].runnable_ns, r[2].comm.as_str()),
            (Some(Cause::KsoftirqdWait), 48_000_000, "ksoftirqd/2")
        );
        assert_eq!(
            (
                r[2].window_pid,
                r[2].window_comm.as_str(),
                r[2].window_stack.len()
            ),
            (131, "my hog", 5)
        );
        assert_eq!(
            r[2].overlap,
            Some(Overlap {
                cpu: 3,
                kind: Kind::Soft,
                latency_ns: None,
                pid: 0,
                comm: String::new()
            })
        );
        assert_eq!(
            (
                r[3].runnable_ns,
                r[3].window_stack.len(),
                r[3].overlap.as_ref()
            ),
            (0, 0, None)
        );

        // A window still open: latency so far, no end stack yet.
        assert!(r[4].lower_bound);
        assert_eq!(
            (r[4].stack.len(), r[4].window_stack.len(), r[4].cause),
            (0, 4, Some(Cause::BhOff))
        );
    }

    const WATCHER: &str = include_str!("../tests/fixtures/records-watcher.txt");

    #[test]
    fn watcher_ongoing_and_profiles_are_parsed() {
        let s = parse(WATCHER).unwrap();
        let w = s.watcher.as_ref().unwrap();
        assert_eq!(
            (
                w.available,
                w.active,
                w.reason.as_deref(),
                w.max_window_samples,
                w.nmi_sent,
                w.nmi_answered
            ),
            (true, true, None, 64, 132, 132)
        );
        assert_eq!(
            s.ongoing,
            [Ongoing {
                cpu: 1,
                kind: Kind::Hard,
                latency_ns: 1_788_332_180,
                start_ns: 9_249_206_285,
                pid: 63,
                comm: "sh".into(),
                samples: 107,
                watcher_cpu: Some(0)
            }]
        );
        let r = &s.records;
        assert_eq!(r.len(), 3);
        // A final hardirq record: end stack, window stack = the profile's first stack.
        let hard = &r[1];
        assert!(!hard.ongoing && !hard.lower_bound);
        let p = hard.profile.as_ref().unwrap();
        assert_eq!(
            (p.samples, p.weight, p.distinct, p.other, p.stacks.len()),
            (13, 13, 5, 0, 4)
        );
        assert_eq!(
            p.stacks.iter().map(|s| s.count).collect::<Vec<_>>(),
            [8, 2, 1, 1]
        );
        assert_eq!(p.stacks[0].frames, hard.window_stack);
        assert_eq!(p.stacks[3].frames.len(), 3);
        assert_eq!(p.unkept(), 1);
        // The window still open: a lower bound, ongoing, its latest stack and profile so far.
        let open = &r[2];
        assert!(open.ongoing && open.lower_bound);
        assert_eq!(
            (
                open.stack.len(),
                open.window_stack.len(),
                open.window_stack[0].as_str()
            ),
            (0, 9, "read_hpet+0x36/0xe0")
        );
        let p = open.profile.as_ref().unwrap();
        assert_eq!(
            (p.samples, p.weight, p.stacks.len(), p.unkept()),
            (107, 172, 3, 0)
        );
        // A softirq record's profile.
        assert_eq!(
            r[0].profile.as_ref().unwrap().stacks[1].frames,
            ["handle_softirqs+0xa7/0x3b0"]
        );
        // Serialised and back.
        let json = serde_json::to_string(&s).unwrap();
        assert_eq!(serde_json::from_str::<Snapshot>(&json).unwrap(), s);
    }

    #[test]
    fn files_without_the_watcher_still_parse() {
        let s = parse(V2).unwrap();
        assert!(s.watcher.is_none() && s.ongoing.is_empty());
        assert!(s.records.iter().all(|r| r.profile.is_none()));
        // The v2 open softirq window is ongoing; a v1 lower bound is not.
        assert_eq!(s.records.iter().filter(|r| r.ongoing).count(), 1);
        assert!(parse(V1).unwrap().records.iter().all(|r| !r.ongoing));
        // JSON of an older CLI (no such fields) still reads.
        let mut v: serde_json::Value = serde_json::to_value(&s).unwrap();
        v.as_object_mut().unwrap().remove("watcher");
        assert_eq!(serde_json::from_value::<Snapshot>(v).unwrap(), s);
    }

    #[test]
    fn an_unavailable_watcher_says_why() {
        let text = WATCHER.replace(
            "available=1 active=1 reason=-",
            "available=0 active=0 reason=arch",
        );
        let w = parse(&text).unwrap().watcher.unwrap();
        assert_eq!(
            (w.available, w.active, w.reason.as_deref()),
            (false, false, Some("arch"))
        );
        let text = WATCHER.replace("samples=107 watcher_cpu=0", "samples=0 watcher_cpu=-1");
        assert_eq!(parse(&text).unwrap().ongoing[0].watcher_cpu, None);
    }

    #[test]
    fn broken_profiles_are_rejected() {
        // A profile_frame owed.
        let text = WATCHER.replacen("profile_frame handle_softirqs+0xa7/0x3b0\n", "", 1);
        assert!(
            matches!(parse(&text), Err(ParseError::Malformed { .. })),
            "{:?}",
            parse(&text)
        );
        // A profile_stack owed: at the end, or when the file is cut there.
        let text = WATCHER.replace(
            "profile samples=107 weight=172 stacks=3",
            "profile samples=107 weight=172 stacks=4",
        );
        assert!(matches!(parse(&text), Err(ParseError::Malformed { .. })));
        assert_eq!(
            parse(&text.replace("\nend\n", "\n")),
            Err(ParseError::Truncated)
        );
        // A profile that follows no record, or a second one.
        let text = WATCHER.replace(
            "ongoing cpu=1",
            "profile samples=1 weight=1 stacks=0 distinct=0 other=0\nongoing cpu=1",
        );
        assert!(matches!(parse(&text), Err(ParseError::Malformed { .. })));
        let text = WATCHER.replace(
            "\nend\n",
            "\nprofile samples=1 weight=1 stacks=0 distinct=0 other=0\nend\n",
        );
        assert!(matches!(parse(&text), Err(ParseError::Malformed { .. })));
        let text = WATCHER.replace("\nend\n", "\nprofile_frame x+0x1/0x2\nend\n");
        assert!(matches!(parse(&text), Err(ParseError::Malformed { .. })));
    }

    #[test]
    fn v2_unknown_keys_and_lines_are_ignored() {
        let text = V2
            .replace(
                " window_frames=0 window_pid=0",
                " window_frames=0 future=7 window_pid=0",
            )
            .replace(
                "\nend\n",
                "\nfuture_line a=b\nhist 0 soft-future 1 2 3\nend\n",
            );
        assert_eq!(parse(&text).unwrap(), parse(V2).unwrap());
    }

    #[test]
    fn v2_overlap_comm_is_unescaped() {
        let text = V2.replace("overlap_comm=irq_test", "overlap_comm=irq\\x20test");
        assert_eq!(
            parse(&text).unwrap().records[0]
                .overlap
                .as_ref()
                .unwrap()
                .comm,
            "irq test"
        );
    }

    #[test]
    fn v2_rejects_what_it_cannot_read() {
        // A v2 record line without its v2 keys.
        let text = "trace_irqoff records v2\nconfig enabled=1 period_ns=1 threshold_ns=1 hz=1 records_per_cpu=1 soft_period_ns=1 soft_event_ns=1\nrecord cpu=0 kind=hard lower_bound=0 latency_ns=1 timestamp_ns=1 pid=1 comm=x frames=0\nend\n";
        assert!(matches!(
            parse(text),
            Err(ParseError::Malformed { line: 3, .. })
        ));
        assert!(matches!(
            parse(&V2.replace("cause=bh-off", "cause=nmi")),
            Err(ParseError::Malformed { .. })
        ));
        // Window frames owed, or out of place.
        assert_eq!(
            parse(&V2.replace("window_frame worker_thread+0x256/0x3b0\nend\n", "")),
            Err(ParseError::Truncated)
        );
        let missing_window_frame = V2.replacen("window_frame ksys_write+0x75/0xc0\n", "", 1);
        assert!(matches!(
            parse(&missing_window_frame),
            Err(ParseError::Malformed { .. })
        ));
        let stray = V2.replace("\nend\n", "\nwindow_frame x+0x1/0x2\nend\n");
        assert!(matches!(parse(&stray), Err(ParseError::Malformed { .. })));
        assert_eq!(
            parse("trace_irqoff records v3\nend\n"),
            Err(ParseError::Version("3".into()))
        );
        assert_eq!(
            ParseError::Version("3".into()).to_string(),
            "unsupported records format version 3 (this trace-irqoff reads versions 1 to 2)"
        );
    }
}
