// SPDX-License-Identifier: GPL-2.0
//! The windows of a snapshot still open, each with its culprit, as `status` shows them.

use serde::Serialize;

use super::Window;
use crate::model::snapshot::{Kind, Ongoing, Snapshot};
use crate::symbols::function;

/// A window still open, with its culprit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OpenWindow {
    #[serde(flatten)]
    pub window: Ongoing,
    /// The culprit (mechanism frames skipped, like `top`) of its latest in-window stack;
    /// none without a sample.
    pub culprit: Option<String>,
    /// The interrupt context that culprit runs in ("an IPI function",
    /// `mechanism::interrupt_context` of that stack): the window's task is then the one
    /// it interrupted. None in task context and without a sample.
    pub context: Option<&'static str>,
    /// That stack, innermost first.
    pub stack: Vec<String>,
}

/// The windows of `s` still open: the watcher's hardirq-off ones, then the softirq-off
/// ones, with the culprit of the matching record's latest in-window stack; `records` are
/// the windows of `s`'s records.
pub fn windows(s: &Snapshot, records: &[Window]) -> Vec<OpenWindow> {
    let record = |cpu: u32, kind: Kind| {
        records
            .iter()
            .find(|r| r.ongoing && r.cpu == cpu && r.kind == kind)
    };
    let with = |window: Ongoing, r: Option<&Window>| {
        let stack = r.map(|r| r.culprit_stack.to_vec()).unwrap_or_default();
        let culprit = crate::enrich::mechanism::culprit(stack.iter().map(|f| function(f)))
            .map(str::to_string);
        let context =
            crate::enrich::mechanism::interrupt_context(stack.iter().map(|f| function(f)));
        OpenWindow {
            window,
            culprit,
            context,
            stack,
        }
    };
    let mut v: Vec<OpenWindow> = s
        .ongoing
        .iter()
        .map(|o| with(o.clone(), record(o.cpu, o.kind)))
        .collect();
    for r in records.iter().filter(|r| r.ongoing && r.kind == Kind::Soft) {
        let (pid, comm) = if r.window_pid != 0 || !r.window_comm.is_empty() {
            (r.window_pid, &r.window_comm)
        } else {
            (r.pid, &r.comm)
        };
        let window = Ongoing {
            cpu: r.cpu,
            kind: Kind::Soft,
            latency_ns: r.latency_ns,
            start_ns: r.timestamp_ns.saturating_sub(r.latency_ns),
            pid,
            comm: comm.clone(),
            samples: r.profile.as_ref().map_or(0, |p| p.samples),
            watcher_cpu: None,
            // The record's cgroup is its culprit's (`r.pid`).
            cgroup_id: r.cgroup_id.filter(|_| pid == r.pid),
        };
        v.push(with(window, Some(r)));
    }
    v
}
