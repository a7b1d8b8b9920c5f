// SPDX-License-Identifier: GPL-2.0

//! The original tool's files, in its formats (additions only at the end of lines):
//! `trace_latency` and `distribute`.

use crate::ffi::compat::Show;
use crate::ffi::{self};
use crate::logic::cause::Cause;
use crate::logic::escape::Printable;
use crate::logic::gap::NSEC_PER_MSEC;
use crate::logic::histogram::{self, NR_BUCKETS};
use crate::procfs::common::*;
use crate::records::{comm_str, Kind, Record};
use crate::sampler::CpuSampler;
use crate::state::State;
use kernel::fmt;
use kernel::seq_file::SeqFile;
use kernel::seq_print;

/// `LATENCY: 107ms` as the original printed it (`51+ms` for a window still open).
pub(super) struct Millis<'a>(&'a Record);

impl fmt::Display for Millis<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let plus = if self.0.header.ongoing { "+" } else { "" };
        write!(f, "{}{}ms", self.0.header.latency_ns / NSEC_PER_MSEC, plus)
    }
}

/// ` CAUSE: bh-off` for softirq records, nothing for hardirq ones.
pub(super) struct CauseSuffix(Option<Cause>);

impl fmt::Display for CauseSuffix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(c) => write!(f, " CAUSE: {}", c.name()),
            None => Ok(()),
        }
    }
}

/// ` TOGETHER: 141ms (...)` for a hardirq-off record over which every CPU was late
/// together (`Header::together_ns`), nothing for the others: the guest cannot tell a host
/// pause from `stop_machine()` or a lock convoy, and says so.
pub(super) struct TogetherSuffix(u64);

impl fmt::Display for TogetherSuffix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 == 0 {
            return Ok(());
        }
        // Bare metal has no host to pause it (`ffi::under_hypervisor`).
        let host = if crate::ffi::under_hypervisor() {
            "a host pause, "
        } else {
            ""
        };
        write!(
            f,
            " TOGETHER: {}ms (every CPU was late together: {host}stop_machine or a lock convoy)",
            self.0 / NSEC_PER_MSEC
        )
    }
}

/// Seconds with microseconds, as in the kernel log.
pub(super) struct Seconds(u64);

impl fmt::Display for Seconds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}.{:06}",
            self.0 / 1_000_000_000,
            (self.0 % 1_000_000_000) / 1000
        )
    }
}

/// Elements of `trace_latency`: the heading with the `hardirq:` line, then per CPU its
/// hardirq-off records and open window, the `softirq:` line, then per CPU its softirq-off
/// records and open window. The text is the original tool's, byte for byte.
pub(super) fn trace_latency_elements(state: &State) -> usize {
    2 * state.nr_cpus() as usize + 2
}

/// Shows element `index` of `trace_latency` (see [`trace_latency_elements`]).
pub(super) fn show_trace_latency_element(state: &State, m: &SeqFile, index: usize) {
    let n = state.nr_cpus() as usize;
    let cpu = |i: usize| state.cpu(u32::try_from(i).unwrap_or(u32::MAX));
    match index {
        0 => {
            seq_print!(
                m,
                "trace_irqoff_latency: {}ms\n\n",
                state.settings.threshold_ns() / NSEC_PER_MSEC
            );
            seq_print!(m, " hardirq:\n");
        }
        i if i <= n => {
            if let Some(c) = cpu(i - 1) {
                show_latency_hard(state, m, c);
            }
        }
        i if i == n + 1 => seq_print!(m, "\n softirq:\n"),
        i if i <= 2 * n + 1 => {
            if let Some(c) = cpu(i - n - 2) {
                show_latency_soft(state, m, c);
            }
        }
        _ => {}
    }
}

/// One record of `trace_latency`, as the original printed it.
pub(super) fn show_latency_record(m: &SeqFile, r: &Record) {
    let h = &r.header;
    seq_print!(
        m,
        "     COMMAND: {} PID: {} LATENCY: {} LATENCY_NS: {} TIME: {}{}{}\n",
        Show(Printable(r.comm())),
        h.pid,
        Millis(r),
        h.latency_ns,
        Seconds(h.timestamp_ns),
        CauseSuffix(h.cause),
        TogetherSuffix(h.together_ns)
    );
    let stack = main_stack(r);
    for i in 0..stack.frames().len() {
        seq_print!(m, "     {}\n", PlainFrame(stack, i));
    }
    seq_print!(m, "\n");
}

/// One CPU's hardirq-off records, oldest first, then its window still open. Stops early
/// once the seq_file buffer has overflowed (seq_file shows this element again with a
/// larger buffer), so a pass on a too-small buffer costs at most that buffer.
pub(super) fn show_latency_hard(state: &State, m: &SeqFile, cpu: &CpuSampler) {
    let generation = state.settings.generation();
    let kept = cpu.hard.len(generation) != 0;
    if kept {
        seq_print!(m, " cpu: {}\n", cpu.cpu);
        for_each_record_while(&cpu.hard, generation, |r, _| {
            show_latency_record(m, r);
            !ffi::seq_overflowed(m)
        });
        if ffi::seq_overflowed(m) {
            return;
        }
    }
    // A window still open: its length so far and the latest in-window stack.
    with_ongoing_hard(state, cpu, |o, v, now| {
        if !kept {
            seq_print!(m, " cpu: {}\n", cpu.cpu);
        }
        seq_print!(
            m,
            "     COMMAND: {} PID: {} LATENCY: {}+ms LATENCY_NS: {} TIME: {}\n",
            Show(Printable(comm_str(&v.comm))),
            v.pid,
            o.length_ns / NSEC_PER_MSEC,
            o.length_ns,
            Seconds(now)
        );
        for i in 0..v.latest.frames().len() {
            seq_print!(m, "     {}\n", PlainFrame(&v.latest, i));
        }
        seq_print!(m, "\n");
    });
}

/// One CPU's softirq-off records, oldest first, then its window still open.
pub(super) fn show_latency_soft(state: &State, m: &SeqFile, cpu: &CpuSampler) {
    let generation = state.settings.generation();
    let mut header = false;
    let mut heading = || {
        if !header {
            seq_print!(m, " cpu: {}\n", cpu.cpu);
            header = true;
        }
    };
    if cpu.soft.len(generation) != 0 {
        heading();
        for_each_record_while(&cpu.soft, generation, |r, _| {
            show_latency_record(m, r);
            !ffi::seq_overflowed(m)
        });
        if ffi::seq_overflowed(m) {
            return;
        }
    }
    with_pending(cpu, generation, |r| {
        heading();
        show_latency_record(m, r);
    });
}

/// Elements of `distribute`: one per histogram (hardirq-off, softirq-off, then softirq-off
/// by cause), each summed over the CPUs.
pub(super) const DISTRIBUTE_ELEMENTS: usize = 2 + Cause::ALL.len();

pub(super) fn show_distribute_element(state: &State, m: &SeqFile, index: usize) {
    let mut sum = [0u64; NR_BUCKETS];
    let header: &str = match index {
        0 | 1 => {
            let (kind, header) = if index == 0 {
                (Kind::Hardirq, "hardirq-off:")
            } else {
                (Kind::Softirq, "softirq-off:")
            };
            for cpu in state.samplers() {
                cpu.counts(kind).add_to(&mut sum);
            }
            header
        }
        i => {
            let Some(&cause) = Cause::ALL.get(i - 2) else {
                return;
            };
            for cpu in state.samplers() {
                if let Some(c) = cpu.cause_counts.get(cause.index()) {
                    c.add_to(&mut sum);
                }
            }
            match cause {
                Cause::BhOff => "softirq-off, bh-off:",
                Cause::KsoftirqdWait => "softirq-off, ksoftirqd-wait:",
            }
        }
    };
    // seq_file grows its buffer and shows the element again on overflow; a formatting
    // error cannot happen short of that.
    let _ = histogram::render(&mut SeqWriter(m), header, &sum);
}
