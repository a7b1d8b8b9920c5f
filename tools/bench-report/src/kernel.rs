// SPDX-License-Identifier: GPL-2.0
//! One kernel's sections, in the document's order, each in a file of its own under
//! kernel/; what it returns are the kernel's target lines.

use std::fmt::Write;
use std::path::Path;

use anyhow::Result;
use serde_json::Value;

use crate::ratios::overhead;
use crate::results::kernel_title;
use crate::rst::heading;
use crate::windows::windows;

mod accuracy;
mod busy;
mod cost;
mod false_events;
mod frames;
mod idle;
mod overhead;
mod precheck;
mod side_by_side;
mod timer_floor;

/// Kernel K's sections (their plots into OUTDIR); returns its target lines.
pub fn section(o: &mut String, k: &Value, outdir: &Path) -> Result<Vec<String>> {
    let title = kernel_title(k);
    heading(o, &title, '=');
    let ws = windows(k);
    let has_peer = ws.iter().any(|w| w.tool == "peer");
    let peer_note = peer_note(k, has_peer);
    if !peer_note.is_empty() {
        let _ = writeln!(
            o,
            "The original (C) trace-irqoff: {peer_note}; its rows say so.\n"
        );
    }
    let mut targets = vec![precheck::section(o, k)];
    targets.push(accuracy::section(o, k, &ws, &title, outdir)?);
    frames::section(o, &ws);
    timer_floor::section(o, k);
    targets.push(false_events::section(o, k));
    let ov = overhead(k);
    targets.extend(overhead::section(o, k, &ov, &title, outdir)?);
    targets.extend(idle::section(o, k));
    targets.extend(busy::section(o, k));
    targets.extend(busy::half_target(k));
    targets.push(cost::section(o, k));
    heading(o, "Side by side with the original", '-');
    if has_peer || !peer_note.is_empty() {
        side_by_side::section(o, k, &ws, &ov, &peer_note);
    }
    Ok(targets)
}

/// Why the original's rows are empty, if they are: the results' own note, or none in
/// this run; empty when it ran.
fn peer_note(k: &Value, has_peer: bool) -> String {
    k["peer_note"]
        .as_str()
        .map(str::to_string)
        .unwrap_or_else(|| {
            if has_peer || k["guest"]["peer"] == true {
                String::new()
            } else {
                "not available (no peer module in this run)".into()
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Claim: a kernel with no data but its name writes every section it always writes
    /// (with its "not measured"), and none of the sections its data is missing for: no
    /// idle or busy wake-ups, no overhead target; the original counts as not there, in
    /// words.
    #[test]
    fn kernel_without_data() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut o = String::new();
        let t = section(&mut o, &json!({"name": "stock"}), dir.path()).expect("written");
        assert!(o.starts_with("Debian's stock kernel (?, HZ ?)\n"), "{o}");
        assert!(o.contains("The original (C) trace-irqoff: not available (no peer module in this run); its rows say so.\n"), "{o}");
        for h in [
            "Precheck: the irqsoff tracer",
            "Accuracy",
            "False events",
            "Overhead",
            "Cost per sample (ours)",
            "Side by side with the original",
        ] {
            assert!(
                o.contains(&format!("\n{h}\n{}\n", "-".repeat(h.len()))),
                "no {h}: {o}"
            );
        }
        assert!(
            !o.contains("Idle wake-ups") && !o.contains("Busy wake-ups"),
            "{o}"
        );
        assert!(
            o.contains("not available (not available (no peer module in this run))"),
            "{o}"
        );
        assert_eq!(t.len(), 4, "{t:?}");
        assert!(
            !t.iter().any(|t| t.starts_with("Overhead at")
                || t.starts_with("An idle CPU")
                || t.starts_with("A busy CPU")),
            "{t:?}"
        );
        assert!(dir.path().join("bench-accuracy-stock.svg").is_file());
    }

    /// Claim: where the original was there but left no window, the side-by-side table
    /// is left out (its heading stays).
    #[test]
    fn peer_without_windows_has_no_side_by_side() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut o = String::new();
        section(&mut o, &json!({"guest": {"peer": true}}), dir.path()).expect("written");
        assert!(o.starts_with("Bench kernel (?, HZ ?)\n"), "{o}");
        assert!(
            o.ends_with("Side by side with the original\n------------------------------\n\n"),
            "{o}"
        );
    }
}
