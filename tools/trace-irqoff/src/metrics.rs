// SPDX-License-Identifier: GPL-2.0
//! `metrics`: the counters in the Prometheus text exposition format, for node_exporter's
//! textfile collector. Metric names are documented in Documentation/trace-irqoff-cli.rst.

use std::fmt::Write;

use crate::render::bucket_range;
use crate::snapshot::Snapshot;

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
    family(&mut o, "trace_irqoff_events_total", "counter", "Detected hardirq-off (kind=hard) and softirq-off (kind=soft) sections since the last clear.");
    for c in &s.cpus {
        let _ = writeln!(o, "trace_irqoff_events_total{{cpu=\"{}\",kind=\"hard\"}} {}", c.cpu, c.hard_events);
        let _ = writeln!(o, "trace_irqoff_events_total{{cpu=\"{}\",kind=\"soft\"}} {}", c.cpu, c.soft_events);
    }
    family(&mut o, "trace_irqoff_events_bucket_total", "counter", "Sections by latency bucket [min_ms, max_ms] (log2 buckets), since the last clear.");
    for c in &s.cpus {
        for (kind, hist) in [("hard", &c.hard_hist), ("soft", &c.soft_hist)] {
            for (k, n) in hist.iter().enumerate().filter(|(_, n)| **n != 0) {
                let (lo, hi) = bucket_range(k);
                let _ = writeln!(
                    o,
                    "trace_irqoff_events_bucket_total{{cpu=\"{}\",kind=\"{kind}\",min_ms=\"{lo}\",max_ms=\"{hi}\"}} {n}",
                    c.cpu
                );
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
        for kind in [crate::snapshot::Kind::Hard, crate::snapshot::Kind::Soft] {
            let worst = s.records.iter().filter(|r| r.cpu == c.cpu && r.kind == kind).map(|r| r.latency_ns).max().unwrap_or(0);
            let k = if kind == crate::snapshot::Kind::Hard { "hard" } else { "soft" };
            let _ = writeln!(o, "trace_irqoff_worst_latency_seconds{{cpu=\"{}\",kind=\"{k}\"}} {}", c.cpu, secs(worst));
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
