// SPDX-License-Identifier: GPL-2.0
//! The "Accuracy" section: every injected window's detection and error per (P, kind, D),
//! ours next to the original and the irqsoff tracer, its plot, and our verdict.

use std::fmt::Write;
use std::path::Path;

use anyhow::Result;
use serde_json::Value;

use crate::plots;
use crate::results::{irqsoff_state, suffix};
use crate::rst::{heading, table};
use crate::stats::{median, range, verdict};
use crate::windows::{expected_detection, outcome, rows, soft_rule, Window};

/// The section of kernel K, titled TITLE, with the windows WS (its plot into OUTDIR);
/// returns its target line.
pub fn section(
    o: &mut String,
    k: &Value,
    ws: &[Window],
    title: &str,
    outdir: &Path,
) -> Result<String> {
    heading(o, "Accuracy", '-');
    let _ = writeln!(o, "Each window was injected on CPU 1 by ``irqoff_sample`` at a random phase ({} per D and tool);\nthe sample measures its true length. *err* is reported - true latency in ms over the\nwindows with a report (median, min..max); *theory* is the detection probability of a sampler\nwith period P, ours: 100% from 2P, (D - P)/P between P and 2P, for both kinds (the softirq side\nsees windows at the hrtimer's resolution, through its looks and the softirq probe). Kinds ``ipi``,\n``hrtimer``, ``timerirq`` (hardirq-off) and ``timer`` (softirq-off) are windows in interrupt context on\nCPU 1 while it is idle: an IPI function, a hard hrtimer callback, a timer_list callback with\ninterrupts off and one with them on, asked from CPU 0. Ours reports every event through its tracepoint; the\noriginal (peer) only through its ``trace_latency`` records (threshold 2P, latency in whole ms)\nand its ``distribute`` counts: it counts as detecting a window if either shows an event of\nthat kind (any CPU), and its err is that of its largest record on CPU 1 (its final record; its\nhrtimer's ``+ms`` lower bound when that was all: marked). The irqsoff column is the tracer's\nreading - true, over the hardirq windows of both tools, with the number of windows whose\nreading was that window's (floor D/2, CPU 1, started in the sample).\n", k["reps"]);
    accuracy_table(o, k, ws);
    let svg = format!("bench-accuracy{}.svg", suffix(k));
    plots::accuracy(&outdir.join(&svg), ws, title)?;
    let _ = writeln!(o, ".. image:: {svg}\n   :alt: reported vs true latency with the +/- P band, ours and the original\n");
    let ours = outcome(ws, "ours", k);
    let _ = writeln!(o, "Ours: detection 100% for D >= 2P: **{}**; abs(reported - true) <= P for every detected window: **{}**.\n", verdict(ours.all_detected), verdict(ours.within_p));
    for m in &ours.missed {
        let _ = writeln!(o, "- not all detected: {m}");
    }
    for m in &ours.outside {
        let _ = writeln!(o, "- error beyond P: {m}");
    }
    let notes: Vec<String> = ours.missed.iter().chain(&ours.outside).cloned().collect();
    if !notes.is_empty() {
        let _ = writeln!(o, "\nSee *Reading these numbers* for why.\n");
    }
    Ok(format!(
        "Detection 100% for D >= 2P: **{}**; abs(err) <= P: **{}**{}",
        verdict(ours.all_detected),
        verdict(ours.within_p),
        if notes.is_empty() {
            String::new()
        } else {
            format!(" ({})", notes.join("; "))
        }
    ))
}

fn accuracy_table(o: &mut String, k: &Value, ws: &[Window]) {
    let has_peer = ws.iter().any(|w| w.tool == "peer");
    let irq_ok = irqsoff_state(k).is_ok();
    let mut table_rows = Vec::new();
    for (p, kind, d) in rows(ws, None) {
        let d_ms = d as f64 / 1000.0;
        let cell = |tool: &str| {
            let s: Vec<&Window> = ws
                .iter()
                .filter(|w| w.tool == tool && w.at(p, &kind, d))
                .collect();
            tool_cells(&s)
        };
        let (od, oe) = cell("ours");
        let mut row = vec![
            format!("{p}"),
            kind.clone(),
            format!("{d_ms}"),
            format!(
                "{:.0}%",
                expected_detection(&kind, d_ms, p as f64, soft_rule(k, p)) * 100.0
            ),
            od,
            oe,
        ];
        if has_peer {
            let (pd, pe) = cell("peer");
            row.extend([pd, pe]);
        }
        if kind == "hard" && irq_ok {
            let all: Vec<&Window> = ws.iter().filter(|w| w.at(p, &kind, d)).collect();
            row.push(irqsoff_cell(&all));
        } else {
            row.push("-".into());
        }
        table_rows.push(row);
    }
    let mut head = vec![
        "P ms",
        "kind",
        "D ms",
        "theory",
        "ours detected",
        "ours err median (min..max)",
    ];
    if has_peer {
        head.extend(["peer detected", "peer err median (min..max)"]);
    }
    head.push("irqsoff err median");
    table(o, &head, &table_rows);
}

/// A tool's cells of one row, its windows S: detected of all, and its error.
fn tool_cells(s: &[&Window]) -> (String, String) {
    if s.is_empty() {
        return ("-".into(), "-".into());
    }
    let det = s.iter().filter(|w| w.detected).count();
    let mut err: Vec<f64> = s.iter().filter_map(|w| w.err_ms()).collect();
    let lb = s.iter().filter(|w| w.lower_bound).count();
    let mut e = fmt_err(&mut err);
    if lb > 0 {
        e.push_str(&format!(" [{lb} lower bound]"));
    }
    (format!("{det}/{}", s.len()), e)
}

fn fmt_err(err: &mut [f64]) -> String {
    if err.is_empty() {
        return "-".into();
    }
    let (lo, hi) = range(err);
    format!("{:+.2} ({lo:+.2}..{hi:+.2})", median(err))
}

/// The irqsoff tracer's error over a row's hardirq windows ALL, both tools'.
fn irqsoff_cell(all: &[&Window]) -> String {
    let mut irq: Vec<f64> = all
        .iter()
        .filter_map(|w| w.irqsoff_ms.map(|i| i - w.true_ms))
        .collect();
    let n_read = irq.len();
    if irq.is_empty() {
        format!("- (0/{} read)", all.len())
    } else {
        format!("{:+.3} ({n_read}/{} read)", median(&mut irq), all.len())
    }
}
