// SPDX-License-Identifier: GPL-2.0
//! What `explain` joins and says: a delay and the CPUs that serve it ([`Delay`]), an
//! irq-off window ([`Window`]), a window that explains a delay ([`Match`]), a delay with
//! what explains it ([`Explained`]), a pause of the whole machine ([`Pause`]), what
//! bounds every answer ([`Limits`]), and the CPU lists its sentences name.

use serde::{Deserialize, Serialize};

/// What was delayed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DelayKind {
    /// A block request from issue to completion (block_rq_issue .. block_rq_complete).
    Io,
    /// A softirq vector from raise to entry on one CPU.
    Softirq,
    /// A submitter that slept for a blk-mq tag (block_rq_tag_wait), until it issued its
    /// next request on that device; tags come back as the device's requests complete.
    TagWait,
    /// The span a task (`--pid`, `--cgroup`) ran in, on the CPUs it ran on.
    Task,
    /// One phase of a task's wake-up (`--wakeups`) on the one CPU it happened on
    /// (`explain::wakeup`).
    Wakeup,
}

/// One delay, and the CPUs that serve it (the windows there can have caused it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Delay {
    pub kind: DelayKind,
    /// CLOCK_MONOTONIC, ns.
    pub start_ns: u64,
    pub end_ns: u64,
    /// The CPUs that serve it, ascending: the softirq's CPU; the CPU the request completed
    /// on and those the device's interrupts go to; the CPUs the task ran on.
    pub cpus: Vec<u32>,
    /// The CPU the event that ended it ran on (the completion, the softirq's entry):
    /// that CPU was taking interrupts then. None for a task's span.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_cpu: Option<u32>,
    /// The CPU a block request was (last) issued on; None for other delays.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issue_cpu: Option<u32>,
    /// Why these CPUs, in words ("completed on CPU 1", "irq 24 effective affinity 1").
    pub evidence: Vec<String>,
    /// The device ("252:0") of an I/O delay.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<String>,
    /// The vector name (NET_RX, BLOCK, ...) of a softirq delay.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vector: Option<String>,
    /// The task (`comm[pid]`) of an I/O or task delay, where known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<String>,
}

impl Delay {
    pub fn len_ns(&self) -> u64 {
        self.end_ns.saturating_sub(self.start_ns)
    }
}

/// One irq-off window, from a record or the event ring.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Window {
    pub cpu: u32,
    /// "hard" or "soft".
    pub kind: String,
    /// "bh-off" or "ksoftirqd-wait" for softirq windows of a v2 module.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause: Option<String>,
    /// CLOCK_MONOTONIC, ns: `timestamp_ns - latency_ns` .. `timestamp_ns`.
    pub start_ns: u64,
    pub end_ns: u64,
    pub comm: String,
    pub pid: i32,
    /// The culprit's function, as `top` names it.
    pub culprit: String,
    /// The interrupt context the culprit ran in ("an IPI function", "a tasklet", "a hard
    /// hrtimer callback", ...): `comm`/`pid` is then the task it interrupted, not its
    /// doer. None in task context.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// Still open when the module was read: `end_ns` is when it was last seen open, and
    /// it goes on after that.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub open: bool,
}

impl Window {
    /// Its end for the join: none yet for a window still open.
    pub(crate) fn join_end(&self) -> u64 {
        if self.open {
            u64::MAX
        } else {
            self.end_ns
        }
    }
}

/// A window that explains a delay.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Match {
    pub window: Window,
    /// How long window and delay overlap, ns (0 when they overlap only within the
    /// sampling precision).
    pub overlap_ns: u64,
    /// They overlap only once the window's start is moved back by one sampling period
    /// (its true start can be that much earlier than measured).
    pub within_precision: bool,
}

/// A delay with what explains it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Explained {
    pub delay: Delay,
    /// Longest overlap first.
    pub windows: Vec<Match>,
    /// When no window explains it: the sentence saying so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_explained: Option<String>,
    /// Part of the delay lies before the oldest window held: windows there are unknown.
    pub before_held: bool,
    /// Shorter than the shortest window the module sees (2 sampling periods) and no
    /// window explains it: whether one did cannot be told.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub too_short: bool,
    /// Pauses of the whole machine the module counted (stalls: a VM stopped by its
    /// host) that overlap the delay: they held it, whatever the windows.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pauses: Vec<Pause>,
}

/// A pause of the whole machine (a stall the module counted) that overlaps a delay.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pause {
    /// CLOCK_MONOTONIC, ns.
    pub start_ns: u64,
    pub end_ns: u64,
    pub overlap_ns: u64,
}

/// What bounds every answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// The module's sampling period: window edges are known to within it.
    pub period_ns: u64,
    /// From when windows are held (the oldest in the event ring, or the records' start);
    /// None: unknown.
    pub held_from_ns: Option<u64>,
    /// Events the trace's own ring lost (its overruns): delays may be missing.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub trace_lost: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// CPUs in words: "CPU 1" for one, "CPUs 0-3,8" for more (as [`cpu_list`]).
pub fn cpu_words(cpus: &[u32]) -> String {
    let list = cpu_list(cpus);
    if list.contains([',', '-']) || list.is_empty() {
        format!("CPUs {list}")
    } else {
        format!("CPU {list}")
    }
}

/// CPUs as the kernel writes a list: "0-3,8".
pub fn cpu_list(cpus: &[u32]) -> String {
    let mut v = cpus.to_vec();
    v.sort_unstable();
    v.dedup();
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < v.len() {
        let mut j = i;
        while j + 1 < v.len() && v[j + 1] == v[j] + 1 {
            j += 1;
        }
        parts.push(if i == j {
            v[i].to_string()
        } else {
            format!("{}-{}", v[i], v[j])
        });
        i = j + 1;
    }
    parts.join(",")
}

/// A CPU list as the kernel writes one ("0-3,8"), read; None when malformed.
pub fn parse_cpu_list(s: &str) -> Option<Vec<u32>> {
    let s = s.trim();
    let mut v = Vec::new();
    if s.is_empty() {
        return Some(v);
    }
    for part in s.split(',') {
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (u32, u32) = (a.parse().ok()?, b.parse().ok()?);
                if a > b {
                    return None;
                }
                v.extend(a..=b);
            }
            None => v.push(part.parse().ok()?),
        }
    }
    v.sort_unstable();
    v.dedup();
    Some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Claim: one CPU reads "CPU 1", more read as the kernel's list after "CPUs".
    #[test]
    fn cpus_in_words() {
        assert_eq!(cpu_words(&[1]), "CPU 1");
        assert_eq!(cpu_words(&[1, 1]), "CPU 1");
        assert_eq!(cpu_words(&[0, 1]), "CPUs 0-1");
        assert_eq!(cpu_words(&[8, 0, 2]), "CPUs 0,2,8");
        assert_eq!(cpu_words(&[12]), "CPU 12");
    }

    /// Claim: CPU lists read and write as the kernel's ("0-3,8"); malformed ones are None.
    #[test]
    fn cpu_lists() {
        assert_eq!(parse_cpu_list("0-3,8\n"), Some(vec![0, 1, 2, 3, 8]));
        assert_eq!(parse_cpu_list(""), Some(vec![]));
        assert_eq!(parse_cpu_list("3-1"), None);
        assert_eq!(parse_cpu_list("x"), None);
        assert_eq!(cpu_list(&[8, 0, 1, 2, 3, 3]), "0-3,8");
        assert_eq!(cpu_list(&[1]), "1");
    }
}
