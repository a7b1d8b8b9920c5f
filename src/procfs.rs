// SPDX-License-Identifier: GPL-2.0

//! What the files under `/proc/trace_irqoff` show, and what writing them does. The first
//! four keep the original tool's formats (additions only at the end of lines); `records`
//! is the lossless, versioned form the CLI reads. See `Documentation/trace-irqoff.rst`.

use core::fmt as corefmt;
use kernel::fmt;

use kernel::prelude::*;
use kernel::seq_file::SeqFile;
use kernel::seq_print;
use kernel::sync::atomic::Relaxed;

use crate::escape::{Escaped, Printable};
use crate::ffi::{self, ProcFile, Symbol};
use crate::gap::NSEC_PER_MSEC;
use crate::histogram::{self, NR_BUCKETS};
use crate::records::{Record, RecordStore, MAX_RECORDS};
use crate::sampler::{CpuSampler, Kind};
use crate::state::State;

/// Version of the `records` format; bumped on any incompatible change.
const RECORDS_VERSION: u32 = 1;

/// Renders one file.
pub(crate) fn show(state: &State, file: ProcFile, m: &SeqFile) -> Result {
    match file {
        ProcFile::Enable => {
            seq_print!(m, "{}\n", if state.is_enabled() { "enabled" } else { "disabled" });
        }
        ProcFile::SamplingPeriod => {
            seq_print!(m, "{}ms\n", state.settings.period_ns() / NSEC_PER_MSEC);
        }
        ProcFile::TraceLatency => show_trace_latency(state, m),
        ProcFile::Distribute => show_distribute(state, m),
        ProcFile::Records => show_records(state, m),
        ProcFile::TagWait => show_tag_wait(state, m),
    }
    Ok(())
}

/// Applies a write to one file.
pub(crate) fn write(state: &State, file: ProcFile, buf: &[u8]) -> Result {
    match file {
        ProcFile::Enable => state.write_enable(buf),
        ProcFile::SamplingPeriod => state.write_period(buf),
        ProcFile::TraceLatency => state.write_trace_latency(buf),
        ProcFile::TagWait => state.write_tag_wait(buf),
        ProcFile::Distribute | ProcFile::Records => Err(EPERM),
    }
}

/// Calls `f` for each record of `store`, oldest first. May sleep (seq_file show holds no
/// spinning lock).
fn for_each_record(store: &RecordStore, generation: u64, mut f: impl FnMut(&Record)) {
    let n = store.len(generation);
    let mut order = [0usize; MAX_RECORDS];
    for (i, o) in order.iter_mut().enumerate().take(n) {
        *o = i;
    }
    order[..n].sort_unstable_by_key(|&i| store.timestamp(i));
    let mut r = Record::empty();
    for &i in &order[..n] {
        if store.read(i, &mut r) {
            f(&r);
        }
    }
}

/// Shows a `core::fmt::Display` (from the `core`-only files) through `seq_print!`.
struct Show<T>(T);

impl<T: corefmt::Display> fmt::Display for Show<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        corefmt::Display::fmt(&self.0, f)
    }
}

/// `LATENCY: 107ms` as the original printed it (`51+ms` for a lower bound).
struct Millis<'a>(&'a Record);

impl fmt::Display for Millis<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let plus = if self.0.lower_bound { "+" } else { "" };
        write!(f, "{}{}ms", self.0.latency_ns / NSEC_PER_MSEC, plus)
    }
}

/// Seconds with microseconds, as in the kernel log.
struct Seconds(u64);

impl fmt::Display for Seconds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{:06}", self.0 / 1_000_000_000, (self.0 % 1_000_000_000) / 1000)
    }
}

fn show_trace_latency(state: &State, m: &SeqFile) {
    let generation = state.settings.generation();
    seq_print!(m, "trace_irqoff_latency: {}ms\n\n", state.settings.threshold_ns() / NSEC_PER_MSEC);
    let kinds: [(&str, &[fn(&CpuSampler) -> &RecordStore]); 2] = [
        (" hardirq:\n", &[|c| &c.hard]),
        ("\n softirq:\n", &[|c| &c.soft, |c| &c.soft_starved]),
    ];
    for (header, stores) in kinds {
        seq_print!(m, "{}", header);
        for cpu in state.cpus.iter() {
            if stores.iter().all(|s| s(cpu).len(generation) == 0) {
                continue;
            }
            seq_print!(m, " cpu: {}\n", cpu.cpu);
            for store in stores {
                for_each_record(store(cpu), generation, |r| {
                    seq_print!(
                        m,
                        "     COMMAND: {} PID: {} LATENCY: {} LATENCY_NS: {} TIME: {}\n",
                        Show(Printable(r.comm())),
                        r.pid,
                        Millis(r),
                        r.latency_ns,
                        Seconds(r.timestamp_ns)
                    );
                    for &addr in r.frames() {
                        seq_print!(m, "     {}\n", Symbol(addr));
                    }
                    seq_print!(m, "\n");
                });
            }
        }
    }
}

fn show_distribute(state: &State, m: &SeqFile) {
    for (kind, header) in [(Kind::Hardirq, "hardirq-off:"), (Kind::Softirq, "softirq-off:")] {
        let mut sum = [0u64; NR_BUCKETS];
        for cpu in state.cpus.iter() {
            cpu.counts(kind).add_to(&mut sum);
        }
        // seq_file grows its buffer and retries on overflow; a formatting error cannot
        // happen short of that.
        let _ = histogram::render(&mut SeqWriter(m), header, &sum);
    }
}

/// `fmt::Write` over a seq_file.
struct SeqWriter<'a>(&'a SeqFile);

impl corefmt::Write for SeqWriter<'_> {
    fn write_str(&mut self, s: &str) -> corefmt::Result {
        seq_print!(self.0, "{}", s);
        Ok(())
    }
}

fn show_records(state: &State, m: &SeqFile) {
    let generation = state.settings.generation();
    let rules = state.settings.rules();
    seq_print!(m, "trace_irqoff records v{}\n", RECORDS_VERSION);
    seq_print!(
        m,
        "config enabled={} period_ns={} threshold_ns={} hz={} records_per_cpu={} soft_period_ns={} soft_event_ns={} buckets={}\n",
        u8::from(state.is_enabled()),
        rules.period_ns,
        rules.threshold_ns,
        state.settings.hz(),
        state.records_per_cpu,
        rules.soft_period_ns,
        rules.soft_event_ns,
        NR_BUCKETS
    );
    let (per_cpu, total) = state.memory();
    seq_print!(m, "memory per_cpu_bytes={} total_bytes={}\n", per_cpu, total);
    for cpu in state.cpus.iter() {
        let (hd, hr) = cpu.hard.drops(generation);
        let (sd, sr) = cpu.soft.drops(generation);
        let (ld, lr) = cpu.soft_starved.drops(generation);
        seq_print!(
            m,
            "cpu {} online={} hard_events={} soft_events={} hard_dropped={} hard_replaced={} soft_dropped={} soft_replaced={} idle_gaps={}\n",
            cpu.cpu,
            u8::from(ffi::cpu_online(cpu.cpu)),
            cpu.hard_counts.total(),
            cpu.soft_counts.total(),
            hd,
            hr,
            sd + ld,
            sr + lr,
            cpu.idle_gaps.load(Relaxed)
        );
        for kind in [Kind::Hardirq, Kind::Softirq] {
            seq_print!(m, "hist {} {}", cpu.cpu, kind.name());
            for c in cpu.counts(kind).snapshot() {
                seq_print!(m, " {}", c);
            }
            seq_print!(m, "\n");
        }
        for (kind, cost) in [(Kind::Hardirq, &cpu.hard_cost), (Kind::Softirq, &cpu.soft_cost)] {
            seq_print!(
                m,
                "cost {} {} runs={} total_ns={} hist_ns",
                cpu.cpu,
                kind.name(),
                cost.runs.load(Relaxed),
                cost.total_ns.load(Relaxed)
            );
            for c in cost.hist_ns.snapshot() {
                seq_print!(m, " {}", c);
            }
            seq_print!(m, "\n");
        }
    }
    for cpu in state.cpus.iter() {
        let stores = [(Kind::Hardirq, &cpu.hard), (Kind::Softirq, &cpu.soft), (Kind::Softirq, &cpu.soft_starved)];
        for (kind, store) in stores {
            for_each_record(store, generation, |r| {
                seq_print!(
                    m,
                    "record cpu={} kind={} lower_bound={} latency_ns={} timestamp_ns={} pid={} comm={} frames={}\n",
                    cpu.cpu,
                    kind.name(),
                    u8::from(r.lower_bound),
                    r.latency_ns,
                    r.timestamp_ns,
                    r.pid,
                    Show(Escaped(r.comm())),
                    r.frames().len()
                );
                for &addr in r.frames() {
                    seq_print!(m, "frame {}\n", Symbol(addr));
                }
            });
        }
    }
    show_tag_wait_records(state, m);
    seq_print!(m, "end\n");
}

fn show_tag_wait(state: &State, m: &SeqFile) {
    let tw = &state.tag_wait;
    seq_print!(
        m,
        "tag_wait: {} (source: {})\n",
        if tw.is_enabled() { "enabled" } else { "disabled" },
        tw.source.name()
    );
    seq_print!(m, "{:>11} {:>6}  {:<20} {:>10}\n", "DEV", "HCTX", "POOL", "WAITS");
    tw.for_each(|row| {
        // major,minor as the upstream tracepoint prints a dev_t.
        let (major, minor) = row.key.major_minor();
        seq_print!(m, "{:>6},{:<4} {:>6}  {:<20} {:>10}\n", major, minor, row.key.hctx, row.key.pool.name(), row.waits);
    });
    let (overflow, unattributed) = (tw.overflow.load(Relaxed), tw.unattributed.load(Relaxed));
    if overflow != 0 || unattributed != 0 {
        seq_print!(m, "not in the table: {} (table full), {} (hardware queue unknown)\n", overflow, unattributed);
    }
    seq_print!(m, "\n");
    let _ = histogram::render_unit(&mut SeqWriter(m), "tag wait duration (sbitmap_prepare_to_wait .. sbitmap_finish_wait):", "usecs", &tw.durations.snapshot());
}

fn show_tag_wait_records(state: &State, m: &SeqFile) {
    let tw = &state.tag_wait;
    seq_print!(
        m,
        "tagwait enabled={} source={} overflow={} unattributed={} missed={}\n",
        u8::from(tw.is_enabled()),
        tw.source.name(),
        tw.overflow.load(Relaxed),
        tw.unattributed.load(Relaxed),
        tw.missed.load(Relaxed)
    );
    tw.for_each(|row| {
        let (major, minor) = row.key.major_minor();
        seq_print!(
            m,
            "tagwait_count major={} minor={} hctx={} sched={} reserved={} waits={}\n",
            major,
            minor,
            row.key.hctx,
            u8::from(row.key.pool.sched),
            u8::from(row.key.pool.reserved),
            row.waits
        );
    });
    seq_print!(m, "tagwait_hist_us");
    for c in tw.durations.snapshot() {
        seq_print!(m, " {}", c);
    }
    seq_print!(m, "\n");
}
