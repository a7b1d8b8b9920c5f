// SPDX-License-Identifier: GPL-2.0
//! `metrics`: the counters in the Prometheus text exposition format, for node_exporter's
//! textfile collector. Metric names are documented in Documentation/trace-irqoff-cli.rst.

use std::fmt::Write;

use super::bucket_range;
use crate::snapshot::{Cause, Kind, Snapshot};

/// The series of one CPU: hardirq, then softirq by cause (records format v2 on) or
/// softirq as a whole (before, when the split is unknown), each with its labels.
fn series(s: &Snapshot, cpu: u32) -> Vec<(Kind, Option<Cause>, String)> {
    let mut v = vec![(Kind::Hard, None, format!("cpu=\"{cpu}\",kind=\"hard\""))];
    if s.version >= 2 {
        for c in [Cause::BhOff, Cause::KsoftirqdWait] {
            v.push((Kind::Soft, Some(c), format!("cpu=\"{cpu}\",kind=\"soft\",cause=\"{}\"", c.name())));
        }
    } else {
        v.push((Kind::Soft, None, format!("cpu=\"{cpu}\",kind=\"soft\"")));
    }
    v
}

/// The whole exposition.
pub fn exposition(s: &Snapshot) -> String {
    let mut o = String::new();
    let family = |o: &mut String, name: &str, kind: &str, help: &str| {
        let _ = writeln!(o, "# HELP {name} {help}");
        let _ = writeln!(o, "# TYPE {name} {kind}");
    };
    let secs = |ns: u64| ns as f64 / 1e9;
    family(&mut o, "trace_irqoff_enabled", "gauge", "1 while sampling is enabled.");
    let _ = writeln!(o, "trace_irqoff_enabled {}", u8::from(s.config.enabled));
    family(&mut o, "trace_irqoff_sampling_period_seconds", "gauge", "Sampling period P.");
    let _ = writeln!(o, "trace_irqoff_sampling_period_seconds {}", secs(s.config.period_ns));
    family(&mut o, "trace_irqoff_threshold_seconds", "gauge", "Latency from which stacks are recorded.");
    let _ = writeln!(o, "trace_irqoff_threshold_seconds {}", secs(s.config.threshold_ns));
    family(&mut o, "trace_irqoff_cpu_online", "gauge", "1 if the CPU is online.");
    for c in &s.cpus {
        let _ = writeln!(o, "trace_irqoff_cpu_online{{cpu=\"{}\"}} {}", c.cpu, u8::from(c.online));
    }
    family(&mut o, "trace_irqoff_events_total", "counter", "Detected hardirq-off (kind=hard) and softirq-off (kind=soft, by cause=bh-off|ksoftirqd-wait) sections since the last clear.");
    for c in &s.cpus {
        for (kind, cause, labels) in series(s, c.cpu) {
            let n = match (kind, cause) {
                (Kind::Hard, _) => c.hard_events,
                (Kind::Soft, None) => c.soft_events,
                (Kind::Soft, Some(Cause::BhOff)) => c.soft_bh_off_events,
                (Kind::Soft, Some(Cause::KsoftirqdWait)) => c.soft_ksoftirqd_wait_events,
            };
            let _ = writeln!(o, "trace_irqoff_events_total{{{labels}}} {n}");
        }
    }
    family(&mut o, "trace_irqoff_events_bucket_total", "counter", "Sections by latency bucket [min_ms, max_ms] (log2 buckets), since the last clear.");
    for c in &s.cpus {
        for (kind, cause, labels) in series(s, c.cpu) {
            for (k, n) in c.hist(kind, cause).iter().enumerate().filter(|(_, n)| **n != 0) {
                let (lo, hi) = bucket_range(k);
                let _ = writeln!(o, "trace_irqoff_events_bucket_total{{{labels},min_ms=\"{lo}\",max_ms=\"{hi}\"}} {n}");
            }
        }
    }
    family(&mut o, "trace_irqoff_records_dropped_total", "counter", "Events not recorded because the CPU's buffer held only worse ones.");
    for c in &s.cpus {
        let _ = writeln!(o, "trace_irqoff_records_dropped_total{{cpu=\"{}\"}} {}", c.cpu, c.dropped);
    }
    family(&mut o, "trace_irqoff_records_replaced_total", "counter", "Records overwritten by a worse event.");
    for c in &s.cpus {
        let _ = writeln!(o, "trace_irqoff_records_replaced_total{{cpu=\"{}\"}} {}", c.cpu, c.replaced);
    }
    family(&mut o, "trace_irqoff_worst_latency_seconds", "gauge", "Worst recorded latency per CPU and kind since the last clear.");
    for c in &s.cpus {
        for (kind, cause, labels) in series(s, c.cpu) {
            let worst = s
                .records
                .iter()
                .filter(|r| r.cpu == c.cpu && r.kind == kind && (kind == Kind::Hard || r.cause == cause))
                .map(|r| r.latency_ns)
                .max()
                .unwrap_or(0);
            let _ = writeln!(o, "trace_irqoff_worst_latency_seconds{{{labels}}} {}", secs(worst));
        }
    }
    if let Some(tw) = &s.tag_wait {
        family(&mut o, "trace_irqoff_tag_wait_enabled", "gauge", "1 while blk-mq tag-wait tracking is on.");
        let _ = writeln!(o, "trace_irqoff_tag_wait_enabled{{source=\"{}\"}} {}", tw.source, u8::from(tw.enabled));
        family(&mut o, "trace_irqoff_tag_waits_total", "counter", "Submitters that slept for a blk-mq tag, by device, hardware queue and pool.");
        for c in &tw.counts {
            let _ = writeln!(
                o,
                "trace_irqoff_tag_waits_total{{dev=\"{}:{}\",hctx=\"{}\",pool=\"{}\",reserved=\"{}\"}} {}",
                c.major, c.minor, c.hctx, c.pool, u8::from(c.reserved), c.waits
            );
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn softirq_series_carry_the_cause_from_v2_on() {
        let v2 = exposition(&crate::snapshot::parse(include_str!("../../tests/fixtures/records-v2.txt")).unwrap());
        for line in [
            "trace_irqoff_events_total{cpu=\"2\",kind=\"hard\"} 0",
            "trace_irqoff_events_total{cpu=\"2\",kind=\"soft\",cause=\"bh-off\"} 2",
            "trace_irqoff_events_total{cpu=\"2\",kind=\"soft\",cause=\"ksoftirqd-wait\"} 2",
            "trace_irqoff_events_bucket_total{cpu=\"2\",kind=\"soft\",cause=\"ksoftirqd-wait\",min_ms=\"32\",max_ms=\"63\"} 1",
            "trace_irqoff_events_bucket_total{cpu=\"1\",kind=\"hard\",min_ms=\"64\",max_ms=\"127\"} 1",
            "trace_irqoff_worst_latency_seconds{cpu=\"2\",kind=\"soft\",cause=\"ksoftirqd-wait\"} 0.06425",
            "trace_irqoff_worst_latency_seconds{cpu=\"0\",kind=\"soft\",cause=\"bh-off\"} 0.100111",
        ] {
            assert!(v2.lines().any(|l| l == line), "{line}\n{v2}");
        }
        assert!(!v2.contains("kind=\"soft\"}"), "{v2}");
        // v1 cannot split softirq events: one series without the label, as before.
        let v1 = exposition(&crate::snapshot::parse(include_str!("../../tests/fixtures/records-v1.txt")).unwrap());
        assert!(v1.lines().any(|l| l == "trace_irqoff_events_total{cpu=\"1\",kind=\"soft\"} 1"), "{v1}");
        assert!(!v1.contains("cause=\""), "{v1}");
    }
}
