// SPDX-License-Identifier: GPL-2.0

//! The `counters` file (the configuration, memory, watcher, stall, sleep and namer lines, each
//! CPU's `cpu`, `hist` and `cost` lines and its `worst` line, the tag-wait lines: what a
//! metrics scrape needs, in O(CPUs) and without stacks), and the lines `records` repeats
//! from it (its header and each CPU's counters). Their grammar is `logic::grammar`.

use crate::ffi::compat::Show;
use crate::ffi::COMM_LEN;
use crate::ffi::{self};
use crate::logic::cause::Cause;
use crate::logic::grammar::{
    CpuLine, FileHeader, COST_NAMES, COUNTERS_VERSION, CPU_COUNTERS, HIST_NAMES,
};
use crate::logic::histogram::NR_BUCKETS;
use crate::procfs::common::*;
use crate::records::Header;
use crate::sampler::CpuSampler;
use crate::state::State;
use kernel::seq_file::SeqFile;
use kernel::seq_print;
use kernel::sync::atomic::Relaxed;

/// The first lines of `records` and `counters`: the file's name and format version, the
/// configuration, the memory line and the watcher.
pub(super) fn show_header(state: &State, m: &SeqFile, name: &str, version: u32) {
    let rules = state.settings.rules();
    seq_print!(m, "{}\n", Show(FileHeader { name, version }));
    let (counts_since, enabled_since) = state.since();
    seq_print!(
        m,
        "config enabled={} state={} period_ns={} threshold_ns={} hz={} records_per_cpu={} soft_period_ns={} soft_event_ns={} buckets={} counts_since_ns={} enabled_since_ns={} realtime_offset_ns={} cpus={} nohz_full={} unsampled={}\n",
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
        CpuList(nr_cpus(state), ffi::cpu_nohz_full),
        CpuList(nr_cpus(state), |c| state.peers.unsampled(c))
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
        "stall count={} over_threshold={} sum_ns={} longest_ns={} latest_start_ns={} latest_end_ns={} hypervisor={}\n",
        st.count,
        st.over_threshold,
        st.sum_ns,
        st.longest_ns,
        st.latest.start,
        st.latest.end,
        u8::from(state.peers.vm())
    );
    let (parks, watcher_wakes) = state.watch.sleep_counts();
    seq_print!(
        m,
        "sleep parking={} parks={} watcher_wakes={}\n",
        u8::from(state.peers.parking()),
        parks,
        watcher_wakes
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
        "together_events" => cpu.peer().map_or(0, |p| p.together_events.load(Relaxed)),
        "online_max_ns" => cpu.peer().map_or(0, |p| p.online_max_ns()),
        "hard_sum_ns" => cpu.hard_counts.sum(),
        "soft_sum_ns" => cpu.soft_counts.sum(),
        "soft_bh_off_sum_ns" => bh.sum(),
        "soft_ksoftirqd_wait_sum_ns" => ksd.sum(),
        _ => 0,
    }
}
