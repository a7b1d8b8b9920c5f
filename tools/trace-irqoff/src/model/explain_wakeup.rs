// SPDX-License-Identifier: GPL-2.0
//! `explain --wakeups`: what the answer says of each wake-up of a task's threads, split
//! as rtla timerlat `-a` splits a timer's (timer lateness, delivery, run-queue wait),
//! each phase with the windows that held it; and what the trace could not tell.
//! `parse::wakeup_trace` reads them from a trace, `enrich::explain_join` joins each
//! phase with the windows on its CPU.

use serde::{Deserialize, Serialize};

use super::delay::{Match, Pause};

/// A phase of a wake-up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PhaseKind {
    TimerLateness,
    Delivery,
    RunQueue,
}

impl PhaseKind {
    /// As the text names it.
    pub fn words(self) -> &'static str {
        match self {
            PhaseKind::TimerLateness => "timer lateness",
            PhaseKind::Delivery => "delivery",
            PhaseKind::RunQueue => "run-queue wait",
        }
    }
}

/// One phase of a wake-up, on the CPU it happened on, and what explains it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Phase {
    pub phase: PhaseKind,
    /// CLOCK_MONOTONIC, ns.
    pub start_ns: u64,
    pub end_ns: u64,
    /// The CPU it happened on: the timer's for lateness, the one the `sched_wakeup`
    /// fired on for delivery (the target CPU through the wake list's IPI, else the
    /// waker's), the CPU it then ran on for the run-queue wait. Only windows there
    /// explain it.
    pub cpu: u32,
    /// Its share of the wake-up's total, in whole percents (the largest remainder
    /// rounding: the shares of a wake-up add up to 100).
    pub share_pct: u32,
    /// The windows on `cpu` that overlap it, longest overlap first.
    pub windows: Vec<Match>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_explained: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub too_short: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pauses: Vec<Pause>,
    /// The run-queue wait: the tasks that ran on its CPU meanwhile ("sh[10]"), the one
    /// switched out for the thread last.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ran_meanwhile: Vec<String>,
}

impl Phase {
    pub fn len_ns(&self) -> u64 {
        self.end_ns.saturating_sub(self.start_ns)
    }
}

/// One wake-up of a thread: its phases and where it went.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Wakeup {
    /// The thread ("cat[123]": its comm in the trace, its thread id).
    pub task: String,
    pub tid: i32,
    /// From the timer's expires (or its expiry, if earlier), or the waking, to the
    /// switch-in; CLOCK_MONOTONIC, ns.
    pub start_ns: u64,
    pub end_ns: u64,
    /// The timer's `expires`, for a wake-up by a timer whose start was traced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_ns: Option<u64>,
    /// The CPU the timer expired on, for a wake-up by a timer (without `expires_ns`:
    /// started before the trace, its lateness not known, and not a phase).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timer_cpu: Option<u32>,
    /// The timer expired outside hard interrupt context (its `hrtimer_expire_entry` line
    /// lacks the `h` flag): in the softirq thread, as a normal task's sleep timer does on
    /// PREEMPT_RT, so a softirq-off window can hold its lateness too.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub timer_soft: bool,
    /// The CPU of the `sched_waking`.
    pub waker_cpu: u32,
    /// The `sched_wakeup`'s `target_cpu`.
    pub target_cpu: u32,
    /// The `sched_wakeup` fired on the target CPU, another than the waker's: through the
    /// wake list's IPI.
    pub ipi: bool,
    /// The CPU it was switched in on.
    pub ran_cpu: u32,
    /// In order: timer lateness (a timer's only), delivery, run-queue wait.
    pub phases: Vec<Phase>,
    /// It began before the oldest window held.
    pub before_held: bool,
}

impl Wakeup {
    pub fn len_ns(&self) -> u64 {
        self.end_ns.saturating_sub(self.start_ns)
    }

    /// A phase was held by an irq-off window.
    pub fn explained(&self) -> bool {
        self.phases.iter().any(|p| !p.windows.is_empty())
    }

    /// No phase was explained and the whole is under the shortest window seen.
    pub fn too_short(&self) -> bool {
        !self.explained() && self.phases.iter().all(|p| p.too_short)
    }

    /// A pause of the whole VM held a phase.
    pub fn paused(&self) -> bool {
        self.phases.iter().any(|p| !p.pauses.is_empty())
    }

    /// Remote: woken from another CPU than the one it was enqueued on.
    pub fn remote(&self) -> bool {
        self.waker_cpu != self.target_cpu
    }
}

/// The wake-ups a task's threads went through, and whose.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Wakeups {
    /// Whose: "cat[123]" (`--pid`), "cgroup /a.service".
    pub of: String,
    /// The thread ids followed.
    pub threads: Vec<i32>,
    /// Slowest first.
    pub wakeups: Vec<Wakeup>,
}

/// What a trace could not tell of the threads' wake-ups.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Untold {
    /// `sched_waking` lines of any task in the trace (none: it was not traced with the
    /// wake-up events).
    pub wakings: usize,
    /// Wake-ups of the threads not switched in by the trace's end, or whose
    /// `sched_wakeup` is missing: their latency is not known.
    pub unfinished: usize,
}
