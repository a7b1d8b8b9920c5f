// SPDX-License-Identifier: GPL-2.0
//! The statistics of the report: the mean, the median, its distribution-free 95%
//! interval, and the verdicts on the targets drawn from them.

/// The median of V (sorts V); NaN when V is empty.
pub fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// The mean of V; NaN when V is empty.
pub fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

/// Distribution-free 95% confidence interval of the median: order statistics x(k) and
/// x(n+1-k), k the largest with P(Binomial(n, 1/2) <= k-1) <= 2.5% (coverage >= 95%).
/// None below 6 values (no such k).
pub fn median_ci(v: &[f64]) -> Option<(f64, f64)> {
    let n = v.len();
    let mut s = v.to_vec();
    s.sort_by(|a, b| a.total_cmp(b));
    // P(B <= j) for B ~ Bin(n, 1/2), summed in logs to stay exact enough for n in the hundreds.
    let ln_c = |n: usize, i: usize| -> f64 {
        (1..=i)
            .map(|j| ((n - i + j) as f64).ln() - (j as f64).ln())
            .sum()
    };
    let cdf = |j: usize| -> f64 {
        (0..=j)
            .map(|i| (ln_c(n, i) - n as f64 * std::f64::consts::LN_2).exp())
            .sum()
    };
    let mut k = 0;
    for cand in 1..=n / 2 {
        if cdf(cand - 1) <= 0.025 {
            k = cand;
        }
    }
    if k == 0 {
        return None;
    }
    Some((s[k - 1], s[n - k]))
}

/// The smallest and the largest of V (infinities when V is empty).
pub fn range(v: &[f64]) -> (f64, f64) {
    let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (lo, hi)
}

/// A target's verdict in words.
pub fn verdict(ok: bool) -> &'static str {
    if ok {
        "met"
    } else {
        "missed"
    }
}

/// Target verdict of an overhead ratio from its 95% interval.
pub fn target_verdict(v: &[f64], limit: f64) -> String {
    match median_ci(v) {
        Some((_, hi)) if hi <= limit => {
            format!("**met** (95% interval {} at most {limit})", fmt_ci(v))
        }
        Some((lo, _)) if lo > limit => {
            format!("**missed** (95% interval {} above {limit})", fmt_ci(v))
        }
        Some(_) => format!(
            "**not decided** (95% interval {} contains {limit})",
            fmt_ci(v)
        ),
        None => "**not decided** (too few runs for an interval)".into(),
    }
}

fn fmt_ci(v: &[f64]) -> String {
    median_ci(v).map_or("-".into(), |(lo, hi)| format!("{lo:.4}..{hi:.4}"))
}

/// Median and interval of a ratio series, as text.
pub fn ratio_cell(v: &[f64]) -> (String, String) {
    if v.is_empty() {
        return ("-".into(), "-".into());
    }
    let m = median(&mut v.to_vec());
    let ci = median_ci(v).map_or("n too small".into(), |(lo, hi)| format!("{lo:.4}..{hi:.4}"));
    (format!("{m:.4}"), ci)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Claim: the median is the middle value of an odd count, the mean of the two middle
    /// values of an even count, whatever the order; NaN for no value.
    #[test]
    fn median_of_odd_even_and_none() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 3.0, 2.0]), 2.5);
        assert!(median(&mut []).is_nan());
    }

    /// Claim: the mean is the sum over the count, NaN for no value.
    #[test]
    fn mean_of_some_and_none() {
        assert_eq!(mean(&[1.0, 2.0, 6.0]), 3.0);
        assert!(mean(&[]).is_nan());
    }

    /// Claim: the interval is the binomial one: none for 5 values (P(B <= 0) = 1/32 is
    /// above 2.5%), min..max for 6 (1/64 is not), x(2)..x(n-1) for 9 and 10 (P(B <= 1) =
    /// 10/512 and 11/1024; P(B <= 2) is above 2.5% for both).
    #[test]
    fn median_ci_on_known_counts() {
        let v = |n: usize| -> Vec<f64> { (1..=n).rev().map(|i| i as f64).collect() };
        assert_eq!(median_ci(&v(5)), None);
        assert_eq!(median_ci(&v(6)), Some((1.0, 6.0)));
        assert_eq!(median_ci(&v(9)), Some((2.0, 8.0)));
        assert_eq!(median_ci(&v(10)), Some((2.0, 9.0)));
    }

    /// Claim: an overhead target is met when the whole interval is at most the limit,
    /// missed when all of it is above, not decided when it holds the limit or when there
    /// are too few runs for an interval.
    #[test]
    fn target_verdicts() {
        let runs = |hi: f64| [1.0, 1.001, 1.002, 1.003, 1.004, hi];
        assert_eq!(
            target_verdict(&runs(1.005), 1.005),
            "**met** (95% interval 1.0000..1.0050 at most 1.005)"
        );
        assert_eq!(
            target_verdict(&runs(1.02), 1.005),
            "**not decided** (95% interval 1.0000..1.0200 contains 1.005)"
        );
        assert_eq!(
            target_verdict(&[1.01, 1.02, 1.03, 1.04, 1.05, 1.06], 1.005),
            "**missed** (95% interval 1.0100..1.0600 above 1.005)"
        );
        assert_eq!(
            target_verdict(&[1.0; 5], 1.005),
            "**not decided** (too few runs for an interval)"
        );
        assert_eq!((verdict(true), verdict(false)), ("met", "missed"));
    }

    /// Claim: a ratio cell is the median to 4 places and the interval, "n too small"
    /// below 6 runs, dashes for none.
    #[test]
    fn ratio_cells() {
        assert_eq!(
            ratio_cell(&[1.0, 2.0, 3.0]),
            ("2.0000".to_string(), "n too small".to_string())
        );
        assert_eq!(ratio_cell(&[]), ("-".to_string(), "-".to_string()));
        assert_eq!(
            ratio_cell(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).1,
            "1.0000..6.0000"
        );
    }
}
