// SPDX-License-Identifier: GPL-2.0
//! Where `explain` learns which CPUs serve a delay: a block device's number, its hardware
//! queues' CPU maps and its interrupts' effective affinity (sysfs, /proc/irq), and the
//! CPUs a task or a cgroup's tasks last ran on (/proc/PID/task/*/stat).

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use crate::error::Problem;
use crate::explain::join::{cpu_words, parse_cpu_list};

/// Test only: the sysfs directory to use instead of /sys.
pub const SYSFS_ENV: &str = "TRACE_IRQOFF_SYSFS";

/// The sysfs root.
pub fn sysfs() -> PathBuf {
    std::env::var_os(SYSFS_ENV).map_or_else(|| PathBuf::from("/sys"), PathBuf::from)
}

/// A block device as `explain` joins it.
pub struct Device {
    /// "252:0", as the block events name it.
    pub number: String,
    /// The CPUs its interrupts go to (empty: none found).
    pub irq_cpus: Vec<u32>,
    /// What was found, in words (hardware queues, interrupts).
    pub notes: Vec<String>,
}

/// Looks `dev` up: a name under /sys/block, or MAJOR:MINOR (MAJOR,MINOR).
pub fn device(sys: &Path, proc_root: &Path, dev: &str) -> Result<Device, Problem> {
    let numeric = dev.replace(',', ":");
    let is_number = numeric
        .split_once(':')
        .is_some_and(|(a, b)| a.parse::<u32>().is_ok() && b.parse::<u32>().is_ok());
    let dir = if is_number {
        sys.join("dev/block").join(&numeric)
    } else {
        sys.join("block").join(dev)
    };
    let number = if is_number {
        numeric
    } else {
        fs::read_to_string(dir.join("dev"))
            .map(|s| s.trim().to_string())
            .map_err(|_| {
                Problem::usage(
                    format!(
                        "there is no block device {dev} ({} not found)",
                        dir.join("dev").display()
                    ),
                    "give a name listed in /sys/block (e.g. nvme0n1), or MAJOR:MINOR",
                )
            })?
    };
    let mut notes = Vec::new();
    let mut queues: Vec<(u32, String)> = read_dir_names(&dir.join("mq"))
        .into_iter()
        .filter_map(|q| {
            let n = q.parse().ok()?;
            let l = fs::read_to_string(dir.join("mq").join(&q).join("cpu_list")).ok()?;
            Some((n, l.trim().to_string()))
        })
        .collect();
    queues.sort();
    for (q, l) in &queues {
        notes.push(format!(
            "{dev}: hardware queue {q} takes requests from CPUs {l}"
        ));
    }
    let mut irq_cpus = BTreeSet::new();
    for msi in [
        dir.join("device/msi_irqs"),
        dir.join("device/device/msi_irqs"),
    ] {
        for irq in read_dir_names(&msi) {
            let affinity = ["effective_affinity_list", "smp_affinity_list"]
                .iter()
                .find_map(|f| fs::read_to_string(proc_root.join("irq").join(&irq).join(f)).ok())
                .and_then(|s| parse_cpu_list(&s));
            if let Some(cpus) = affinity {
                notes.push(format!("{dev}: irq {irq} goes to {}", cpu_words(&cpus)));
                irq_cpus.extend(cpus);
            }
        }
    }
    if irq_cpus.is_empty() {
        notes.push(format!(
            "{dev}: no interrupt found (msi_irqs): its requests are served by the CPUs they completed on"
        ));
    }
    Ok(Device {
        number,
        irq_cpus: irq_cpus.into_iter().collect(),
        notes,
    })
}

/// The CPUs the threads of `pid` last ran on (/proc/PID/task/*/stat, field 39) and its
/// name; None when there is no such process.
pub fn task_cpus(proc_root: &Path, pid: i32) -> Option<(String, BTreeSet<u32>)> {
    let dir = proc_root.join(pid.to_string());
    let comm = fs::read_to_string(dir.join("comm")).ok()?;
    let cpus = read_dir_names(&dir.join("task"))
        .into_iter()
        .filter_map(|t| fs::read_to_string(dir.join("task").join(t).join("stat")).ok())
        .filter_map(|stat| last_cpu(&stat))
        .collect();
    Some((comm.trim().to_string(), cpus))
}

/// Field 39 (processor) of a stat line: the 37th after the comm's closing parenthesis.
fn last_cpu(stat: &str) -> Option<u32> {
    let (_, rest) = stat.rsplit_once(')')?;
    rest.split_whitespace().nth(36)?.parse().ok()
}

/// The pids of cgroup `path` (v2, under sysfs's fs/cgroup).
pub fn cgroup_pids(sys: &Path, path: &str) -> Result<Vec<i32>, Problem> {
    let procs = sys
        .join("fs/cgroup")
        .join(path.trim_start_matches('/'))
        .join("cgroup.procs");
    let text = fs::read_to_string(&procs).map_err(|e| {
        Problem::usage(
            format!("cannot read the cgroup's tasks ({}: {e})", procs.display()),
            "give a cgroup v2 path under /sys/fs/cgroup (e.g. system.slice/nginx.service)",
        )
    })?;
    Ok(text.lines().filter_map(|l| l.trim().parse().ok()).collect())
}

fn read_dir_names(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .filter_map(|e| e.file_name().into_string().ok())
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Claim: the processor is field 39 of a stat line, whatever the comm holds.
    #[test]
    fn last_cpu_is_field_39() {
        let mut fields: Vec<String> = (3..=52).map(|n| n.to_string()).collect();
        fields[39 - 3] = "7".into();
        let stat = format!("42 (a) b (c)) {}", fields.join(" "));
        assert_eq!(last_cpu(&stat), Some(7));
        assert_eq!(last_cpu("42 (sh) S 1"), None);
    }
}
