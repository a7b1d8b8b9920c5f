// SPDX-License-Identifier: GPL-2.0
//! The "Side by side with the original" section: ours and the original on detection,
//! error, events with nothing injected, loop overhead and the records' frames.

use serde_json::Value;

use crate::false_counts::{false_sums, witness_sums};
use crate::ratios::Overhead;
use crate::rst::table;
use crate::stats::{median, ratio_cell};
use crate::windows::{outcome, AccOutcome, Window};

/// The section's table for kernel K, its windows WS and overhead runs OV; the
/// original's column says PEER_NOTE where it did not run.
pub fn section(o: &mut String, k: &Value, ws: &[Window], ov: &[Overhead], peer_note: &str) {
    let has_peer = ws.iter().any(|w| w.tool == "peer");
    let mut rows = Vec::new();
    let mut row = |what: String, cell: &dyn Fn(&str) -> String| {
        let peer = if has_peer {
            cell("peer")
        } else {
            format!("not available ({peer_note})")
        };
        rows.push(vec![what, cell("ours"), peer]);
    };
    let (ours, peer) = (outcome(ws, "ours", k), outcome(ws, "peer", k));
    let of = |tool: &str| if tool == "ours" { &ours } else { &peer };
    for key in ["hard P=10", "soft P=10", "hard P=1", "soft P=1"] {
        row(format!("detected, D >= 2P, {key} ms"), &|t| {
            of(t)
                .det_2p
                .get(key)
                .map_or("-".into(), |(d, n)| format!("{d}/{n}"))
        });
    }
    row("abs(err) ms, median / max".into(), &|t| abs_err(of(t)));
    row("events in the idle + stress runs".into(), &|t| events(k, t));
    for (p, ocfg, pcfg) in [(10, "ours_p10", "peer_p10"), (1, "ours_p1", "peer_p1")] {
        row(
            format!("loop overhead ratio at P = {p} ms (95% CI)"),
            &|t| {
                let c = if t == "ours" { ocfg } else { pcfg };
                ov.iter().find(|r| r.config == c).map_or("-".into(), |r| {
                    let (m, ci) = ratio_cell(&r.spin);
                    format!("{m} ({ci})")
                })
            },
        );
    }
    row("records naming the window function".into(), &|t| {
        window_fn(ws, t)
    });
    table(o, &["", "ours", "original (C)"], &rows);
}

/// The median and the largest of a tool's absolute errors.
fn abs_err(oc: &AccOutcome) -> String {
    let mut v = oc.abs_err.clone();
    if v.is_empty() {
        "-".into()
    } else {
        format!(
            "{:.2} / {:.2}",
            median(&mut v),
            v.iter().copied().fold(0.0, f64::max)
        )
    }
}

/// A tool's events in the false-event runs; ours by cause and as the trace judged them.
fn events(k: &Value, tool: &str) -> String {
    let (h, bh, wait, soft) = false_sums(k, tool);
    if tool != "ours" {
        return format!("{h} hardirq, {soft} softirq (no cause)");
    }
    let (traced, unconfirmed, unjudged, untraced) = witness_sums(k);
    let judged = if untraced == 0 {
        format!(
            "; {} of {traced} confirmed by the kernel's trace",
            traced - unconfirmed - unjudged
        )
    } else {
        String::new()
    };
    format!("{h} hardirq, {bh} bh-off, {wait} ksoftirqd-wait{judged}")
}

/// How many of a tool's records name the window function first, and anywhere.
fn window_fn(ws: &[Window], tool: &str) -> String {
    let sel: Vec<&Window> = ws
        .iter()
        .filter(|w| w.tool == tool && w.first_frame.is_some())
        .collect();
    if sel.is_empty() {
        return "-".to_string();
    }
    format!(
        "{}/{} first, {}/{} anywhere",
        sel.iter().filter(|w| w.window_fn_at == Some(0)).count(),
        sel.len(),
        sel.iter().filter(|w| w.window_fn_at.is_some()).count(),
        sel.len()
    )
}
