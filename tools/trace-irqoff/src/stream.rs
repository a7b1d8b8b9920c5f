// SPDX-License-Identifier: GPL-2.0
//! The module's event stream: every window as it ends, read from the module's tracepoints
//! (`trace_irqoff:hardirq_off` and `softirq_off`) in a tracefs instance of this process's
//! own, so that `watch` and `--until` see each window whatever the module's record store
//! keeps (its 16 worst per CPU and kind), with the culprit's frames, and a lost window
//! shows as a gap in its CPU's `seq`.
//!
//! The instance (`instances/trace-irqoff-PID`) is a per-CPU ring of [`BUFFER_KB`] KB that
//! only these two events write to; it is removed when the [`Stream`] is dropped, and one
//! left by a process that was killed is removed by the next one.

use std::collections::BTreeMap;
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use crate::clock::Clock;
use crate::snapshot::{Cause, Kind, Record};

/// Test only: the tracefs directory to use instead of the mounted one.
pub const TRACEFS_ENV: &str = "TRACE_IRQOFF_TRACEFS";

/// Each CPU's ring in the instance: about 170 windows (an event is about 190 bytes).
const BUFFER_KB: u32 = 32;

/// The prefix of this tool's instances: `trace-irqoff-PID`.
const PREFIX: &str = "trace-irqoff-";

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
    pub end_shows_culprit: bool,
    /// Culprit first, as the kernel names them; empty below the threshold.
    pub frames: Vec<String>,
}

impl Event {
    /// The event as a record, with wall-clock times from `clock`.
    pub fn record(&self, clock: &Clock) -> Record {
        Record {
            cpu: self.cpu,
            kind: self.kind,
            cause: self.cause,
            lower_bound: false,
            latency_ns: self.latency_ns,
            timestamp_ns: self.end_ns,
            wall_time: Some(clock.rfc3339(self.end_ns)),
            start_wall_time: Some(clock.rfc3339(self.end_ns.saturating_sub(self.latency_ns))),
            pid: self.pid,
            comm: self.comm.clone(),
            runnable_ns: 0,
            stack: self.frames.clone(),
            end_shows_culprit: self.end_shows_culprit,
            window_pid: 0,
            window_comm: String::new(),
            window_stack: Vec::new(),
            overlap: None,
            ongoing: false,
            profile: None,
        }
    }
}

/// The windows of `events` at `threshold_ns` or more, as records with wall-clock times
/// from `clock`.
pub fn records(events: &[Event], threshold_ns: u64, clock: &Clock) -> Vec<Record> {
    events.iter().filter(|e| e.latency_ns >= threshold_ns).map(|e| e.record(clock)).collect()
}

/// Of `streamed`, the windows that `store` (the module's records) does not hold: the same
/// window has the same CPU, kind, end and length in both.
pub fn missing<'a>(store: &[Record], streamed: impl IntoIterator<Item = &'a Record>) -> Vec<Record> {
    let kept: std::collections::HashSet<_> = store.iter().map(|r| r.key()).collect();
    streamed.into_iter().filter(|r| !kept.contains(&r.key())).cloned().collect()
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
        end_shows_culprit: num("end_shows_culprit").is_none_or(|v| v != 0),
        frames: frames
            .map(|f| f.split(';').filter(|f| !f.is_empty() && *f != "0x0" && *f != "(null)").map(str::to_string).collect())
            .unwrap_or_default(),
    })
}

/// The windows lost between what a reader saw and the numbers it sees now: per CPU, the
/// gaps in `seq`.
#[derive(Debug, Default)]
pub struct Gaps {
    last: BTreeMap<u32, u64>,
    pub lost: u64,
}

impl Gaps {
    /// Notes `e`; counts the windows of its CPU numbered between the last one and it.
    pub fn see(&mut self, e: &Event) {
        if e.seq == 0 {
            return;
        }
        if let Some(&last) = self.last.get(&e.cpu) {
            self.lost += e.seq.saturating_sub(last + 1);
        }
        self.last.insert(e.cpu, e.seq);
    }
}

/// This process's instance, reading as the windows come.
pub struct Stream {
    dir: PathBuf,
    pipe: fs::File,
    partial: String,
    pub gaps: Gaps,
}

impl Stream {
    /// Creates the instance and starts it, before the windows it should see. `None`, and
    /// why in a sentence, where there is no stream: no tracefs, not root, or a module
    /// without the tracepoints.
    pub fn open() -> Result<Stream, String> {
        let root = tracefs().ok_or("tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)")?;
        let instances = root.join("instances");
        remove_stale(&instances);
        let dir = instances.join(format!("{PREFIX}{}", std::process::id()));
        fs::create_dir(&dir).map_err(|e| format!("cannot create the tracefs instance {}: {e}", dir.display()))?;
        // From here on, a failure removes it again (Drop).
        let pipe = fs::File::open(dir.join("trace_pipe"));
        let mut s = match pipe {
            Ok(pipe) => Stream { dir, pipe, partial: String::new(), gaps: Gaps::default() },
            Err(e) => {
                let _ = fs::remove_dir(&dir);
                return Err(format!("cannot open {}: {e}", dir.join("trace_pipe").display()));
            }
        };
        s.start().map_err(|e| format!("cannot start the module's events in {}: {e}", s.dir.display()))?;
        Ok(s)
    }

    fn start(&mut self) -> io::Result<()> {
        let events = self.dir.join("events/trace_irqoff");
        if !events.join("hardirq_off").is_dir() {
            return Err(io::Error::new(io::ErrorKind::NotFound, "the module has no trace_irqoff events"));
        }
        fs::write(self.dir.join("buffer_size_kb"), BUFFER_KB.to_string())?;
        fs::write(events.join("hardirq_off/enable"), "1")?;
        fs::write(events.join("softirq_off/enable"), "1")?;
        set_nonblocking(&self.pipe)
    }

    /// The windows that ended since the last call, oldest first per CPU.
    pub fn poll(&mut self) -> Vec<Event> {
        let mut buf = vec![0u8; 64 * 1024];
        let mut text = std::mem::take(&mut self.partial);
        loop {
            match self.pipe.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => text.push_str(&String::from_utf8_lossy(&buf[..n])),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(_) => break,
            }
        }
        let complete = text.rfind('\n').map_or(0, |i| i + 1);
        self.partial = text[complete..].to_string();
        let events: Vec<Event> = text[..complete].lines().filter_map(parse_line).collect();
        for e in &events {
            self.gaps.see(e);
        }
        events
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        let events = self.dir.join("events/trace_irqoff");
        let _ = fs::write(events.join("hardirq_off/enable"), "0");
        let _ = fs::write(events.join("softirq_off/enable"), "0");
        // The pipe must be closed before the instance can go: rmdir refuses a busy one.
        let pipe = std::mem::replace(&mut self.pipe, match fs::File::open("/dev/null") {
            Ok(f) => f,
            Err(_) => return,
        });
        drop(pipe);
        let _ = fs::remove_dir(&self.dir);
    }
}

/// Where tracefs is: the env override (tests), else its own mount, else under debugfs.
fn tracefs() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os(TRACEFS_ENV) {
        return Some(PathBuf::from(d));
    }
    ["/sys/kernel/tracing", "/sys/kernel/debug/tracing"].into_iter().map(PathBuf::from).find(|d| d.join("instances").is_dir())
}

/// Removes the instances of processes that are gone (killed before their Drop ran).
fn remove_stale(instances: &Path) {
    let Ok(dir) = fs::read_dir(instances) else { return };
    for e in dir.flatten() {
        let name = e.file_name();
        let Some(pid) = name.to_str().and_then(|n| n.strip_prefix(PREFIX)).and_then(|p| p.parse::<u32>().ok()) else { continue };
        if !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = fs::remove_dir(e.path());
        }
    }
}

fn set_nonblocking(f: &fs::File) -> io::Result<()> {
    use rustix::fs::{fcntl_getfl, fcntl_setfl, OFlags};
    let flags = fcntl_getfl(f)?;
    fcntl_setfl(f, flags | OFlags::NONBLOCK)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const HARD: &str = "              sh-90      [001] d.h1.   412.503941: hardirq_off: cpu=1 latency_ns=99800123 lower_bound=0 pid=90 comm=irq test cause=- end_ns=4033412000 seq=7 end_shows_culprit=1 frames=irqoff_sample_hardirq_window+0x3c/0x90 [irqoff_sample];_RNvXs5_CsfhKZwEwFlVQ_18irqoff_sample_mainNtB5_12SampleDeviceNtNtCs1EKtwoKEMO2_6kernel10miscdevice10MiscDevice10write_iter+0x3a0/0x409 [irqoff_sample];vfs_write+0x1d7/0x210;0x0;0x0;0x0;0x0;0x0";
    const SOFT: &str = "          <idle>-0       [002] ..s1.   413.000001: softirq_off: cpu=2 latency_ns=64250000 lower_bound=0 pid=24 comm=ksoftirqd/2 cause=ksoftirqd-wait end_ns=5120000000 seq=9 end_shows_culprit=0 frames=0x0;0x0;0x0;0x0;0x0;0x0;0x0;0x0";
    const OLD: &str = "  sh-90 [001] d.h1. 412.5: hardirq_off: cpu=1 latency_ns=5000000 lower_bound=0 pid=90 comm=sh cause=-";

    /// Both events parse with a comm that holds a space, the frames up to the first empty
    /// one (module frames keep their " [module]"), and the cause; older modules' lines
    /// without numbers or frames parse too; other lines do not.
    #[test]
    fn trace_pipe_lines() {
        let h = parse_line(HARD).expect("hard");
        assert_eq!((h.cpu, h.kind, h.cause, h.latency_ns, h.end_ns, h.seq, h.pid), (1, Kind::Hard, None, 99_800_123, 4_033_412_000, 7, 90));
        assert_eq!(h.comm, "irq test");
        assert!(h.end_shows_culprit);
        assert_eq!(h.frames.len(), 3);
        assert_eq!(h.frames[0], "irqoff_sample_hardirq_window+0x3c/0x90 [irqoff_sample]");
        let s = parse_line(SOFT).expect("soft");
        assert_eq!((s.cpu, s.kind, s.cause, s.seq, s.end_shows_culprit), (2, Kind::Soft, Some(Cause::KsoftirqdWait), 9, false));
        assert!(s.frames.is_empty());
        let o = parse_line(OLD).expect("old");
        assert_eq!((o.latency_ns, o.seq, o.end_ns), (5_000_000, 0, 0));
        assert!(parse_line("  sh-1 [000] ..... 1.0: irqoff_ongoing: cpu=1 length_ns=5 pid=1 comm=sh stuck=0").is_none());
        assert!(parse_line("garbage").is_none());
    }

    /// A record made from an event has its times, task and frames, and no profile.
    #[test]
    fn events_become_records() {
        let r = parse_line(HARD).unwrap().record(&Clock::anchored(1_778_148_000_000_000_000));
        assert_eq!(r.timestamp_ns, 4_033_412_000);
        assert_eq!(r.wall_time.as_deref(), Some("2026-05-07T10:00:04.033412Z"));
        assert_eq!(r.start_wall_time.as_deref(), Some("2026-05-07T10:00:03.933611Z"));
        assert_eq!(r.stack.len(), 3);
        assert!(!r.ongoing && !r.lower_bound && r.profile.is_none());
    }

    /// Windows under the threshold are left out, and a window the store holds is not
    /// added twice.
    #[test]
    fn streamed_windows_the_store_missed() {
        let clock = Clock::anchored(0);
        let short = Event { latency_ns: 1_000_000, ..parse_line(HARD).unwrap() };
        let kept = parse_line(HARD).unwrap();
        let missed = Event { end_ns: 9_000_000_000, ..parse_line(HARD).unwrap() };
        let streamed = records(&[short, kept.clone(), missed], 50_000_000, &clock);
        assert_eq!(streamed.len(), 2);
        let store = vec![kept.record(&clock)];
        let m = missing(&store, &streamed);
        assert_eq!(m.len(), 1);
        assert_eq!(m[0].timestamp_ns, 9_000_000_000);
    }

    /// Gaps in a CPU's numbers are the windows the ring lost; CPUs count apart.
    #[test]
    fn gaps_count_lost_windows() {
        let mut g = Gaps::default();
        let e = |cpu: u32, seq: u64| Event { cpu, seq, ..parse_line(OLD).unwrap() };
        for (cpu, seq) in [(1, 3), (1, 4), (2, 10), (1, 8), (2, 11), (1, 9)] {
            g.see(&e(cpu, seq));
        }
        assert_eq!(g.lost, 3);
        g.see(&e(3, 0));
        assert_eq!(g.lost, 3);
    }
}
