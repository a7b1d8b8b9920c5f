// SPDX-License-Identifier: GPL-2.0
//! The overhead runs of a kernel as ratios to 'not loaded', round by round.

use serde_json::Value;

use crate::results::{items, nums};
use crate::stats::median;

/// One configuration of the overhead runs: per-round ratios to 'not loaded'.
pub struct Overhead {
    pub config: String,
    pub spin: Vec<f64>,
    pub hack: Vec<f64>,
    pub hack_median_s: f64,
    pub spin_median_iters: f64,
}

/// Every configuration of K's overhead runs, in the order of the results.
pub fn overhead(k: &Value) -> Vec<Overhead> {
    let cfgs = items(&k["overhead"]["configs"]);
    let base = cfgs.iter().find(|c| c["config"] == "not_loaded");
    let (bs, bh) = base
        .map(|b| (nums(&b["spin_iterations"]), nums(&b["seconds"])))
        .unwrap_or_default();
    cfgs.iter()
        .map(|c| {
            let (s, h) = (nums(&c["spin_iterations"]), nums(&c["seconds"]));
            // Each round ran every configuration once: pair each run with its round's
            // baseline. Spin: iterations lost = time per iteration gained (base / config).
            Overhead {
                config: c["config"].as_str().unwrap_or("?").to_string(),
                spin: per_round(&bs, &s),
                hack: per_round(&h, &bh),
                hack_median_s: median(&mut h.clone()),
                spin_median_iters: median(&mut s.clone()),
            }
        })
        .collect()
}

/// NUM / DEN round by round, leaving out rounds whose DEN is not positive.
fn per_round(num: &[f64], den: &[f64]) -> Vec<f64> {
    num.iter()
        .zip(den)
        .filter(|(_, d)| **d > 0.0)
        .map(|(n, d)| n / d)
        .collect()
}
