// SPDX-License-Identifier: GPL-2.0
//! What the module's event ring carries: a window as it ends ([`Event`], from the
//! tracepoints `trace_irqoff:hardirq_off` and `softirq_off`), and what a read of the ring
//! holds ([`Ring`]: its windows, and apart from them the stalls of the whole machine).
//! `parse::tracefs` reads them from the ring's text, `source::ring` reads that text.

use crate::model::clock::Clock;
use crate::model::snapshot::{Cause, Kind, Record, Stall};

/// A window as the stream carries it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    pub cpu: u32,
    pub kind: Kind,
    pub cause: Option<Cause>,
    pub latency_ns: u64,
    /// When it ended, CLOCK_MONOTONIC.
    pub end_ns: u64,
    /// Its number among its CPU's windows (0: a module without numbers).
    pub seq: u64,
    pub pid: i32,
    pub comm: String,
    /// The task's cgroup v2 id (a module that gives it, a kernel with cgroups).
    pub cgroup_id: Option<u64>,
    pub end_shows_culprit: bool,
    /// Of the latency, the part in which every CPU was late together (0: none, or a
    /// module that does not say).
    pub together_ns: u64,
    /// Culprit first, as the kernel names them; empty below the threshold.
    pub frames: Vec<String>,
}

impl Event {
    /// The event as a record, with wall-clock times from `clock`.
    pub fn record(&self, clock: &Clock) -> Record {
        Record {
            cause: self.cause,
            latency_ns: self.latency_ns,
            timestamp_ns: self.end_ns,
            wall_time: Some(clock.rfc3339(self.end_ns)),
            start_wall_time: Some(clock.rfc3339(self.end_ns.saturating_sub(self.latency_ns))),
            pid: self.pid,
            comm: self.comm.clone(),
            stack: self.frames.clone(),
            end_shows_culprit: self.end_shows_culprit,
            cgroup_id: self.cgroup_id,
            together_ns: self.together_ns,
            ..Record::new(self.cpu, self.kind)
        }
    }
}

/// What the ring holds (or what is new in it): the windows, and apart from them the
/// stalls.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ring {
    pub windows: Vec<Event>,
    pub stalls: Vec<Stall>,
    /// The ring overwrote events (its header's entries-in-buffer is below
    /// entries-written): what it holds starts later than the ring did.
    pub lost: bool,
}
