// SPDX-License-Identifier: GPL-2.0
//! The module's state as one value: what `parse::records` reads from
//! `/proc/trace_irqoff/records` and `counters` (see Documentation/trace-irqoff.rst),
//! serialised as the CLI's JSON.
//!
//! [`Snapshot`] and its settings are here; its parts have files of their own: `kind`
//! (hardirq or softirq, the cause, the sampler that ended it), `cpu` (a CPU's counts), `record` (a kept window),
//! `watcher` (windows still open) and `stalls` (of the whole machine). They are named from
//! here.

use serde::{Deserialize, Serialize};

mod cpu;
mod kept_record;
mod kind;
mod nmi_watcher;
mod stalls;

pub use cpu::{Cpu, Sums};
pub use kept_record::{
    first_at_least, Overlap, Profile, ProfileStack, Record, RecordKey, SourceLine,
};
pub use kind::{Cause, EndedBy, Kind, KindLabel};
pub use nmi_watcher::{Ongoing, Watcher};
pub use stalls::{Stall, Stalls};

/// Number of log2 buckets; bucket k holds [2^k, 2^(k+1)) ms.
pub const NR_BUCKETS: usize = tio_logic::hist::NR_BUCKETS;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Config {
    pub enabled: bool,
    /// The CPUs sampled (a CPU list; "-": none), and the nohz_full ones, which are not by
    /// default; absent from modules without a `cpus` selection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpus: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nohz_full: Option<String>,
    /// CPUs that came online without their samplers (they could not be set up then: a
    /// CPU list, "-": none); absent from modules before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unsampled: Option<String>,
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
    pub tag_wait: Option<crate::model::tag_wait::TagWait>,
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
    pub fn stamp(&mut self, clock: &crate::model::clock::Clock) {
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
