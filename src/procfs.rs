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

use crate::cause::Cause;
use crate::escape::{Escaped, Printable};
use crate::ffi::{self, file_id, Symbol};
use crate::gap::{self, Window, NSEC_PER_MSEC};
use crate::histogram::{self, NR_BUCKETS};
use crate::parse;
use crate::records::{comm_str, Kind, LiveView, Profile, Record, RecordStore, Stack, Which, MAX_RECORDS};
use crate::sampler::CpuSampler;
use crate::state::State;
use crate::watch::Ongoing;

/// Version of the `records` format; bumped on any incompatible change.
const RECORDS_VERSION: u32 = 2;

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
            _ => return None,
        })
    }
}

/// Renders one file.
pub(crate) fn show(state: &State, file: ProcFile, m: &SeqFile) -> Result {
    match file {
        ProcFile::Enable => {
            seq_print!(m, "{}\n", state.phase().name());
        }
        ProcFile::SamplingPeriod => {
            seq_print!(m, "{}ms\n", state.settings.period_ns() / NSEC_PER_MSEC);
        }
        ProcFile::TraceLatency => show_trace_latency(state, m),
        ProcFile::Distribute => show_distribute(state, m),
        ProcFile::Records => (0..records_elements(state)).for_each(|i| show_records_element(state, m, i)),
        ProcFile::TagWait => show_tag_wait(state, m),
        ProcFile::Cpus => {
            seq_print!(m, "{}\n", CpuList(nr_cpus(state), |c| state.peers.selected(c)));
        }
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
        ProcFile::Cpus => state.write_cpus(buf),
        ProcFile::Distribute | ProcFile::Records => Err(EPERM),
    }
}

/// Calls `f` for each record of `store`, oldest first. May sleep (seq_file show holds no
/// spinning lock).
fn for_each_record(store: &RecordStore, generation: u64, mut f: impl FnMut(&Record)) {
    for_each_record_while(store, generation, |r| {
        f(r);
        true
    });
}

/// [`for_each_record`] until `f` returns false.
fn for_each_record_while(store: &RecordStore, generation: u64, mut f: impl FnMut(&Record) -> bool) {
    let n = store.len(generation);
    let mut order = [0usize; MAX_RECORDS];
    for (i, o) in order.iter_mut().enumerate().take(n) {
        *o = i;
    }
    order[..n].sort_unstable_by_key(|&i| store.timestamp(i));
    // Records are a few KB: on the heap, not on the stack of a seq_file show.
    let Ok(mut r) = KBox::new(Record::empty(), GFP_KERNEL) else { return };
    for &i in &order[..n] {
        if store.read(i, &mut r) && !f(&r) {
            return;
        }
    }
}

/// Calls `f` with the CPU's open softirq window, if it has one.
fn with_pending(cpu: &CpuSampler, generation: u64, f: impl FnOnce(&Record)) {
    let Ok(mut r) = KBox::new(Record::empty(), GFP_KERNEL) else { return };
    if cpu.pending.read(generation, &mut r) {
        f(&r);
    }
}

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
                r = if first == last { write!(f, "{sep}{first}") } else { write!(f, "{sep}{first}-{last}") };
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
        match st.name(i).or_else(|| others.iter().find_map(|o| o.name_of_addr(addr))) {
            Some(name) => fmt::Write::write_str(f, core::str::from_utf8(name).unwrap_or("?")),
            None => fmt::Display::fmt(&Symbol(addr), f),
        }
    }
}

/// Calls `f` with `cpu`'s open hardirq-off window and a copy of its live profile (of
/// another window, or empty, if the watcher has no sample of it yet).
fn with_ongoing_hard(state: &State, cpu: &CpuSampler, f: impl FnOnce(Ongoing, &LiveView, u64)) {
    let now = ffi::now_ns();
    let Some(o) = state.watch.ongoing(&state.peers, cpu.cpu, now, &state.settings.rules()) else { return };
    let Ok(mut v) = KBox::new(LiveView::empty(), GFP_KERNEL) else { return };
    let ok = state.watch.get(cpu.cpu).is_some_and(|w| w.profile.read(&mut v));
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
    seq_print!(m, "profile samples={} weight={} stacks={} distinct={} other={}\n", p.samples, p.weight, kept, p.distinct, p.other);
    for k in 0..kept {
        let count = p.counts[k];
        match k.checked_sub(1).and_then(|e| p.extra.get(e)) {
            None => show_profile_stack(m, count, window, &[end]),
            Some(st) => show_profile_stack(m, count, st, &[window, end]),
        }
    }
}

fn show_profile_stack<const F: usize, const L: usize>(m: &SeqFile, count: u32, st: &Stack<F, L>, others: &[&Stack]) {
    seq_print!(m, "profile_stack count={} frames={}\n", count, st.frames().len());
    for i in 0..st.frames().len() {
        seq_print!(m, "profile_frame {}\n", FrameOr(st, i, others));
    }
}

/// The profile lines of a window still open.
fn show_live_profile(m: &SeqFile, v: &LiveView) {
    if v.samples == 0 {
        return;
    }
    seq_print!(m, "profile samples={} weight={} stacks={} distinct={} other={}\n", v.samples, v.weight, v.nr, v.nr, v.other);
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

/// Shows a `core::fmt::Display` (from the `core`-only files) through `seq_print!`.
struct Show<T>(T);

impl<T: corefmt::Display> fmt::Display for Show<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        corefmt::Display::fmt(&self.0, f)
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
        write!(f, "{}.{:06}", self.0 / 1_000_000_000, (self.0 % 1_000_000_000) / 1000)
    }
}

fn show_trace_latency(state: &State, m: &SeqFile) {
    let generation = state.settings.generation();
    seq_print!(m, "trace_irqoff_latency: {}ms\n\n", state.settings.threshold_ns() / NSEC_PER_MSEC);
    let print = |r: &Record| {
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
    };
    seq_print!(m, " hardirq:\n");
    for cpu in state.cpus.iter() {
        let kept = cpu.hard.len(generation) != 0;
        if kept {
            seq_print!(m, " cpu: {}\n", cpu.cpu);
            for_each_record(&cpu.hard, generation, print);
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
    seq_print!(m, "\n softirq:\n");
    for cpu in state.cpus.iter() {
        let mut header = false;
        let mut heading = || {
            if !header {
                seq_print!(m, " cpu: {}\n", cpu.cpu);
                header = true;
            }
        };
        if cpu.soft.len(generation) != 0 {
            heading();
            for_each_record(&cpu.soft, generation, print);
        }
        with_pending(cpu, generation, |r| {
            heading();
            print(r);
        });
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
    for cause in Cause::ALL {
        let mut sum = [0u64; NR_BUCKETS];
        for cpu in state.cpus.iter() {
            if let Some(c) = cpu.cause_counts.get(cause.index()) {
                c.add_to(&mut sum);
            }
        }
        let header: &str = match cause {
            Cause::BhOff => "softirq-off, bh-off:",
            Cause::KsoftirqdWait => "softirq-off, ksoftirqd-wait:",
        };
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
        0 => show_records_header(state, m),
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

fn show_records_header(state: &State, m: &SeqFile) {
    let rules = state.settings.rules();
    seq_print!(m, "trace_irqoff records v{}\n", RECORDS_VERSION);
    seq_print!(
        m,
        "config enabled={} state={} period_ns={} threshold_ns={} hz={} records_per_cpu={} soft_period_ns={} soft_event_ns={} buckets={} cpus={} nohz_full={}\n",
        u8::from(state.phase().is_on()),
        state.phase().name(),
        rules.period_ns,
        rules.threshold_ns,
        state.settings.hz(),
        state.records_per_cpu,
        rules.soft_period_ns,
        rules.soft_event_ns,
        NR_BUCKETS,
        CpuList(nr_cpus(state), |c| state.peers.selected(c)),
        CpuList(nr_cpus(state), ffi::cpu_nohz_full)
    );
    let (per_cpu, total) = state.memory();
    seq_print!(m, "memory per_cpu_bytes={} total_bytes={}\n", per_cpu, total);
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
    seq_print!(m, "namer passes={} named={} max_wait_ns={} wait_sum_ns={}\n", n.passes, n.named, n.max_wait_ns, n.wait_sum_ns);
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
    let hists = [("hard", &cpu.hard_counts), ("soft", &cpu.soft_counts), ("soft-bh-off", bh), ("soft-ksoftirqd-wait", ksd)];
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
        for_each_record_while(store, generation, |r| {
            show_record(state, m, cpu.cpu, kind, r);
            show_profile(m, &r.profile, r.stack(Which::Window), r.stack(Which::End));
            !ffi::seq_overflowed(m)
        });
        if ffi::seq_overflowed(m) {
            return;
        }
        if kind == Kind::Hardirq {
            with_ongoing_hard(state, cpu, |o, v, now| show_ongoing_hard(m, cpu.cpu, o, v, now));
        }
    }
    with_pending(cpu, generation, |r| {
        show_record(state, m, cpu.cpu, Kind::Softirq, r);
        if let Some(v) = soft_live(cpu, cpu.pending.window_start()) {
            show_live_profile(m, &v);
        }
    });
}

/// One record of the `records` file, with its stacks.
fn show_record(state: &State, m: &SeqFile, cpu: u32, kind: Kind, r: &Record) {
    let h = &r.header;
    let (end, window) = (r.stack(Which::End), r.stack(Which::Window));
    seq_print!(
        m,
        "record cpu={} kind={} lower_bound={} latency_ns={} timestamp_ns={} pid={} comm={} cause={} runnable_ns={} samples={} bh_off_samples={} idle_samples={} jiffies={} end_shows_culprit={}",
        cpu,
        kind.name(),
        u8::from(h.ongoing),
        h.latency_ns,
        h.timestamp_ns,
        h.pid,
        Show(Escaped(r.comm())),
        h.cause.map_or("-", Cause::name),
        h.runnable_ns,
        h.samples.total,
        h.samples.bh_off,
        h.samples.idle,
        h.jiffies,
        u8::from(h.end_shows_culprit)
    );
    let (start, end_ns) = r.window();
    match h.overlap_cpu {
        Some(other) => {
            let found = overlapping_hard(state, other, Window { start, end: end_ns });
            match found {
                Some(o) => seq_print!(
                    m,
                    " overlap_cpu={} overlap_kind=hard overlap_latency_ns={} overlap_pid={} overlap_comm={}",
                    other,
                    o.header.latency_ns,
                    o.header.pid,
                    Show(Escaped(o.comm()))
                ),
                None => seq_print!(m, " overlap_cpu={} overlap_kind=hard overlap_latency_ns=0 overlap_pid=0 overlap_comm=", other),
            }
        }
        None => seq_print!(m, " overlap_cpu=-1 overlap_kind=- overlap_latency_ns=0 overlap_pid=0 overlap_comm="),
    }
    seq_print!(
        m,
        " frames={} window_frames={} window_pid={} window_comm={}\n",
        end.frames().len(),
        window.frames().len(),
        r.window_pid,
        Show(Escaped(comm_str(&r.window_comm)))
    );
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
    let comm = Escaped(comm_str(&v.comm));
    seq_print!(
        m,
        "record cpu={} kind=hard lower_bound=1 latency_ns={} timestamp_ns={} pid={} comm={} cause=- runnable_ns=0 samples=0 bh_off_samples=0 idle_samples=0 jiffies=0 end_shows_culprit=0 overlap_cpu=-1 overlap_kind=- overlap_latency_ns=0 overlap_pid=0 overlap_comm= frames=0 window_frames={} window_pid={} window_comm={} ongoing=1\n",
        cpu,
        o.length_ns,
        now,
        v.pid,
        Show(Escaped(comm_str(&v.comm))),
        v.latest.frames().len(),
        v.pid,
        Show(comm)
    );
    for i in 0..v.latest.frames().len() {
        seq_print!(m, "window_frame {}\n", Frame(&v.latest, i));
    }
    show_live_profile(m, v);
}

/// The hardirq-off record of `cpu` that covers most of `ours`, if one covers most of it.
fn overlapping_hard(state: &State, cpu: u32, ours: Window) -> Option<KBox<Record>> {
    let sampler = state.cpu(cpu)?;
    let generation = state.settings.generation();
    let mut best: Option<(KBox<Record>, u64)> = None;
    let mut r = KBox::new(Record::empty(), GFP_KERNEL).ok()?;
    for i in 0..sampler.hard.len(generation) {
        if !sampler.hard.read(i, &mut r) {
            continue;
        }
        let (start, end) = r.window();
        let theirs = Window { start, end };
        if gap::overlaps_most(ours, theirs) {
            let covered = theirs.overlap(ours.start, ours.end);
            if best.as_ref().is_none_or(|(_, b)| covered > *b) {
                let next = KBox::new(Record::empty(), GFP_KERNEL).ok()?;
                best = Some((core::mem::replace(&mut r, next), covered));
            }
        }
    }
    best.map(|(r, _)| r)
}

fn show_tag_wait(state: &State, m: &SeqFile) {
    let tw = &state.tag_wait;
    seq_print!(
        m,
        "tag_wait: {} (source: {})\n",
        tw.phase().name(),
        tw.source.name()
    );
    seq_print!(m, "{:>11} {:>6}  {:<20} {:>10}\n", "DEV", "HCTX", "POOL", "WAITS");
    tw.for_each(|row| {
        // major,minor as the upstream tracepoint prints a dev_t.
        let (major, minor) = row.key.major_minor();
        seq_print!(m, "{:>6},{:<4} {:>6}  {:<20} {:>10}\n", major, minor, row.key.hctx, row.key.pool.name(), row.waits);
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
        seq_print!(m, "aged out: {} waits of rows idle for a minute, whose slots went to new rows\n", aged);
    }
    seq_print!(m, "\n");
    let _ = histogram::render_unit(&mut SeqWriter(m), "tag wait duration (sbitmap_prepare_to_wait .. sbitmap_finish_wait):", "usecs", &tw.durations.snapshot());
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
