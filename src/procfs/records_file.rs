// SPDX-License-Identifier: GPL-2.0

//! The `records` file the CLI reads: lossless and versioned, every record with its stacks
//! and profile, the counters (as `counters` shows them: `counters_file`), the open
//! windows, tag waits. Their grammar is `logic::grammar`; their format is
//! described in `Documentation/trace-irqoff.rst`.

use crate::ffi::compat::Show;
use crate::ffi::{self};
use crate::logic::escape::Escaped;
use crate::logic::gap::Window;
use crate::logic::grammar::{EndedBy, KindName, LineOverlap, RecordLine, RECORDS_VERSION};
use crate::procfs::common::*;
use crate::procfs::counters_file::{show_cpu_counters, show_header};
use crate::records::{
    comm_str, overlapping_hard, Kind, LiveView, ReadAt, Record, RecordStore, Which,
};
use crate::sampler::CpuSampler;
use crate::state::State;
use crate::watch::Ongoing;
use kernel::seq_file::SeqFile;
use kernel::seq_print;

/// Elements of the `records` file, each shown by one seq_file `show` call: the header,
/// then per CPU its counters, then per CPU its open hardirq window, then per CPU its
/// records, then the tag-wait lines and `end`. A read never holds more than one element
/// in the kernel; a CPU's records are one element, read in one pass and so consistent
/// with each other.
pub(super) fn records_elements(state: &State) -> usize {
    3 * state.nr_cpus() as usize + 2
}

/// Shows element `index` of `records` (see [`records_elements`]); nothing past the end.
pub(super) fn show_records_element(state: &State, m: &SeqFile, index: usize) {
    let n = state.nr_cpus() as usize;
    // A CPU that never came online has no state, and no lines.
    let cpu = |i: usize| state.cpu(u32::try_from(i).unwrap_or(u32::MAX));
    match index {
        0 => show_header(state, m, "records", RECORDS_VERSION),
        i if i <= n => {
            if let Some(c) = cpu(i - 1) {
                show_cpu_counters(state, m, c);
            }
        }
        i if i <= 2 * n => {
            if let Some(c) = cpu(i - n - 1) {
                show_cpu_ongoing(state, m, c);
            }
        }
        i if i <= 3 * n => {
            if let Some(c) = cpu(i - 2 * n - 1) {
                show_cpu_records(state, m, c);
            }
        }
        i if i == 3 * n + 1 => {
            state.tag_wait.show_records(m);
            seq_print!(m, "end\n");
        }
        _ => {}
    }
}

/// The `ongoing` line of a CPU's hardirq-off window still open.
pub(super) fn show_cpu_ongoing(state: &State, m: &SeqFile, cpu: &CpuSampler) {
    let rules = state.settings.rules();
    with_ongoing_hard(state, cpu, |o, v, _| {
        let watcher = state.watch.get(cpu.cpu).and_then(|w| w.watcher(o.window));
        seq_print!(
            m,
            "ongoing cpu={} kind=hard latency_ns={} start_ns={} pid={} comm={} samples={} watcher_cpu={} cgroup={}\n",
            cpu.cpu,
            o.length_ns,
            o.window.saturating_add(rules.period_ns),
            v.pid,
            Show(Escaped(comm_str(&v.comm))),
            v.samples,
            watcher.map_or(-1, i64::from),
            v.cgroup_id
        );
    });
}

/// One CPU's records, oldest first per kind. Stops early once the seq_file buffer has
/// overflowed: seq_file discards this output and calls again with a buffer twice as large,
/// so the work spent on a too-small buffer is at most that of the final pass.
pub(super) fn show_cpu_records(state: &State, m: &SeqFile, cpu: &CpuSampler) {
    let generation = state.settings.generation();
    for (kind, store) in [(Kind::Hardirq, &cpu.hard), (Kind::Softirq, &cpu.soft)] {
        for_each_record_while(store, generation, |r, slot| {
            show_record(state, m, cpu.cpu, kind, r, Some((store, slot)));
            show_profile(m, &r.profile, r.stack(Which::Window), r.stack(Which::End));
            !ffi::seq_overflowed(m)
        });
        if ffi::seq_overflowed(m) {
            return;
        }
        if kind == Kind::Hardirq {
            with_ongoing_hard(state, cpu, |o, v, now| {
                show_ongoing_hard(m, cpu.cpu, o, v, now)
            });
        }
    }
    with_pending(cpu, generation, |r| {
        show_record(state, m, cpu.cpu, Kind::Softirq, r, None);
        if let Some(v) = soft_live(cpu, cpu.pending.window_start()) {
            show_live_profile(m, &v);
        }
    });
}

/// One record of the `records` file, with its stacks; `at`: where it was read, if from a
/// store (its overlap's resolution is kept beside it).
pub(super) fn show_record(
    state: &State,
    m: &SeqFile,
    cpu: u32,
    kind: Kind,
    r: &Record,
    at: Option<(&RecordStore, ReadAt)>,
) {
    let h = &r.header;
    let (end, window) = (r.stack(Which::End), r.stack(Which::Window));
    let (start, end_ns) = r.window();
    let generation = state.settings.generation();
    let found = h.overlap_cpu.map(|other| {
        (
            other,
            state.cpu(other).and_then(|theirs| {
                overlapping_hard(&theirs.hard, generation, Window { start, end: end_ns }, at)
            }),
        )
    });
    let overlap = match &found {
        None => LineOverlap::None,
        Some((cpu, None)) => LineOverlap::NotFound { cpu: *cpu },
        Some((cpu, Some(o))) => LineOverlap::Hard {
            cpu: *cpu,
            latency_ns: o.latency_ns,
            pid: o.pid,
            comm: comm_str(&o.comm),
        },
    };
    let (overlap_cpu, overlap_kind, overlap_latency_ns, overlap_pid, overlap_comm) =
        overlap.fields();
    let line = RecordLine {
        cpu,
        kind: kind.grammar(),
        lower_bound: h.ongoing,
        latency_ns: h.latency_ns,
        timestamp_ns: h.timestamp_ns,
        pid: h.pid,
        comm: r.comm(),
        cause: h.cause,
        runnable_ns: h.runnable_ns,
        samples: h.samples.total,
        bh_off_samples: h.samples.bh_off,
        idle_samples: h.samples.idle,
        jiffies: h.jiffies,
        end_shows_culprit: h.end_shows_culprit,
        overlap_cpu,
        overlap_kind,
        overlap_latency_ns,
        overlap_pid,
        overlap_comm,
        frames: end.frames().len(),
        window_frames: window.frames().len(),
        window_pid: r.window_pid,
        window_comm: comm_str(&r.window_comm),
        cgroup: h.cgroup_id,
        together_ns: h.together_ns,
        ended_by: h.ended_by,
        stop_callback: h.stop_callback,
        ongoing: false,
    };
    seq_print!(m, "{}\n", Show(line));
    for i in 0..end.frames().len() {
        seq_print!(m, "frame {}\n", Frame(end, i));
    }
    for i in 0..window.frames().len() {
        seq_print!(m, "window_frame {}\n", Frame(window, i));
    }
}

/// A hardirq-off window still open, as a lower-bound record: its length so far, the task
/// and stack of the latest in-window sample, and its profile so far.
pub(super) fn show_ongoing_hard(m: &SeqFile, cpu: u32, o: Ongoing, v: &LiveView, now: u64) {
    let (overlap_cpu, overlap_kind, overlap_latency_ns, overlap_pid, overlap_comm) =
        LineOverlap::None.fields();
    let line = RecordLine {
        cpu,
        kind: KindName::Hard,
        lower_bound: true,
        latency_ns: o.length_ns,
        timestamp_ns: now,
        pid: v.pid,
        comm: comm_str(&v.comm),
        cause: None,
        runnable_ns: 0,
        samples: 0,
        bh_off_samples: 0,
        idle_samples: 0,
        jiffies: 0,
        end_shows_culprit: false,
        overlap_cpu,
        overlap_kind,
        overlap_latency_ns,
        overlap_pid,
        overlap_comm,
        frames: 0,
        window_frames: v.latest.frames().len(),
        window_pid: v.pid,
        window_comm: comm_str(&v.comm),
        cgroup: v.cgroup_id,
        together_ns: 0,
        // Measured so far by the hrtimer: the watcher's, from this CPU's last run.
        ended_by: EndedBy::Hrtimer,
        stop_callback: false,
        ongoing: true,
    };
    seq_print!(m, "{}\n", Show(line));
    for i in 0..v.latest.frames().len() {
        seq_print!(m, "window_frame {}\n", Frame(&v.latest, i));
    }
    show_live_profile(m, v);
}
