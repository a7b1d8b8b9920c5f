// SPDX-License-Identifier: GPL-2.0

//! The machine-readable files the CLI reads: `records` (lossless, versioned: every record
//! with its stacks and profile, the counters, the open windows, tag waits) and `counters`
//! (the same without records). Their grammar is `logic::grammar`; their format is
//! described in `Documentation/trace-irqoff.rst`.

use crate::ffi::compat::Show;
use crate::ffi::COMM_LEN;
use crate::ffi::{self};
use crate::logic::cause::Cause;
use crate::logic::escape::Escaped;
use crate::logic::gap::Window;
use crate::logic::grammar::{
    CpuLine, FileHeader, KindName, LineOverlap, RecordLine, COST_NAMES, COUNTERS_VERSION,
    CPU_COUNTERS, HIST_NAMES, RECORDS_VERSION,
};
use crate::logic::histogram::NR_BUCKETS;
use crate::procfs::common::*;
use crate::records::{
    comm_str, overlapping_hard, Header, Kind, LiveView, ReadAt, Record, RecordStore, Which,
};
use crate::sampler::CpuSampler;
use crate::state::State;
use crate::watch::Ongoing;
use kernel::seq_file::SeqFile;
use kernel::seq_print;
use kernel::sync::atomic::Relaxed;

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

/// The first lines of `records` and `counters`: the file's name and format version, the
/// configuration, the memory line and the watcher.
pub(super) fn show_header(state: &State, m: &SeqFile, name: &str, version: u32) {
    let rules = state.settings.rules();
    seq_print!(m, "{}\n", Show(FileHeader { name, version }));
    let (counts_since, enabled_since) = state.since();
    seq_print!(
        m,
        "config enabled={} state={} period_ns={} threshold_ns={} hz={} records_per_cpu={} soft_period_ns={} soft_event_ns={} buckets={} counts_since_ns={} enabled_since_ns={} realtime_offset_ns={} cpus={} nohz_full={}\n",
        u8::from(state.phase().is_on()),
        state.phase().name(),
        rules.period_ns,
        rules.threshold_ns,
        state.settings.hz(),
        state.records_per_cpu,
        rules.soft_period_ns,
        rules.soft_event_ns,
        NR_BUCKETS,
        counts_since,
        enabled_since,
        ffi::realtime_offset_ns(),
        CpuList(nr_cpus(state), |c| state.peers.selected(c)),
        CpuList(nr_cpus(state), ffi::cpu_nohz_full)
    );
    let (per_cpu, total) = state.memory();
    seq_print!(
        m,
        "memory per_cpu_bytes={} total_bytes={}\n",
        per_cpu,
        total
    );
    let w = &state.watch;
    seq_print!(
        m,
        "watcher available={} active={} reason={} max_window_samples={} stuck_ns={} nmi_sent={} nmi_answered={} nmi_lost={} nmi_stale={} nmi_missed={} stuck_unconfirmed={}\n",
        u8::from(w.unavailable().is_none()),
        u8::from(w.is_active()),
        w.unavailable().map_or("-", |r| r.name()),
        w.max_samples,
        w.stuck_ns,
        w.nmi_sent.load(Relaxed),
        w.nmi_answered.load(Relaxed),
        w.nmi_lost.load(Relaxed),
        w.nmi_stale.load(Relaxed),
        w.nmi_missed.load(Relaxed),
        w.stuck_unconfirmed.load(Relaxed)
    );
    let st = state.peers.stalls();
    seq_print!(
        m,
        "stall count={} over_threshold={} sum_ns={} longest_ns={} latest_start_ns={} latest_end_ns={}\n",
        st.count,
        st.over_threshold,
        st.sum_ns,
        st.longest_ns,
        st.latest.start,
        st.latest.end
    );
    let n = state.namer.stats();
    seq_print!(
        m,
        "namer passes={} named={} max_wait_ns={} wait_sum_ns={} known_functions={}\n",
        n.passes,
        n.named,
        n.max_wait_ns,
        n.wait_sum_ns,
        crate::capture::known_functions()
    );
}

/// Elements of `counters`: the header (as in `records`), then per CPU its counters (as in
/// `records`) and its `worst` line, then the tag-wait lines and `end`. O(CPUs) output and
/// no stack: what a metrics scrape needs.
pub(super) fn counters_elements(state: &State) -> usize {
    state.nr_cpus() as usize + 2
}

pub(super) fn show_counters_element(state: &State, m: &SeqFile, index: usize) {
    let n = state.nr_cpus() as usize;
    match index {
        0 => show_header(state, m, "counters", COUNTERS_VERSION),
        i if i <= n => {
            if let Some(cpu) = state.cpu(u32::try_from(i - 1).unwrap_or(u32::MAX)) {
                show_cpu_counters(state, m, cpu);
                show_cpu_worst(state, m, cpu);
            }
        }
        i if i == n + 1 => {
            state.tag_wait.show_records(m);
            seq_print!(m, "end\n");
        }
        _ => {}
    }
}

/// The longest window of a CPU that `records` shows, per kind and cause (0: none): its
/// records, its hardirq-off window still open, its softirq-off window still open. Reads
/// the records' headers only.
pub(super) fn show_cpu_worst(state: &State, m: &SeqFile, cpu: &CpuSampler) {
    let generation = state.settings.generation();
    let mut hard = 0u64;
    let mut soft = [0u64; Cause::ALL.len()];
    let mut h = Header::new(0, 0, 0, [0; COMM_LEN]);
    let soft_max = |h: &Header, soft: &mut [u64; Cause::ALL.len()]| {
        if let Some(w) = h.cause.and_then(|c| soft.get_mut(c.index())) {
            *w = (*w).max(h.latency_ns);
        }
    };
    for i in 0..cpu.hard.len(generation) {
        if cpu.hard.read_header(i, &mut h).is_some() {
            hard = hard.max(h.latency_ns);
        }
    }
    if let Some(o) = state.watch.ongoing(
        &state.peers,
        cpu.cpu,
        ffi::now_ns(),
        &state.settings.rules(),
    ) {
        hard = hard.max(o.length_ns);
    }
    for i in 0..cpu.soft.len(generation) {
        if cpu.soft.read_header(i, &mut h).is_some() {
            soft_max(&h, &mut soft);
        }
    }
    if cpu.pending.read_header(generation, ffi::now_ns(), &mut h) {
        soft_max(&h, &mut soft);
    }
    let [bh, ksd] = soft;
    seq_print!(
        m,
        "worst {} hard_ns={} soft_ns={} soft_bh_off_ns={} soft_ksoftirqd_wait_ns={}\n",
        cpu.cpu,
        hard,
        bh.max(ksd),
        bh,
        ksd
    );
}

pub(super) fn show_cpu_counters(state: &State, m: &SeqFile, cpu: &CpuSampler) {
    let generation = state.settings.generation();
    let values = CPU_COUNTERS.map(|c| cpu_counter(cpu, generation, c.key));
    let line = CpuLine {
        cpu: cpu.cpu,
        online: ffi::cpu_online(cpu.cpu),
        values: &values,
    };
    seq_print!(m, "{}\n", Show(line));
    let [bh, ksd] = &cpu.cause_counts;
    for (name, _) in HIST_NAMES {
        let counts = match name {
            "hard" => &cpu.hard_counts,
            "soft" => &cpu.soft_counts,
            "soft-bh-off" => bh,
            _ => ksd,
        };
        seq_print!(m, "hist {} {}", cpu.cpu, name);
        for c in counts.snapshot() {
            seq_print!(m, " {}", c);
        }
        seq_print!(m, "\n");
    }
    let watched = state.watch.get(cpu.cpu);
    for (name, _) in COST_NAMES {
        let cost = match name {
            "hard" => Some(&cpu.hard_cost),
            "soft" => Some(&cpu.soft_cost),
            "capture" => Some(&cpu.capture_cost),
            "nmi" => watched.map(|w| &w.nmi_cost),
            _ => watched.map(|w| &w.nmi_rtt),
        };
        let Some(cost) = cost else { continue };
        seq_print!(
            m,
            "cost {} {} runs={} total_ns={} hist_ns",
            cpu.cpu,
            name,
            cost.runs(),
            cost.total_ns()
        );
        for c in cost.hist_ns.snapshot() {
            seq_print!(m, " {}", c);
        }
        seq_print!(m, "\n");
    }
}

/// The value of the `cpu` line's counter `key` (`logic::grammar::CPU_COUNTERS`) for `cpu`.
fn cpu_counter(cpu: &CpuSampler, generation: u64, key: &str) -> u64 {
    let [bh, ksd] = &cpu.cause_counts;
    match key {
        "hard_events" => cpu.hard_counts.total(),
        "soft_events" => cpu.soft_counts.total(),
        "soft_bh_off_events" => bh.total(),
        "soft_ksoftirqd_wait_events" => ksd.total(),
        "hard_dropped" => cpu.hard.drops(generation).0,
        "hard_replaced" => cpu.hard.drops(generation).1,
        "soft_dropped" => cpu.soft.drops(generation).0,
        "soft_replaced" => cpu.soft.drops(generation).1,
        "idle_gaps" => cpu.idle_gaps.load(Relaxed),
        "late_timer_gaps" => cpu.late_timer_gaps.load(Relaxed),
        "steal_gaps" => cpu.steal_gaps.load(Relaxed),
        "stall_gaps" => cpu.stall_gaps.load(Relaxed),
        "hard_sum_ns" => cpu.hard_counts.sum(),
        "soft_sum_ns" => cpu.soft_counts.sum(),
        "soft_bh_off_sum_ns" => bh.sum(),
        "soft_ksoftirqd_wait_sum_ns" => ksd.sum(),
        _ => 0,
    }
}

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
        overlap,
        frames: end.frames().len(),
        window_frames: window.frames().len(),
        window_pid: r.window_pid,
        window_comm: comm_str(&r.window_comm),
        cgroup_id: h.cgroup_id,
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
        overlap: LineOverlap::None,
        frames: 0,
        window_frames: v.latest.frames().len(),
        window_pid: v.pid,
        window_comm: comm_str(&v.comm),
        cgroup_id: v.cgroup_id,
        ongoing: true,
    };
    seq_print!(m, "{}\n", Show(line));
    for i in 0..v.latest.frames().len() {
        seq_print!(m, "window_frame {}\n", Frame(&v.latest, i));
    }
    show_live_profile(m, v);
}
