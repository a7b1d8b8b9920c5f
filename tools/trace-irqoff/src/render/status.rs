// SPDX-License-Identifier: GPL-2.0
//! `status`.

use std::fmt::Write;

use serde::Serialize;

use super::{paint, BOLD};
use crate::procfs::Settings;
use crate::snapshot::{Cpu, Snapshot, TagWait};

/// `status --json`.
#[derive(Serialize)]
pub struct Status {
    loaded: bool,
    #[serde(flatten)]
    settings: Settings,
    hz: u64,
    soft_event_ns: u64,
    records_per_cpu: u32,
    cpus: Vec<Cpu>,
    tag_wait: Option<TagWait>,
}

pub fn json(settings: Settings, s: Snapshot) -> Status {
    Status {
        loaded: true,
        settings,
        hz: s.config.hz,
        soft_event_ns: s.config.soft_event_ns,
        records_per_cpu: s.config.records_per_cpu,
        cpus: s.cpus,
        tag_wait: s.tag_wait,
    }
}

/// "trace_irqoff: enabled, period 10 ms, threshold 60 ms": what a change left.
pub fn settings_line(s: &Settings) -> String {
    let state = if s.enabled { "enabled" } else { "disabled (records stay readable)" };
    format!("trace_irqoff: {state}, period {} ms, threshold {} ms\n", s.period_ms, s.threshold_ms)
}

pub fn text(settings: &Settings, s: &Snapshot, color: bool) -> String {
    let mut o = String::new();
    let state = if settings.enabled { "enabled" } else { "disabled" };
    let _ = writeln!(
        o,
        "trace_irqoff: {}, period {} ms, threshold {} ms, HZ {}, {} records per CPU and kind",
        paint(color, BOLD, state),
        settings.period_ms,
        settings.threshold_ms,
        s.config.hz,
        s.config.records_per_cpu
    );
    let _ = writeln!(
        o,
        "events: hardirq-off from {} ms gaps, softirq-off from {} gaps",
        2 * settings.period_ms,
        super::ms(s.config.soft_event_ns)
    );
    // From format v2 on, softirq events are also split by cause.
    let by_cause = s.version >= 2;
    let split = |bh: &str, ksw: &str| if by_cause { format!(" {bh:>8} {ksw:>14}") } else { String::new() };
    let _ = writeln!(
        o,
        "{:>4}  {:<7} {:>12} {:>12}{} {:>8} {:>9} {:>10}",
        "CPU",
        "online",
        "hardirq-off",
        "softirq-off",
        split("bh-off", "ksoftirqd-wait"),
        "dropped",
        "replaced",
        "idle gaps"
    );
    for c in &s.cpus {
        let _ = writeln!(
            o,
            "{:>4}  {:<7} {:>12} {:>12}{} {:>8} {:>9} {:>10}",
            c.cpu,
            if c.online { "yes" } else { "no" },
            c.hard_events,
            c.soft_events,
            split(&c.soft_bh_off_events.to_string(), &c.soft_ksoftirqd_wait_events.to_string()),
            c.dropped,
            c.replaced,
            c.idle_gaps
        );
    }
    if let Some(tw) = &s.tag_wait {
        let waits: u64 = tw.counts.iter().map(|c| c.waits).sum();
        let _ = writeln!(o, "tag-wait tracking: {} (source: {}), {} waits counted", if tw.enabled { "enabled" } else { "disabled" }, tw.source, waits);
    }
    o
}
