// SPDX-License-Identifier: GPL-2.0

//! Parsing and validation of writes to the /proc files. Pure logic (`core` only).
//!
//! A value is decimal digits with at most one trailing newline; anything else (empty,
//! sign, spaces, hex, trailing garbage, overflow) is rejected, and the caller answers
//! EINVAL and changes nothing.

use crate::gap::NSEC_PER_MSEC;

/// Smallest and largest sampling period, ms.
pub(crate) const PERIOD_MS_MIN: u64 = 1;
pub(crate) const PERIOD_MS_MAX: u64 = 1000;
/// Largest threshold, ms.
pub(crate) const THRESHOLD_MS_MAX: u64 = 10_000;

/// Why a write was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Invalid {
    /// Not a decimal number with an optional trailing newline.
    Syntax,
    /// A number outside the allowed range.
    Range,
}

/// Parses an unsigned decimal number.
pub(crate) fn decimal(buf: &[u8]) -> Result<u64, Invalid> {
    let digits = buf.strip_suffix(b"\n").unwrap_or(buf);
    if digits.is_empty() {
        return Err(Invalid::Syntax);
    }
    let mut v: u64 = 0;
    for &b in digits {
        if !b.is_ascii_digit() {
            return Err(Invalid::Syntax);
        }
        v = v
            .checked_mul(10)
            .and_then(|v| v.checked_add(u64::from(b - b'0')))
            .ok_or(Invalid::Range)?;
    }
    Ok(v)
}

/// `enable`: 0 or 1.
pub(crate) fn enable(buf: &[u8]) -> Result<bool, Invalid> {
    match decimal(buf)? {
        0 => Ok(false),
        1 => Ok(true),
        _ => Err(Invalid::Range),
    }
}

/// `sampling_period`: ms in [PERIOD_MS_MIN, PERIOD_MS_MAX]; returns ns.
pub(crate) fn period(buf: &[u8]) -> Result<u64, Invalid> {
    let ms = decimal(buf)?;
    if !(PERIOD_MS_MIN..=PERIOD_MS_MAX).contains(&ms) {
        return Err(Invalid::Range);
    }
    Ok(ms * NSEC_PER_MSEC)
}

/// What a write to `trace_latency` asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LatencyWrite {
    /// 0: clear records and histograms.
    Clear,
    /// A new threshold, ns.
    Threshold(u64),
}

/// `trace_latency`: 0 clears; otherwise a threshold in ms, at least 2P, at most 10 s.
pub(crate) fn trace_latency(buf: &[u8], period_ns: u64) -> Result<LatencyWrite, Invalid> {
    let ms = decimal(buf)?;
    if ms == 0 {
        return Ok(LatencyWrite::Clear);
    }
    if ms > THRESHOLD_MS_MAX || ms * NSEC_PER_MSEC < 2 * period_ns {
        return Err(Invalid::Range);
    }
    Ok(LatencyWrite::Threshold(ms * NSEC_PER_MSEC))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = NSEC_PER_MSEC;

    #[test]
    fn decimal_accepts_digits_and_one_newline() {
        assert_eq!(decimal(b"10"), Ok(10));
        assert_eq!(decimal(b"10\n"), Ok(10));
        assert_eq!(decimal(b"007\n"), Ok(7));
        for bad in [&b""[..], b"\n", b"10\n\n", b" 10", b"10 ", b"+1", b"-1", b"0x10", b"1e3", b"10ms", b"1\0"] {
            assert_eq!(decimal(bad), Err(Invalid::Syntax), "{bad:?}");
        }
        assert_eq!(decimal(b"18446744073709551615"), Ok(u64::MAX));
        assert_eq!(decimal(b"18446744073709551616"), Err(Invalid::Range));
    }

    #[test]
    fn period_range() {
        assert_eq!(period(b"0\n"), Err(Invalid::Range));
        assert_eq!(period(b"1"), Ok(MS));
        assert_eq!(period(b"1000"), Ok(1000 * MS));
        assert_eq!(period(b"1001"), Err(Invalid::Range));
        // ms -> ns must not overflow for huge inputs: they are out of range first.
        assert_eq!(period(b"18446744073709551"), Err(Invalid::Range));
    }

    #[test]
    fn enable_values() {
        assert_eq!(enable(b"1\n"), Ok(true));
        assert_eq!(enable(b"0"), Ok(false));
        assert_eq!(enable(b"2"), Err(Invalid::Range));
        assert_eq!(enable(b"yes"), Err(Invalid::Syntax));
    }

    #[test]
    fn threshold_rules() {
        let p = 10 * MS;
        assert_eq!(trace_latency(b"0\n", p), Ok(LatencyWrite::Clear));
        assert_eq!(trace_latency(b"19", p), Err(Invalid::Range));
        assert_eq!(trace_latency(b"20", p), Ok(LatencyWrite::Threshold(20 * MS)));
        assert_eq!(trace_latency(b"10000", p), Ok(LatencyWrite::Threshold(10_000 * MS)));
        assert_eq!(trace_latency(b"10001", p), Err(Invalid::Range));
        assert_eq!(trace_latency(b"99999999999999999999", p), Err(Invalid::Range));
    }
}
