// SPDX-License-Identifier: GPL-2.0
//! `explain --for`: a tracefs instance of its own, `instances/trace_irqoff_explain_PID`
//! (unique to the run, so that two runs do not share one; apart from the event ring's,
//! as the benchmark's witness is): `trace_clock` mono (the module's clock), the events
//! asked for on, traced for the span or until SIGINT/SIGTERM, read, its own ring's
//! overruns counted, and removed (also after a signal).

use std::fs;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The instance's name for this run: `trace_irqoff_explain_PID`.
pub fn name() -> String {
    format!("{PREFIX}{}", std::process::id())
}

/// What every run's instance name starts with.
const PREFIX: &str = "trace_irqoff_explain_";

/// The rings of all CPUs together while tracing, KB, so that a machine of many CPUs does
/// not lend tracefs a gigabyte; each CPU's between [`MIN_KB`] and [`MAX_KB`].
const TOTAL_KB: u32 = 64 * 1024;
const MIN_KB: u32 = 256;
const MAX_KB: u32 = 4096;

/// How often the wait looks whether a signal came.
const POLL: Duration = Duration::from_millis(50);

/// Each CPU's ring for `cpus` CPUs, KB.
fn buffer_kb(cpus: usize) -> u32 {
    let cpus = u32::try_from(cpus.max(1)).unwrap_or(u32::MAX);
    (TOTAL_KB / cpus).clamp(MIN_KB, MAX_KB)
}

/// What was traced: the `trace` text, and what could not be traced or undone.
pub struct Traced {
    pub text: String,
    pub notes: Vec<String>,
    /// Events the instance's own ring overwrote (its `per_cpu/cpuN/stats` "overrun:"),
    /// per CPU, those with any.
    pub overruns: Vec<(u32, u64)>,
    /// A signal (SIGINT, SIGTERM) ended the span early, after this long.
    pub interrupted: Option<Duration>,
}

/// Traces `events` ("irq/softirq_raise", ...) for `span`, or until `stop` is set (by
/// SIGINT or SIGTERM), in this run's instance under the tracefs at `root`, then turns
/// them off and removes the instance. An event this kernel lacks is a note; no event at
/// all is an error. Instances left by earlier runs whose process is gone are named in a
/// note.
pub fn trace(
    root: &Path,
    events: &[&str],
    span: Duration,
    stop: &AtomicBool,
) -> Result<Traced, String> {
    let instances = root.join("instances");
    let mut notes = stale(&instances);
    let dir = instances.join(name());
    let fail = |what: &str, e: std::io::Error| {
        format!("cannot {what} the tracefs instance {}: {e}", dir.display())
    };
    match fs::create_dir(&dir) {
        Ok(()) => {}
        // Left by a run of an earlier process of our pid: it is ours, reuse it.
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(fail("create", e)),
    }
    let result = trace_in(&dir, events, span, stop, &mut notes);
    if let Err(e) = fs::remove_dir(&dir) {
        notes.push(format!(
            "could not remove the tracefs instance {} ({e}): rmdir it",
            dir.display()
        ));
    }
    result.map(|(text, overruns, interrupted)| Traced {
        text,
        notes,
        overruns,
        interrupted,
    })
}

/// The tracing itself in the instance `dir`: the trace text, the overruns per CPU, and
/// how long it ran if a signal ended it.
type Run = (String, Vec<(u32, u64)>, Option<Duration>);

fn trace_in(
    dir: &Path,
    events: &[&str],
    span: Duration,
    stop: &AtomicBool,
    notes: &mut Vec<String>,
) -> Result<Run, String> {
    let fail = |what: &str, e: std::io::Error| {
        format!("cannot {what} the tracefs instance {}: {e}", dir.display())
    };
    fs::write(dir.join("trace_clock"), "mono").map_err(|e| fail("set the clock of", e))?;
    // tracefs gives every possible CPU a ring, whatever this process may run on.
    let cpus = fs::read_to_string("/sys/devices/system/cpu/possible")
        .ok()
        .and_then(|l| crate::model::delay::parse_cpu_list(&l))
        .map(|v| v.len())
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let _ = fs::write(dir.join("buffer_size_kb"), buffer_kb(cpus).to_string());
    // Nothing of an earlier, interrupted run.
    let _ = fs::write(dir.join("trace"), "");
    let mut on = Vec::new();
    let mut result = Ok(());
    for ev in events {
        let enable = dir.join("events").join(ev).join("enable");
        if !enable.exists() {
            notes.push(format!("this kernel has no {ev} event: not traced"));
            continue;
        }
        if let Err(e) = fs::write(&enable, "1") {
            result = Err(fail("start", e));
            break;
        }
        on.push(enable);
    }
    let result = result.and_then(|()| {
        if on.is_empty() {
            return Err(format!(
                "this kernel has none of the events {}",
                events.join(", ")
            ));
        }
        let _ = fs::write(dir.join("tracing_on"), "1");
        let interrupted = wait(span, stop);
        let _ = fs::write(dir.join("tracing_on"), "0");
        let text = fs::read(dir.join("trace")).map_err(|e| fail("read", e))?;
        Ok((
            String::from_utf8_lossy(&text).into_owned(),
            overruns(dir),
            interrupted,
        ))
    });
    for enable in &on {
        let _ = fs::write(enable, "0");
    }
    result
}

/// Sleeps for `span`, or until `stop` is set: then how long it slept.
fn wait(span: Duration, stop: &AtomicBool) -> Option<Duration> {
    let start = Instant::now();
    loop {
        if stop.load(Ordering::SeqCst) {
            return Some(start.elapsed());
        }
        let left = span.saturating_sub(start.elapsed());
        if left.is_zero() {
            return None;
        }
        std::thread::sleep(left.min(POLL));
    }
}

/// The events the instance's ring overwrote, per CPU with any: "overrun: N" of each
/// `per_cpu/cpuN/stats`.
fn overruns(dir: &Path) -> Vec<(u32, u64)> {
    let mut v: Vec<(u32, u64)> = fs::read_dir(dir.join("per_cpu"))
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .filter_map(|e| {
                    let cpu = e.file_name().to_str()?.strip_prefix("cpu")?.parse().ok()?;
                    let stats = fs::read_to_string(e.path().join("stats")).ok()?;
                    Some((cpu, overrun(&stats)?))
                })
                .filter(|(_, n)| *n > 0)
                .collect()
        })
        .unwrap_or_default();
    v.sort_unstable();
    v
}

/// "overrun: N" of a `stats` file.
fn overrun(stats: &str) -> Option<u64> {
    stats
        .lines()
        .find_map(|l| l.strip_prefix("overrun:"))
        .and_then(|n| n.trim().parse().ok())
}

/// Notes on the instances of earlier runs whose process is not to be seen here (killed
/// before they could remove theirs: SIGKILL, a crash): they are only named, not removed,
/// since a run in another pid namespace sharing this tracefs would look gone too.
fn stale(instances: &Path) -> Vec<String> {
    let Ok(rd) = fs::read_dir(instances) else {
        return Vec::new();
    };
    let mut notes: Vec<String> = rd
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().to_str()?.to_string();
            let pid: u32 = name.strip_prefix(PREFIX)?.parse().ok()?;
            let gone =
                pid != std::process::id() && !Path::new("/proc").join(pid.to_string()).exists();
            gone.then(|| {
                format!(
                    "the tracefs instance {} is left by an earlier run whose process is gone: rmdir it",
                    e.path().display()
                )
            })
        })
        .collect();
    notes.sort();
    notes
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Claim: the rings take 4 MB a CPU on small machines, 64 MB in all on larger ones,
    /// and never less than 256 KB a CPU.
    #[test]
    fn rings_fit_a_budget() {
        assert_eq!(buffer_kb(0), 4096);
        assert_eq!(buffer_kb(2), 4096);
        assert_eq!(buffer_kb(64), 1024);
        assert_eq!(buffer_kb(1024), 256);
    }

    /// Claim: the overrun count is read from a ring's stats, as tracefs prints them.
    #[test]
    fn overruns_are_read_from_stats() {
        let stats = "entries: 10\noverrun: 42\ncommit overrun: 0\nbytes: 0\n";
        assert_eq!(overrun(stats), Some(42));
        assert_eq!(overrun("entries: 10\n"), None);
    }

    /// Claim: an instance of a run whose process is gone is named in a note, not removed;
    /// this run's own, a live process's and other instances are not named.
    #[test]
    fn instances_of_runs_gone_are_named_not_removed() {
        let dir = tempfile::TempDir::new().unwrap();
        // Above any pid_max (4194304): no such process.
        let gone = dir.path().join(format!("{PREFIX}99999999"));
        for d in [
            gone.clone(),
            dir.path().join(name()),
            dir.path().join(format!("{PREFIX}1")),
            dir.path().join("trace_irqoff"),
        ] {
            fs::create_dir(d).unwrap();
        }
        let notes = stale(dir.path());
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].contains(&gone.display().to_string()));
        assert!(gone.is_dir());
    }

    /// Claim: a wait ends early once the flag is set, saying after how long; otherwise it
    /// lasts the span and says nothing.
    #[test]
    fn a_signal_ends_the_wait() {
        let stop = AtomicBool::new(true);
        assert!(wait(Duration::from_secs(60), &stop).is_some());
        stop.store(false, Ordering::SeqCst);
        assert_eq!(wait(Duration::from_millis(1), &stop), None);
    }
}
