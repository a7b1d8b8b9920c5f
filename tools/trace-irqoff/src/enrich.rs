// SPDX-License-Identifier: GPL-2.0
//! The enrich wing, the step between parse and render: what is added to what was read
//! (culprits, `culprit`; mechanism frames, `mechanism`; cgroup paths, `cgroup`; the
//! precision of lengths, `precision`; source lines, `lines`; the ring's windows merged
//! and counted, `ring_windows`; `explain`'s delays joined with windows, `explain_join`),
//! and what the views derive from the parsed records and snapshot, computed here once,
//! so that `render` only presents. A command prepares what a source reads (the module,
//! a saved file, a ring span) here, in one stage (`prepare::prepare`: parse, clock,
//! precision, cgroups, demangling, ring merge, build ids, `--lines`), and renders that:
//!
//! - [`Window`] ([`Window::of`], [`windows`]): one record with the stack and task that name
//!   its culprit (`culprit::source`), the culprit's function, whether the window was a
//!   lock wait, and its cgroup in words (`cgroup::short`, `cgroup::described`);
//! - [`Enriched`] ([`snapshot`]): a snapshot with the windows of its records, how exactly
//!   its lengths are known ([`Precision`], from `precision`), and its windows still open
//!   with their culprits ([`OpenWindow`]);
//! - [`top`] and [`folded`]: the culprit groups and the flame-graph stacks of records,
//!   for the views that show them.

use std::ops::Deref;

use crate::model::culprit_group::{By, Culprit};
use crate::model::snapshot::{Record, Snapshot};

pub mod cgroup;
pub mod culprit;
pub mod explain_join;
pub mod lines;
pub mod mechanism;
mod open;
pub mod precision;
pub mod prepare;
pub mod ring_windows;
mod snapshot_precision;
mod window;

#[cfg(test)]
mod enrich_tests;

pub use open::OpenWindow;
pub use snapshot_precision::Precision;
pub use window::{windows, Window};

/// A snapshot as the views show it: the snapshot itself (its fields read through this),
/// with what they derive from it.
#[derive(Debug, Clone)]
pub struct Enriched<'a> {
    pub snapshot: &'a Snapshot,
    /// The windows of the snapshot's records, in their order.
    pub windows: Vec<Window<'a>>,
    /// How exactly its lengths are known; none for the original module.
    pub precision: Option<Precision>,
    /// Its windows still open: the watcher's hardirq-off ones, then the softirq-off ones.
    pub open: Vec<OpenWindow>,
}

impl Deref for Enriched<'_> {
    type Target = Snapshot;

    fn deref(&self) -> &Snapshot {
        self.snapshot
    }
}

/// `s` enriched: its records' windows, its precision, its windows still open.
pub fn snapshot(s: &Snapshot) -> Enriched<'_> {
    let windows = windows(&s.records);
    let open = open::windows(s, &windows);
    Enriched {
        snapshot: s,
        windows,
        precision: Precision::of(&s.config),
        open,
    }
}

/// The culprits of `records` grouped `by` their function, stack or cgroup, most frequent
/// first (`culprit::top`): what `top`, the report and `record`'s summary show.
pub fn top(records: &[Record], by: By) -> Vec<Culprit> {
    crate::enrich::culprit::top(records, by)
}

/// The folded stacks of `records` for a flame graph, weighted by their count or by their
/// latency (`culprit::folded`).
pub fn folded(records: &[Record], by_latency: bool) -> String {
    crate::enrich::culprit::folded(records, by_latency)
}
