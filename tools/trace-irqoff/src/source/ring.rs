// SPDX-License-Identifier: GPL-2.0
//! The module's event stream: every window as it ends, from the module's tracepoints
//! (`trace_irqoff:hardirq_off` and `softirq_off`) in one tracefs instance, and every
//! stall of the whole machine (`trace_irqoff:stall`, where the module has it: a span in
//! which no sampled CPU ran, which is no window and is kept apart from them, [`Stall`]),
//! `instances/trace_irqoff`, so that `watch`, `top --live` and `--until` see each window
//! whatever the module's record store keeps (its 16 worst per CPU and kind), with the
//! culprit's frames, and `record --last` finds the windows of the last minutes.
//!
//! The instance is made once (by `enable`, or the first reader) and stays: a per-CPU ring
//! of [`BUFFER_KB`] KB that only these events write to, holding the newest windows.
//! Readers never consume it: each reads its `trace` file and takes the windows numbered
//! after the ones it saw (`seq`, per CPU), so any number of them read at once, and none
//! waits for another CPU (enabling the events patches kernel text, which waits for every
//! CPU: that happens once, not at each command).

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::PathBuf;

use crate::model::clock::Clock;
use crate::model::snapshot::{Cause, Cpu, Kind, Record, Stall, NR_BUCKETS};

/// Test only: the tracefs directory to use instead of the mounted one.
pub const TRACEFS_ENV: &str = "TRACE_IRQOFF_TRACEFS";

/// Each CPU's ring in the instance: about 80 windows (an event is about 190 bytes).
const BUFFER_KB: u32 = 16;

/// The instance's name.
pub const INSTANCE: &str = "trace_irqoff";

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

/// The windows of `events` at `threshold_ns` or more, as records with wall-clock times
/// from `clock`.
pub fn records(events: &[Event], threshold_ns: u64, clock: &Clock) -> Vec<Record> {
    events
        .iter()
        .filter(|e| e.latency_ns >= threshold_ns)
        .map(|e| e.record(clock))
        .collect()
}

/// What makes a window the same window in the store and in the ring: its CPU, kind and
/// end (CLOCK_MONOTONIC, to the ns: both come from the one sampler that saw it end). A
/// module that gives no end (0) has its length added, the best there is then.
pub fn same_window(r: &Record) -> (u32, Kind, u64, u64) {
    let length = if r.timestamp_ns == 0 { r.latency_ns } else { 0 };
    (r.cpu, r.kind, r.timestamp_ns, length)
}

/// Of `streamed`, the windows that `store` (the module's records) does not hold
/// ([`same_window`]), each once: the store's record of a window wins (it has the
/// in-window samples), and a window the ring holds twice is taken once.
pub fn missing<'a>(
    store: &[Record],
    streamed: impl IntoIterator<Item = &'a Record>,
) -> Vec<Record> {
    let mut kept: std::collections::HashSet<_> = store.iter().map(same_window).collect();
    streamed
        .into_iter()
        .filter(|r| kept.insert(same_window(r)))
        .cloned()
        .collect()
}

/// Per-CPU counts and histograms of `events` (what a hindsight recording counts).
pub fn counts(events: &[Event]) -> Vec<Cpu> {
    let mut per: BTreeMap<u32, Cpu> = BTreeMap::new();
    for e in events {
        let c = per.entry(e.cpu).or_insert_with(|| Cpu {
            hard_hist: vec![0; NR_BUCKETS],
            soft_hist: vec![0; NR_BUCKETS],
            soft_bh_off_hist: vec![0; NR_BUCKETS],
            soft_ksoftirqd_wait_hist: vec![0; NR_BUCKETS],
            ..Cpu::new(e.cpu)
        });
        let k = tio_logic::hist::bucket(e.latency_ns);
        match (e.kind, e.cause) {
            (Kind::Hard, _) => {
                c.hard_events += 1;
                c.hard_hist[k] += 1;
            }
            (Kind::Soft, cause) => {
                c.soft_events += 1;
                c.soft_hist[k] += 1;
                match cause {
                    Some(Cause::BhOff) => {
                        c.soft_bh_off_events += 1;
                        c.soft_bh_off_hist[k] += 1;
                    }
                    Some(Cause::KsoftirqdWait) => {
                        c.soft_ksoftirqd_wait_events += 1;
                        c.soft_ksoftirqd_wait_hist[k] += 1;
                    }
                    None => {}
                }
            }
        }
    }
    per.into_values().collect()
}

/// Per CPU and kind, the windows a stream carried that ended after `from_ns` (every
/// window the module counted, above and below the threshold): what `top --live` shows as
/// last, min and max since it started.
#[derive(Debug, Clone, Default)]
pub struct Tally {
    from_ns: u64,
    per: BTreeMap<(u32, Kind), Agg>,
}

/// The windows of one CPU and kind in a [`Tally`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Agg {
    pub count: u64,
    pub min_ns: u64,
    pub max_ns: u64,
    /// The newest window's length, and when it ended (CLOCK_MONOTONIC).
    pub last_ns: u64,
    pub last_end_ns: u64,
}

impl Tally {
    pub fn new(from_ns: u64) -> Self {
        Self {
            from_ns,
            per: BTreeMap::new(),
        }
    }

    pub fn add(&mut self, events: &[Event]) {
        for e in events.iter().filter(|e| e.end_ns > self.from_ns) {
            let a = self.per.entry((e.cpu, e.kind)).or_insert(Agg {
                min_ns: u64::MAX,
                ..Agg::default()
            });
            a.count += 1;
            a.min_ns = a.min_ns.min(e.latency_ns);
            a.max_ns = a.max_ns.max(e.latency_ns);
            if e.end_ns >= a.last_end_ns {
                (a.last_ns, a.last_end_ns) = (e.latency_ns, e.end_ns);
            }
        }
    }

    pub fn get(&self, cpu: u32, kind: Kind) -> Option<&Agg> {
        self.per.get(&(cpu, kind))
    }
}

/// Adds to `store` (the module's records) the windows of `streamed` (the ring's, as
/// `Module::ring_records` made them) that it does not hold; returns how many.
pub fn add_missing(store: &mut Vec<Record>, streamed: &[Record]) -> usize {
    let extra = missing(store, streamed);
    let n = extra.len();
    store.extend(extra);
    n
}

/// One line of `trace_pipe`, if it is one of the two events (the module's format since
/// it numbers them; older modules give `seq` 0 and no frames).
pub fn parse_line(line: &str) -> Option<Event> {
    let (kind, rest) = if let Some((_, r)) = line.split_once(": hardirq_off: ") {
        (Kind::Hard, r)
    } else {
        (Kind::Soft, line.split_once(": softirq_off: ")?.1)
    };
    // comm may hold spaces: it runs to " cause=", and the frames to the end.
    let (head, tail) = rest.split_once(" comm=")?;
    let (comm, tail) = tail.split_once(" cause=")?;
    let (fields, frames) = match tail.split_once(" frames=") {
        Some((f, frames)) => (f, Some(frames)),
        None => (tail, None),
    };
    let mut cause_word = "-";
    let mut kv: BTreeMap<&str, &str> = BTreeMap::new();
    for (i, w) in fields.split(' ').enumerate() {
        match (i, w.split_once('=')) {
            (0, _) => cause_word = w,
            (_, Some((k, v))) => {
                kv.insert(k, v);
            }
            _ => {}
        }
    }
    for w in head.split(' ') {
        if let Some((k, v)) = w.split_once('=') {
            kv.insert(k, v);
        }
    }
    let num = |k: &str| kv.get(k).and_then(|v| v.parse::<u64>().ok());
    let cause = match cause_word {
        "bh-off" => Some(Cause::BhOff),
        "ksoftirqd-wait" => Some(Cause::KsoftirqdWait),
        _ => None,
    };
    Some(Event {
        cpu: u32::try_from(num("cpu")?).ok()?,
        kind,
        cause: if kind == Kind::Soft { cause } else { None },
        latency_ns: num("latency_ns")?,
        end_ns: num("end_ns").unwrap_or(0),
        seq: num("seq").unwrap_or(0),
        pid: kv.get("pid").and_then(|v| v.parse().ok())?,
        comm: comm.to_string(),
        cgroup_id: num("cgroup").filter(|&id| id != 0),
        end_shows_culprit: num("end_shows_culprit").is_none_or(|v| v != 0),
        together_ns: num("together_ns").unwrap_or(0),
        frames: frames
            .map(|f| {
                f.split(';')
                    .filter(|f| !f.is_empty() && *f != "0x0" && *f != "(null)")
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default(),
    })
}

/// One line of the ring's `trace` file if it is a stall (`trace_irqoff:stall`: "stall:
/// cpu=1 start_ns=... end_ns=... length_ns=..."): a stall of the whole machine, never a
/// window, so [`parse_line`] does not take it.
pub fn parse_stall(line: &str) -> Option<Stall> {
    if line.contains(": hardirq_off: ") || line.contains(": softirq_off: ") {
        return None;
    }
    let (_, rest) = line.split_once(": stall: ")?;
    let kv: BTreeMap<&str, &str> = rest.split(' ').filter_map(|w| w.split_once('=')).collect();
    let num = |k: &str| kv.get(k).and_then(|v| v.parse::<u64>().ok());
    let (start, end) = (num("start_ns")?, num("end_ns")?);
    if end < start {
        return None;
    }
    Some(Stall::new(
        num("cpu").and_then(|c| u32::try_from(c).ok()),
        start,
        end,
    ))
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

impl Ring {
    /// The windows and stalls of a `trace` file's text, in its order.
    pub fn parse(text: &str) -> Self {
        let mut r = Ring::default();
        for line in text.lines() {
            if let Some(counts) = line.strip_prefix("# entries-in-buffer/entries-written: ") {
                let mut n = counts
                    .split_whitespace()
                    .next()
                    .unwrap_or("")
                    .split('/')
                    .map(|v| v.parse::<u64>().ok());
                if let (Some(Some(held)), Some(Some(written))) = (n.next(), n.next()) {
                    r.lost = held < written;
                }
            } else if let Some(e) = parse_line(line) {
                r.windows.push(e);
            } else if let Some(st) = parse_stall(line) {
                r.stalls.push(st);
            }
        }
        r
    }
}

/// Where a reader is in the ring: per CPU, the number and end of the newest window it has
/// taken, and the windows it found missing; the end of the newest stall it has taken.
#[derive(Debug, Default)]
pub struct Cursor {
    last: BTreeMap<u32, (u64, u64)>,
    /// Stalls come one after the other, machine-wide: a later end is a new one.
    last_stall_end: u64,
    /// Windows numbered between two it took, which the ring had lost (overwritten) first.
    pub lost: u64,
}

impl Cursor {
    /// A cursor after every window of `events` (what the ring holds when reading starts).
    pub fn after(events: &[Event]) -> Self {
        let mut c = Cursor::default();
        for e in events {
            let l = c.last.entry(e.cpu).or_insert((0, 0));
            *l = (l.0.max(e.seq), l.1.max(e.end_ns));
        }
        c
    }

    /// A cursor after every window and stall of `ring`.
    pub fn after_ring(ring: &Ring) -> Self {
        let mut c = Self::after(&ring.windows);
        c.last_stall_end = ring.stalls.iter().map(|s| s.end_ns).max().unwrap_or(0);
        c
    }

    /// The stalls of `stalls` (a read of the whole ring) that ended after the newest one
    /// taken, which becomes the newest of them.
    pub fn take_stalls(&mut self, stalls: Vec<Stall>) -> Vec<Stall> {
        let from = self.last_stall_end;
        let new: Vec<Stall> = stalls.into_iter().filter(|s| s.end_ns > from).collect();
        self.last_stall_end = new.iter().map(|s| s.end_ns).fold(from, u64::max);
        new
    }

    /// What of `ring` is after the cursor, which moves past it.
    pub fn take_ring(&mut self, ring: Ring) -> Ring {
        Ring {
            windows: self.take(ring.windows),
            stalls: self.take_stalls(ring.stalls),
            lost: ring.lost,
        }
    }

    /// The windows of `events` (a read of the whole ring, in its order) after the cursor,
    /// which moves past them. A window is new when its number is higher than the last one
    /// taken on its CPU, or when it ended later (the module was loaded again and counts
    /// from 1).
    pub fn take(&mut self, events: Vec<Event>) -> Vec<Event> {
        let mut new = Vec::new();
        for e in events {
            let (seq, end) = self.last.get(&e.cpu).copied().unwrap_or((0, 0));
            let reloaded = e.seq <= seq && e.end_ns > end;
            if e.seq > seq || reloaded {
                if !reloaded && seq > 0 && e.seq > seq + 1 {
                    self.lost += e.seq - seq - 1;
                }
                self.last.insert(e.cpu, (e.seq, end.max(e.end_ns)));
                new.push(e);
            }
        }
        new
    }
}

/// The ring, as a reader sees it.
pub struct Stream {
    trace: PathBuf,
    pub cursor: Cursor,
}

impl Stream {
    /// Opens the instance, making and starting it if need be, with the cursor after what
    /// it holds now. An error sentence where there is no stream: no tracefs, not root, or
    /// a module without the events.
    pub fn open() -> Result<Stream, String> {
        Self::at(prepare()?)
    }

    /// Opens the instance only where it runs already: what a pure reader does, since
    /// turning the events on waits for every CPU, and one may have interrupts off.
    pub fn open_running() -> Result<Stream, String> {
        let dir = running().ok_or("the event ring is off (trace-irqoff enable starts it)")?;
        Self::at(dir)
    }

    fn at(dir: PathBuf) -> Result<Stream, String> {
        let trace = dir.join("trace");
        let mut s = Stream {
            trace,
            cursor: Cursor::default(),
        };
        s.cursor = Cursor::after_ring(&s.read()?);
        Ok(s)
    }

    /// Turns the window events on again where they are off (a module loaded again: the
    /// instance has its events off then), as [`prepare`]; nothing where they run. The
    /// sentence why not otherwise (the module is not loaded).
    pub fn keep_on(&self) -> Result<(), String> {
        match running() {
            Some(_) => Ok(()),
            None => prepare().map(|_| ()),
        }
    }

    /// Every window and stall the ring holds, in its order.
    pub fn read(&self) -> Result<Ring, String> {
        let text = fs::read_to_string(&self.trace)
            .map_err(|e| format!("cannot read {}: {e}", self.trace.display()))?;
        Ok(Ring::parse(&text))
    }

    /// The windows and stalls that ended since the last call (none if the ring cannot be
    /// read).
    pub fn poll(&mut self) -> Ring {
        self.read()
            .map(|r| self.cursor.take_ring(r))
            .unwrap_or_default()
    }
}

/// Makes the instance where there is none (and shrinks its rings: tracefs gives a new one
/// its default size, 1.4 MB per CPU, until then), and turns the window events on where
/// they are off (after a load of the module), and the stall event where the module has
/// it (older modules do not: then windows only). Returns its directory.
pub fn prepare() -> Result<PathBuf, String> {
    let root =
        tracefs().ok_or("tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)")?;
    prepare_at(&root)
}

/// [`prepare`] in the tracefs at `root`.
fn prepare_at(root: &std::path::Path) -> Result<PathBuf, String> {
    let dir = root.join("instances").join(INSTANCE);
    let fail = |what: &str, e: io::Error| {
        format!("cannot {what} the tracefs instance {}: {e}", dir.display())
    };
    if !dir.is_dir() {
        match fs::create_dir(&dir) {
            Ok(()) => {
                fs::write(dir.join("buffer_size_kb"), BUFFER_KB.to_string())
                    .map_err(|e| fail("size", e))?;
                // Reading `trace` must not pause the ring (kernels that have the option).
                let _ = fs::write(dir.join("options/pause-on-trace"), "0");
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(fail("create", e)),
        }
    }
    let events = dir.join("events/trace_irqoff");
    if !events.join("hardirq_off").is_dir() {
        return Err("the loaded trace_irqoff module has no window events".into());
    }
    for name in ["hardirq_off", "softirq_off", "stall"] {
        if name == "stall" && !events.join(name).is_dir() {
            continue;
        }
        let enable = events.join(name).join("enable");
        if fs::read_to_string(&enable)
            .map(|v| v.trim() != "1")
            .unwrap_or(true)
        {
            fs::write(&enable, "1").map_err(|e| fail("start", e))?;
        }
    }
    Ok(dir)
}

/// The instance's directory if it exists with both window events on (the stall event
/// too where `prepare` found it; a reader does not turn it on).
fn running() -> Option<PathBuf> {
    let dir = tracefs()?.join("instances").join(INSTANCE);
    let on = |name: &str| {
        fs::read_to_string(dir.join("events/trace_irqoff").join(name).join("enable"))
            .is_ok_and(|v| v.trim() == "1")
    };
    (on("hardirq_off") && on("softirq_off")).then_some(dir)
}

/// Every window and stall the ring holds, where it runs (a pure reader's look: nothing
/// is turned on); the sentence why not otherwise.
pub fn read_running() -> Result<Ring, String> {
    let dir = running().ok_or("the event ring is off (trace-irqoff enable starts it)")?;
    let trace = dir.join("trace");
    // A task name is any bytes: one that is not UTF-8 must not stop the read.
    let bytes = fs::read(&trace).map_err(|e| format!("cannot read {}: {e}", trace.display()))?;
    Ok(Ring::parse(&String::from_utf8_lossy(&bytes)))
}

/// Whether a tracefs directory was given in [`TRACEFS_ENV`] (tests): its ring then stands
/// for the module's, also with a `--proc-root` that is not `/proc`.
pub fn overridden() -> bool {
    std::env::var_os(TRACEFS_ENV).is_some()
}

/// Where tracefs is: the env override (tests), else its own mount, else under debugfs.
pub fn tracefs() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os(TRACEFS_ENV) {
        return Some(PathBuf::from(d));
    }
    ["/sys/kernel/tracing", "/sys/kernel/debug/tracing"]
        .into_iter()
        .map(PathBuf::from)
        .find(|d| d.join("instances").is_dir())
}

#[cfg(test)]
mod tests {
    use super::*;

    const HARD: &str = "              sh-90      [001] d.h1.   412.503941: hardirq_off: cpu=1 latency_ns=99800123 lower_bound=0 pid=90 comm=irq test cause=- end_ns=4033412000 seq=7 end_shows_culprit=1 frames=irqoff_sample_hardirq_window+0x3c/0x90 [irqoff_sample];_RNvXs5_CsfhKZwEwFlVQ_18irqoff_sample_mainNtB5_12SampleDeviceNtNtCs1EKtwoKEMO2_6kernel10miscdevice10MiscDevice10write_iter+0x3a0/0x409 [irqoff_sample];vfs_write+0x1d7/0x210;0x0;0x0;0x0;0x0;0x0";
    const SOFT: &str = "          <idle>-0       [002] ..s1.   413.000001: softirq_off: cpu=2 latency_ns=64250000 lower_bound=0 pid=24 comm=ksoftirqd/2 cause=ksoftirqd-wait cgroup=5873 end_ns=5120000000 seq=9 end_shows_culprit=0 frames=0x0;0x0;0x0;0x0;0x0;0x0;0x0;0x0";
    const OLD: &str = "  sh-90 [001] d.h1. 412.5: hardirq_off: cpu=1 latency_ns=5000000 lower_bound=0 pid=90 comm=sh cause=-";

    /// Both events parse with a comm that holds a space, the frames up to the first empty
    /// one (module frames keep their " [module]"), and the cause; older modules' lines
    /// without numbers, frames or cgroup parse too; other lines do not.
    #[test]
    fn trace_pipe_lines() {
        let h = parse_line(HARD).expect("hard");
        assert_eq!(
            (h.cpu, h.kind, h.cause, h.latency_ns, h.end_ns, h.seq, h.pid),
            (1, Kind::Hard, None, 99_800_123, 4_033_412_000, 7, 90)
        );
        assert_eq!(h.comm, "irq test");
        assert!(h.end_shows_culprit);
        assert_eq!(h.frames.len(), 3);
        assert_eq!(
            h.frames[0],
            "irqoff_sample_hardirq_window+0x3c/0x90 [irqoff_sample]"
        );
        let s = parse_line(SOFT).expect("soft");
        assert_eq!(
            (s.cpu, s.kind, s.cause, s.seq, s.end_shows_culprit),
            (2, Kind::Soft, Some(Cause::KsoftirqdWait), 9, false)
        );
        assert!(s.frames.is_empty());
        // The task's cgroup, from modules that give it.
        assert_eq!((s.cgroup_id, h.cgroup_id), (Some(5873), None));
        assert_eq!(s.record(&Clock::anchored(0)).cgroup_id, Some(5873));
        let o = parse_line(OLD).expect("old");
        assert_eq!((o.latency_ns, o.seq, o.end_ns), (5_000_000, 0, 0));
        assert!(parse_line(
            "  sh-1 [000] ..... 1.0: irqoff_ongoing: cpu=1 length_ns=5 pid=1 comm=sh stuck=0"
        )
        .is_none());
        assert!(parse_line("garbage").is_none());
    }

    const TRACE_STALL: &str = include_str!("../../tests/fixtures/trace-stall.txt");

    /// Claim: a stall line of the ring (`trace_irqoff:stall`) is read as a stall, with its
    /// CPU, span and length, apart from the windows: never an [`Event`], so never counted
    /// as a hardirq-off or softirq-off window; the windows around it read as windows, and
    /// the other lines (header, `irqoff_ongoing`) are neither.
    #[test]
    fn stalls_are_read_apart_from_windows() {
        let ring = Ring::parse(TRACE_STALL);
        assert_eq!(
            ring.stalls,
            [
                Stall::new(Some(0), 8_613_000_000, 8_633_000_000),
                Stall::new(Some(1), 8_933_000_000, 9_235_000_000)
            ]
        );
        assert_eq!(ring.stalls[1].length_ns, 302_000_000);
        assert_eq!(
            ring.windows
                .iter()
                .map(|e| (e.cpu, e.kind, e.latency_ns))
                .collect::<Vec<_>>(),
            [(1, Kind::Hard, 99_800_123), (0, Kind::Soft, 64_250_000)]
        );
        for line in TRACE_STALL.lines().filter(|l| l.contains(": stall: ")) {
            assert!(
                parse_line(line).is_none(),
                "a stall read as a window: {line}"
            );
        }
        // The counts of a recording hold the two windows only.
        let c = counts(&ring.windows);
        let events: u64 = c.iter().map(|c| c.hard_events + c.soft_events).sum();
        assert_eq!(events, 2);
        // A window line never reads as a stall, whatever its task is called.
        let odd = HARD.replace("comm=irq test", "comm=a: stall: cpu=1 start_ns=1 end_ns=2");
        assert!(parse_stall(&odd).is_none());
        assert!(parse_line(&odd).is_some());
        assert!(parse_stall("garbage").is_none());
        // An end before the start is not a stall.
        assert!(
            parse_stall("x-1 [000] d.h1. 1.0: stall: cpu=0 start_ns=5 end_ns=4 length_ns=0")
                .is_none()
        );
    }

    /// Claim: a reader takes each stall once: those in the ring when it started are not
    /// new, a later one is, once.
    #[test]
    fn cursor_takes_each_stall_once() {
        let ring = Ring::parse(TRACE_STALL);
        let mut c = Cursor::after_ring(&ring);
        assert_eq!(c.take_ring(ring.clone()), Ring::default());
        let mut more = ring.clone();
        more.stalls
            .push(Stall::new(Some(1), 12_000_000_000, 12_050_000_000));
        let new = c.take_ring(more.clone());
        assert_eq!(new.stalls.len(), 1);
        assert_eq!(new.stalls[0].end_ns, 12_050_000_000);
        assert!(new.windows.is_empty());
        assert_eq!(c.take_ring(more), Ring::default());
        // A fresh cursor takes them all.
        assert_eq!(
            Cursor::default().take_stalls(ring.stalls.clone()),
            ring.stalls
        );
    }

    /// Claim: preparing the ring turns the stall event on with the window events where the
    /// module has it, and where it does not (an older module) turns the window events on
    /// all the same, without an error.
    #[test]
    fn the_stall_event_is_enabled_where_the_module_has_it() {
        for with_stall in [true, false] {
            let root = tempfile::TempDir::new().unwrap();
            let events = root
                .path()
                .join("instances")
                .join(INSTANCE)
                .join("events/trace_irqoff");
            let mut names = vec!["hardirq_off", "softirq_off"];
            if with_stall {
                names.push("stall");
            }
            for name in &names {
                fs::create_dir_all(events.join(name)).unwrap();
                fs::write(events.join(name).join("enable"), "0\n").unwrap();
            }
            let dir = prepare_at(root.path()).unwrap();
            assert_eq!(dir, root.path().join("instances").join(INSTANCE));
            for name in &names {
                assert_eq!(
                    fs::read_to_string(events.join(name).join("enable")).unwrap(),
                    "1",
                    "{name}"
                );
            }
            assert_eq!(events.join("stall").exists(), with_stall);
        }
    }

    /// A record made from an event has its times, task and frames, and no profile.
    #[test]
    fn events_become_records() {
        let r = parse_line(HARD)
            .unwrap()
            .record(&Clock::anchored(1_778_148_000_000_000_000));
        assert_eq!(r.timestamp_ns, 4_033_412_000);
        assert_eq!(r.wall_time.as_deref(), Some("2026-05-07T10:00:04.033412Z"));
        assert_eq!(
            r.start_wall_time.as_deref(),
            Some("2026-05-07T10:00:03.933611Z")
        );
        assert_eq!(r.stack.len(), 3);
        assert!(!r.ongoing && !r.lower_bound && r.profile.is_none());
    }

    /// Windows under the threshold are left out, and a window the store holds is not
    /// added twice.
    #[test]
    fn streamed_windows_the_store_missed() {
        let clock = Clock::anchored(0);
        let short = Event {
            latency_ns: 1_000_000,
            ..parse_line(HARD).unwrap()
        };
        let kept = parse_line(HARD).unwrap();
        let missed = Event {
            end_ns: 9_000_000_000,
            ..parse_line(HARD).unwrap()
        };
        let streamed = records(&[short, kept.clone(), missed], 50_000_000, &clock);
        assert_eq!(streamed.len(), 2);
        let store = vec![kept.record(&clock)];
        let m = missing(&store, &streamed);
        assert_eq!(m.len(), 1);
        assert_eq!(m[0].timestamp_ns, 9_000_000_000);
    }

    /// Counts per CPU add up by kind and cause, in the module's log2 buckets.
    #[test]
    fn counts_per_cpu_kind_and_cause() {
        let c = counts(&[
            parse_line(HARD).unwrap(),
            parse_line(SOFT).unwrap(),
            Event {
                latency_ns: 70_000_000,
                ..parse_line(SOFT).unwrap()
            },
        ]);
        assert_eq!(c.len(), 2);
        assert_eq!((c[0].cpu, c[0].hard_events, c[0].soft_events), (1, 1, 0));
        assert_eq!(c[0].hard_hist[6], 1);
        assert_eq!(
            (
                c[1].cpu,
                c[1].soft_events,
                c[1].soft_ksoftirqd_wait_events,
                c[1].soft_bh_off_events
            ),
            (2, 2, 2, 0)
        );
        assert_eq!(c[1].soft_ksoftirqd_wait_hist[6], 2);
    }

    /// A tally counts each CPU and kind apart, from its start on: the last window is the
    /// one that ended last, min and max over all of them.
    #[test]
    fn tally_since_start() {
        let e = |cpu: u32, kind: Kind, latency_ns: u64, end_ns: u64| Event {
            cpu,
            kind,
            latency_ns,
            end_ns,
            ..parse_line(OLD).unwrap()
        };
        let mut t = Tally::new(100);
        t.add(&[
            e(1, Kind::Hard, 9, 50),
            e(1, Kind::Hard, 30, 200),
            e(1, Kind::Hard, 20, 300),
            e(1, Kind::Soft, 5, 250),
        ]);
        t.add(&[e(0, Kind::Hard, 7, 400)]);
        assert_eq!(
            t.get(1, Kind::Hard),
            Some(&Agg {
                count: 2,
                min_ns: 20,
                max_ns: 30,
                last_ns: 20,
                last_end_ns: 300
            })
        );
        assert_eq!(t.get(1, Kind::Soft).map(|a| a.count), Some(1));
        assert_eq!(t.get(0, Kind::Hard).map(|a| a.last_ns), Some(7));
        assert!(t.get(0, Kind::Soft).is_none());
    }

    /// A reader takes each window once: those in the ring when it started are not new;
    /// later ones are, per CPU, in any order of CPUs; a gap in a CPU's numbers counts as
    /// lost; a module loaded again (numbers from 1, later ends) is seen as new.
    #[test]
    fn cursor_takes_each_window_once() {
        let e = |cpu: u32, seq: u64, end_ns: u64| Event {
            cpu,
            seq,
            end_ns,
            ..parse_line(OLD).unwrap()
        };
        let ring = vec![e(1, 3, 300), e(1, 4, 400), e(2, 10, 350)];
        let mut c = Cursor::after(&ring);
        assert!(c.take(ring.clone()).is_empty());
        let mut more = ring.clone();
        more.extend([e(1, 5, 500), e(2, 11, 510), e(0, 1, 520)]);
        let got: Vec<_> = c
            .take(more.clone())
            .iter()
            .map(|e| (e.cpu, e.seq))
            .collect();
        assert_eq!(got, [(1, 5), (2, 11), (0, 1)]);
        assert!(c.take(more).is_empty());
        // The ring overwrote 6 and 7 of CPU 1 before this read.
        assert_eq!(c.take(vec![e(1, 8, 800)]).len(), 1);
        assert_eq!(c.lost, 2);
        // Reloaded: CPU 1 counts from 1 again, at a later time.
        assert_eq!(
            c.take(vec![e(1, 8, 800), e(1, 1, 900)])
                .iter()
                .map(|e| e.seq)
                .collect::<Vec<_>>(),
            [1]
        );
        assert_eq!(c.lost, 2);
    }

    /// Claim: a ring whose header holds fewer entries than were written has lost some;
    /// one that holds them all, or has no header, has not.
    #[test]
    fn a_ring_that_overwrote_events_says_so() {
        let head = |h: u64, w: u64| {
            format!("# entries-in-buffer/entries-written: {h}/{w}   #P:4\n{HARD}\n")
        };
        assert!(Ring::parse(&head(1, 9)).lost);
        assert!(!Ring::parse(&head(1, 1)).lost);
        assert!(!Ring::parse(HARD).lost);
        assert_eq!(Ring::parse(&head(1, 9)).windows.len(), 1);
    }
}
