// SPDX-License-Identifier: GPL-2.0
//! One CPU's counts: its events, its gaps that were no windows, its histograms and their
//! sums.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::kind::{Cause, Kind};

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
    /// ran: a stall, see [`Stalls`](super::stalls::Stalls); not events); 0 before the module counted them.
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
