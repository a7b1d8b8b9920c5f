// SPDX-License-Identifier: GPL-2.0
//! What `explain` answers (was this delay an irq-off window?): the delays a tracefs
//! instance of our own shows (block requests from issue to completion, softirqs from
//! raise to entry, the CPUs a task ran on), the windows, each delay with the windows that
//! explain it (`model::delay`, `model::explain_wakeup`), the limits of the answer and
//! its verdict. The feature's other files, one per wing: its tracefs instance and sysfs reads
//! (`source::explain_instance`, `source::sysfs`), its delays and wake-ups read from the
//! trace (`parse::explain_delays`, `parse::wakeup_trace`), the paths that say which CPUs
//! serve a delay (`model::request_path`, `model::netdev`), the join
//! (`enrich::explain_join`), the answer as text (`render::explain_text`) and the command
//! (`cmd::explain`). `report --explain FILE` reads the JSON back (`Deserialize`, the
//! fields left out when empty read as empty).

use serde::{Deserialize, Serialize};

use super::delay::{Explained, Limits};

/// The answer in one word, said first, and the exit status of `explain` (0, 4, 5:
/// Documentation/trace-irqoff-cli.rst, EXIT STATUS).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// At least one delay asked about was held by an irq-off window.
    Yes,
    /// None was, and at least one could have been told.
    No,
    /// None could be told: no delay, or every one too short or before the windows held.
    #[default]
    Unknown,
}

/// What `explain` answers: the span looked at, what bounds the answer, each delay with
/// its windows, and notes on what could not be looked at.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Answer {
    /// The verdict, and the line that says it first ("Verdict: yes: ...";
    /// [`crate::render::explain_text::verdict`]). Answers written before it read as unknown.
    #[serde(default)]
    pub verdict: Verdict,
    #[serde(default)]
    pub verdict_line: String,
    /// The span the delays were traced in (CLOCK_MONOTONIC ns); None: an empty trace.
    pub span_start_ns: Option<u64>,
    pub span_end_ns: Option<u64>,
    /// Delays shorter than this were not looked at.
    pub min_ns: u64,
    pub limits: Limits,
    /// Where the windows came from: "records" (the module's store of the worst per CPU
    /// and kind), "records+ring" (and the event ring, every window).
    pub windows_from: String,
    pub windows_seen: usize,
    pub delays: Vec<Explained>,
    /// `--wakeups`: the wake-ups of the task's threads, slowest first; None when not
    /// asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wakeups: Option<crate::model::explain_wakeup::Wakeups>,
    /// `--netdev`: the NIC's receive path, whose CPUs its NET_RX delays are joined on;
    /// None when not asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub netdev: Option<crate::model::netdev::Nic>,
    pub notes: Vec<String>,
}
