// SPDX-License-Identifier: GPL-2.0
//! The Prometheus text exposition format's pieces that every family uses, wherever it is
//! written: a family's header, a histogram in seconds, the module's log2 buckets as such a
//! histogram.

use std::fmt::Write;

use tio_logic::hist::NR_BUCKETS;

/// A family's `# HELP` and `# TYPE` lines.
pub fn family(o: &mut String, name: &str, kind: &str, help: &str) {
    let _ = writeln!(o, "# HELP {name} {help}");
    let _ = writeln!(o, "# TYPE {name} {kind}");
}

/// One histogram in seconds from per-bucket counts: `(upper edge in seconds or None for
/// +Inf, count, midpoint in seconds)`, buckets ascending.
/// `exact_sum` (seconds) is the module's own sum where it gives one; otherwise each value
/// stands at its bucket's midpoint.
pub fn histogram(
    o: &mut String,
    name: &str,
    labels: &str,
    buckets: &[(Option<f64>, u64, f64)],
    exact_sum: Option<f64>,
) {
    let sep = if labels.is_empty() { "" } else { "," };
    let mut cumulative = 0u64;
    let mut estimate = 0f64;
    for &(le, count, mid) in buckets {
        cumulative += count;
        estimate += count as f64 * mid;
        if let Some(le) = le {
            let _ = writeln!(o, "{name}_bucket{{{labels}{sep}le=\"{le}\"}} {cumulative}");
        }
    }
    let sum = exact_sum.unwrap_or(estimate);
    let _ = writeln!(o, "{name}_bucket{{{labels}{sep}le=\"+Inf\"}} {cumulative}");
    let _ = writeln!(o, "{name}_sum{{{labels}}} {sum}");
    let _ = writeln!(o, "{name}_count{{{labels}}} {cumulative}");
}

/// The module's log2 buckets in `unit_s` seconds per unit (1e-3: ms, 1e-6: µs): bucket k
/// holds [2^k, 2^(k+1)) units, the last one everything longer. The midpoint stands in for
/// each value in `_sum`: the module counts per bucket, not the sum.
pub fn log2_buckets(counts: &[u64], unit_s: f64) -> Vec<(Option<f64>, u64, f64)> {
    (0..NR_BUCKETS)
        .map(|k| {
            let lo = if k == 0 { 0.0 } else { (1u64 << k) as f64 };
            let hi = (1u64 << (k + 1)) as f64;
            // A newer module's extra buckets go into the last (open) one.
            let count = if k + 1 == NR_BUCKETS {
                counts.iter().skip(k).sum()
            } else {
                counts.get(k).copied().unwrap_or(0)
            };
            let le = (k + 1 < NR_BUCKETS).then(|| round(hi * unit_s));
            (le, count, (lo + hi) / 2.0 * unit_s)
        })
        .collect()
}

/// Drops float noise (0.001 * 64 = 0.064000000000000001) from bucket edges.
pub fn round(v: f64) -> f64 {
    (v * 1e9).round() / 1e9
}
