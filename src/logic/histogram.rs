// SPDX-License-Identifier: GPL-2.0

//! Log2 latency histograms, bcc style. Pure logic (`core` only).
//!
//! Bucket k holds latencies of [2^k, 2^(k+1)) ms, the same latencies (gap - P) that the
//! records report, so a 107 ms record is counted in `64 -> 127`. The edges do not depend
//! on the sampling period, so counts taken under different periods add up correctly.

use core::fmt::{self, Write};

use crate::logic::gap::NSEC_PER_MSEC;

/// Number of buckets; the last one also holds everything longer (>= 2^23 ms).
pub(crate) const NR_BUCKETS: usize = 24;

/// Bucket index of a latency.
pub(crate) const fn bucket(latency_ns: u64) -> usize {
    log2_bucket(latency_ns / NSEC_PER_MSEC)
}

/// Bucket index of a value in any unit: k such that value is in [2^k, 2^(k+1)).
pub(crate) const fn log2_bucket(value: u64) -> usize {
    if value == 0 {
        return 0;
    }
    let k = (63 - value.leading_zeros()) as usize;
    if k >= NR_BUCKETS {
        NR_BUCKETS - 1
    } else {
        k
    }
}

/// Lowest and highest whole ms of bucket `k`, as printed.
pub(crate) const fn bucket_range(k: usize) -> (u64, u64) {
    if k == 0 {
        (0, 1)
    } else {
        (1 << k, (1 << (k + 1)) - 1)
    }
}

const BAR_WIDTH: u64 = 40;

/// Writes one histogram of ms in the original tool's layout; writes nothing when all
/// counts are zero (as the original did).
pub(crate) fn render(
    out: &mut impl Write,
    header: &str,
    counts: &[u64; NR_BUCKETS],
) -> fmt::Result {
    render_unit(out, header, "msecs", counts)
}

/// [`render`] with another unit label (`usecs`).
pub(crate) fn render_unit(
    out: &mut impl Write,
    header: &str,
    unit: &str,
    counts: &[u64; NR_BUCKETS],
) -> fmt::Result {
    let max = counts.iter().copied().max().unwrap_or(0);
    if max == 0 {
        return Ok(());
    }
    let last = counts.iter().rposition(|&c| c != 0).unwrap_or(0);
    let first = counts.iter().position(|&c| c != 0).unwrap_or(0);
    writeln!(out, "{header}")?;
    writeln!(out, "{:9}{unit}{:10} : {:<9} distribution", "", "", "count")?;
    for (k, &count) in counts.iter().enumerate().take(last + 1).skip(first) {
        let (lo, hi) = bucket_range(k);
        let stars = (count * BAR_WIDTH / max) as usize;
        write!(out, "{lo:>10} -> {hi:<10} : {count:<8} |")?;
        for i in 0..BAR_WIDTH as usize {
            out.write_char(if i < stars { '*' } else { ' ' })?;
        }
        writeln!(out, "|")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::string::String;

    const MS: u64 = NSEC_PER_MSEC;

    /// Claim: latencies are bucketed by log2 of whole ms: 0 and 1 ms in bucket 0, 2 ms in
    /// 1, 10 ms in 3, 107 ms in 6 (printed 64 -> 127), and `u64::MAX` in the last bucket.
    #[test]
    fn buckets_are_log2_of_ms() {
        assert_eq!(bucket(0), 0);
        assert_eq!(bucket(MS), 0);
        assert_eq!(bucket(2 * MS), 1);
        assert_eq!(bucket(10 * MS), 3);
        assert_eq!(bucket(107 * MS), 6);
        assert_eq!(bucket_range(6), (64, 127));
        assert_eq!(bucket(u64::MAX), NR_BUCKETS - 1);
    }

    /// Claim: `render` prints the header, bcc's column line and one row per bucket from the
    /// first to the last non-empty one (the empty one between included), bars scaled so the
    /// largest count fills 40 columns, byte for byte as expected.
    #[test]
    fn renders_like_bcc_and_the_original() -> fmt::Result {
        let mut counts = [0; NR_BUCKETS];
        counts[bucket(30 * MS)] = 1;
        counts[bucket(107 * MS)] = 4;
        let mut s = String::new();
        render(&mut s, "hardirq-off:", &counts)?;
        let expected = "hardirq-off:\n         msecs           : count     distribution\n        16 -> 31         : 1        |**********                              |\n        32 -> 63         : 0        |                                        |\n        64 -> 127        : 4        |****************************************|\n";
        assert_eq!(s, expected);
        Ok(())
    }

    /// Claim: `render` writes nothing at all, not even the header, for a histogram whose
    /// counts are all zero.
    #[test]
    fn nothing_for_an_empty_histogram() -> fmt::Result {
        let mut s = String::new();
        render(&mut s, "softirq-off:", &[0; NR_BUCKETS])?;
        assert!(s.is_empty());
        Ok(())
    }
}
