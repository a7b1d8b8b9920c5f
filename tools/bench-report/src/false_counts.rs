// SPDX-License-Identifier: GPL-2.0
//! Sums over a kernel's false-event runs: a tool's events by kind and cause, and how the
//! kernel's own trace judged ours.

use serde_json::Value;

use crate::results::items;

/// Our events in the false-event runs as the kernel's trace judged them: (traced,
/// unconfirmed, unjudged, runs without a witness).
pub fn witness_sums(k: &Value) -> (u64, u64, u64, u64) {
    let mut s = (0, 0, 0, 0);
    for r in items(&k["false_events"]) {
        if r["tool"].as_str().unwrap_or("ours") != "ours" {
            continue;
        }
        let w = &r["witness"];
        if w.is_null() || !w["error"].is_null() {
            s.3 += 1;
            continue;
        }
        let n = |key: &str| w[key].as_u64().unwrap_or(0);
        s.0 += n("events");
        s.1 += n("unconfirmed");
        s.2 += n("unjudged");
    }
    s
}

/// Sums of one tool's false-event runs: (hard, bh-off, ksoftirqd-wait, soft total).
pub fn false_sums(k: &Value, tool: &str) -> (u64, u64, u64, u64) {
    let mut s = (0, 0, 0, 0);
    for r in items(&k["false_events"]) {
        if r["tool"].as_str().unwrap_or("ours") != tool {
            continue;
        }
        let n = |key: &str| r[key].as_u64().unwrap_or(0);
        s.0 += n("hard_events");
        s.1 += n("soft_bh_off_events");
        s.2 += n("soft_ksoftirqd_wait_events");
        s.3 += n("soft_events");
    }
    s
}
