// SPDX-License-Identifier: GPL-2.0
//! The report's latency histograms: one inline SVG bar chart for each kind and cause.

use std::fmt::Write;

use super::markup::colour;
use crate::model::snapshot::{Cause, Kind, Snapshot};

/// Latency histograms by kind and cause, summed over CPUs (the module's log2 buckets);
/// from the records where the module counted none (the original module).
pub fn histograms(o: &mut String, s: &Snapshot) {
    o.push_str("<section id=\"histograms\">\n<h2>Latency histograms</h2>\n");
    let split = s.cpus.iter().any(|c| !c.soft_bh_off_hist.is_empty());
    let mut kinds = vec![(Kind::Hard, None)];
    if split {
        kinds.push((Kind::Soft, Some(Cause::BhOff)));
        kinds.push((Kind::Soft, Some(Cause::KsoftirqdWait)));
    } else {
        kinds.push((Kind::Soft, None));
    }
    let mut any = false;
    for (k, c) in kinds {
        let mut counts = crate::render::summed(s, k, c);
        let from_records = counts.iter().all(|&n| n == 0);
        if from_records {
            for r in s
                .records
                .iter()
                .filter(|r| r.kind == k && (c.is_none() || r.cause == c))
            {
                let b = tio_logic::hist::bucket(r.latency_ns);
                if let Some(n) = counts.get_mut(b) {
                    *n += 1;
                }
            }
        }
        if counts.iter().all(|&n| n == 0) {
            continue;
        }
        any = true;
        histogram(o, k, c, &counts, from_records);
    }
    if !any {
        o.push_str("<p>No window was counted.</p>\n");
    }
    o.push_str("</section>\n");
}

fn histogram(o: &mut String, k: Kind, c: Option<Cause>, counts: &[u64], from_records: bool) {
    let last = counts.iter().rposition(|&n| n > 0).unwrap_or(0);
    let first = counts.iter().position(|&n| n > 0).unwrap_or(0);
    let bars = &counts[first..=last];
    let max = bars.iter().copied().max().unwrap_or(1).max(1);
    let (w, h, bar_w) = (360.0, 150.0, (300.0 / bars.len() as f64).min(40.0));
    let name = crate::render::kind_cause(k, c);
    let _ = writeln!(
        o,
        "<figure class=\"hist\" style=\"display:inline-block;margin:0 1em 1em 0\"><figcaption>{name}{}</figcaption>\n<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\" font-size=\"10\">",
        if from_records { " (kept records)" } else { "" }
    );
    for (i, &n) in bars.iter().enumerate() {
        let (lo, hi) = crate::render::bucket_range(first + i);
        let bh = 100.0 * n as f64 / max as f64;
        let bx = 40.0 + i as f64 * bar_w;
        let _ = writeln!(
            o,
            "<rect x=\"{bx:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{bh:.1}\" fill=\"{}\"><title>{lo}..{hi} ms: {n}</title></rect><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{n}</text><text x=\"{:.1}\" y=\"135\" text-anchor=\"middle\">{lo}</text>",
            115.0 - bh,
            bar_w - 2.0,
            colour(k, c),
            bx + bar_w / 2.0 - 1.0,
            112.0 - bh,
            bx + bar_w / 2.0 - 1.0,
        );
    }
    let _ = writeln!(
        o,
        "<line x1=\"38\" x2=\"{:.1}\" y1=\"115\" y2=\"115\" stroke=\"#888\"/><text x=\"40\" y=\"148\">ms (log2 buckets, lower edge)</text></svg></figure>",
        40.0 + bars.len() as f64 * bar_w
    );
}
