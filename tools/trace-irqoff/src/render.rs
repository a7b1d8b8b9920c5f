// SPDX-License-Identifier: GPL-2.0
//! Human-readable output: status, records, histograms, top. Pure functions from values to
//! text, so they are tested on fixtures; colour is added only through `style`.

use std::fmt::Write;

use anstyle::{AnsiColor, Style};

use crate::snapshot::{Kind, Record, Snapshot, NR_BUCKETS};

pub const BOLD: Style = Style::new().bold();
pub const RED: Style = AnsiColor::Red.on_default().bold();
pub const DIM: Style = Style::new().dimmed();

/// `style` applied to `text`, or plain text when `color` is off.
pub fn paint(color: bool, style: Style, text: &str) -> String {
    if color {
        format!("{style}{text}{style:#}")
    } else {
        text.to_string()
    }
}

/// 107234567 ns -> "107.235 ms".
pub fn ms(ns: u64) -> String {
    format!("{}.{:03} ms", ns / 1_000_000, (ns % 1_000_000) / 1000)
}

/// Seconds since boot, as in the kernel log.
pub fn secs(ns: u64) -> String {
    format!("{}.{:06}", ns / 1_000_000_000, (ns % 1_000_000_000) / 1000)
}

/// Lowest and highest whole unit of log2 bucket `k` (the module's edges).
pub fn bucket_range(k: usize) -> (u64, u64) {
    crate::histogram::bucket_range(k)
}

/// A bcc-style log2 histogram of ms, laid out by the module's own code; empty when all
/// counts are zero.
pub fn histogram(header: &str, counts: &[u64]) -> String {
    histogram_unit(header, "msecs", counts)
}

/// [`histogram`] with another unit label (`usecs`).
pub fn histogram_unit(header: &str, unit: &str, counts: &[u64]) -> String {
    let mut fixed = [0u64; NR_BUCKETS];
    for (f, c) in fixed.iter_mut().zip(counts) {
        *f = *c;
    }
    // The module's buckets beyond ours (a newer module) go into the last one.
    fixed[NR_BUCKETS - 1] += counts.iter().skip(NR_BUCKETS).sum::<u64>();
    let mut out = String::new();
    let _ = crate::histogram::render_unit(&mut out, header, unit, &fixed);
    out
}

/// Per-kind counts summed over CPUs.
pub fn summed(s: &Snapshot, kind: Kind) -> Vec<u64> {
    let mut sum = vec![0u64; NR_BUCKETS];
    for c in &s.cpus {
        let h = match kind {
            Kind::Hard => &c.hard_hist,
            Kind::Soft => &c.soft_hist,
        };
        for (a, b) in sum.iter_mut().zip(h) {
            *a += b;
        }
    }
    sum
}

/// Latency as the original printed it: "107 ms", or "57+ ms" for a lower bound.
pub fn latency(r: &Record) -> String {
    let plus = if r.lower_bound { "+" } else { "" };
    format!("{}{plus}", ms(r.latency_ns))
}

/// One record with its stack.
pub fn record(out: &mut String, r: &Record, color: bool, new: bool, stack_depth: usize) {
    let mark = if new { paint(color, RED, "NEW ") } else { String::new() };
    let _ = writeln!(
        out,
        "{mark}{} cpu {} {:>14}  {} (pid {})  at {} s",
        paint(color, BOLD, r.kind.label()),
        r.cpu,
        latency(r),
        r.comm,
        r.pid,
        secs(r.timestamp_ns)
    );
    for f in r.stack.iter().take(stack_depth) {
        let _ = writeln!(out, "    {f}");
    }
    if r.stack.len() > stack_depth {
        let _ = writeln!(out, "    {}", paint(color, DIM, &format!("... {} more frames", r.stack.len() - stack_depth)));
    }
}

pub use crate::symbols::function;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_matches_module_layout() {
        let mut c = vec![0; NR_BUCKETS];
        c[4] = 1;
        c[6] = 4;
        let expected = "hardirq-off:\n         msecs           : count     distribution\n        16 -> 31         : 1        |**********                              |\n        32 -> 63         : 0        |                                        |\n        64 -> 127        : 4        |****************************************|\n";
        assert_eq!(histogram("hardirq-off:", &c), expected);
        assert_eq!(histogram("x", &[0; 3]), "");
        assert!(histogram_unit("d:", "usecs", &c).contains("         usecs "));
    }

    #[test]
    fn function_names() {
        assert_eq!(function("irqoff_sample_hardirq_window+0x2d/0x53 [irqoff_sample]"), "irqoff_sample_hardirq_window");
        assert_eq!(function("vfs_write+0x1d7/0x210"), "vfs_write");
        assert_eq!(function("0xffffffff81000000"), "0xffffffff81000000");
    }

    #[test]
    fn durations() {
        assert_eq!(ms(107_234_567), "107.234 ms");
        assert_eq!(secs(4_033_490_648), "4.033490");
    }
}
