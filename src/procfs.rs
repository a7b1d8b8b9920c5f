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

use crate::compat::Show;
use crate::ffi::COMM_LEN;
use crate::ffi::{self, file_id, Symbol};
use crate::logic::cause::Cause;
use crate::logic::escape::{Escaped, Printable};
use crate::logic::gap::{self, Window, NSEC_PER_MSEC};
use crate::logic::grammar::{
    FileHeader, KindName, LineOverlap, RecordLine, COUNTERS_VERSION, RECORDS_VERSION,
};
use crate::logic::histogram::{self, NR_BUCKETS};
use crate::logic::overlap::Resolved;
use crate::logic::parse;
use crate::records::{
    comm_str, Header, Kind, LiveView, Profile, Record, RecordStore, Stack, Which, MAX_RECORDS,
};
use crate::sampler::CpuSampler;
use crate::state::State;
use crate::watch::Ongoing;

/// The files under `/proc/trace_irqoff`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum ProcFile {
    Enable,
    SamplingPeriod,
    TraceLatency,
    Distribute,
    Records,
    TagWait,
    Cpus,
    Counters,
}

impl ProcFile {
    /// The file the shim means by `id`.
    pub(crate) fn from_id(id: u32) -> Option<Self> {
        Some(match id {
            file_id::ENABLE => Self::Enable,
            file_id::SAMPLING_PERIOD => Self::SamplingPeriod,
            file_id::TRACE_LATENCY => Self::TraceLatency,
            file_id::DISTRIBUTE => Self::Distribute,
            file_id::RECORDS => Self::Records,
            file_id::TAG_WAIT => Self::TagWait,
            file_id::CPUS => Self::Cpus,
            file_id::COUNTERS => Self::Counters,
            _ => return None,
        })
    }
}

/// The number of elements of a file, each shown by one seq_file `show` call (the shim's
/// iterator). A read holds one element at a time in the kernel, and a seq_file buffer that
/// overflows makes seq_file show that one element again with a buffer twice as large, not
/// the whole file: a read costs O(its output). The files that grow with the CPUs have an
/// element per CPU and part; the others have one.
pub(crate) fn elements(state: &State, file: ProcFile) -> usize {
    match file {
        ProcFile::TraceLatency => trace_latency_elements(state),
        ProcFile::Distribute => DISTRIBUTE_ELEMENTS,
        ProcFile::Records => records_elements(state),
        ProcFile::Counters => counters_elements(state),
        ProcFile::Enable | ProcFile::SamplingPeriod | ProcFile::TagWait | ProcFile::Cpus => 1,
    }
}

/// Renders element `index` of a file (see [`elements`]); nothing past the end.
pub(crate) fn show(state: &State, file: ProcFile, m: &SeqFile, index: usize) {
    match file {
        ProcFile::Enable if index == 0 => {
            seq_print!(m, "{}\n", state.phase().name());
        }
        ProcFile::SamplingPeriod if index == 0 => {
            seq_print!(m, "{}ms\n", state.settings.period_ns() / NSEC_PER_MSEC);
        }
        ProcFile::TraceLatency => show_trace_latency_element(state, m, index),
        ProcFile::Distribute => show_distribute_element(state, m, index),
        ProcFile::Records => show_records_element(state, m, index),
        ProcFile::Counters => show_counters_element(state, m, index),
        ProcFile::TagWait if index == 0 => show_tag_wait(state, m),
        ProcFile::Cpus if index == 0 => {
            seq_print!(
                m,
                "{}\n",
                CpuList(nr_cpus(state), |c| state.peers.selected(c))
            );
        }
        _ => {}
    }
}

/// Applies a write to one file.
pub(crate) fn write(state: &State, file: ProcFile, buf: &[u8]) -> Result {
    match file {
        ProcFile::Enable => state.write_enable(buf),
        ProcFile::SamplingPeriod => state.write_period(buf),
        ProcFile::TraceLatency => state.write_trace_latency(buf),
        ProcFile::TagWait => state.write_tag_wait(buf),
        ProcFile::Cpus => state.write_cpus(buf),
        ProcFile::Distribute | ProcFile::Records | ProcFile::Counters => Err(EPERM),
    }
}

/// Calls `f` for each record of `store`, oldest first, until it returns false. May sleep
/// (seq_file show holds no spinning lock).
/// `f` also gets the record's slot and the sequence count it was read at.
fn for_each_record_while(
    store: &RecordStore,
    generation: u64,
    mut f: impl FnMut(&Record, Slot) -> bool,
) {
    let n = store.len(generation);
    let mut order = [0usize; MAX_RECORDS];
    for (i, o) in order.iter_mut().enumerate().take(n) {
        *o = i;
    }
    order[..n].sort_unstable_by_key(|&i| store.timestamp(i));
    // Records are a few KB: on the heap, not on the stack of a seq_file show.
    let Ok(mut r) = KBox::new(Record::empty(), GFP_KERNEL) else {
        return;
    };
    for &i in &order[..n] {
        if let Some(seq) = store.read_at(i, &mut r) {
            if !f(&r, Slot { index: i, seq }) {
                return;
            }
        }
    }
}

/// Where a record was read: its slot in its store, and the slot's sequence count then.
#[derive(Clone, Copy)]
struct Slot {
    index: usize,
    seq: u32,
}

/// Calls `f` with the CPU's open softirq window, if it has one.
fn with_pending(cpu: &CpuSampler, generation: u64, f: impl FnOnce(&Record)) {
    let Ok(mut r) = KBox::new(Record::empty(), GFP_KERNEL) else {
        return;
    };
    if cpu.pending.read(generation, ffi::now_ns(), &mut r) {
        f(&r);
    }
}

// The readers' copies (one record, one live profile) are kmalloc'd: no block above order 1.
// A record's overlap resolution names the other record by its index in one byte.
const _: () = assert!(MAX_RECORDS <= Resolved::MAX_INDEX);
const _: () = assert!(
    crate::logic::sizes::fits_order1(core::mem::size_of::<Record>())
        && crate::logic::sizes::fits_order1(core::mem::size_of::<LiveView>())
);

/// The number of possible CPUs (the samplers' count).
fn nr_cpus(state: &State) -> u32 {
    u32::try_from(state.cpus.len()).unwrap_or(u32::MAX)
}

/// The CPUs below a count for which a test holds, as the kernel writes a CPU list
/// (`0-3,8`; `-` for none).
struct CpuList<F: Fn(u32) -> bool>(u32, F);

impl<F: Fn(u32) -> bool> fmt::Display for CpuList<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut r = Ok(());
        let mut any = false;
        parse::ranges(self.0, &self.1, |first, last| {
            let sep = if any { "," } else { "" };
            any = true;
            if r.is_ok() {
                r = if first == last {
                    write!(f, "{sep}{first}")
                } else {
                    write!(f, "{sep}{first}-{last}")
                };
            }
        });
        if !any {
            r = fmt::Write::write_str(f, "-");
        }
        r
    }
}

/// Frame `i` of a stack: the name taken at capture, else looked up now.
struct Frame<'a, const F: usize, const L: usize>(&'a Stack<F, L>, usize);

impl<const F: usize, const L: usize> fmt::Display for Frame<'_, F, L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&FrameOr(self.0, self.1, &[]), f)
    }
}

/// Frame `i` of a stack, whose name, if the stack has none for it, may come from `others`
/// (the record's full stacks): a profile's smaller stacks share their callers with them,
/// and have less room for names.
struct FrameOr<'a, const F: usize, const L: usize>(&'a Stack<F, L>, usize, &'a [&'a Stack]);

impl<const F: usize, const L: usize> fmt::Display for FrameOr<'_, F, L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Self(st, i, others) = *self;
        let addr = st.frames().get(i).copied().unwrap_or(0);
        match st
            .name(i)
            .or_else(|| others.iter().find_map(|o| o.name_of_addr(addr)))
        {
            Some(name) => fmt::Write::write_str(f, core::str::from_utf8(name).unwrap_or("?")),
            None => fmt::Display::fmt(&Symbol(addr), f),
        }
    }
}

/// Calls `f` with `cpu`'s open hardirq-off window and a copy of its live profile (of
/// another window, or empty, if the watcher has no sample of it yet).
fn with_ongoing_hard(state: &State, cpu: &CpuSampler, f: impl FnOnce(Ongoing, &LiveView, u64)) {
    let now = ffi::now_ns();
    let Some(o) = state
        .watch
        .ongoing(&state.peers, cpu.cpu, now, &state.settings.rules())
    else {
        return;
    };
    let Ok(mut v) = KBox::new(LiveView::empty(), GFP_KERNEL) else {
        return;
    };
    let ok = state
        .watch
        .get(cpu.cpu)
        .is_some_and(|w| w.profile.read(&mut v));
    if !ok || v.window != o.window {
        *v = LiveView::empty();
    }
    f(o, &v, now);
}

/// Copies `cpu`'s softirq profile into a box if it is of the open window `start`.
fn soft_live(cpu: &CpuSampler, start: u64) -> Option<KBox<LiveView>> {
    let mut v = KBox::new(LiveView::empty(), GFP_KERNEL).ok()?;
    (start != 0 && cpu.soft_profile.read(&mut v) && v.window == start).then_some(v)
}

/// The profile lines of a record: its window stack (the most seen) first, then the others
/// it kept.
fn show_profile(m: &SeqFile, p: &Profile, window: &Stack, end: &Stack) {
    if p.samples == 0 {
        return;
    }
    let kept = (p.distinct as usize).min(p.counts.len());
    seq_print!(
        m,
        "profile samples={} weight={} stacks={} distinct={} other={}\n",
        p.samples,
        p.weight,
        kept,
        p.distinct,
        p.other
    );
    for k in 0..kept {
        let count = p.counts[k];
        match k.checked_sub(1).and_then(|e| p.extra.get(e)) {
            None => show_profile_stack(m, count, window, &[end]),
            Some(st) => show_profile_stack(m, count, st, &[window, end]),
        }
    }
}

fn show_profile_stack<const F: usize, const L: usize>(
    m: &SeqFile,
    count: u32,
    st: &Stack<F, L>,
    others: &[&Stack],
) {
    seq_print!(
        m,
        "profile_stack count={} frames={}\n",
        count,
        st.frames().len()
    );
    for i in 0..st.frames().len() {
        seq_print!(m, "profile_frame {}\n", FrameOr(st, i, others));
    }
}

/// The profile lines of a window still open.
fn show_live_profile(m: &SeqFile, v: &LiveView) {
    if v.samples == 0 {
        return;
    }
    seq_print!(
        m,
        "profile samples={} weight={} stacks={} distinct={} other={}\n",
        v.samples,
        v.weight,
        v.nr,
        v.nr,
        v.other
    );
    for k in 0..v.nr {
        show_profile_stack(m, v.counts[k], &v.stacks[k], &[]);
    }
}

/// The stack to show where one stack is shown: where the window ended, or for a window
/// still open the one taken inside it.
fn main_stack(r: &Record) -> &Stack {
    if r.header.ongoing {
        r.stack(Which::Window)
    } else {
        r.stack(Which::End)
    }
}

/// `LATENCY: 107ms` as the original printed it (`51+ms` for a window still open).
struct Millis<'a>(&'a Record);

impl fmt::Display for Millis<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let plus = if self.0.header.ongoing { "+" } else { "" };
        write!(f, "{}{}ms", self.0.header.latency_ns / NSEC_PER_MSEC, plus)
    }
}

/// ` CAUSE: bh-off` for softirq records, nothing for hardirq ones.
struct CauseSuffix(Option<Cause>);

impl fmt::Display for CauseSuffix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(c) => write!(f, " CAUSE: {}", c.name()),
            None => Ok(()),
        }
    }
}

/// Seconds with microseconds, as in the kernel log.
struct Seconds(u64);

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
fn trace_latency_elements(state: &State) -> usize {
    2 * state.cpus.len() + 2
}

/// Shows element `index` of `trace_latency` (see [`trace_latency_elements`]).
fn show_trace_latency_element(state: &State, m: &SeqFile, index: usize) {
    let n = state.cpus.len();
    match index {
        0 => {
            seq_print!(
                m,
                "trace_irqoff_latency: {}ms\n\n",
                state.settings.threshold_ns() / NSEC_PER_MSEC
            );
            seq_print!(m, " hardirq:\n");
        }
        i if i <= n => show_latency_hard(state, m, &state.cpus[i - 1]),
        i if i == n + 1 => seq_print!(m, "\n softirq:\n"),
        i if i <= 2 * n + 1 => show_latency_soft(state, m, &state.cpus[i - n - 2]),
        _ => {}
    }
}

/// One record of `trace_latency`, as the original printed it.
fn show_latency_record(m: &SeqFile, r: &Record) {
    let h = &r.header;
    seq_print!(
        m,
        "     COMMAND: {} PID: {} LATENCY: {} LATENCY_NS: {} TIME: {}{}\n",
        Show(Printable(r.comm())),
        h.pid,
        Millis(r),
        h.latency_ns,
        Seconds(h.timestamp_ns),
        CauseSuffix(h.cause)
    );
    let stack = main_stack(r);
    for i in 0..stack.frames().len() {
        seq_print!(m, "     {}\n", Frame(stack, i));
    }
    seq_print!(m, "\n");
}

/// One CPU's hardirq-off records, oldest first, then its window still open. Stops early
/// once the seq_file buffer has overflowed (seq_file shows this element again with a
/// larger buffer), so a pass on a too-small buffer costs at most that buffer.
fn show_latency_hard(state: &State, m: &SeqFile, cpu: &CpuSampler) {
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
            seq_print!(m, "     {}\n", Frame(&v.latest, i));
        }
        seq_print!(m, "\n");
    });
}

/// One CPU's softirq-off records, oldest first, then its window still open.
fn show_latency_soft(state: &State, m: &SeqFile, cpu: &CpuSampler) {
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
const DISTRIBUTE_ELEMENTS: usize = 2 + Cause::ALL.len();

fn show_distribute_element(state: &State, m: &SeqFile, index: usize) {
    let mut sum = [0u64; NR_BUCKETS];
    let header: &str = match index {
        0 | 1 => {
            let (kind, header) = if index == 0 {
                (Kind::Hardirq, "hardirq-off:")
            } else {
                (Kind::Softirq, "softirq-off:")
            };
            for cpu in state.cpus.iter() {
                cpu.counts(kind).add_to(&mut sum);
            }
            header
        }
        i => {
            let Some(&cause) = Cause::ALL.get(i - 2) else {
                return;
            };
            for cpu in state.cpus.iter() {
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

/// `fmt::Write` over a seq_file.
struct SeqWriter<'a>(&'a SeqFile);

impl corefmt::Write for SeqWriter<'_> {
    fn write_str(&mut self, s: &str) -> corefmt::Result {
        seq_print!(self.0, "{}", s);
        Ok(())
    }
}

/// Elements of the `records` file, each shown by one seq_file `show` call: the header,
/// then per CPU its counters, then per CPU its open hardirq window, then per CPU its
/// records, then the tag-wait lines and `end`. A read never holds more than one element
/// in the kernel; a CPU's records are one element, read in one pass and so consistent
/// with each other.
pub(crate) fn records_elements(state: &State) -> usize {
    3 * state.cpus.len() + 2
}

/// Shows element `index` of `records` (see [`records_elements`]); nothing past the end.
pub(crate) fn show_records_element(state: &State, m: &SeqFile, index: usize) {
    let n = state.cpus.len();
    match index {
        0 => show_header(state, m, "records", RECORDS_VERSION),
        i if i <= n => show_cpu_counters(state, m, &state.cpus[i - 1]),
        i if i <= 2 * n => show_cpu_ongoing(state, m, &state.cpus[i - n - 1]),
        i if i <= 3 * n => show_cpu_records(state, m, &state.cpus[i - 2 * n - 1]),
        i if i == 3 * n + 1 => {
            show_tag_wait_records(state, m);
            seq_print!(m, "end\n");
        }
        _ => {}
    }
}

/// The first lines of `records` and `counters`: the file's name and format version, the
/// configuration, the memory line and the watcher.
fn show_header(state: &State, m: &SeqFile, name: &str, version: u32) {
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
        "watcher available={} active={} reason={} max_window_samples={} stuck_ns={} nmi_sent={} nmi_answered={} nmi_stale={} nmi_missed={} stuck_unconfirmed={}\n",
        u8::from(w.unavailable().is_none()),
        u8::from(w.is_active()),
        w.unavailable().map_or("-", |r| r.name()),
        w.max_samples,
        w.stuck_ns,
        w.nmi_sent.load(Relaxed),
        w.nmi_answered.load(Relaxed),
        w.nmi_stale.load(Relaxed),
        w.nmi_missed.load(Relaxed),
        w.stuck_unconfirmed.load(Relaxed)
    );
    let n = state.namer.stats();
    seq_print!(
        m,
        "namer passes={} named={} max_wait_ns={} wait_sum_ns={}\n",
        n.passes,
        n.named,
        n.max_wait_ns,
        n.wait_sum_ns
    );
}

/// Elements of `counters`: the header (as in `records`), then per CPU its counters (as in
/// `records`) and its `worst` line, then the tag-wait lines and `end`. O(CPUs) output and
/// no stack: what a metrics scrape needs.
fn counters_elements(state: &State) -> usize {
    state.cpus.len() + 2
}

fn show_counters_element(state: &State, m: &SeqFile, index: usize) {
    let n = state.cpus.len();
    match index {
        0 => show_header(state, m, "counters", COUNTERS_VERSION),
        i if i <= n => {
            let cpu = &state.cpus[i - 1];
            show_cpu_counters(state, m, cpu);
            show_cpu_worst(state, m, cpu);
        }
        i if i == n + 1 => {
            show_tag_wait_records(state, m);
            seq_print!(m, "end\n");
        }
        _ => {}
    }
}

/// The longest window of a CPU that `records` shows, per kind and cause (0: none): its
/// records, its hardirq-off window still open, its softirq-off window still open. Reads
/// the records' headers only.
fn show_cpu_worst(state: &State, m: &SeqFile, cpu: &CpuSampler) {
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

fn show_cpu_counters(state: &State, m: &SeqFile, cpu: &CpuSampler) {
    let generation = state.settings.generation();
    let (hd, hr) = cpu.hard.drops(generation);
    let (sd, sr) = cpu.soft.drops(generation);
    let [bh, ksd] = &cpu.cause_counts;
    seq_print!(
        m,
        "cpu {} online={} hard_events={} soft_events={} soft_bh_off_events={} soft_ksoftirqd_wait_events={} hard_dropped={} hard_replaced={} soft_dropped={} soft_replaced={} idle_gaps={} late_timer_gaps={} steal_gaps={} hard_sum_ns={} soft_sum_ns={} soft_bh_off_sum_ns={} soft_ksoftirqd_wait_sum_ns={}\n",
        cpu.cpu,
        u8::from(ffi::cpu_online(cpu.cpu)),
        cpu.hard_counts.total(),
        cpu.soft_counts.total(),
        bh.total(),
        ksd.total(),
        hd,
        hr,
        sd,
        sr,
        cpu.idle_gaps.load(Relaxed),
        cpu.late_timer_gaps.load(Relaxed),
        cpu.steal_gaps.load(Relaxed),
        cpu.hard_counts.sum(),
        cpu.soft_counts.sum(),
        bh.sum(),
        ksd.sum()
    );
    let hists = [
        ("hard", &cpu.hard_counts),
        ("soft", &cpu.soft_counts),
        ("soft-bh-off", bh),
        ("soft-ksoftirqd-wait", ksd),
    ];
    for (name, counts) in hists {
        seq_print!(m, "hist {} {}", cpu.cpu, name);
        for c in counts.snapshot() {
            seq_print!(m, " {}", c);
        }
        seq_print!(m, "\n");
    }
    let watched = state.watch.get(cpu.cpu);
    let costs = [
        ("hard", Some(&cpu.hard_cost)),
        ("soft", Some(&cpu.soft_cost)),
        ("capture", Some(&cpu.capture_cost)),
        ("nmi", watched.map(|w| &w.nmi_cost)),
        ("nmi_rtt", watched.map(|w| &w.nmi_rtt)),
    ];
    for (name, cost) in costs {
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

fn show_cpu_ongoing(state: &State, m: &SeqFile, cpu: &CpuSampler) {
    let rules = state.settings.rules();
    with_ongoing_hard(state, cpu, |o, v, _| {
        let watcher = state.watch.get(cpu.cpu).and_then(|w| w.watcher(o.window));
        seq_print!(
            m,
            "ongoing cpu={} kind=hard latency_ns={} start_ns={} pid={} comm={} samples={} watcher_cpu={}\n",
            cpu.cpu,
            o.length_ns,
            o.window.saturating_add(rules.period_ns),
            v.pid,
            Show(Escaped(comm_str(&v.comm))),
            v.samples,
            watcher.map_or(-1, i64::from)
        );
    });
}

/// One CPU's records, oldest first per kind. Stops early once the seq_file buffer has
/// overflowed: seq_file discards this output and calls again with a buffer twice as large,
/// so the work spent on a too-small buffer is at most that of the final pass.
fn show_cpu_records(state: &State, m: &SeqFile, cpu: &CpuSampler) {
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
fn show_record(
    state: &State,
    m: &SeqFile,
    cpu: u32,
    kind: Kind,
    r: &Record,
    at: Option<(&RecordStore, Slot)>,
) {
    let h = &r.header;
    let (end, window) = (r.stack(Which::End), r.stack(Which::Window));
    let (start, end_ns) = r.window();
    let found = h.overlap_cpu.map(|other| {
        (
            other,
            overlapping_hard(state, other, Window { start, end: end_ns }, at),
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
fn show_ongoing_hard(m: &SeqFile, cpu: u32, o: Ongoing, v: &LiveView, now: u64) {
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
        ongoing: true,
    };
    seq_print!(m, "{}\n", Show(line));
    for i in 0..v.latest.frames().len() {
        seq_print!(m, "window_frame {}\n", Frame(&v.latest, i));
    }
    show_live_profile(m, v);
}

/// What `records` shows of an overlapping hardirq-off record.
struct Overlap {
    latency_ns: u64,
    pid: i32,
    comm: [u8; COMM_LEN],
}

/// The hardirq-off record of `cpu` that covers most of `ours`, if one covers most of it.
/// Resolved once per record: the join compares the headers of `cpu`'s records (a few
/// words each, no stacks copied), and the one it found is kept beside our record (`at`),
/// so that later reads look at that one record only, while both records stay in their
/// slots (`overlap::Resolved`). Nothing found is not kept: that window may still be open,
/// its record still to come.
fn overlapping_hard(
    state: &State,
    cpu: u32,
    ours: Window,
    at: Option<(&RecordStore, Slot)>,
) -> Option<Overlap> {
    let sampler = state.cpu(cpu)?;
    let generation = state.settings.generation();
    let theirs = &sampler.hard;
    let n = theirs.len(generation);
    let mut h = Header::new(0, 0, 0, [0; COMM_LEN]);
    if let Some((store, slot)) = at {
        let word = store.resolved(slot.index);
        let known = Resolved::still(word, slot.seq, |i| if i < n { theirs.seq(i) } else { None });
        if let Some(i) = known {
            if let Some(seq) = theirs.read_header(i, &mut h) {
                if Resolved::still(word, slot.seq, |_| Some(seq)).is_some() {
                    return Some(Overlap {
                        latency_ns: h.latency_ns,
                        pid: h.pid,
                        comm: h.comm,
                    });
                }
            }
        }
    }
    let mut best: Option<(Overlap, u64, usize, u32)> = None;
    for i in 0..n {
        let Some(seq) = theirs.read_header(i, &mut h) else {
            continue;
        };
        let w = Window {
            start: h.timestamp_ns.saturating_sub(h.latency_ns),
            end: h.timestamp_ns,
        };
        if gap::overlaps_most(ours, w) {
            let covered = w.overlap(ours.start, ours.end);
            if best.as_ref().is_none_or(|b| covered > b.1) {
                best = Some((
                    Overlap {
                        latency_ns: h.latency_ns,
                        pid: h.pid,
                        comm: h.comm,
                    },
                    covered,
                    i,
                    seq,
                ));
            }
        }
    }
    let (found, _, i, seq) = best?;
    if let (Some((store, slot)), Ok(index)) = (at, u8::try_from(i)) {
        store.set_resolved(
            slot.index,
            Resolved {
                own: slot.seq,
                index,
                theirs: seq,
            }
            .pack(),
        );
    }
    Some(found)
}

fn show_tag_wait(state: &State, m: &SeqFile) {
    let tw = &state.tag_wait;
    seq_print!(
        m,
        "tag_wait: {} (source: {})\n",
        tw.phase().name(),
        tw.source.name()
    );
    seq_print!(
        m,
        "{:>11} {:>6}  {:<20} {:>10}\n",
        "DEV",
        "HCTX",
        "POOL",
        "WAITS"
    );
    tw.for_each(|row| {
        // major,minor as the upstream tracepoint prints a dev_t.
        let (major, minor) = row.key.major_minor();
        seq_print!(
            m,
            "{:>6},{:<4} {:>6}  {:<20} {:>10}\n",
            major,
            minor,
            row.key.hctx,
            row.key.pool.name(),
            row.waits
        );
    });
    let (overflow, unattributed) = (tw.overflow.load(Relaxed), tw.unattributed.load(Relaxed));
    let (full, aged) = (tw.callers_full.load(Relaxed), tw.aged_out.load(Relaxed));
    if overflow != 0 || unattributed != 0 {
        seq_print!(
            m,
            "not in the table: {} (table full), {} (hardware queue unknown; of those {} with too many waiters at once)\n",
            overflow,
            unattributed,
            full
        );
    }
    if aged != 0 {
        seq_print!(
            m,
            "aged out: {} waits of rows idle for a minute, whose slots went to new rows\n",
            aged
        );
    }
    seq_print!(m, "\n");
    let _ = histogram::render_unit(
        &mut SeqWriter(m),
        "tag wait duration (sbitmap_prepare_to_wait .. sbitmap_finish_wait):",
        "usecs",
        &tw.durations.snapshot(),
    );
}

fn show_tag_wait_records(state: &State, m: &SeqFile) {
    let tw = &state.tag_wait;
    seq_print!(
        m,
        "tagwait enabled={} state={} source={} overflow={} unattributed={} missed={} kicks_held={} kicks_full={} aged_out={}\n",
        u8::from(tw.phase().is_on()),
        tw.phase().name(),
        tw.source.name(),
        tw.overflow.load(Relaxed),
        tw.unattributed.load(Relaxed),
        tw.missed.load(Relaxed),
        tw.callers_held(),
        tw.callers_full.load(Relaxed),
        tw.aged_out.load(Relaxed)
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
    seq_print!(m, "tagwait_sum_us {}\n", tw.durations.sum());
    seq_print!(m, "tagwait_hist_us");
    for c in tw.durations.snapshot() {
        seq_print!(m, " {}", c);
    }
    seq_print!(m, "\n");
}
