// SPDX-License-Identifier: GPL-2.0
//! `explain --last`: a tracefs instance of its own, `instances/trace_irqoff_explain`
//! (apart from the event ring's, as the benchmark's witness is): `trace_clock` mono (the
//! module's clock), the events asked for on, traced for the span, read, and removed.

use std::fs;
use std::path::Path;
use std::time::Duration;

/// The instance's name.
pub const NAME: &str = "trace_irqoff_explain";

/// The rings of all CPUs together while tracing, KB, so that a machine of many CPUs does
/// not lend tracefs a gigabyte; each CPU's between [`MIN_KB`] and [`MAX_KB`].
const TOTAL_KB: u32 = 64 * 1024;
const MIN_KB: u32 = 256;
const MAX_KB: u32 = 4096;

/// Each CPU's ring for `cpus` CPUs, KB.
fn buffer_kb(cpus: usize) -> u32 {
    let cpus = u32::try_from(cpus.max(1)).unwrap_or(u32::MAX);
    (TOTAL_KB / cpus).clamp(MIN_KB, MAX_KB)
}

/// What was traced: the `trace` text, and what could not be traced or undone.
pub struct Traced {
    pub text: String,
    pub notes: Vec<String>,
}

/// Traces `events` ("irq/softirq_raise", ...) for `span` in the instance under the
/// tracefs at `root`, then turns them off and removes the instance. An event this kernel
/// lacks is a note; no event at all is an error.
pub fn trace(root: &Path, events: &[&str], span: Duration) -> Result<Traced, String> {
    let dir = root.join("instances").join(NAME);
    let fail = |what: &str, e: std::io::Error| {
        format!("cannot {what} the tracefs instance {}: {e}", dir.display())
    };
    match fs::create_dir(&dir) {
        Ok(()) => {}
        // Left by an explain that was interrupted: it is ours, reuse it.
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(fail("create", e)),
    }
    let mut notes = Vec::new();
    fs::write(dir.join("trace_clock"), "mono").map_err(|e| fail("set the clock of", e))?;
    // tracefs gives every possible CPU a ring, whatever this process may run on.
    let cpus = fs::read_to_string("/sys/devices/system/cpu/possible")
        .ok()
        .and_then(|l| crate::explain::join::parse_cpu_list(&l))
        .map(|v| v.len())
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let _ = fs::write(dir.join("buffer_size_kb"), buffer_kb(cpus).to_string());
    // Nothing of an earlier, interrupted run.
    let _ = fs::write(dir.join("trace"), "");
    let mut on = Vec::new();
    for ev in events {
        let enable = dir.join("events").join(ev).join("enable");
        if !enable.exists() {
            notes.push(format!("this kernel has no {ev} event: not traced"));
            continue;
        }
        fs::write(&enable, "1").map_err(|e| fail("start", e))?;
        on.push(enable);
    }
    let result = if on.is_empty() {
        Err(format!(
            "this kernel has none of the events {}",
            events.join(", ")
        ))
    } else {
        let _ = fs::write(dir.join("tracing_on"), "1");
        std::thread::sleep(span);
        let _ = fs::write(dir.join("tracing_on"), "0");
        fs::read_to_string(dir.join("trace")).map_err(|e| fail("read", e))
    };
    for enable in &on {
        let _ = fs::write(enable, "0");
    }
    if let Err(e) = fs::remove_dir(&dir) {
        notes.push(format!(
            "could not remove the tracefs instance {} ({e}): rmdir it",
            dir.display()
        ));
    }
    result.map(|text| Traced { text, notes })
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
}
