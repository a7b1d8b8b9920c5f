// SPDX-License-Identifier: GPL-2.0
//! Parsers of the human formats (`trace_latency`, `distribute`) that the original
//! ByteDance module also has. The CLI falls back on them when the module has no `records`
//! file (the original module), so `records`, `top` and `hist` work against it too.

use super::records::ParseError;
use crate::model::snapshot::{Kind, Record, Row};

fn malformed(line: usize, what: impl Into<String>) -> ParseError {
    ParseError::Malformed {
        line,
        what: what.into(),
    }
}

/// What `trace_latency` shows: the threshold and the records.
#[derive(Debug, PartialEq, Eq)]
pub struct TraceLatency {
    pub threshold_ms: u64,
    pub records: Vec<Record>,
}

/// Parses `trace_latency`: "trace_irqoff_latency: 50ms", then " hardirq:" / " softirq:"
/// sections of " cpu: N" blocks of "COMMAND: c PID: p LATENCY: 107ms" lines with frames.
/// Our additions at the end of COMMAND lines (LATENCY_NS, TIME) are used when present.
pub fn parse_trace_latency(text: &str) -> Result<TraceLatency, ParseError> {
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
    let (_, first) = lines.next().ok_or(ParseError::Truncated)?;
    let threshold_ms = first
        .strip_prefix("trace_irqoff_latency: ")
        .and_then(|v| v.trim().strip_suffix("ms"))
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| {
            malformed(
                1,
                format!("expected 'trace_irqoff_latency: Nms', got '{first}'"),
            )
        })?;
    let mut kind = None;
    let mut cpu = None;
    let mut records: Vec<Record> = Vec::new();
    for (n, line) in lines {
        let t = line.trim();
        match t {
            "" => continue,
            "hardirq:" => {
                kind = Some(Kind::Hard);
                cpu = None;
                continue;
            }
            "softirq:" => {
                kind = Some(Kind::Soft);
                cpu = None;
                continue;
            }
            _ => {}
        }
        if let Some(c) = t.strip_prefix("cpu: ") {
            cpu = Some(
                c.parse()
                    .map_err(|_| malformed(n, format!("bad cpu '{c}'")))?,
            );
            continue;
        }
        let (Some(k), Some(c)) = (kind, cpu) else {
            return Err(malformed(
                n,
                format!("unexpected '{t}' outside a cpu block"),
            ));
        };
        if let Some(rest) = t.strip_prefix("COMMAND: ") {
            records.push(parse_command_line(n, rest, k, c)?);
        } else {
            let r = records
                .last_mut()
                .ok_or_else(|| malformed(n, "frame before any COMMAND line"))?;
            r.stack.push(t.to_string());
        }
    }
    Ok(TraceLatency {
        threshold_ms,
        records,
    })
}

fn parse_command_line(n: usize, rest: &str, kind: Kind, cpu: u32) -> Result<Record, ParseError> {
    // The comm may hold spaces: it ends at the last " PID: ".
    let (comm, rest) = rest
        .rsplit_once(" PID: ")
        .ok_or_else(|| malformed(n, "no PID"))?;
    let mut words = rest.split_whitespace();
    let pid = words
        .next()
        .and_then(|p| p.parse().ok())
        .ok_or_else(|| malformed(n, "bad PID"))?;
    if words.next() != Some("LATENCY:") {
        return Err(malformed(n, "no LATENCY"));
    }
    let lat = words
        .next()
        .ok_or_else(|| malformed(n, "no latency value"))?;
    let lower_bound = lat.ends_with("+ms");
    let ms: u64 = lat
        .trim_end_matches("ms")
        .trim_end_matches('+')
        .parse()
        .map_err(|_| malformed(n, format!("bad latency '{lat}'")))?;
    let mut latency_ns = ms * 1_000_000;
    let mut timestamp_ns = 0;
    while let Some(key) = words.next() {
        let v = words.next().unwrap_or("");
        match key {
            "LATENCY_NS:" => latency_ns = v.parse().unwrap_or(latency_ns),
            "TIME:" => {
                if let Some((s, us)) = v.split_once('.') {
                    timestamp_ns = s.parse::<u64>().unwrap_or(0) * 1_000_000_000
                        + us.parse::<u64>().unwrap_or(0) * 1000;
                }
            }
            _ => {}
        }
    }
    Ok(Record {
        lower_bound,
        latency_ns,
        timestamp_ns,
        pid,
        comm: comm.to_string(),
        ..Record::new(cpu, kind)
    })
}

/// Parses `distribute`: "hardirq-off:" / "softirq-off:" headers, a "msecs : count" line,
/// then "lo -> hi : count |***|" rows. Works for the original's labels (which depend on P)
/// and for ours.
pub fn parse_distribute(text: &str) -> Result<Vec<(Kind, Vec<Row>)>, ParseError> {
    let mut out: Vec<(Kind, Vec<Row>)> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        let t = line.trim();
        match t {
            "" => continue,
            "hardirq-off:" => {
                out.push((Kind::Hard, Vec::new()));
                continue;
            }
            "softirq-off:" => {
                out.push((Kind::Soft, Vec::new()));
                continue;
            }
            _ if t.starts_with("msecs") => continue,
            _ => {}
        }
        let (range, rest) = t
            .split_once(':')
            .ok_or_else(|| malformed(n, format!("unexpected '{t}'")))?;
        let (lo, hi) = range
            .split_once("->")
            .ok_or_else(|| malformed(n, "no 'lo -> hi'"))?;
        let count = rest.split('|').next().unwrap_or("").trim();
        let row = Row {
            lo_ms: lo
                .trim()
                .parse()
                .map_err(|_| malformed(n, "bad bucket start"))?,
            hi_ms: hi
                .trim()
                .parse()
                .map_err(|_| malformed(n, "bad bucket end"))?,
            count: count
                .parse()
                .map_err(|_| malformed(n, format!("bad count '{count}'")))?,
        };
        out.last_mut()
            .ok_or_else(|| malformed(n, "row before a header"))?
            .1
            .push(row);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Claim: the original module's trace_latency parses into its 50 ms threshold and 3
    /// records with kind, CPU, task, latency and a 12-frame stack, and a softirq record's
    /// "51+ms" read as a 51 ms lower bound.
    #[test]
    fn parses_the_originals_trace_latency() {
        let t = parse_trace_latency(include_str!(
            "../../tests/fixtures/original-trace_latency.txt"
        ))
        .unwrap();
        assert_eq!(t.threshold_ms, 50);
        assert_eq!(t.records.len(), 3);
        let h = &t.records[0];
        assert_eq!(
            (
                h.kind,
                h.cpu,
                h.pid,
                h.comm.as_str(),
                h.latency_ns,
                h.lower_bound
            ),
            (Kind::Hard, 17, 22840, "bash", 107_000_000, false)
        );
        assert_eq!(h.stack.len(), 12);
        assert_eq!(h.stack[5], "disable_hardirq+0x5b/0x70");
        let lb = &t.records[1];
        assert_eq!(
            (lb.kind, lb.latency_ns, lb.lower_bound),
            (Kind::Soft, 51_000_000, true)
        );
        assert_eq!(t.records[2].latency_ns, 106_000_000);
    }

    /// Claim: a trace_latency record line with our LATENCY_NS and TIME additions parses
    /// its exact latency and timestamp, and a command name with a space in it is read
    /// whole.
    #[test]
    fn parses_our_additions_and_spaces_in_comm() {
        let text = "trace_irqoff_latency: 50ms\n\n hardirq:\n cpu: 1\n     COMMAND: my task PID: 79 LATENCY: 85ms LATENCY_NS: 85985408 TIME: 4.033490\n     f+0x1/0x2\n\n softirq:\n";
        let t = parse_trace_latency(text).unwrap();
        let r = &t.records[0];
        assert_eq!(
            (r.comm.as_str(), r.pid, r.latency_ns, r.timestamp_ns),
            ("my task", 79, 85_985_408, 4_033_490_000)
        );
    }

    /// Claim: text that is not trace_latency is malformed at line 1, and a record line
    /// before any hardirq/softirq section is malformed at its own line (2).
    #[test]
    fn rejects_garbage_clearly() {
        assert!(matches!(
            parse_trace_latency("hello"),
            Err(ParseError::Malformed { line: 1, .. })
        ));
        assert!(matches!(
            parse_trace_latency(
                "trace_irqoff_latency: 50ms\n     COMMAND: x PID: 1 LATENCY: 1ms\n"
            ),
            Err(ParseError::Malformed { line: 2, .. })
        ));
    }

    /// Claim: the original module's distribute file parses into hardirq and softirq
    /// histograms whose rows keep their ms bounds and counts (zeros too), and rows
    /// without a kind heading are an error.
    #[test]
    fn parses_the_originals_distribute() {
        let d =
            parse_distribute(include_str!("../../tests/fixtures/original-distribute.txt")).unwrap();
        assert_eq!(d.len(), 2);
        assert_eq!(d[0].0, Kind::Hard);
        assert_eq!(
            d[0].1,
            vec![
                Row {
                    lo_ms: 20,
                    hi_ms: 39,
                    count: 1
                },
                Row {
                    lo_ms: 40,
                    hi_ms: 79,
                    count: 0
                },
                Row {
                    lo_ms: 80,
                    hi_ms: 159,
                    count: 4
                }
            ]
        );
        assert_eq!(
            d[1].1[1],
            Row {
                lo_ms: 160,
                hi_ms: 319,
                count: 1
            }
        );
        assert!(parse_distribute("10 -> 19 : 1 |*|").is_err());
    }
}

#[cfg(test)]
mod ours {
    use super::*;

    /// Our module's trace_latency, captured in the test VM, parses with the same code.
    #[test]
    fn parses_our_trace_latency_fixture() {
        let t = parse_trace_latency(include_str!("../../tests/fixtures/ours-trace_latency.txt"))
            .unwrap();
        assert_eq!(t.threshold_ms, 50);
        assert!(t
            .records
            .iter()
            .any(|r| r.comm == "my task" && r.kind == Kind::Hard));
        assert!(t
            .records
            .iter()
            .any(|r| r.lower_bound && r.kind == Kind::Soft));
        assert!(t
            .records
            .iter()
            .all(|r| r.latency_ns % 1_000_000 != 0 && r.timestamp_ns > 0));
        let snap =
            crate::parse::records::parse(include_str!("../../tests/fixtures/records-v1.txt"))
                .unwrap();
        // The two files describe the same records.
        assert_eq!(t.records.len(), snap.records.len());
    }
}
