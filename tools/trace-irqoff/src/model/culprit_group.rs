// SPDX-License-Identifier: GPL-2.0
//! What `top` groups records into ([`Culprit`]) and by what ([`By`]), as the views show
//! them; `culprit` (beside the model) names a record's culprit and groups the records.

use serde::Serialize;

use crate::model::cgroup_class::Class;
use crate::model::snapshot::{Cause, Kind, SourceLine};

/// What `top` groups records by.
#[derive(Clone, Copy, Debug, clap::ValueEnum, PartialEq, Eq, Default)]
pub enum By {
    /// The culprit's function.
    #[default]
    Culprit,
    /// The culprit's whole stack.
    Stack,
    /// The culprit task's cgroup.
    Cgroup,
}

/// What the views say after a culprit whose window was a lock wait.
pub const LOCK_WAIT: &str = " (lock wait)";

/// One culprit: how often, how bad.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Culprit {
    pub kind: Kind,
    /// Softirq culprits are grouped by cause too (records format v2; none before, and
    /// for hardirq culprits).
    pub cause: Option<Cause>,
    /// The first frame's function that is not mechanism (`mechanism.rs`), or the whole
    /// stack joined with " <- ", of the stack `culprit::source` picks.
    pub culprit: String,
    pub count: u64,
    pub worst_ns: u64,
    pub total_ns: u64,
    /// Names of the tasks that ran it (its windows in task context), sorted; by cgroup,
    /// every task of the cgroup seen.
    pub comms: Vec<String>,
    /// The interrupt context it ran in ("an IPI function", `culprit::context`), where any
    /// of its windows was in one; "interrupt context" where they were in several. Never
    /// by cgroup.
    pub context: Option<&'static str>,
    /// Names of the tasks its windows in interrupt context came upon, sorted: they did
    /// not run it.
    pub interrupted: Vec<String>,
    /// Grouped by cgroup: what its path says (`cgroup::classify`), where it was resolved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cgroup_class: Option<Class>,
    /// What `culprit` is: a function, a stack, a cgroup.
    #[serde(skip)]
    pub by: By,
    /// `--lines`: the culprit's frame in its worst window, with its source lines; absent
    /// without debug information for it (and by cgroup).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<Source>,
}

/// A culprit's frame as its worst window's stack shows it, and where that is in the source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Source {
    pub frame: String,
    /// Innermost first, the frame's own function last (as a record's `lines`).
    pub lines: Vec<SourceLine>,
}
