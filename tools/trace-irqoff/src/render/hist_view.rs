// SPDX-License-Identifier: GPL-2.0
//! `hist`.

use std::fmt::Write;

use serde::Serialize;

use crate::model::snapshot::{Cause, Kind, KindLabel, Snapshot, NR_BUCKETS};

/// `hist --json`.
#[derive(Serialize)]
pub struct HistJson {
    /// Bucket k holds latencies of [2^k, 2^(k+1)) ms.
    bucket_ms: Vec<[u64; 2]>,
    hard: Vec<u64>,
    soft: Vec<u64>,
    /// `soft` split by cause (records format v2 on; absent before).
    #[serde(skip_serializing_if = "Option::is_none")]
    soft_bh_off: Option<Vec<u64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    soft_ksoftirqd_wait: Option<Vec<u64>>,
    per_cpu: Option<Vec<CpuHist>>,
}

#[derive(Serialize)]
struct CpuHist {
    cpu: u32,
    hard: Vec<u64>,
    soft: Vec<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    soft_bh_off: Option<Vec<u64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    soft_ksoftirqd_wait: Option<Vec<u64>>,
}

/// The softirq causes a snapshot splits its counts by: none before records format v2.
fn causes(s: &Snapshot) -> &'static [Cause] {
    if s.version >= 2 {
        &[Cause::BhOff, Cause::KsoftirqdWait]
    } else {
        &[]
    }
}

pub fn json(s: &Snapshot, per_cpu: bool) -> HistJson {
    let split = s.version >= 2;
    HistJson {
        bucket_ms: (0..NR_BUCKETS)
            .map(|k| {
                let (a, b) = super::bucket_range(k);
                [a, b]
            })
            .collect(),
        hard: super::summed(s, Kind::Hard, None),
        soft: super::summed(s, Kind::Soft, None),
        soft_bh_off: split.then(|| super::summed(s, Kind::Soft, Some(Cause::BhOff))),
        soft_ksoftirqd_wait: split
            .then(|| super::summed(s, Kind::Soft, Some(Cause::KsoftirqdWait))),
        per_cpu: per_cpu.then(|| {
            s.cpus
                .iter()
                .map(|c| CpuHist {
                    cpu: c.cpu,
                    hard: c.hard_hist.clone(),
                    soft: c.soft_hist.clone(),
                    soft_bh_off: split.then(|| c.soft_bh_off_hist.clone()),
                    soft_ksoftirqd_wait: split.then(|| c.soft_ksoftirqd_wait_hist.clone()),
                })
                .collect()
        }),
    }
}

pub fn text(s: &Snapshot, per_cpu: bool, kind: Option<Kind>) -> String {
    let kinds: Vec<Kind> = kind.map_or(vec![Kind::Hard, Kind::Soft], |k| vec![k]);
    let mut o = String::new();
    if let Some(orig) = &s.original_hist {
        // The original module: only its summed rows, with its own bucket edges.
        for (k, rows) in orig.iter().filter(|(k, _)| kinds.contains(k)) {
            let max = rows.iter().map(|r| r.count).max().unwrap_or(0).max(1);
            // Not the module's edges: the original labels its buckets by its own period.
            let _ = writeln!(o, "{}:", k.label());
            let _ = writeln!(o, "{:9}msecs{:10} : {:<9} distribution", "", "", "count");
            for r in rows {
                let _ = writeln!(
                    o,
                    "{:>10} -> {:<10} : {:<8} |{:<40}|",
                    r.lo_ms,
                    r.hi_ms,
                    r.count,
                    "*".repeat((r.count * 40 / max) as usize)
                );
            }
        }
        return if o.is_empty() {
            "no events\n".into()
        } else {
            o
        };
    }
    // Softirqs: all of them, then each cause (format v2).
    let mut views: Vec<(Kind, Option<Cause>)> = Vec::new();
    for k in kinds {
        views.push((k, None));
        if k == Kind::Soft {
            views.extend(causes(s).iter().map(|&c| (k, Some(c))));
        }
    }
    for (k, cause) in views {
        let label = super::kind_cause(k, cause);
        if per_cpu {
            for c in &s.cpus {
                o += &super::histogram(&format!("{label} cpu {}:", c.cpu), c.hist(k, cause));
            }
        } else {
            o += &super::histogram(&format!("{label}:"), &super::summed(s, k, cause));
        }
    }
    if o.is_empty() {
        o = "no events\n".into();
    }
    o
}
