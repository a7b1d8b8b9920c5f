// SPDX-License-Identifier: GPL-2.0
//! The NMI watcher of hardirq-off windows still open, and the windows it sees open.

use serde::{Deserialize, Serialize};

use super::kind::Kind;

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
