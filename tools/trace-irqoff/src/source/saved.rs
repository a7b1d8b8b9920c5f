// SPDX-License-Identifier: GPL-2.0
//! Reading a `record` file back (`--from FILE` of `records`, `top` and `hist`): the
//! windows and counts it saved, as a [`Snapshot`] the views take like the module's, with
//! wall-clock times from the file's own clock anchor, right on any machine.

use std::path::Path;

use serde::Deserialize;

use crate::error::Problem;
use crate::model::clock::Clock;
use crate::model::saved_recording::ModuleInfo;
use crate::model::settings::Settings;
use crate::model::snapshot::{Config, Cpu, Record, Snapshot, Stall, Stalls};

/// What a view needs of a `record` file (it holds more: see `model::recording::Recording`).
#[derive(Deserialize)]
struct Saved {
    module: ModuleInfo,
    settings: Settings,
    /// CLOCK_REALTIME minus CLOCK_MONOTONIC when it was taken; absent from files of
    /// trace-irqoff 0.1 (the records' own wall times give it back then).
    #[serde(default)]
    realtime_offset_ns: Option<u64>,
    /// CLOCK_MONOTONIC at its end: "now" for `--since`; absent from older files.
    #[serde(default, rename = "end_ns")]
    ended_monotonic_ns: Option<u64>,
    cpus: Vec<Cpu>,
    records: Vec<Record>,
    /// Stalls of the whole machine in the span, and how many the module counted (absent
    /// from files before them).
    #[serde(default)]
    stalls: Vec<Stall>,
    #[serde(default)]
    stalls_counted: Option<u64>,
    #[serde(flatten)]
    origin: Origin,
    /// The kernel's build id (absent from files before `--lines`): with the release
    /// (`origin.kernel`), where `records --from FILE --lines` looks for debug information.
    #[serde(default)]
    kernel_build_id: Option<String>,
}

/// Where and when an incident was recorded: what a `record` file says of itself (or, for
/// a view of the running module, this machine and the module's counting time).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct Origin {
    #[serde(default)]
    pub host: Option<String>,
    #[serde(default)]
    pub kernel: Option<String>,
    /// Wall-clock start and end (RFC 3339).
    #[serde(default)]
    pub start_time: Option<String>,
    #[serde(default)]
    pub end_time: Option<String>,
}

/// A `record` file read back.
#[derive(Debug)]
pub struct Loaded {
    pub snapshot: Snapshot,
    /// The recording's end, CLOCK_MONOTONIC: what `--since` counts back from.
    pub now_ns: u64,
    /// Where and when it was recorded (unknown for the module's files).
    pub origin: Origin,
    /// The kernel's build id, where known.
    pub kernel_build_id: Option<String>,
}

/// Reads the `record` file at `path`.
pub fn load(path: &Path) -> Result<Loaded, Problem> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        Problem::failure(
            format!("cannot read {}: {e}", path.display()),
            "give --from a file that trace-irqoff record -o FILE wrote",
        )
    })?;
    parse(&text).map_err(|e| {
        Problem::usage(
            format!("{} is not a trace-irqoff record file: {e}", path.display()),
            "give --from a file that trace-irqoff record -o FILE wrote (JSON)",
        )
    })
}

/// A `record` file's text read back.
pub fn parse(text: &str) -> Result<Loaded, serde_json::Error> {
    let saved: Saved = serde_json::from_str(text)?;
    let ms = 1_000_000;
    let mut snapshot = Snapshot {
        version: saved.module.records_format,
        config: Config {
            enabled: saved.settings.enabled,
            cpus: None,
            nohz_full: None,
            unsampled: None,
            period_ns: saved.settings.period_ms * ms,
            threshold_ns: saved.settings.threshold_ms * ms,
            hz: saved.module.hz,
            records_per_cpu: saved.module.records_per_cpu,
            // Files that predate it: P itself (short of whole jiffies by less than one).
            soft_period_ns: match saved.module.soft_period_ns {
                0 => saved.settings.period_ms * ms,
                ns => ns,
            },
            soft_event_ns: saved.module.soft_event_ns,
            counts_since_ns: None,
            enabled_since_ns: None,
            realtime_offset_ns: None,
            counts_since: None,
            enabled_since: None,
        },
        cpus: saved.cpus,
        records: saved.records,
        watcher: None,
        ongoing: Vec::new(),
        tag_wait: None,
        stalls: Stalls::of_span(
            &saved.stalls,
            saved.stalls_counted,
            saved.settings.threshold_ms * ms,
        ),
        original_hist: None,
        worst: None,
    };
    let clock = saved.realtime_offset_ns.map(Clock::anchored).or_else(|| {
        snapshot.records.iter().find_map(|r| {
            r.wall_time
                .as_deref()
                .and_then(|w| Clock::from_pair(w, r.timestamp_ns))
        })
    });
    if let Some(clock) = clock {
        snapshot.stamp(&clock);
    }
    let last = snapshot
        .records
        .iter()
        .map(|r| r.timestamp_ns)
        .max()
        .unwrap_or(0);
    Ok(Loaded {
        now_ns: saved.ended_monotonic_ns.unwrap_or(last),
        snapshot,
        origin: saved.origin,
        kernel_build_id: saved.kernel_build_id,
    })
}
