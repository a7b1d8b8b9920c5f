// SPDX-License-Identifier: GPL-2.0
//! The real path of a block request, and so the CPUs whose windows can have held it: the
//! CPU it was issued on → the hardware queue whose CPU list holds that CPU
//! (`/sys/block/DEV/mq/N/cpu_list`) → that queue's interrupt vector (the device's MSI
//! vector whose affinity is that queue's CPUs, as blk-mq's PCI queue map builds the queues
//! from the vectors' affinity) → the CPUs that vector goes to
//! (`/proc/irq/N/effective_affinity_list`); and the CPU the completion ran on (where
//! `rq_affinity` may have sent it). A window on a CPU outside that path never explains
//! the request. Pure: what `cmd::explain::sources` read in, a path out.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::delay::{cpu_list, cpu_words, Delay, DelayKind};

/// One interrupt vector of a device.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Irq {
    pub number: u32,
    /// The CPUs it may go to (`smp_affinity_list`; for a managed vector, its queue's).
    pub affinity: Vec<u32>,
    /// The CPUs it goes to (`effective_affinity_list`; the affinity where not given).
    pub effective: Vec<u32>,
}

/// One hardware queue: the CPUs whose requests it takes, and its interrupt vectors.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Queue {
    pub index: u32,
    pub cpus: Vec<u32>,
    /// Its vectors (none found: empty).
    pub irqs: Vec<Irq>,
}

/// A disk's queues, as read from sysfs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Disk {
    /// "nvme0n1".
    pub name: String,
    /// "259:0", as the block events name it.
    pub number: String,
    pub queues: Vec<Queue>,
    /// Vectors of the device that no queue's CPUs match (an admin queue's, say).
    pub other_irqs: Vec<Irq>,
}

impl Disk {
    /// A disk with queues `queues` (index, CPUs) and the device's vectors `irqs`, each
    /// vector given to the queue whose CPUs are its affinity, else to those queues whose
    /// CPUs its affinity covers (a vector shared by several queues).
    pub fn new(name: &str, number: &str, queues: &[(u32, Vec<u32>)], irqs: &[Irq]) -> Self {
        let mut qs: Vec<Queue> = queues
            .iter()
            .map(|(index, cpus)| Queue {
                index: *index,
                cpus: cpus.clone(),
                irqs: Vec::new(),
            })
            .collect();
        qs.sort_by_key(|q| q.index);
        let mut other_irqs = Vec::new();
        for irq in irqs {
            let affinity: BTreeSet<u32> = irq.affinity.iter().copied().collect();
            let exact: Vec<usize> = qs
                .iter()
                .enumerate()
                .filter(|(_, q)| q.cpus.iter().copied().collect::<BTreeSet<_>>() == affinity)
                .map(|(i, _)| i)
                .collect();
            let targets = if exact.is_empty() {
                qs.iter()
                    .enumerate()
                    .filter(|(_, q)| {
                        !q.cpus.is_empty() && q.cpus.iter().all(|c| affinity.contains(c))
                    })
                    .map(|(i, _)| i)
                    .collect()
            } else {
                exact
            };
            // A vector that may go to every CPU serves no queue in particular: the one
            // vector of a device whose queues are not spread over vectors (or an admin
            // queue's) is matched only where it is the only one.
            let all_queues = !qs.is_empty() && targets.len() == qs.len() && qs.len() > 1;
            if targets.is_empty() || (all_queues && irqs.len() > 1) {
                other_irqs.push(irq.clone());
                continue;
            }
            for i in targets {
                if let Some(q) = qs.get_mut(i) {
                    q.irqs.push(irq.clone());
                }
            }
        }
        Disk {
            name: name.to_string(),
            number: number.to_string(),
            queues: qs,
            other_irqs,
        }
    }

    /// The queue that takes the requests issued on `cpu`.
    pub fn queue_of(&self, cpu: u32) -> Option<&Queue> {
        self.queues.iter().find(|q| q.cpus.contains(&cpu))
    }
}

/// The CPUs that served one request, and why, in words.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RequestPath {
    /// Ascending.
    pub cpus: Vec<u32>,
    pub evidence: Vec<String>,
    /// The path could not be followed past the completion (no queue map, no vector):
    /// only the completion's CPU is known to have served it.
    pub partial: bool,
}

/// The path of a request of `disk` (None: its queues are not known) issued on
/// `issue_cpu` (None: its issue was not traced) and completed on `complete_cpu`.
pub fn request_path(disk: Option<&Disk>, issue_cpu: Option<u32>, complete_cpu: u32) -> RequestPath {
    let mut cpus = BTreeSet::from([complete_cpu]);
    let mut partial = true;
    let issued = match (disk, issue_cpu) {
        (Some(d), Some(issued)) => match d.queue_of(issued) {
            Some(q) if !q.irqs.is_empty() => {
                let vectors: Vec<String> = q
                    .irqs
                    .iter()
                    .map(|i| {
                        cpus.extend(i.effective.iter().copied());
                        format!("irq {} to {}", i.number, cpu_words(&i.effective))
                    })
                    .collect();
                partial = false;
                format!(
                    "issued on CPU {issued} (hardware queue {} of CPUs {}, {})",
                    q.index,
                    cpu_list(&q.cpus),
                    vectors.join(", ")
                )
            }
            Some(q) => format!(
                "issued on CPU {issued} (hardware queue {} of CPUs {}, no interrupt vector of its own found)",
                q.index,
                cpu_list(&q.cpus)
            ),
            None => format!(
                "issued on CPU {issued} (no hardware queue of {} lists that CPU)",
                d.name
            ),
        },
        (Some(_), None) | (None, None) => "its issue not traced".to_string(),
        (None, Some(issued)) => format!("issued on CPU {issued}"),
    };
    RequestPath {
        cpus: cpus.into_iter().collect(),
        evidence: vec![format!("{issued}, completed on CPU {complete_cpu}")],
        partial,
    }
}

/// The disks below what the user named, and the disks themselves, by number: a
/// partition stands for its disk, a stacked device (dm, md) for the disks below it, as
/// `cmd::explain::sources` resolved them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Topology {
    pub disks: BTreeMap<String, Disk>,
    /// A stacked device's number and the numbers of the disks below it: a
    /// request-based dm device (dm-mpath) has requests of its own ("253:0"), served by
    /// the queues of the disks it sends them to.
    pub stacked: BTreeMap<String, Vec<String>>,
}

impl Topology {
    pub fn disk(&self, number: &str) -> Option<&Disk> {
        self.disks.get(number)
    }

    /// The disks that serve the requests of device `number`: itself if a disk, the
    /// disks below it if a stacked device; none where neither is known.
    pub fn disks_of(&self, number: &str) -> Vec<&Disk> {
        match (self.disk(number), self.stacked.get(number)) {
            (Some(d), _) => vec![d],
            (None, Some(below)) => below.iter().filter_map(|n| self.disk(n)).collect(),
            (None, None) => Vec::new(),
        }
    }
}

/// The path of a request of a stacked device sent to one of `disks` (which one the
/// trace does not say): every disk's path, their CPUs together, each said with its
/// disk's name.
fn stacked_path(disks: &[&Disk], issue_cpu: Option<u32>, complete_cpu: u32) -> RequestPath {
    let mut cpus = BTreeSet::new();
    let mut evidence = Vec::new();
    let mut partial = false;
    for d in disks {
        let p = request_path(Some(d), issue_cpu, complete_cpu);
        cpus.extend(p.cpus);
        partial |= p.partial;
        evidence.extend(
            p.evidence
                .into_iter()
                .map(|e| format!("if sent to {}: {e}", d.name)),
        );
    }
    RequestPath {
        cpus: cpus.into_iter().collect(),
        evidence,
        partial,
    }
}

/// Each I/O delay of `delays` served by the CPUs of its path in `topo` (its queue's
/// interrupt CPUs and its completion's CPU), the path in words first in its evidence.
pub fn follow(delays: &mut [Delay], topo: &Topology) {
    for d in delays.iter_mut().filter(|d| d.kind == DelayKind::Io) {
        let Some(end) = d.end_cpu else {
            continue;
        };
        let disks = d
            .device
            .as_deref()
            .map(|n| topo.disks_of(n))
            .unwrap_or_default();
        let p = match disks.as_slice() {
            [] => request_path(None, d.issue_cpu, end),
            [disk] => request_path(Some(disk), d.issue_cpu, end),
            many => stacked_path(many, d.issue_cpu, end),
        };
        d.cpus = p.cpus;
        // The trace's own words on where it was issued and completed give way to the
        // path's, which say them too.
        d.evidence
            .retain(|e| !e.starts_with("issued on CPU") && !e.starts_with("completed on CPU"));
        let mut evidence = p.evidence;
        evidence.append(&mut d.evidence);
        d.evidence = evidence;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn irq(number: u32, affinity: &[u32], effective: &[u32]) -> Irq {
        Irq {
            number,
            affinity: affinity.to_vec(),
            effective: effective.to_vec(),
        }
    }

    /// An NVMe drive of a 2-CPU machine: an admin vector that may go anywhere, and one
    /// I/O vector per queue, each bound to its queue's CPU.
    fn nvme() -> Disk {
        Disk::new(
            "nvme0n1",
            "259:0",
            &[(0, vec![0]), (1, vec![1])],
            &[
                irq(24, &[0, 1], &[0]),
                irq(25, &[0], &[0]),
                irq(26, &[1], &[1]),
            ],
        )
    }

    /// Claim: each queue gets the vector whose affinity is its CPUs; the admin vector,
    /// which may go to every CPU, serves no queue.
    #[test]
    fn vectors_go_to_the_queues_of_their_cpus() {
        let d = nvme();
        assert_eq!(d.queues[0].irqs, vec![irq(25, &[0], &[0])]);
        assert_eq!(d.queues[1].irqs, vec![irq(26, &[1], &[1])]);
        assert_eq!(d.other_irqs, vec![irq(24, &[0, 1], &[0])]);
    }

    /// Claim: a request issued and completed on CPU 1 is served by CPU 1 only: a window
    /// on CPU 0 can never explain it.
    #[test]
    fn a_request_on_cpu_1_never_takes_cpu_0() {
        let p = request_path(Some(&nvme()), Some(1), 1);
        assert_eq!(p.cpus, vec![1]);
        assert!(!p.partial);
        assert!(
            p.evidence[0].contains("hardware queue 1"),
            "{:?}",
            p.evidence
        );
        assert!(
            p.evidence[0].contains("irq 26 to CPU 1"),
            "{:?}",
            p.evidence
        );
    }

    /// Claim: a completion redirected elsewhere (rq_affinity) adds its CPU to the path.
    #[test]
    fn a_completion_elsewhere_adds_its_cpu() {
        let p = request_path(Some(&nvme()), Some(1), 0);
        assert_eq!(p.cpus, vec![0, 1]);
    }

    /// Claim: one vector for a queue of several CPUs (fewer vectors than CPUs) serves the
    /// requests of all of them, and goes where its effective affinity says.
    #[test]
    fn a_shared_vector_serves_its_queues_cpus() {
        let d = Disk::new(
            "nvme0n1",
            "259:0",
            &[(0, vec![0, 1]), (1, vec![2, 3])],
            &[irq(30, &[0, 1], &[1]), irq(31, &[2, 3], &[2])],
        );
        assert_eq!(request_path(Some(&d), Some(0), 0).cpus, vec![0, 1]);
        assert_eq!(request_path(Some(&d), Some(3), 3).cpus, vec![2, 3]);
    }

    /// Claim: a device with one vector for all its queues (virtio-blk with one MSI-X
    /// vector, say) sends every request's interrupt to that vector's CPU.
    #[test]
    fn one_vector_for_all_queues_serves_them_all() {
        let d = Disk::new(
            "vda",
            "254:0",
            &[(0, vec![0]), (1, vec![1])],
            &[irq(40, &[0, 1], &[0])],
        );
        assert_eq!(request_path(Some(&d), Some(1), 1).cpus, vec![0, 1]);
    }

    /// Claim: `follow` sets an I/O delay's CPUs to its path's and leaves other delays
    /// alone; a request issued on CPU 1 of the NVMe drive is never served by CPU 0.
    #[test]
    fn follow_sets_the_paths_cpus() {
        let io = Delay {
            kind: DelayKind::Io,
            start_ns: 0,
            end_ns: 100,
            cpus: vec![0, 1],
            end_cpu: Some(1),
            issue_cpu: Some(1),
            evidence: vec![
                "issued on CPU 1, completed on CPU 1".into(),
                "requeued".into(),
            ],
            device: Some("259:0".into()),
            vector: None,
            task: None,
        };
        let soft = Delay {
            kind: DelayKind::Softirq,
            cpus: vec![0],
            device: None,
            ..io.clone()
        };
        let mut t = Topology::default();
        t.disks.insert("259:0".into(), nvme());
        let mut delays = vec![io, soft.clone()];
        follow(&mut delays, &t);
        assert_eq!(delays[0].cpus, vec![1]);
        assert!(delays[0].evidence[0].starts_with("issued on CPU 1 (hardware queue 1"));
        assert_eq!(
            delays[0].evidence.last().map(String::as_str),
            Some("requeued")
        );
        assert_eq!(delays[1], soft);
    }

    /// Claim: a request of a request-based dm device (dm-mpath, 253:0) over two paths is
    /// served by the paths of both disks below it (the trace does not say which it went
    /// to): queue 1's vector of each, to CPU 1 and CPU 3, and the completion's CPU, each
    /// said with its disk; with one disk below, that disk's path alone.
    #[test]
    fn a_request_of_a_stacked_device_takes_the_paths_below_it() {
        let sdb = Disk::new(
            "sdb",
            "8:16",
            &[(0, vec![0]), (1, vec![1])],
            &[irq(40, &[0], &[2]), irq(41, &[1], &[3])],
        );
        let mut t = Topology::default();
        t.disks.insert("259:0".into(), nvme());
        t.disks.insert("8:16".into(), sdb);
        t.stacked
            .insert("253:0".into(), vec!["259:0".into(), "8:16".into()]);
        t.stacked.insert("253:1".into(), vec!["8:16".into()]);
        let io = Delay {
            kind: DelayKind::Io,
            start_ns: 0,
            end_ns: 100,
            cpus: vec![1],
            end_cpu: Some(1),
            issue_cpu: Some(1),
            evidence: Vec::new(),
            device: Some("253:0".into()),
            vector: None,
            task: None,
        };
        let one = Delay {
            device: Some("253:1".into()),
            ..io.clone()
        };
        let mut delays = vec![io, one];
        follow(&mut delays, &t);
        assert_eq!(delays[0].cpus, vec![1, 3]);
        assert!(delays[0].evidence[0].starts_with("if sent to nvme0n1: issued on CPU 1"));
        assert!(delays[0].evidence[1].starts_with("if sent to sdb: issued on CPU 1"));
        assert_eq!(delays[1].cpus, vec![1, 3]);
        assert!(delays[1].evidence[0].starts_with("issued on CPU 1 (hardware queue 1"));
    }

    /// Claim: without the queues (no sysfs, a saved trace) or the issue, only the
    /// completion's CPU is known, and the path says it is partial.
    #[test]
    fn unknown_queues_leave_the_completion_only() {
        let p = request_path(None, Some(1), 1);
        assert_eq!(p.cpus, vec![1]);
        assert!(p.partial);
        let p = request_path(Some(&nvme()), None, 0);
        assert_eq!(p.cpus, vec![0]);
        assert!(p.partial);
        assert_eq!(p.evidence, vec!["its issue not traced, completed on CPU 0"]);
    }
}
