// SPDX-License-Identifier: GPL-2.0
//! What the module's `tagwait` lines say: the switch, the counters per device, hardware
//! queue and pool, and the durations (`Snapshot::tag_wait`, the `tagwait --json` output).

use serde::{Deserialize, Serialize};

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
