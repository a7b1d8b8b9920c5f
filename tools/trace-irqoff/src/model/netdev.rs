// SPDX-License-Identifier: GPL-2.0
//! `--netdev DEV`: a NIC's receive path, and so the CPUs whose windows can have held its
//! NET_RX softirqs: its rx queues (`/sys/class/net/DEV/queues/rx-N`) → the MSI vector of
//! each (one of the device's `msi_irqs`, tied to its queue by its name in
//! /proc/interrupts: "eth0-rx-0", "eth0-TxRx-0", "eth0-0", virtio's "virtio0-input.0") →
//! the CPUs it goes to (`effective_affinity_list`), where NET_RX polls the queue; and each
//! queue's RPS CPUs (`rps_cpus`), where NET_RX processes the packets steered there. A
//! virtual NIC (veth, lo) has no interrupt: its packets are received as NET_RX on the
//! sending CPU, or on the RPS CPUs. A NET_RX delay on a CPU outside these is not the
//! NIC's, and a window there never explains the NIC's. Pure: what `cmd::explain::sources`
//! read in, the CPUs and the words out.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use serde::{Deserialize, Serialize};

use super::delay::{cpu_list, cpu_words, Delay, DelayKind};

/// One interrupt vector of a NIC.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NicIrq {
    pub number: u32,
    /// Its name in /proc/interrupts ("eth0-rx-0"), where it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The CPUs it goes to (`effective_affinity_list`, else `smp_affinity_list`).
    pub cpus: Vec<u32>,
}

/// One receive queue: the vectors that serve it and its RPS CPUs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RxQueue {
    pub index: u32,
    pub irqs: Vec<NicIrq>,
    /// Its vectors are tied to it by their names; false: none was, so every vector of
    /// the device is taken as its.
    pub tied: bool,
    /// The CPUs RPS steers its packets to (`rps_cpus`); empty: RPS is off.
    pub rps_cpus: Vec<u32>,
}

/// A NIC's receive path, as read from sysfs and /proc.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Nic {
    /// "eth0".
    pub name: String,
    pub queues: Vec<RxQueue>,
    /// The CPUs its NET_RX runs on, ascending: its queues' vectors' and their RPS CPUs.
    /// Empty with `any_cpu`.
    pub cpus: Vec<u32>,
    /// No interrupt and no RPS (a virtual NIC: veth, lo): its NET_RX runs on the sending
    /// CPU, which can be any.
    pub any_cpu: bool,
}

impl Nic {
    /// NIC `name` with rx queues `queues` (index, RPS CPUs) and the device's vectors
    /// `irqs`; `virtio` is the name of its virtio device ("virtio0"), whose vectors are
    /// named after it. Each vector goes to the queue its name is of; a queue no vector
    /// is named for gets every vector of the device.
    pub fn new(
        name: &str,
        queues: &[(u32, Vec<u32>)],
        irqs: &[NicIrq],
        virtio: Option<&str>,
    ) -> Self {
        let mut by_queue: BTreeMap<u32, Vec<NicIrq>> = BTreeMap::new();
        for irq in irqs {
            if let Some(q) = irq.name.as_deref().and_then(|n| queue_of(n, name, virtio)) {
                by_queue.entry(q).or_default().push(irq.clone());
            }
        }
        let mut qs: Vec<RxQueue> = queues
            .iter()
            .map(|(index, rps)| {
                let tied = by_queue.remove(index);
                RxQueue {
                    index: *index,
                    tied: tied.is_some(),
                    irqs: tied.unwrap_or_else(|| irqs.to_vec()),
                    rps_cpus: rps.clone(),
                }
            })
            .collect();
        qs.sort_by_key(|q| q.index);
        let cpus: BTreeSet<u32> = qs
            .iter()
            .flat_map(|q| q.irqs.iter().flat_map(|i| &i.cpus).chain(&q.rps_cpus))
            .copied()
            .collect();
        Nic {
            name: name.to_string(),
            queues: qs,
            any_cpu: cpus.is_empty(),
            cpus: cpus.into_iter().collect(),
        }
    }

    /// Whether any vector serves it (none: a virtual NIC, or no MSI found).
    pub fn has_irqs(&self) -> bool {
        self.queues.iter().any(|q| !q.irqs.is_empty())
    }

    /// Whether its NET_RX runs on `cpu`.
    pub fn serves(&self, cpu: u32) -> bool {
        self.any_cpu || self.cpus.contains(&cpu)
    }

    /// Why `cpu` serves it, in words: "CPU 1 takes eth0's rx queue 1 (irq 42)", "CPU 1
    /// is an RPS CPU of veth0's rx queue 0".
    pub fn why(&self, cpu: u32) -> Vec<String> {
        if self.any_cpu {
            return vec![format!(
                "{} has no interrupt and no RPS: its NET_RX runs on the sending CPU, any",
                self.name
            )];
        }
        let mut out = Vec::new();
        let goes_here = |i: &&NicIrq| i.cpus.contains(&cpu);
        let queues = self.queues_where(|q| q.irqs.iter().any(|i| goes_here(&i)));
        if !queues.is_empty() {
            let irqs: BTreeSet<u32> = self
                .queues
                .iter()
                .flat_map(|q| q.irqs.iter().filter(goes_here))
                .map(|i| i.number)
                .collect();
            out.push(format!(
                "CPU {cpu} takes {}'s {} ({})",
                self.name,
                plural(&queues, "rx queue", "rx queues"),
                plural(&irqs.into_iter().collect::<Vec<_>>(), "irq", "irqs")
            ));
        }
        let rps = self.queues_where(|q| q.rps_cpus.contains(&cpu));
        if !rps.is_empty() {
            out.push(format!(
                "CPU {cpu} is an RPS CPU of {}'s {}",
                self.name,
                plural(&rps, "rx queue", "rx queues")
            ));
        }
        out
    }

    /// The indices of its queues for which `pred` holds.
    fn queues_where(&self, pred: impl Fn(&RxQueue) -> bool) -> Vec<u32> {
        self.queues
            .iter()
            .filter(|q| pred(q))
            .map(|q| q.index)
            .collect()
    }

    /// Its path in one paragraph: "eth0 (--netdev): rx queue 0: irq 41 (eth0-rx-0) to CPU
    /// 0; rx queue 1: irq 42 (eth0-rx-1) to CPU 1. Its NET_RX delays are those on CPUs
    /// 0-1 ...", or for a virtual NIC "veth0 (--netdev) has no interrupt ...".
    pub fn words(&self) -> String {
        let mut s = if self.has_irqs() {
            let queues: Vec<String> = self.queues.iter().map(queue_words).collect();
            format!("{} (--netdev): {}.", self.name, queues.join("; "))
        } else {
            let rps: Vec<String> = self
                .queues
                .iter()
                .filter(|q| !q.rps_cpus.is_empty())
                .map(|q| format!("rx queue {} to {}", q.index, cpu_words(&q.rps_cpus)))
                .collect();
            let whom = if rps.is_empty() {
                ", which can be any (no RPS).".to_string()
            } else {
                format!(", or where RPS steers them: {}.", rps.join(", "))
            };
            format!(
                "{} (--netdev) has no interrupt (no device/msi_irqs nor device/irq: a virtual NIC): its packets are received as NET_RX on the sending CPU{whom}",
                self.name
            )
        };
        if self.any_cpu {
            let _ = write!(
                s,
                " Every NET_RX delay is taken as {}'s: the softirq does not name its device.",
                self.name
            );
        } else {
            let _ = write!(
                s,
                " Its NET_RX delays are those on {} (the softirq does not name its device: another NIC's there count too); a window on another CPU never explains them.",
                cpu_words(&self.cpus)
            );
        }
        s
    }

    /// What could not be tied, in words: the queues that got every vector.
    pub fn notes(&self) -> Vec<String> {
        let untied = self.queues_where(|q| !q.tied && !q.irqs.is_empty());
        if untied.is_empty() {
            return Vec::new();
        }
        vec![format!(
            "{}: no vector in /proc/interrupts is named for its {} (as DEV-rx-N, DEV-TxRx-N, DEV-N or virtioN-input.N): every vector of the device is taken as serving {}",
            self.name,
            plural(&untied, "rx queue", "rx queues"),
            if untied.len() == 1 { "it" } else { "them" }
        )]
    }
}

/// A queue of a NIC with vectors: "rx queue 1: irq 42 (eth0-rx-1) to CPU 1, RPS to CPU 2".
fn queue_words(q: &RxQueue) -> String {
    let irqs: Vec<String> = q
        .irqs
        .iter()
        .map(|i| {
            let name = i
                .name
                .as_ref()
                .map(|n| format!(" ({n})"))
                .unwrap_or_default();
            format!("irq {}{name} to {}", i.number, cpu_words(&i.cpus))
        })
        .collect();
    let mut s = format!("rx queue {}: ", q.index);
    s.push_str(&if q.tied {
        irqs.join(", ")
    } else {
        format!("no vector named for it, so all: {}", irqs.join(", "))
    });
    if !q.rps_cpus.is_empty() {
        let _ = write!(s, ", RPS to {}", cpu_words(&q.rps_cpus));
    }
    s
}

/// "rx queue 1", "rx queues 0-3".
fn plural(v: &[u32], one: &str, more: &str) -> String {
    let list = cpu_list(v);
    if v.len() == 1 {
        format!("{one} {list}")
    } else {
        format!("{more} {list}")
    }
}

/// Keeps, of the softirq delays of `delays`, the NET_RX delays on `nic`'s CPUs, each with
/// why that CPU serves it first in its evidence; other delays are left alone. What it
/// left out, in words: the NET_RX delays on other CPUs, which are not the NIC's.
pub fn attribute(delays: &mut Vec<Delay>, nic: &Nic) -> Option<String> {
    let mut elsewhere = Vec::new();
    delays.retain(|d| {
        let net_rx = d.vector.as_deref() == Some("NET_RX");
        let its = d.cpus.iter().all(|&c| nic.serves(c));
        if d.kind == DelayKind::Softirq && net_rx && !its {
            elsewhere.extend(d.cpus.iter().copied());
        }
        d.kind != DelayKind::Softirq || (net_rx && its)
    });
    for d in delays.iter_mut().filter(|d| d.kind == DelayKind::Softirq) {
        let mut why: Vec<String> = d.cpus.iter().flat_map(|&c| nic.why(c)).collect();
        why.append(&mut d.evidence);
        d.evidence = why;
    }
    let n = elsewhere.len();
    (n > 0).then(|| {
        format!(
            "{} on {} {} not {}'s: no rx queue of it is served there",
            if n == 1 {
                "1 NET_RX delay".to_string()
            } else {
                format!("{n} NET_RX delays")
            },
            cpu_words(&elsewhere),
            if n == 1 { "is" } else { "are" },
            nic.name
        )
    })
}

/// The rx queue a vector named `irq` serves, of NIC `dev` (virtio device `virtio`):
/// "eth0-rx-0", "eth0-TxRx-0", "eth0-rxtx-0", "eth0-0", "i40e-eth0-TxRx-0" and
/// "virtio0-input.0" serve queue 0; "eth0-tx-0", "eth0" (link events) and others none.
pub fn queue_of(irq: &str, dev: &str, virtio: Option<&str>) -> Option<u32> {
    if let Some(v) = virtio {
        if let Some(n) = irq.strip_prefix(v).and_then(|r| r.strip_prefix("-input.")) {
            return n.parse().ok();
        }
    }
    let at = irq
        .match_indices(dev)
        .map(|(i, _)| i)
        .find(|&i| (i == 0 || irq[..i].ends_with('-')) && irq[i + dev.len()..].starts_with('-'))?;
    let rest = &irq[at + dev.len() + 1..];
    let (kind, n) = rest.rsplit_once('-').unwrap_or(("", rest));
    let kind = kind.to_ascii_lowercase();
    let rx = matches!(kind.as_str(), "" | "rx" | "txrx" | "rxtx" | "combined");
    if rx {
        n.parse().ok()
    } else {
        None
    }
}

/// The names of the interrupts in /proc/interrupts text `text`, by number: the last word
/// of each numbered line (its action; several sharing a line are joined by ", ").
pub fn irq_names(text: &str) -> BTreeMap<u32, Vec<String>> {
    let mut names = BTreeMap::new();
    for line in text.lines() {
        let Some((n, rest)) = line.trim_start().split_once(':') else {
            continue;
        };
        let Ok(n) = n.parse::<u32>() else {
            continue;
        };
        // "eth0-rx-0" or "a, b": the actions follow the last run of spaces before them.
        let mut words: Vec<&str> = rest.split_whitespace().collect();
        let mut actions = Vec::new();
        while let Some(w) = words.pop() {
            actions.push(w.trim_end_matches(',').to_string());
            if !words.last().is_some_and(|p| p.ends_with(',')) {
                break;
            }
        }
        actions.reverse();
        names.insert(n, actions);
    }
    names
}

/// A CPU mask as the kernel writes one (`rps_cpus`: hex, 32-bit words separated by
/// commas, most significant first: "00000000,00000002" is CPU 1); None when malformed.
pub fn parse_cpu_mask(s: &str) -> Option<Vec<u32>> {
    let mut cpus = Vec::new();
    let digits: Vec<char> = s.trim().chars().filter(|&c| c != ',').collect();
    for (i, c) in digits.iter().rev().enumerate() {
        let v = c.to_digit(16)?;
        let base = u32::try_from(i).ok()?.checked_mul(4)?;
        cpus.extend((0..4).filter(|b| v & (1 << b) != 0).map(|b| base + b));
    }
    Some(cpus)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn irq(number: u32, name: &str, cpus: &[u32]) -> NicIrq {
        NicIrq {
            number,
            name: Some(name.into()),
            cpus: cpus.to_vec(),
        }
    }

    /// Claim: an RPS mask is read as the kernel writes it, hex words separated by commas,
    /// most significant first: "00000000,00000002" is CPU 1, "1,00000001" CPUs 0 and 32,
    /// "0" none; a mask that is not hex is refused.
    #[test]
    fn rps_masks_are_hex_words() {
        assert_eq!(parse_cpu_mask("00000000,00000002\n"), Some(vec![1]));
        assert_eq!(parse_cpu_mask("1,00000001"), Some(vec![0, 32]));
        assert_eq!(parse_cpu_mask("f0"), Some(vec![4, 5, 6, 7]));
        assert_eq!(parse_cpu_mask("0"), Some(vec![]));
        assert_eq!(parse_cpu_mask("00000000,0000000g"), None);
    }

    /// Claim: a vector is tied to the rx queue its name says, as drivers name them
    /// (igb, ixgbe, i40e, bnxt, virtio-net), and a transmit or link vector to none; a
    /// name of another device that ends like it ("xeth0") is not its.
    #[test]
    fn vector_names_tie_to_rx_queues() {
        for (name, q) in [
            ("eth0-rx-0", Some(0)),
            ("eth0-TxRx-3", Some(3)),
            ("eth0-rxtx-2", Some(2)),
            ("eth0-1", Some(1)),
            ("i40e-eth0-TxRx-5", Some(5)),
            ("eth0-tx-0", None),
            ("eth0", None),
            ("xeth0-rx-0", None),
            ("eth0-rx-x", None),
        ] {
            assert_eq!(queue_of(name, "eth0", None), q, "{name}");
        }
        assert_eq!(
            queue_of("virtio0-input.1", "eth0", Some("virtio0")),
            Some(1)
        );
        assert_eq!(queue_of("virtio0-output.1", "eth0", Some("virtio0")), None);
        assert_eq!(queue_of("virtio1-input.1", "eth0", Some("virtio0")), None);
    }

    /// Claim: the names of /proc/interrupts are the last word of each numbered line,
    /// several actions of a shared line each; the CPU header and the counters of
    /// NMI, LOC, ... are not vectors.
    #[test]
    fn interrupt_names_are_the_last_words() {
        let text = "           CPU0       CPU1
  40:          0          0  PCI-MSI 524288-edge      eth0
  41:        100          0  PCI-MSI 524289-edge      eth0-rx-0
  16:          3          0  IO-APIC   16-fasteoi   ehci_hcd:usb1, eth1
 NMI:          0          0   Non-maskable interrupts
";
        let n = irq_names(text);
        assert_eq!(n.len(), 3);
        assert_eq!(n[&41], vec!["eth0-rx-0"]);
        assert_eq!(n[&16], vec!["ehci_hcd:usb1", "eth1"]);
    }

    /// A NIC of two rx queues whose vectors are bound to CPUs 0 and 1, with a link
    /// vector that may go to either.
    fn two_queues() -> Nic {
        Nic::new(
            "eth0",
            &[(0, vec![]), (1, vec![])],
            &[
                irq(40, "eth0", &[0, 1]),
                irq(41, "eth0-rx-0", &[0]),
                irq(42, "eth0-rx-1", &[1]),
            ],
            None,
        )
    }

    /// Claim: each queue takes the vector named for it only (not the link vector), and
    /// CPU 1 serves it through queue 1's vector, CPU 2 not at all.
    #[test]
    fn queues_take_the_vectors_named_for_them() {
        let n = two_queues();
        assert_eq!(n.queues[1].irqs, vec![irq(42, "eth0-rx-1", &[1])]);
        assert!(n.queues.iter().all(|q| q.tied));
        assert_eq!(n.cpus, vec![0, 1]);
        assert!(n.serves(1) && !n.serves(2));
        assert_eq!(n.why(1), vec!["CPU 1 takes eth0's rx queue 1 (irq 42)"]);
        assert!(n.notes().is_empty());
    }

    /// Claim: vectors that no name ties to a queue (mlx5's "mlx5_comp0@pci:...") are all
    /// taken as every queue's, and a note says so.
    #[test]
    fn untied_vectors_serve_every_queue() {
        let n = Nic::new(
            "eth0",
            &[(0, vec![]), (1, vec![])],
            &[
                irq(50, "mlx5_comp0@pci:0000:01:00.0", &[2]),
                irq(51, "mlx5_comp1@pci:0000:01:00.0", &[3]),
            ],
            None,
        );
        assert_eq!(n.cpus, vec![2, 3]);
        assert!(n.queues.iter().all(|q| !q.tied && q.irqs.len() == 2));
        assert!(n.notes()[0].contains("rx queues 0-1"), "{:?}", n.notes());
    }

    /// Claim: a virtual NIC (no vector) with RPS runs its NET_RX on its RPS CPUs only;
    /// without RPS on any CPU, and says so.
    #[test]
    fn a_virtual_nic_is_its_rps_cpus_or_any() {
        let rps = Nic::new("veth0", &[(0, vec![1])], &[], None);
        assert_eq!((rps.cpus.clone(), rps.any_cpu), (vec![1], false));
        assert!(rps.serves(1) && !rps.serves(0));
        assert_eq!(
            rps.why(1),
            vec!["CPU 1 is an RPS CPU of veth0's rx queue 0"]
        );
        assert!(
            rps.words().contains("or where RPS steers them"),
            "{}",
            rps.words()
        );
        let any = Nic::new("lo", &[(0, vec![])], &[], None);
        assert!(any.any_cpu && any.serves(7));
        assert!(
            any.words().contains("which can be any (no RPS)"),
            "{}",
            any.words()
        );
    }

    /// Claim: `attribute` keeps the NET_RX delays on the NIC's CPUs, with why first in
    /// their evidence, and drops other softirqs and NET_RX elsewhere; an I/O delay stays.
    #[test]
    fn only_net_rx_on_its_cpus_is_the_nics() {
        let d = |vector: &str, cpu: u32, kind: DelayKind| Delay {
            kind,
            start_ns: 0,
            end_ns: 100,
            cpus: vec![cpu],
            end_cpu: Some(cpu),
            issue_cpu: None,
            evidence: vec![format!("raised and run on CPU {cpu}")],
            device: None,
            vector: Some(vector.into()),
            task: None,
        };
        let mut delays = vec![
            d("NET_RX", 1, DelayKind::Softirq),
            d("NET_RX", 2, DelayKind::Softirq),
            d("TIMER", 1, DelayKind::Softirq),
            d("", 2, DelayKind::Io),
        ];
        assert_eq!(
            attribute(&mut delays, &two_queues()).as_deref(),
            Some("1 NET_RX delay on CPU 2 is not eth0's: no rx queue of it is served there")
        );
        assert_eq!(delays.len(), 2);
        assert_eq!(
            delays[0].evidence,
            vec![
                "CPU 1 takes eth0's rx queue 1 (irq 42)",
                "raised and run on CPU 1"
            ]
        );
        assert_eq!(delays[1].kind, DelayKind::Io);
    }
}
