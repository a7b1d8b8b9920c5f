// SPDX-License-Identifier: GPL-2.0
//! What `record` saves: the recording, its module and its event stream (read back by
//! `saved` for `--from FILE`).

use serde::{Deserialize, Serialize};

use super::settings::Settings;
use crate::model::snapshot::{Cpu, Kind, Record, Stall};

/// What `record` saves.
#[derive(Serialize)]
pub struct Recording {
    /// Where and with what it was taken.
    pub host: String,
    pub kernel: String,
    /// The kernel's build id (`/sys/kernel/notes`), for `records --from FILE --lines`;
    /// the modules' are in the records (`build_ids`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kernel_build_id: Option<String>,
    pub cli_version: &'static str,
    pub module: ModuleInfo,
    /// Wall-clock start and end, RFC 3339 UTC.
    #[serde(rename = "start_time")]
    pub started: String,
    #[serde(rename = "end_time")]
    pub ended: String,
    pub duration_ms: u64,
    /// The clock anchor of every wall time in it (CLOCK_REALTIME minus CLOCK_MONOTONIC, in
    /// ns; absent where the module does not give one), and CLOCK_MONOTONIC at the end:
    /// with them `--from FILE` shows the same times on any machine.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub realtime_offset_ns: Option<u64>,
    #[serde(rename = "end_ns")]
    pub ended_monotonic_ns: u64,
    pub interrupted: bool,
    /// Settings while recording, and the ones restored afterwards.
    pub settings: Settings,
    pub restored: Settings,
    /// Changes someone else made to the module while it recorded, in order.
    pub outside_changes: Vec<OutsideChange>,
    /// The settings left as someone else set them during the recording instead of being
    /// restored: `enabled`, `period_ms`, `threshold_ms`.
    pub kept_outside: Vec<&'static str>,
    /// `--until`: the length that ends the recording, and the window that did.
    pub until_ms: Option<u64>,
    pub caught: Option<Caught>,
    /// Events per CPU and histograms counted during the recording.
    pub cpus: Vec<Cpu>,
    /// Records that appeared during the recording: the module's, and, from its event
    /// stream, the windows at the threshold its store did not keep (with their end stack,
    /// without in-window samples).
    pub records: Vec<Record>,
    /// Stalls of the whole machine in the span, from the event stream (empty without one,
    /// and from modules without the event): spans in which no sampled CPU ran (a paused
    /// VM). Not windows: never among `records` nor in the counts of `cpus`.
    pub stalls: Vec<Stall>,
    /// Stalls the module counted over the recording (`record` with a duration or
    /// `--until`; absent for `--last` and from modules that do not count them).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stalls_counted: Option<u64>,
    /// The event stream the recording read (absent where there was none: no tracefs, not
    /// root, a copy of the files).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stream: Option<StreamSummary>,
}

/// What the event stream gave a recording.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StreamSummary {
    /// Windows it carried (every one the module counted, above and below the threshold).
    pub windows: u64,
    /// Of those at the threshold, the ones the module's store did not keep (their records
    /// come from the stream).
    pub not_kept: u64,
    /// Windows its ring lost (gaps in their numbers).
    pub lost: u64,
    /// `--last`: the end of the oldest window the ring still held (RFC 3339): it holds
    /// nothing from before then; absent when it held none.
    #[serde(rename = "history_start_time", skip_serializing_if = "Option::is_none")]
    pub history_from: Option<String>,
}

/// The module's constants a recording was taken with (its settings are beside them).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ModuleInfo {
    /// Version of its records file (0: the original module, which has none).
    pub records_format: u32,
    pub hz: u64,
    pub records_per_cpu: u32,
    /// The timer_list's period (P in whole jiffies; 0 in files that predate it), and the
    /// smallest softirq-off window it reports.
    #[serde(default)]
    pub soft_period_ns: u64,
    pub soft_event_ns: u64,
}

/// A change to the module that `record` did not make.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OutsideChange {
    /// When it was noticed, from the start of the recording.
    pub at_ms: u64,
    /// What changed, as a sentence: "the module was disabled".
    pub what: String,
}

/// The window that ended a recording with `--until`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Caught {
    pub cpu: u32,
    pub kind: Kind,
    /// Its latency bucket, [lo, hi] ms.
    pub bucket_ms: [u64; 2],
    /// Its record; none when the module counted the window but did not keep it (its
    /// buffer held only worse ones).
    pub record: Option<Record>,
}
