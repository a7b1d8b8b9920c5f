// SPDX-License-Identifier: GPL-2.0
//! The tag-wait families of `metrics` (Prometheus text exposition format 0.0.4; names and
//! labels in Documentation/trace-irqoff-cli.rst): the switch, the waits per device,
//! hardware queue and pool, the waits not counted per device or not timed, and the
//! histogram of durations.

use std::fmt::Write;

use crate::model::tag_wait::TagWait;
use crate::render::prom::{family, histogram, log2_buckets};

/// The tag-wait families of `metrics` (after the latency ones, as a module has them).
pub fn families(o: &mut String, tw: &TagWait) {
    family(
        o,
        "trace_irqoff_tag_wait_enabled",
        "gauge",
        "1 while blk-mq tag-wait tracking is on.",
    );
    let _ = writeln!(
        o,
        "trace_irqoff_tag_wait_enabled{{source=\"{}\"}} {}",
        tw.source,
        u8::from(tw.enabled)
    );
    family(
        o,
        "trace_irqoff_tag_waits_total",
        "counter",
        "Submitters that slept for a blk-mq tag, by device, hardware queue and pool.",
    );
    for c in &tw.counts {
        let _ = writeln!(
            o,
            "trace_irqoff_tag_waits_total{{dev=\"{}:{}\",hctx=\"{}\",pool=\"{}\",reserved=\"{}\"}} {}",
            c.major, c.minor, c.hctx, c.pool, u8::from(c.reserved), c.waits
        );
    }
    family(
        o,
        "trace_irqoff_tag_waits_unattributed_total",
        "counter",
        "Tag waits not counted per device: table full, or hardware queue unknown.",
    );
    let _ = writeln!(
        o,
        "trace_irqoff_tag_waits_unattributed_total{{reason=\"table_full\"}} {}",
        tw.overflow
    );
    let _ = writeln!(
        o,
        "trace_irqoff_tag_waits_unattributed_total{{reason=\"queue_unknown\"}} {}",
        tw.unattributed
    );
    family(
        o,
        "trace_irqoff_tag_wait_durations_missed_total",
        "counter",
        "Tag waits whose duration was not measured.",
    );
    let _ = writeln!(
        o,
        "trace_irqoff_tag_wait_durations_missed_total {}",
        tw.missed
    );
    family(o, "trace_irqoff_tag_wait_duration_seconds", "histogram", "How long submitters slept for a tag. _sum is the module's exact sum (older modules: each wait at its bucket's midpoint).");
    let exact = tw.duration_sum_us.map(|us| us as f64 / 1e6);
    histogram(
        o,
        "trace_irqoff_tag_wait_duration_seconds",
        "",
        &log2_buckets(&tw.duration_hist_us, 1e-6),
        exact,
    );
}
