// SPDX-License-Identifier: GPL-2.0
//! The module's state as one value: parsed from `/proc/trace_irqoff/records` (format v1,
//! see Documentation/trace-irqoff.rst), serialised as the CLI's JSON.

use serde::{Deserialize, Serialize};

/// Format version this parser understands.
pub const RECORDS_VERSION: u32 = 1;

/// Number of log2 buckets; bucket k holds [2^k, 2^(k+1)) ms.
pub const NR_BUCKETS: usize = crate::histogram::NR_BUCKETS;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum, Hash, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Hard interrupts were off.
    Hard,
    /// Softirqs could not run.
    Soft,
}

impl Kind {
    pub fn label(self) -> &'static str {
        match self {
            Kind::Hard => "hardirq-off",
            Kind::Soft => "softirq-off",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Config {
    pub enabled: bool,
    pub period_ns: u64,
    pub threshold_ns: u64,
    pub hz: u64,
    pub records_per_cpu: u32,
    pub soft_period_ns: u64,
    pub soft_event_ns: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cpu {
    pub cpu: u32,
    pub online: bool,
    pub hard_events: u64,
    pub soft_events: u64,
    /// Events not kept because the buffer held only worse ones.
    pub dropped: u64,
    /// Kept records overwritten by a worse event.
    pub replaced: u64,
    /// Gaps that ended in the idle loop (late wake-ups, not irq-off sections; not events).
    #[serde(default)]
    pub idle_gaps: u64,
    /// Log2 histogram counts per kind (bucket k: [2^k, 2^(k+1)) ms).
    pub hard_hist: Vec<u64>,
    pub soft_hist: Vec<u64>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    pub cpu: u32,
    pub kind: Kind,
    pub lower_bound: bool,
    pub latency_ns: u64,
    pub timestamp_ns: u64,
    pub pid: i32,
    pub comm: String,
    /// Symbolised frames, culprit first: `func+0x1f/0x80 [module]`.
    pub stack: Vec<String>,
}

/// blk-mq tag starvation counters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TagWait {
    pub enabled: bool,
    /// "tracepoint", "kprobe" or "none".
    pub source: String,
    /// Waits not counted per device: table full / hardware queue unknown.
    pub overflow: u64,
    pub unattributed: u64,
    /// blk_mq_get_tag calls whose duration was not measured.
    pub missed: u64,
    pub counts: Vec<TagCount>,
    /// Log2 histogram of wait durations: bucket k holds [2^k, 2^(k+1)) µs.
    pub duration_hist_us: Vec<u64>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TagCount {
    pub major: u32,
    pub minor: u32,
    pub hctx: u32,
    /// "hardware" (driver tags) or "scheduler".
    pub pool: String,
    pub reserved: bool,
    pub waits: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Snapshot {
    pub version: u32,
    pub config: Config,
    pub cpus: Vec<Cpu>,
    pub records: Vec<Record>,
    /// Tag-wait tracking (absent on module versions without it).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub tag_wait: Option<TagWait>,
    /// Histograms as the original module's `distribute` printed them, when the snapshot
    /// was read from a module without a `records` file (per-CPU counts are then unknown).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub original_hist: Option<Vec<(Kind, Vec<crate::original::Row>)>>,
}

/// Why the records file could not be read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ParseError {
    #[error("unsupported records format version {0} (this trace-irqoff reads version {RECORDS_VERSION})")]
    Version(String),
    #[error("line {line}: {what}")]
    Malformed { line: usize, what: String },
    #[error("the records file ends early (no 'end' line)")]
    Truncated,
}

fn malformed(line: usize, what: impl Into<String>) -> ParseError {
    ParseError::Malformed { line, what: what.into() }
}

/// `key=value` fields of a line after its first word.
struct Fields<'a> {
    line: usize,
    pairs: Vec<(&'a str, &'a str)>,
}

impl<'a> Fields<'a> {
    fn new(line: usize, words: impl Iterator<Item = &'a str>) -> Result<Self, ParseError> {
        let pairs = words
            .map(|w| w.split_once('=').ok_or_else(|| malformed(line, format!("expected key=value, got '{w}'"))))
            .collect::<Result<_, _>>()?;
        Ok(Self { line, pairs })
    }

    fn str(&self, key: &str) -> Result<&'a str, ParseError> {
        self.pairs
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| *v)
            .ok_or_else(|| malformed(self.line, format!("missing '{key}'")))
    }

    fn num<T: std::str::FromStr>(&self, key: &str) -> Result<T, ParseError> {
        let v = self.str(key)?;
        v.parse().map_err(|_| malformed(self.line, format!("'{key}' is not a number: '{v}'")))
    }

    /// A number that older module versions do not print.
    fn num_or<T: std::str::FromStr>(&self, key: &str, default: T) -> Result<T, ParseError> {
        if self.pairs.iter().any(|(k, _)| *k == key) {
            self.num(key)
        } else {
            Ok(default)
        }
    }

    fn flag(&self, key: &str) -> Result<bool, ParseError> {
        match self.str(key)? {
            "0" => Ok(false),
            "1" => Ok(true),
            v => Err(malformed(self.line, format!("'{key}' must be 0 or 1, got '{v}'"))),
        }
    }
}

/// Undoes the module's `\xHH` escaping of comm.
pub fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && b.get(i + 1) == Some(&b'x') {
            if let Some(v) = b.get(i + 2..i + 4).and_then(|h| std::str::from_utf8(h).ok()).and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(v);
                i += 4;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Parses the whole records file.
pub fn parse(text: &str) -> Result<Snapshot, ParseError> {
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
    let (_, first) = lines.next().ok_or(ParseError::Truncated)?;
    let version = first
        .strip_prefix("trace_irqoff records v")
        .ok_or_else(|| ParseError::Version(first.to_string()))?;
    if version != RECORDS_VERSION.to_string() {
        return Err(ParseError::Version(version.to_string()));
    }
    let mut config = None;
    let mut cpus: Vec<Cpu> = Vec::new();
    let mut records: Vec<Record> = Vec::new();
    let mut pending_frames = 0usize;
    let mut tag_wait: Option<TagWait> = None;
    let mut ended = false;
    for (n, line) in lines {
        let mut words = line.split(' ');
        let head = words.next().unwrap_or("");
        if pending_frames > 0 && head != "frame" {
            return Err(malformed(n, format!("expected {pending_frames} more frame lines")));
        }
        match head {
            "config" => {
                let f = Fields::new(n, words)?;
                config = Some(Config {
                    enabled: f.flag("enabled")?,
                    period_ns: f.num("period_ns")?,
                    threshold_ns: f.num("threshold_ns")?,
                    hz: f.num("hz")?,
                    records_per_cpu: f.num("records_per_cpu")?,
                    soft_period_ns: f.num("soft_period_ns")?,
                    soft_event_ns: f.num("soft_event_ns")?,
                });
            }
            "cpu" => {
                let cpu: u32 = words.next().and_then(|w| w.parse().ok()).ok_or_else(|| malformed(n, "cpu number"))?;
                let f = Fields::new(n, words)?;
                cpus.push(Cpu {
                    cpu,
                    online: f.flag("online")?,
                    hard_events: f.num("hard_events")?,
                    soft_events: f.num("soft_events")?,
                    dropped: f.num::<u64>("hard_dropped")? + f.num::<u64>("soft_dropped")?,
                    replaced: f.num::<u64>("hard_replaced")? + f.num::<u64>("soft_replaced")?,
                    idle_gaps: f.num_or("idle_gaps", 0)?,
                    hard_hist: vec![0; NR_BUCKETS],
                    soft_hist: vec![0; NR_BUCKETS],
                });
            }
            "hist" => {
                let cpu: u32 = words.next().and_then(|w| w.parse().ok()).ok_or_else(|| malformed(n, "hist cpu"))?;
                let kind = words.next().ok_or_else(|| malformed(n, "hist kind"))?;
                let counts = words
                    .map(|w| w.parse::<u64>().map_err(|_| malformed(n, format!("count '{w}'"))))
                    .collect::<Result<Vec<_>, _>>()?;
                let c = cpus.iter_mut().find(|c| c.cpu == cpu).ok_or_else(|| malformed(n, "hist of an unknown cpu"))?;
                let slot = match kind {
                    "hard" => &mut c.hard_hist,
                    "soft" => &mut c.soft_hist,
                    k => return Err(malformed(n, format!("unknown kind '{k}'"))),
                };
                *slot = counts;
            }
            "record" => {
                let f = Fields::new(n, words)?;
                let kind = match f.str("kind")? {
                    "hard" => Kind::Hard,
                    "soft" => Kind::Soft,
                    k => return Err(malformed(n, format!("unknown kind '{k}'"))),
                };
                pending_frames = f.num("frames")?;
                records.push(Record {
                    cpu: f.num("cpu")?,
                    kind,
                    lower_bound: f.flag("lower_bound")?,
                    latency_ns: f.num("latency_ns")?,
                    timestamp_ns: f.num("timestamp_ns")?,
                    pid: f.num("pid")?,
                    comm: unescape(f.str("comm")?),
                    stack: Vec::with_capacity(pending_frames),
                });
            }
            "frame" => {
                let rec = records.last_mut().filter(|_| pending_frames > 0).ok_or_else(|| malformed(n, "frame outside a record"))?;
                rec.stack.push(line["frame ".len().min(line.len())..].to_string());
                pending_frames -= 1;
            }
            "tagwait" => {
                let f = Fields::new(n, words)?;
                tag_wait = Some(TagWait {
                    enabled: f.flag("enabled")?,
                    source: f.str("source")?.to_string(),
                    overflow: f.num("overflow")?,
                    unattributed: f.num("unattributed")?,
                    missed: f.num("missed")?,
                    counts: Vec::new(),
                    duration_hist_us: vec![0; NR_BUCKETS],
                });
            }
            "tagwait_count" => {
                let f = Fields::new(n, words)?;
                let tw = tag_wait.as_mut().ok_or_else(|| malformed(n, "tagwait_count before tagwait"))?;
                tw.counts.push(TagCount {
                    major: f.num("major")?,
                    minor: f.num("minor")?,
                    hctx: f.num("hctx")?,
                    pool: if f.flag("sched")? { "scheduler" } else { "hardware" }.to_string(),
                    reserved: f.flag("reserved")?,
                    waits: f.num("waits")?,
                });
            }
            "tagwait_hist_us" => {
                let tw = tag_wait.as_mut().ok_or_else(|| malformed(n, "tagwait_hist_us before tagwait"))?;
                tw.duration_hist_us = words
                    .map(|w| w.parse::<u64>().map_err(|_| malformed(n, format!("count '{w}'"))))
                    .collect::<Result<Vec<_>, _>>()?;
            }
            "end" => {
                ended = true;
                break;
            }
            "" => {}
            // Unknown line types are for newer readers.
            _ => {}
        }
    }
    if !ended || pending_frames > 0 {
        return Err(ParseError::Truncated);
    }
    let config = config.ok_or_else(|| malformed(1, "no config line"))?;
    Ok(Snapshot { version: RECORDS_VERSION, config, cpus, records, tag_wait, original_hist: None })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unescape_round_trips_module_escapes() {
        assert_eq!(unescape("kworker/1:1\\x20x"), "kworker/1:1 x");
        assert_eq!(unescape("a\\x3db\\x5cc"), "a=b\\c");
        assert_eq!(unescape("plain"), "plain");
        assert_eq!(unescape("bad\\xZZ"), "bad\\xZZ");
    }
}
