// SPDX-License-Identifier: GPL-2.0
//! Tag-wait for people: the `tagwait` command's table, counters and histogram, and the
//! line `status` ends with.

use std::fmt::Write;

use crate::model::tag_wait::TagWait;

/// What `tagwait` prints: `tw` is the snapshot's, none from a module without tracking.
pub fn text(tw: Option<&TagWait>) -> String {
    let Some(tw) = tw else {
        return "this trace_irqoff module has no tag-wait tracking\n".into();
    };
    let mut o = String::new();
    let state = tw
        .switching
        .as_deref()
        .unwrap_or(if tw.enabled { "enabled" } else { "disabled" });
    let _ = writeln!(o, "tag-wait tracking: {} (source: {})", state, tw.source);
    if tw.counts.is_empty() {
        let _ = writeln!(o, "no waits counted");
    } else {
        let _ = writeln!(
            o,
            "{:>10} {:>6}  {:<20} {:>10}",
            "DEV", "HCTX", "POOL", "WAITS"
        );
        let mut rows = tw.counts.clone();
        rows.sort_by_key(|c| std::cmp::Reverse(c.waits));
        for c in rows {
            let pool = if c.reserved {
                format!("{} reserved", c.pool)
            } else {
                c.pool.clone()
            };
            let _ = writeln!(
                o,
                "{:>10} {:>6}  {:<20} {:>10}",
                format!("{},{}", c.major, c.minor),
                c.hctx,
                pool,
                c.waits
            );
        }
    }
    if tw.overflow + tw.unattributed + tw.missed > 0 {
        let _ = writeln!(
            o,
            "not counted per device: {} (table full), {} (queue unknown, {} of them with too many waiters at once); durations missed: {}",
            tw.overflow, tw.unattributed, tw.kicks_full, tw.missed
        );
    }
    if tw.aged_out > 0 {
        let _ = writeln!(
            o,
            "aged out: {} waits of rows idle for a minute, whose entries went to new rows",
            tw.aged_out
        );
    }
    let _ = tio_logic::hist::render_counts(&mut o, "wait duration:", "usecs", &tw.duration_hist_us);
    o
}

/// The line `status` ends with.
pub fn status_line(tw: &TagWait) -> String {
    let waits: u64 = tw.counts.iter().map(|c| c.waits).sum();
    let state = tw
        .switching
        .as_deref()
        .unwrap_or(if tw.enabled { "enabled" } else { "disabled" });
    format!(
        "tag-wait tracking: {} (source: {}), {} waits counted",
        state, tw.source, waits
    )
}
