// SPDX-License-Identifier: GPL-2.0
//! `bench-report RESULTS.json OUTDIR [COMMAND...]`: writes OUTDIR/benchmarks.rst with the
//! tables, and per kernel OUTDIR/bench-accuracy[-NAME].svg and
//! OUTDIR/bench-overhead[-NAME].svg, from the JSON that `tio-bench` printed in the VM
//! (one document, or `{"kernels": [...]}` as `make bench` writes it, one per boot).
//! COMMAND is quoted in the report as the command that produced the figures.
//!
//! Layout: this file reads the arguments and assembles the document from its sections,
//! one file each: `machines`, then per kernel `kernel` (its sections under kernel/:
//! `kernel::precheck`, `kernel::accuracy`, `kernel::frames`, `kernel::timer_floor`,
//! `kernel::false_events`, `kernel::overhead`, `kernel::idle`, `kernel::busy`,
//! `kernel::cost`, `kernel::side_by_side`), `capture`, `scale`, the targets and
//! `reading`. The sections share `rst` (tables, headings), `stats` (the mean, the median,
//! its interval, the verdicts), `results` (the JSON's fields, a kernel's names),
//! `windows` (the accuracy windows and a tool's outcome), `ratios` (the overhead runs as
//! ratios), `false_counts` (sums of the false-event runs), `script_boot` (a script boot's
//! summary and figures) and `plots` (the SVGs); these never use a section.

use std::fmt::Write;
use std::path::Path;

use anyhow::{bail, Context, Result};
use serde_json::Value;

mod capture;
mod false_counts;
mod kernel;
mod machines;
mod plots;
mod ratios;
mod reading;
mod results;
mod rst;
mod scale;
mod script_boot;
mod stats;
mod windows;

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        bail!("usage: bench-report RESULTS.json OUTDIR [COMMAND...]");
    }
    let doc: Value =
        serde_json::from_str(&std::fs::read_to_string(&args[1]).with_context(|| args[1].clone())?)?;
    let outdir = Path::new(&args[2]);
    let command = if args.len() > 3 {
        args[3..].join(" ")
    } else {
        "make bench".into()
    };
    let o = document(&doc, outdir, &command)?;
    std::fs::write(outdir.join("benchmarks.rst"), o)?;
    Ok(())
}

/// The document for the results DOC produced by COMMAND (its plots into OUTDIR).
fn document(doc: &Value, outdir: &Path, command: &str) -> Result<String> {
    let kernels: Vec<Value> = match doc["kernels"].as_array() {
        Some(ks) => ks.clone(),
        None => vec![doc.clone()],
    };
    let mut o = String::new();
    preamble(&mut o, doc, command);
    machines::section(&mut o, doc, &kernels);
    let mut all_targets = Vec::new();
    for k in &kernels {
        let t = kernel::section(&mut o, k, outdir)?;
        all_targets.push((results::kernel_title(k), t));
    }
    if let Some(c) = doc.get("capture") {
        capture::section(&mut o, c);
    }
    if let Some(sc) = doc.get("scale") {
        scale::section(&mut o, sc);
    }
    rst::heading(&mut o, "Targets", '=');
    for (title, ts) in &all_targets {
        let _ = writeln!(o, "{title}:\n");
        for t in ts {
            let _ = writeln!(o, "- {t}");
        }
        let _ = writeln!(o);
    }
    let _ = writeln!(o, "{}", reading::READING);
    Ok(o)
}

/// The document's title and where its figures come from.
fn preamble(o: &mut String, doc: &Value, command: &str) {
    let title = "trace_irqoff benchmarks: accuracy and overhead, next to the original";
    let _ = writeln!(
        o,
        ".. SPDX-License-Identifier: GPL-2.0\n\n{}\n{title}\n{}\n",
        "=".repeat(title.len()),
        "=".repeat(title.len())
    );
    let secs = doc["host_seconds"].as_u64().map_or(String::new(), |s| {
        format!(" It took {} min {} s of host time", s / 60, s % 60)
    });
    let _ = writeln!(o, "Produced by ``{command}`` (results: ``bench/results.json``), all figures from one run: one\nVM boot per kernel.{secs}{}\n", if secs.is_empty() { "" } else { "." });
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Claim: the document quotes the command and the host time, and writes the capture
    /// and scale sections only for results that have them, before the targets.
    #[test]
    fn capture_and_scale_only_when_there() {
        let dir = tempfile::tempdir().expect("tempdir");
        let bare =
            json!({"host_seconds": 125, "kernels": [{"name": "bench", "guest": {"peer": true}}]});
        let o = document(&bare, dir.path(), "make bench").expect("written");
        assert!(o.contains("Produced by ``make bench`` (results: ``bench/results.json``), all figures from one run: one\nVM boot per kernel. It took 2 min 5 s of host time.\n"), "{o}");
        assert!(
            !o.contains("At scale") && !o.contains("Cost per record and per NMI"),
            "{o}"
        );
        let mut full = bare.clone();
        full["scale"] = json!({"cpus": 64, "kernel": "7.1", "passed": 3, "measured": ["load 1 ms"], "failed": ["x"]});
        full["capture"] = json!({"kernel": "7.3", "passed": 2});
        let o = document(&full, dir.path(), "make bench").expect("written");
        let (capture, scale) = (
            o.find("\nCost per record and per NMI\n"),
            o.find("\nAt scale: 64 vCPUs\n"),
        );
        let targets = o.find("\nTargets\n=======\n");
        assert!(
            capture < scale && scale < targets && capture.is_some(),
            "{o}"
        );
        assert!(o.contains("- ``load 1 ms``\n- failed: ``x``\n"), "{o}");
        assert!(o.contains("Its checks: 3 passed, 1 failed."), "{o}");
    }
}
