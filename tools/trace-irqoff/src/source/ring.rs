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
//!
//! This file sets the instance up and reads it; what it carries is `model::ring_event`,
//! its text is read by `parse::tracefs`, and what the views derive from its windows is
//! `enrich::ring_windows`.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::PathBuf;

use crate::model::ring_event::{Event, Ring};
use crate::model::snapshot::Stall;

/// Test only: the tracefs directory to use instead of the mounted one.
pub const TRACEFS_ENV: &str = "TRACE_IRQOFF_TRACEFS";

/// Each CPU's ring in the instance: about 80 windows (an event is about 190 bytes).
const BUFFER_KB: u32 = 16;

/// The instance's name.
pub const INSTANCE: &str = "trace_irqoff";

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
    use crate::parse::tracefs::parse_event;
    use crate::parse::tracefs::tests::{OLD, TRACE_STALL};

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

    /// A reader takes each window once: those in the ring when it started are not new;
    /// later ones are, per CPU, in any order of CPUs; a gap in a CPU's numbers counts as
    /// lost; a module loaded again (numbers from 1, later ends) is seen as new.
    #[test]
    fn cursor_takes_each_window_once() {
        let e = |cpu: u32, seq: u64, end_ns: u64| Event {
            cpu,
            seq,
            end_ns,
            ..parse_event(OLD).unwrap()
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
}
