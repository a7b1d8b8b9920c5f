// SPDX-License-Identifier: GPL-2.0
//! The "Which frame the records name first" section: per tool, P and kind, the most
//! common first frame of the windows' records and where the window function stands.

use std::collections::BTreeMap;
use std::fmt::Write;

use crate::rst::{heading, table};
use crate::stats::median;
use crate::windows::Window;

/// The section over the windows WS.
pub fn section(o: &mut String, ws: &[Window]) {
    heading(o, "Which frame the records name first", '-');
    let _ = writeln!(o, "For each window with a record on CPU 1 (ours: from 50 ms, its records threshold; the\noriginal: its largest record), the record's first frame and where the sample's window\nfunction (``irqoff_sample_hardirq_window`` / ``irqoff_sample_softirq_window``) stands.\n");
    let mut fr = frames_rows(ws, "ours", "ours");
    fr.extend(frames_rows(ws, "peer", "original (C)"));
    table(
        o,
        &[
            "tool",
            "P ms",
            "kind",
            "records",
            "first frame (most common)",
            "window fn first",
            "window fn in stack",
            "its depth (median)",
        ],
        &fr,
    );
}

/// Most common first frame of a tool's records (kind, P), with counts.
fn frames_rows(ws: &[Window], tool: &str, label: &str) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    for p in [10u64, 1] {
        for kind in ["hard", "soft"] {
            let sel: Vec<&Window> = ws
                .iter()
                .filter(|w| {
                    w.tool == tool && w.period_ms == p && w.kind == kind && w.first_frame.is_some()
                })
                .collect();
            if sel.is_empty() {
                continue;
            }
            let mut row = vec![label.to_string(), format!("{p}"), kind.to_string()];
            row.extend(frame_cells(&sel));
            rows.push(row);
        }
    }
    rows
}

/// The cells of one (tool, P, kind) row from its windows with a record, SEL.
fn frame_cells(sel: &[&Window]) -> Vec<String> {
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for w in sel {
        // "name+0x1f/0x30 [mod]" -> "name [mod]"
        let fr = w.first_frame.as_deref().unwrap_or("");
        let name = fr.split('+').next().unwrap_or(fr);
        let module = fr.split_whitespace().nth(1).unwrap_or("");
        *counts
            .entry(format!("{name} {module}").trim().to_string())
            .or_default() += 1;
    }
    let (top, c) = counts
        .iter()
        .max_by_key(|(_, c)| **c)
        .map(|(f, c)| (f.clone(), *c))
        .unwrap_or_default();
    let first = sel.iter().filter(|w| w.window_fn_at == Some(0)).count();
    let named = sel.iter().filter(|w| w.window_fn_at.is_some()).count();
    let mut depth: Vec<f64> = sel
        .iter()
        .filter_map(|w| w.window_fn_at.map(|d| d as f64))
        .collect();
    vec![
        format!("{}", sel.len()),
        format!("``{top}`` ({c}/{})", sel.len()),
        format!("{first}/{}", sel.len()),
        format!("{named}/{}", sel.len()),
        if depth.is_empty() {
            "-".into()
        } else {
            format!("{:.0}", median(&mut depth))
        },
    ]
}
