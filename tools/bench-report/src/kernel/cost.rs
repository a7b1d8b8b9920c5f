// SPDX-License-Identifier: GPL-2.0
//! The "Cost per sample (ours)" section: our handlers' own timing per P and sampler, the
//! CPU share, the memory, and the target of at most 2 us a sample.

use std::fmt::Write;

use serde_json::Value;

use crate::results::num;
use crate::rst::{heading, table};
use crate::stats::verdict;

/// The section of kernel K; returns its target line.
pub fn section(o: &mut String, k: &Value) -> String {
    heading(o, "Cost per sample (ours)", '-');
    let _ = writeln!(o, "The module times its own handlers (one run in 17), both CPUs busy in a loop for 5 s. Median and p99 are upper edges of\nlog2 buckets. CPU share: handler time per second of one CPU, both samplers.\n");
    let mut rows = Vec::new();
    let mut worst_mean_ns: f64 = 0.0;
    for key in ["cost_p10", "cost_p1"] {
        worst_mean_ns = worst_mean_ns.max(period_rows(&k[key], &mut rows));
    }
    table(
        o,
        &[
            "P ms",
            "sampler",
            "runs",
            "mean ns",
            "median ns <=",
            "p99 ns <=",
        ],
        &rows,
    );
    let _ = writeln!(o, "Memory: ``{}`` (Rust allocations at the default 16 records per CPU and kind, {} CPUs;\nplus one static per-CPU ``timer_list`` in the C shim).\n", k["cost_p10"]["memory"].as_str().unwrap_or("?"), k["guest"]["cpus"]);
    format!(
        "Handler cost <= 2 us per sample: **{}** (worst mean {worst_mean_ns:.0} ns)",
        verdict(worst_mean_ns <= 2000.0)
    )
}

/// The rows of one P's cost C (each sampler's, then both's CPU share) into ROWS; returns
/// the worst mean in ns.
fn period_rows(c: &Value, rows: &mut Vec<Vec<String>>) -> f64 {
    let p = num(&c["period_ms"]);
    let mut share = 0.0;
    let mut worst_mean_ns: f64 = 0.0;
    for kind in ["hard", "soft"] {
        let runs = num(&c[kind]["runs"]);
        let mean = num(&c[kind]["total_ns"]) / runs.max(1.0);
        let hist: Vec<u64> = c[kind]["hist_ns_log2"]
            .as_array()
            .map(|a| a.iter().map(|v| v.as_u64().unwrap_or(0)).collect())
            .unwrap_or_default();
        worst_mean_ns = worst_mean_ns.max(mean);
        share += runs * mean / (num(&c["seconds"]).max(1.0) * 1e9) / 2.0;
        rows.push(vec![
            format!("{p}"),
            kind.into(),
            format!("{runs}"),
            format!("{mean:.0}"),
            format!("{}", log2_percentile(&hist, 0.5)),
            format!("{}", log2_percentile(&hist, 0.99)),
        ]);
    }
    rows.push(vec![
        format!("{p}"),
        "both".into(),
        String::new(),
        String::new(),
        String::new(),
        format!("CPU share {:.4}%", share * 100.0),
    ]);
    worst_mean_ns
}

/// Median and p99 from a log2 histogram: the upper edge of the bucket that holds them.
fn log2_percentile(hist: &[u64], q: f64) -> u64 {
    let total: u64 = hist.iter().sum();
    let target = (total as f64 * q).ceil() as u64;
    let mut acc = 0;
    for (k, &c) in hist.iter().enumerate() {
        acc += c;
        if acc >= target.max(1) {
            return (1u64 << (k + 1)) - 1;
        }
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Claim: a percentile of a log2 histogram is the upper edge (2^(k+1) - 1) of the
    /// bucket where the count reaches that share; an empty histogram gives 0.
    #[test]
    fn log2_percentiles() {
        assert_eq!(log2_percentile(&[0, 2, 1, 1], 0.5), 3);
        assert_eq!(log2_percentile(&[0, 2, 1, 1], 0.99), 15);
        assert_eq!(log2_percentile(&[], 0.5), 0);
    }

    /// Claim: each sampler's mean is its total over its runs, the CPU share sums both
    /// samplers per second of one CPU, and a mean above 2 us misses the target.
    #[test]
    fn means_share_and_target() {
        let c = |total: f64| {
            json!({"period_ms": 10, "seconds": 5,
            "hard": {"runs": 500, "total_ns": total, "hist_ns_log2": [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 500]},
            "soft": {"runs": 500, "total_ns": 500000.0, "hist_ns_log2": []}})
        };
        let mut o = String::new();
        let t = section(
            &mut o,
            &json!({"cost_p10": c(1_250_000.0), "cost_p1": c(500_000.0)}),
        );
        assert!(
            o.contains("\n10    hard     500   2500     4095          4095\n"),
            "{o}"
        );
        assert!(
            o.contains("\n10    both     ..    ..       ..            CPU share 0.0175%\n"),
            "{o}"
        );
        assert_eq!(
            t,
            "Handler cost <= 2 us per sample: **missed** (worst mean 2500 ns)"
        );
    }
}
