// SPDX-License-Identifier: GPL-2.0
//! One record as the views show it: with its culprit and its cgroup in words.

use std::borrow::Borrow;
use std::ops::Deref;

use serde::Serialize;

use crate::enrich::culprit;
use crate::model::culprit_group::LOCK_WAIT;
use crate::model::snapshot::Record;

/// A record with what the views derive from it (its fields read through this).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Window<'a> {
    pub record: &'a Record,
    /// The stack that names the culprit, and the task it ran in (`culprit::source`): for
    /// ksoftirqd-wait what ran instead of the softirq thread, else where the window ended
    /// (each falling back on the other); empty where no stack names it.
    pub culprit_stack: &'a [String],
    pub culprit_comm: &'a str,
    /// That task's pid: the one sampled in the window where it is that task, else the
    /// record's.
    pub culprit_pid: i32,
    /// The culprit's function in that stack, mechanism frames skipped (`culprit::name`;
    /// `culprit::UNSEEN` for a returned handler nothing sampled); none where the stack
    /// names none.
    pub culprit: Option<&'a str>,
    /// Whether the window was spent waiting for a spinlock held elsewhere
    /// (`culprit::lock_wait`).
    pub lock_wait: bool,
    /// The interrupt context the culprit ran in ("an IPI function", `culprit::context`):
    /// the culprit's task was then interrupted, not its doer. None in task context.
    pub context: Option<&'static str>,
    /// The cgroup of the record's task in a few words (`cgroup::short`).
    pub cgroup_short: Option<String>,
    /// Its path with what the path says (`cgroup::described`).
    pub cgroup_described: Option<String>,
}

impl<'a> Window<'a> {
    /// `r` with its culprit and cgroup worked out.
    pub fn of(r: &'a Record) -> Self {
        let (culprit_stack, culprit_comm) = culprit::source(r);
        let culprit_pid = if culprit_comm == r.window_comm && r.window_pid != 0 {
            r.window_pid
        } else {
            r.pid
        };
        Window {
            record: r,
            culprit_stack,
            culprit_comm,
            culprit_pid,
            culprit: culprit::name(culprit_stack, r),
            lock_wait: culprit::lock_wait(r),
            context: culprit::context(r),
            cgroup_short: crate::enrich::cgroup::short(r),
            cgroup_described: crate::enrich::cgroup::described(r),
        }
    }

    /// The culprit's function, or `none` where no stack names one.
    pub fn name<'b>(&'b self, none: &'b str) -> &'b str {
        self.culprit.unwrap_or(none)
    }

    /// The culprit as the views name it ([`Window::name`]), with " (lock wait)" after it
    /// for a lock wait (`culprit::label`).
    pub fn label(&self, none: &str) -> String {
        let name = self.name(none);
        if self.lock_wait {
            format!("{name}{LOCK_WAIT}")
        } else {
            name.to_string()
        }
    }
}

/// A record as `records --json` and `watch --json` give it: its fields, and `context`,
/// the interrupt context its culprit ran in ([`Window::context`]; null in task context,
/// where the record's task ran it).
#[derive(Debug, Serialize)]
pub struct Json<'a> {
    #[serde(flatten)]
    pub record: &'a Record,
    pub context: Option<&'static str>,
}

impl<'a> Window<'a> {
    /// The window as JSON gives it ([`Json`]).
    pub fn json(&self) -> Json<'a> {
        Json {
            record: self.record,
            context: self.context,
        }
    }
}

impl Deref for Window<'_> {
    type Target = Record;

    fn deref(&self) -> &Record {
        self.record
    }
}

impl Borrow<Record> for Window<'_> {
    fn borrow(&self) -> &Record {
        self.record
    }
}

/// The windows of `records`, in their order.
pub fn windows(records: &[Record]) -> Vec<Window<'_>> {
    records.iter().map(Window::of).collect()
}
