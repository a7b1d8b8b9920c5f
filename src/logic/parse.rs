// SPDX-License-Identifier: GPL-2.0

//! Parsing and validation of writes to the /proc files. Pure logic (`core` only).
//!
//! A value is decimal digits with at most one trailing newline; anything else (empty,
//! sign, spaces, hex, trailing garbage, overflow) is rejected, and the caller answers
//! EINVAL and changes nothing.

use crate::logic::gap::NSEC_PER_MSEC;

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

/// `cpus`: a CPU list in the kernel's syntax (`0-3,8,10-11`: numbers and ranges, comma
/// separated, one optional trailing newline), every CPU below `nr_cpus`, at least one.
/// Calls `each(first, last)` for every range, in the order written, only once the whole
/// list is valid: a bad list changes nothing.
pub(crate) fn cpulist(
    buf: &[u8],
    nr_cpus: u32,
    mut each: impl FnMut(u32, u32),
) -> Result<(), Invalid> {
    let text = buf.strip_suffix(b"\n").unwrap_or(buf);
    if text.is_empty() {
        return Err(Invalid::Syntax);
    }
    for pass in 0..2 {
        for item in text.split(|&b| b == b',') {
            let (first, last) = match item.iter().position(|&b| b == b'-') {
                Some(i) => (cpu_number(&item[..i])?, cpu_number(&item[i + 1..])?),
                None => {
                    let c = cpu_number(item)?;
                    (c, c)
                }
            };
            if first > last || last >= nr_cpus {
                return Err(Invalid::Range);
            }
            if pass == 1 {
                each(first, last);
            }
        }
    }
    Ok(())
}

/// One CPU number of a list: decimal digits only.
fn cpu_number(digits: &[u8]) -> Result<u32, Invalid> {
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return Err(Invalid::Syntax);
    }
    u32::try_from(decimal(digits)?).map_err(|_| Invalid::Range)
}

/// The ranges of CPUs below `nr_cpus` for which `member` holds, as the kernel prints a
/// CPU list (`0-3,8`): calls `each(first, last)` for each, in order.
pub(crate) fn ranges(nr_cpus: u32, member: impl Fn(u32) -> bool, mut each: impl FnMut(u32, u32)) {
    let mut start: Option<u32> = None;
    for cpu in 0..=nr_cpus {
        let is = cpu < nr_cpus && member(cpu);
        match (start, is) {
            (None, true) => start = Some(cpu),
            (Some(s), false) => {
                each(s, cpu - 1);
                start = None;
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = NSEC_PER_MSEC;

    /// Claim: `decimal` accepts decimal digits (leading zeros too) with at most one
    /// trailing newline, up to `u64::MAX`; empty input, blanks, signs, hex, exponents,
    /// units, NUL and a second newline are syntax errors, and `u64::MAX + 1` is out of
    /// range.
    #[test]
    fn decimal_accepts_digits_and_one_newline() {
        assert_eq!(decimal(b"10"), Ok(10));
        assert_eq!(decimal(b"10\n"), Ok(10));
        assert_eq!(decimal(b"007\n"), Ok(7));
        for bad in [
            &b""[..],
            b"\n",
            b"10\n\n",
            b" 10",
            b"10 ",
            b"+1",
            b"-1",
            b"0x10",
            b"1e3",
            b"10ms",
            b"1\0",
        ] {
            assert_eq!(decimal(bad), Err(Invalid::Syntax), "{bad:?}");
        }
        assert_eq!(decimal(b"18446744073709551615"), Ok(u64::MAX));
        assert_eq!(decimal(b"18446744073709551616"), Err(Invalid::Range));
    }

    /// Claim: `period` accepts 1 to 1000 ms and returns it in ns; 0, 1001 and a value whose
    /// ns would overflow are out of range.
    #[test]
    fn period_range() {
        assert_eq!(period(b"0\n"), Err(Invalid::Range));
        assert_eq!(period(b"1"), Ok(MS));
        assert_eq!(period(b"1000"), Ok(1000 * MS));
        assert_eq!(period(b"1001"), Err(Invalid::Range));
        // ms -> ns must not overflow for huge inputs: they are out of range first.
        assert_eq!(period(b"18446744073709551"), Err(Invalid::Range));
    }

    /// Claim: `enable` reads 1 (with a newline too) as on and 0 as off; 2 is out of range
    /// and "yes" a syntax error.
    #[test]
    fn enable_values() {
        assert_eq!(enable(b"1\n"), Ok(true));
        assert_eq!(enable(b"0"), Ok(false));
        assert_eq!(enable(b"2"), Err(Invalid::Range));
        assert_eq!(enable(b"yes"), Err(Invalid::Syntax));
    }

    fn list(buf: &[u8], nr: u32) -> Result<[bool; 16], Invalid> {
        let mut set = [false; 16];
        cpulist(buf, nr, |a, b| (a..=b).for_each(|c| set[c as usize] = true))?;
        Ok(set)
    }

    /// The kernel's CPU list syntax is accepted, every CPU must exist, and a bad list
    /// selects nothing (the callback never runs).
    #[test]
    fn cpulists() {
        let mut want = [false; 16];
        for c in [0, 1, 2, 5, 7, 8] {
            want[c] = true;
        }
        assert_eq!(list(b"0-2,5,7-8\n", 16), Ok(want));
        assert_eq!(list(b"15", 16).map(|s| s[15]), Ok(true));
        assert_eq!(list(b"16", 16), Err(Invalid::Range));
        assert_eq!(list(b"3-1", 16), Err(Invalid::Range));
        assert_eq!(list(b"0-99999999999", 16), Err(Invalid::Range));
        for bad in [
            &b""[..],
            b"\n",
            b",",
            b"1,",
            b",1",
            b"1-",
            b"-1",
            b"a",
            b"1 2",
            b" 1",
            b"1-2-3",
            b"1\n\n",
            b"0x1",
            b"1:2/4",
        ] {
            assert_eq!(list(bad, 16), Err(Invalid::Syntax), "{bad:?}");
        }
        let mut calls = 0;
        assert_eq!(
            cpulist(b"1,2,99", 16, |_, _| calls += 1),
            Err(Invalid::Range)
        );
        assert_eq!(calls, 0);
    }

    /// A set printed as ranges reads back as the same set.
    #[test]
    fn ranges_round_trip() {
        let sets: [&[u32]; 5] = [&[], &[0], &[0, 1, 2, 3], &[1, 3, 4, 5, 9], &[15]];
        for want in sets {
            let mut text = [0u8; 64];
            let mut n = 0;
            ranges(
                16,
                |c| want.contains(&c),
                |a, b| {
                    if n > 0 {
                        text[n] = b',';
                        n += 1;
                    }
                    for (i, v) in [a, b].iter().enumerate() {
                        if i == 1 && a == b {
                            break;
                        }
                        if i == 1 {
                            text[n] = b'-';
                            n += 1;
                        }
                        let mut digits = [0u8; 10];
                        let mut k = 0;
                        let mut v = *v;
                        loop {
                            digits[k] = b'0' + (v % 10) as u8;
                            k += 1;
                            v /= 10;
                            if v == 0 {
                                break;
                            }
                        }
                        for d in digits[..k].iter().rev() {
                            text[n] = *d;
                            n += 1;
                        }
                    }
                },
            );
            if want.is_empty() {
                assert_eq!(n, 0);
                continue;
            }
            let mut set = [false; 16];
            for &c in want {
                set[c as usize] = true;
            }
            assert_eq!(list(&text[..n], 16), Ok(set), "{want:?}");
        }
    }

    /// Claim: at P = 10 ms a write of 0 to `trace_latency` clears, 20 (2P) to 10000 ms set
    /// the threshold in ns, and 19, 10001 and a number beyond u64 are out of range.
    #[test]
    fn threshold_rules() {
        let p = 10 * MS;
        assert_eq!(trace_latency(b"0\n", p), Ok(LatencyWrite::Clear));
        assert_eq!(trace_latency(b"19", p), Err(Invalid::Range));
        assert_eq!(
            trace_latency(b"20", p),
            Ok(LatencyWrite::Threshold(20 * MS))
        );
        assert_eq!(
            trace_latency(b"10000", p),
            Ok(LatencyWrite::Threshold(10_000 * MS))
        );
        assert_eq!(trace_latency(b"10001", p), Err(Invalid::Range));
        assert_eq!(
            trace_latency(b"99999999999999999999", p),
            Err(Invalid::Range)
        );
    }
}
