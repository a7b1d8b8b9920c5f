// SPDX-License-Identifier: GPL-2.0
//! Where `explain` learns which CPUs serve a delay: a block device's number, its hardware
//! queues' CPU maps and its interrupts' effective affinity (sysfs, /proc/irq), a NIC's rx
//! queues, their RPS CPUs and its vectors' names (/proc/interrupts) and CPUs, and the
//! CPUs a task or a cgroup's tasks last ran on (/proc/PID/task/*/stat), and their
//! threads (/proc/PID/task/*).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use crate::error::Problem;
use crate::model::delay::{cpu_words, parse_cpu_list};
use crate::model::netdev::{irq_names, parse_cpu_mask, queue_of, Nic, NicIrq};
use crate::model::request_path::{Disk, Irq, Topology};

/// Test only: the sysfs directory to use instead of /sys.
pub const SYSFS_ENV: &str = "TRACE_IRQOFF_SYSFS";

/// The sysfs root.
pub fn sysfs() -> PathBuf {
    std::env::var_os(SYSFS_ENV).map_or_else(|| PathBuf::from("/sys"), PathBuf::from)
}

/// A block device as `--device` names it: the disks whose requests stand for it.
pub struct Device {
    /// The disks' numbers ("259:0", as the block events name them): the device itself
    /// if a disk, its disk if a partition, the disks below a stacked device (dm, md) and
    /// its own (a request-based dm device has requests of its own).
    pub numbers: Vec<String>,
    /// What it resolved to, in words, where that is not itself.
    pub notes: Vec<String>,
}

/// Looks `dev` up: a name in /sys/class/block (or /sys/block), or MAJOR:MINOR
/// (MAJOR,MINOR).
pub fn device(sys: &Path, dev: &str) -> Result<Device, Problem> {
    let dir = dev_dir(sys, dev).ok_or_else(|| {
        Problem::usage(
            format!("there is no block device {dev} in {}", sys.join("class/block").display()),
            "give a name listed in /sys/class/block (e.g. nvme0n1, nvme0n1p2, dm-0), or MAJOR:MINOR",
        )
    })?;
    let disks: Vec<(String, String)> = disks_below(sys, &dir, 4)
        .iter()
        .filter_map(|d| {
            let name = d.file_name()?.to_str()?.to_string();
            let number = fs::read_to_string(d.join("dev")).ok()?.trim().to_string();
            Some((name, number))
        })
        .collect();
    if disks.is_empty() {
        return Err(Problem::usage(
            format!("block device {dev}: no disk found below it"),
            "give a disk, a partition or a stacked device (dm, md) with disks below it",
        ));
    }
    let mut notes = Vec::new();
    let own = fs::read_to_string(dir.join("dev"))
        .map(|s| s.trim().to_string())
        .unwrap_or_default();
    if disks.len() != 1 || disks[0].1 != own {
        let what = if dir.join("partition").is_file() {
            "a partition of"
        } else {
            "stacked on"
        };
        let list: Vec<String> = disks.iter().map(|(n, m)| format!("{n} ({m})")).collect();
        notes.push(format!(
            "{dev} is {what} {}: the block requests are those of {}",
            list.join(", "),
            if disks.len() == 1 {
                "that disk"
            } else {
                "those disks"
            }
        ));
    }
    let mut numbers: Vec<String> = disks.into_iter().map(|(_, m)| m).collect();
    // A stacked device's own requests (request-based dm: dm-mpath) are its too.
    if !own.is_empty() && !numbers.contains(&own) && !dir.join("partition").is_file() {
        numbers.push(own);
    }
    Ok(Device { numbers, notes })
}

/// The CPUs the threads of `pid` last ran on (/proc/PID/task/*/stat, field 39) and its
/// name; None when there is no such process. A task name is any bytes: one that is not
/// UTF-8 is read with U+FFFD for what is not, as a saved trace's is.
pub fn task_cpus(proc_root: &Path, pid: i32) -> Option<(String, BTreeSet<u32>)> {
    let dir = proc_root.join(pid.to_string());
    let comm = read_lossy(&dir.join("comm"))?;
    let cpus = read_dir_names(&dir.join("task"))
        .into_iter()
        .filter_map(|t| read_lossy(&dir.join("task").join(t).join("stat")))
        .filter_map(|stat| last_cpu(&stat))
        .collect();
    Some((comm.trim().to_string(), cpus))
}

/// The text of file `path`, what is not UTF-8 in it (a task name) as U+FFFD; None where
/// it cannot be read.
fn read_lossy(path: &Path) -> Option<String> {
    fs::read(path)
        .ok()
        .map(|b| String::from_utf8_lossy(&b).into_owned())
}

/// The thread ids of process `pid` (/proc/PID/task/*), ascending; empty when there is
/// no such process.
pub fn threads(proc_root: &Path, pid: i32) -> Vec<i32> {
    let mut v: Vec<i32> = read_dir_names(&proc_root.join(pid.to_string()).join("task"))
        .iter()
        .filter_map(|t| t.parse().ok())
        .collect();
    v.sort_unstable();
    v
}

/// The processes a task subject names (`--pid`, a cgroup's `cgroup.procs`) and their
/// threads as /proc had them. A traced span reads them before and after it and keeps the
/// union ([`Members::add`]): a process forked or a thread that exited meanwhile is still
/// one of them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Members {
    /// Each process and its threads (none: it was not on this machine when read).
    pub threads: BTreeMap<i32, BTreeSet<i32>>,
    /// Each process's name, where it was read: the latest read's (a process may exec
    /// between the reads: `taskset -c 1 sh` is `taskset` until it does).
    pub names: BTreeMap<i32, String>,
}

impl Members {
    /// The processes `pids` as `proc_root` has them now: their threads and names.
    pub fn read(proc_root: &Path, pids: impl IntoIterator<Item = i32>) -> Self {
        let mut m = Members::default();
        for pid in pids {
            m.threads
                .entry(pid)
                .or_default()
                .extend(threads(proc_root, pid));
            if let Some(comm) = read_lossy(&proc_root.join(pid.to_string()).join("comm")) {
                m.names.entry(pid).or_insert(comm.trim().to_string());
            }
        }
        m
    }

    /// Adds the processes, threads and names of `other` (a later read) to these; its
    /// names replace the earlier ones.
    pub fn add(&mut self, other: Members) {
        for (pid, t) in other.threads {
            self.threads.entry(pid).or_default().extend(t);
        }
        self.names.extend(other.names);
    }

    /// No process at all.
    pub fn is_empty(&self) -> bool {
        self.threads.is_empty()
    }
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

/// The sysfs directory of block device `dev` (a name, as in /sys/class/block, or
/// MAJOR:MINOR), links followed; None where there is none.
fn dev_dir(sys: &Path, dev: &str) -> Option<PathBuf> {
    let numeric = dev.replace(',', ":");
    let by_number = numeric
        .split_once(':')
        .is_some_and(|(a, b)| a.parse::<u32>().is_ok() && b.parse::<u32>().is_ok());
    let candidates = if by_number {
        vec![sys.join("dev/block").join(&numeric)]
    } else {
        vec![
            sys.join("class/block").join(dev),
            sys.join("block").join(dev),
        ]
    };
    if let Some(d) = candidates.iter().find(|d| d.join("dev").is_file()) {
        return Some(fs::canonicalize(d).unwrap_or_else(|_| d.clone()));
    }
    // A sysfs without the links (a copy of one): the disks, and their partitions under
    // them, by name or by the number in their `dev`.
    let block = sys.join("block");
    for disk in read_dir_names(&block) {
        let d = block.join(&disk);
        let mut dirs = vec![d.clone()];
        dirs.extend(read_dir_names(&d).into_iter().map(|p| d.join(p)));
        for dir in dirs.into_iter().filter(|x| x.join("dev").is_file()) {
            let name = dir.file_name().and_then(|n| n.to_str()).unwrap_or("");
            let number = fs::read_to_string(dir.join("dev")).unwrap_or_default();
            if (by_number && number.trim() == numeric) || (!by_number && name == dev) {
                return Some(dir);
            }
        }
    }
    None
}

/// The disks that block device directory `dir` stands for: itself if a disk, its disk if
/// a partition (the directory above it), the disks below a stacked device (dm, md: its
/// `slaves`), at most `depth` levels down.
fn disks_below(sys: &Path, dir: &Path, depth: u32) -> Vec<PathBuf> {
    if dir.join("partition").is_file() {
        return dir.parent().map(Path::to_path_buf).into_iter().collect();
    }
    let slaves = read_dir_names(&dir.join("slaves"));
    if slaves.is_empty() || depth == 0 {
        return vec![dir.to_path_buf()];
    }
    let mut disks: Vec<PathBuf> = slaves
        .iter()
        .filter_map(|s| dev_dir(sys, s))
        .flat_map(|d| disks_below(sys, &d, depth - 1))
        .collect();
    disks.sort();
    disks.dedup();
    disks
}

/// The interrupt vectors of a device: those of the first of the `msi_irqs` directories
/// `dirs` that lists any (a block device's own or its controller's, a NIC's or its PCI
/// function's), with their affinity from `proc_root`'s irq directory.
fn vectors(dirs: &[PathBuf], proc_root: &Path) -> Vec<Irq> {
    let mut irqs = Vec::new();
    for msi in dirs {
        irqs.extend(
            read_dir_names(msi)
                .iter()
                .filter_map(|name| irq_at(name.parse().ok()?, proc_root)),
        );
        if !irqs.is_empty() {
            break;
        }
    }
    irqs.sort_by_key(|i| i.number);
    irqs
}

/// Interrupt `number` with its affinity from `proc_root`'s irq directory; None where
/// neither list can be read.
fn irq_at(number: u32, proc_root: &Path) -> Option<Irq> {
    let irq_dir = proc_root.join("irq").join(number.to_string());
    let read = |f: &str| {
        fs::read_to_string(irq_dir.join(f))
            .ok()
            .and_then(|s| parse_cpu_list(&s))
    };
    let affinity = read("smp_affinity_list").or_else(|| read("effective_affinity_list"))?;
    let effective = read("effective_affinity_list").unwrap_or_else(|| affinity.clone());
    Some(Irq {
        number,
        affinity,
        effective,
    })
}

/// How many directories above a disk's device [`msi_dirs`] looks at, at most.
const MSI_LEVELS: usize = 8;

/// The `msi_irqs` directories where the vectors of block device directory `dir` may be
/// listed, in order: its `device/` and `device/device/` (an NVMe namespace's controller,
/// a virtio disk's PCI function), then its resolved device path and each directory
/// above it, up to the first PCI function ("0000:00:1f.2"), at most [`MSI_LEVELS`] and
/// never `sys`'s devices itself: an sd disk (SCSI, AHCI, virtio-scsi) is a SCSI device
/// several levels below the PCI function that interrupts for it.
fn msi_dirs(sys: &Path, dir: &Path) -> Vec<PathBuf> {
    let mut dirs = vec![
        dir.join("device/msi_irqs"),
        dir.join("device/device/msi_irqs"),
    ];
    let devices = sys.join("devices");
    let devices = fs::canonicalize(&devices).unwrap_or(devices);
    let Ok(mut at) = fs::canonicalize(dir.join("device")) else {
        return dirs;
    };
    for _ in 0..MSI_LEVELS {
        if at == devices || !at.starts_with(&devices) {
            break;
        }
        dirs.push(at.join("msi_irqs"));
        if at
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(pci_address)
        {
            break;
        }
        match at.parent() {
            Some(up) => at = up.to_path_buf(),
            None => break,
        }
    }
    dirs
}

/// Whether `name` is a PCI function's address, "DDDD:BB:DD.F" (hex digits).
fn pci_address(name: &str) -> bool {
    let hex = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_hexdigit());
    let parts: Vec<&str> = name.split([':', '.']).collect();
    matches!(parts.as_slice(), [d, b, s, f] if hex(d, 4) && hex(b, 2) && hex(s, 2) && hex(f, 1))
}

/// The disk in block device directory `dir`: its hardware queues and their vectors
/// (found as [`msi_dirs`] says, in `sys`).
fn disk_at(sys: &Path, dir: &Path, proc_root: &Path) -> Option<Disk> {
    let name = dir.file_name()?.to_str()?.to_string();
    let number = fs::read_to_string(dir.join("dev")).ok()?.trim().to_string();
    let mut queues: Vec<(u32, Vec<u32>)> = read_dir_names(&dir.join("mq"))
        .into_iter()
        .filter_map(|q| {
            let n = q.parse().ok()?;
            let l = fs::read_to_string(dir.join("mq").join(&q).join("cpu_list")).ok()?;
            Some((n, parse_cpu_list(&l)?))
        })
        .collect();
    queues.sort();
    let msi = msi_dirs(sys, dir);
    Some(Disk::new(
        &name,
        &number,
        &queues,
        &vectors(&msi, proc_root),
    ))
}

/// The disks of the devices numbered `numbers` ("259:0", as the block events name them),
/// each with its queues and vectors, and what was found, in words. Partitions and stacked
/// devices resolve to the disks below them.
pub fn topology<'a>(
    sys: &Path,
    proc_root: &Path,
    numbers: impl IntoIterator<Item = &'a str>,
) -> (Topology, Vec<String>) {
    let mut t = Topology::default();
    let mut notes = Vec::new();
    for number in numbers {
        if t.disks.contains_key(number) {
            continue;
        }
        let Some(dir) = dev_dir(sys, number) else {
            notes.push(format!(
                "block device {number}: not found in this machine's sysfs: its requests are served by the CPUs they completed on"
            ));
            continue;
        };
        let mut below = Vec::new();
        for disk in disks_below(sys, &dir, 4)
            .iter()
            .filter_map(|d| disk_at(sys, d, proc_root))
        {
            below.push(disk.number.clone());
            if !t.disks.contains_key(&disk.number) {
                notes.extend(disk_notes(&disk));
                t.disks.insert(disk.number.clone(), disk);
            }
        }
        // A stacked device's own requests (request-based dm) go to the disks below it.
        if below.iter().any(|n| n != number) {
            t.stacked.insert(number.to_string(), below);
        }
    }
    (t, notes)
}

/// What was found of `d`, in words.
fn disk_notes(d: &Disk) -> Vec<String> {
    let mut notes: Vec<String> = d
        .queues
        .iter()
        .map(|q| {
            let irqs = if q.irqs.is_empty() {
                "no interrupt vector of its own".to_string()
            } else {
                q.irqs
                    .iter()
                    .map(|i| format!("irq {} to {}", i.number, cpu_words(&i.effective)))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            format!(
                "{}: hardware queue {} takes requests from {}; {irqs}",
                d.name,
                q.index,
                cpu_words(&q.cpus)
            )
        })
        .collect();
    if d.queues.iter().all(|q| q.irqs.is_empty()) {
        notes.push(format!(
            "{}: no interrupt vector found (msi_irqs): its requests are served by the CPUs they completed on",
            d.name
        ));
    }
    notes
}

/// Looks NIC `dev` up in sysfs's class/net: its rx queues and their RPS CPUs, the
/// device's MSI vectors (its own `msi_irqs`, or its PCI function's for a virtio NIC;
/// without MSI, its legacy `irq`), named as /proc/interrupts names them, with their CPUs; and what could not be tied, in
/// words.
pub fn netdev(sys: &Path, proc_root: &Path, dev: &str) -> Result<(Nic, Vec<String>), Problem> {
    let class = sys.join("class/net");
    let dir = class.join(dev);
    if dev.is_empty() || dev.contains('/') || !dir.is_dir() {
        return Err(Problem::usage(
            format!("there is no network device {dev} in {}", class.display()),
            "give a name listed in /sys/class/net (ip -br link), e.g. eth0",
        ));
    }
    let mut queues: Vec<(u32, Vec<u32>)> = read_dir_names(&dir.join("queues"))
        .iter()
        .filter_map(|q| {
            let n = q.strip_prefix("rx-")?.parse().ok()?;
            let mask = fs::read_to_string(dir.join("queues").join(q).join("rps_cpus"));
            Some((
                n,
                mask.ok()
                    .and_then(|m| parse_cpu_mask(&m))
                    .unwrap_or_default(),
            ))
        })
        .collect();
    if queues.is_empty() {
        queues.push((0, Vec::new()));
    }
    let device = fs::canonicalize(dir.join("device")).ok();
    let mut msi = vec![dir.join("device/msi_irqs")];
    msi.extend(
        device
            .iter()
            .filter_map(|d| Some(d.parent()?.join("msi_irqs"))),
    );
    let virtio = device
        .as_ref()
        .and_then(|d| d.file_name()?.to_str().map(str::to_string))
        .filter(|n| n.starts_with("virtio"));
    let names = fs::read_to_string(proc_root.join("interrupts"))
        .map(|t| irq_names(&t))
        .unwrap_or_default();
    let mut found = vectors(&msi, proc_root);
    // No MSI: the legacy interrupt of its device, where it has one.
    if found.is_empty() {
        let legacy = fs::read_to_string(dir.join("device/irq")).ok();
        found.extend(
            legacy
                .and_then(|n| n.trim().parse().ok())
                .filter(|&n| n > 0)
                .and_then(|n| irq_at(n, proc_root)),
        );
    }
    let irqs: Vec<NicIrq> = found
        .into_iter()
        .map(|i| {
            let of = names.get(&i.number).cloned().unwrap_or_default();
            // A vector shared by several actions is tied by the one of this NIC.
            let name = of
                .iter()
                .find(|n| queue_of(n, dev, virtio.as_deref()).is_some())
                .or(of.first())
                .cloned();
            NicIrq {
                number: i.number,
                name,
                cpus: i.effective,
            }
        })
        .collect();
    let nic = Nic::new(dev, &queues, &irqs, virtio.as_deref());
    let notes = nic.notes();
    Ok((nic, notes))
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

    /// Claim: membership read before a span and after it is the union: a thread that
    /// exited meanwhile (301) and a process that joined the cgroup meanwhile (400) are
    /// both kept, with the names read; a process that exec'd meanwhile has its new name.
    #[test]
    fn members_before_and_after_a_span_are_the_union() {
        let sys = tempfile::TempDir::new().unwrap();
        let proc_root = tempfile::TempDir::new().unwrap();
        let cg = sys.path().join("fs/cgroup/app.slice");
        fs::create_dir_all(&cg).unwrap();
        let p = proc_root.path();
        for t in ["300/task/300", "300/task/301"] {
            fs::create_dir_all(p.join(t)).unwrap();
        }
        fs::write(p.join("300/comm"), "cat\n").unwrap();
        fs::write(cg.join("cgroup.procs"), "300\n").unwrap();
        let read = || Members::read(p, cgroup_pids(sys.path(), "/app.slice").unwrap());
        let mut m = read();
        fs::remove_dir(p.join("300/task/301")).unwrap();
        fs::create_dir_all(p.join("400/task/400")).unwrap();
        fs::write(p.join("400/comm"), "dd\n").unwrap();
        fs::write(cg.join("cgroup.procs"), "300\n400\n").unwrap();
        fs::write(p.join("300/comm"), "sh\n").unwrap();
        m.add(read());
        let threads: Vec<(i32, Vec<i32>)> = m
            .threads
            .iter()
            .map(|(p, t)| (*p, t.iter().copied().collect()))
            .collect();
        assert_eq!(threads, [(300, vec![300, 301]), (400, vec![400])]);
        assert_eq!(m.names[&300], "sh");
        assert_eq!(m.names[&400], "dd");
    }

    /// An AHCI machine's sysfs with links, as the kernel has it: disk sda (8:0, one
    /// hardware queue of CPUs 0-1) is a SCSI device under ata1/host0/target0:0:0 below
    /// the PCI function 0000:00:1f.2, whose MSI vector 30 (of CPUs 0-1) goes to CPU 1; its
    /// root port 0000:00:1c.0 above it has a vector (31, to CPU 0) of its own. The
    /// sysfs and the proc root.
    fn ahci_sysfs() -> (tempfile::TempDir, tempfile::TempDir) {
        let sys = tempfile::TempDir::new().unwrap();
        let proc_root = tempfile::TempDir::new().unwrap();
        let port = sys.path().join("devices/pci0000:00/0000:00:1c.0");
        let pci = port.join("0000:00:1f.2");
        let scsi = pci.join("ata1/host0/target0:0:0/0:0:0:0");
        let disk = scsi.join("block/sda");
        fs::create_dir_all(disk.join("mq/0")).unwrap();
        fs::write(disk.join("dev"), "8:0\n").unwrap();
        fs::write(disk.join("mq/0/cpu_list"), "0-1\n").unwrap();
        std::os::unix::fs::symlink("../../../0:0:0:0", disk.join("device")).unwrap();
        fs::create_dir_all(sys.path().join("block")).unwrap();
        std::os::unix::fs::symlink(&disk, sys.path().join("block/sda")).unwrap();
        for (dev, irq, cpu) in [(&pci, 30, "1"), (&port, 31, "0")] {
            fs::create_dir_all(dev.join(format!("msi_irqs/{irq}"))).unwrap();
            let p = proc_root.path().join(format!("irq/{irq}"));
            fs::create_dir_all(&p).unwrap();
            fs::write(p.join("smp_affinity_list"), "0-1\n").unwrap();
            fs::write(p.join("effective_affinity_list"), format!("{cpu}\n")).unwrap();
        }
        (sys, proc_root)
    }

    /// Claim: an sd disk's vectors are found on the PCI function several levels above
    /// its SCSI device (irq 30 of 0000:00:1f.2), not on the root port above that.
    #[test]
    fn an_sd_disks_vectors_are_its_pci_functions() {
        let (sys, proc_root) = ahci_sysfs();
        let (t, notes) = topology(sys.path(), proc_root.path(), ["8:0"]);
        let sda = t.disk("8:0").unwrap();
        let irqs: Vec<u32> = sda.queues[0].irqs.iter().map(|i| i.number).collect();
        assert_eq!(irqs, [30], "{notes:?}");
        assert_eq!(sda.queues[0].irqs[0].effective, [1]);
        assert!(pci_address("0000:00:1f.2") && !pci_address("0:0:0:0"));
    }

    /// Claim: a dm device (253:0) over two disks maps to both, so that its own requests
    /// (request-based dm, dm-mpath) are served by their queues; `--device dm-0` stands
    /// for its own number as well as theirs.
    #[test]
    fn a_dm_devices_number_maps_to_its_disks() {
        let sys = tempfile::TempDir::new().unwrap();
        let proc_root = tempfile::TempDir::new().unwrap();
        for (name, number) in [("sda", "8:0"), ("sdb", "8:16")] {
            let b = sys.path().join("block").join(name);
            fs::create_dir_all(b.join("mq/0")).unwrap();
            fs::write(b.join("dev"), format!("{number}\n")).unwrap();
            fs::write(b.join("mq/0/cpu_list"), "0-1\n").unwrap();
        }
        let dm = sys.path().join("block/dm-0");
        for s in ["sda", "sdb"] {
            fs::create_dir_all(dm.join("slaves").join(s)).unwrap();
        }
        fs::write(dm.join("dev"), "253:0\n").unwrap();
        let (t, _) = topology(sys.path(), proc_root.path(), ["253:0", "8:0"]);
        let names: Vec<&str> = t
            .disks_of("253:0")
            .iter()
            .map(|d| d.name.as_str())
            .collect();
        assert_eq!(names, ["sda", "sdb"]);
        assert_eq!(t.disks_of("8:0")[0].name, "sda");
        assert!(!t.stacked.contains_key("8:0"));
        let d = device(sys.path(), "dm-0").unwrap();
        assert_eq!(d.numbers, ["8:0", "8:16", "253:0"]);
    }

    /// Claim: a process whose name is not UTF-8 (in comm and in its threads' stat) is
    /// still found, its name read with U+FFFD, and its threads' last CPUs read.
    #[test]
    fn a_task_name_that_is_not_utf8_is_read() {
        let root = tempfile::TempDir::new().unwrap();
        let task = root.path().join("70/task/70");
        fs::create_dir_all(&task).unwrap();
        fs::write(root.path().join("70/comm"), b"d\xffd\n").unwrap();
        let mut fields: Vec<String> = (3..=52).map(|n| n.to_string()).collect();
        fields[39 - 3] = "3".into();
        let mut stat = b"70 (d\xffd) ".to_vec();
        stat.extend(fields.join(" ").bytes());
        fs::write(task.join("stat"), stat).unwrap();
        let (comm, cpus) = task_cpus(root.path(), 70).unwrap();
        assert_eq!(comm, "d\u{fffd}d");
        assert_eq!(cpus.into_iter().collect::<Vec<_>>(), [3]);
    }
}
