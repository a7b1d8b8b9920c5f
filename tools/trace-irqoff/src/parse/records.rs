// SPDX-License-Identifier: GPL-2.0
//! The grammar of the module's `records` (formats v1 and v2) and `counters` files, see
//! Documentation/trace-irqoff.rst: the text read into a [`Snapshot`]. This file reads the
//! header and the order of the lines, and hands each line to the file that reads its kind:
//! `counts` (settings, per-CPU counts), `record` (records, their frames and profiles),
//! `watcher` (the watcher, open windows, stalls), `tagwait` (the blk-mq tag waits); `words`
//! reads what lines of several kinds hold.

use crate::fields::malformed;
use crate::model::snapshot::{Cpu, Ongoing, Snapshot, Stalls, Watcher};
use crate::model::tag_wait::TagWait;
use crate::parse::tag_wait_lines;

mod counts;
mod record;
mod watcher;
mod words;

use record::Records;

pub use crate::fields::{ParseError, COUNTERS_VERSION, MIN_RECORDS_VERSION, RECORDS_VERSION};

/// The `records` format of the modules that have a `counters` file (its `config`, `cpu`
/// and `hist` lines are those of that format).
const COUNTERS_RECORDS_VERSION: u32 = 2;

/// Parses the whole records file, or the counters file (the same lines without records,
/// and a `worst` line per CPU).
pub fn parse(text: &str) -> Result<Snapshot, ParseError> {
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
    let (_, first) = lines.next().ok_or(ParseError::Truncated)?;
    let (version, mut worst) = if let Some(v) = first.strip_prefix("trace_irqoff counters v") {
        match v.parse::<u32>() {
            Ok(COUNTERS_VERSION) => (COUNTERS_RECORDS_VERSION, Some(Vec::new())),
            _ => return Err(ParseError::CountersVersion(v.to_string())),
        }
    } else {
        let version = first
            .strip_prefix("trace_irqoff records v")
            .ok_or_else(|| ParseError::Version(first.to_string()))?;
        match version.parse::<u32>() {
            Ok(v) if (MIN_RECORDS_VERSION..=RECORDS_VERSION).contains(&v) => (v, None),
            _ => return Err(ParseError::Version(version.to_string())),
        }
    };
    let v2 = version >= 2;
    let mut config = None;
    let mut cpus: Vec<Cpu> = Vec::new();
    let mut records = Records::default();
    let mut tag_wait: Option<TagWait> = None;
    let mut watcher: Option<Watcher> = None;
    let mut stalls: Option<Stalls> = None;
    let mut ongoing: Vec<Ongoing> = Vec::new();
    let mut ended = false;
    for (n, line) in lines {
        let mut words = line.split(' ');
        let head = words.next().unwrap_or("");
        records.next_line(n, head)?;
        match head {
            "config" => config = Some(counts::config(n, words)?),
            "cpu" => cpus.push(counts::cpu(n, words, v2)?),
            "hist" => counts::hist(&mut cpus, n, words)?,
            w if record::LINES.contains(&w) => records.line(n, w, line, words, v2)?,
            "watcher" => watcher = Some(watcher::watcher(n, words)?),
            "stall" => stalls = Some(watcher::stall(n, words)?),
            "ongoing" => ongoing.push(watcher::ongoing(n, words)?),
            w if tag_wait_lines::LINES.contains(&w) => {
                tag_wait_lines::line(&mut tag_wait, w, n, words)?;
            }
            "worst" => {
                if let Some(worst) = worst.as_mut() {
                    worst.push(counts::worst(n, words)?);
                }
            }
            "end" => {
                ended = true;
                break;
            }
            "" => {}
            // Unknown line types (memory, cost, ...) are for other readers.
            _ => {}
        }
    }
    if !ended || records.owed() {
        return Err(ParseError::Truncated);
    }
    let config = config.ok_or_else(|| malformed(1, "no config line"))?;
    Ok(Snapshot {
        version,
        config,
        cpus,
        records: records.records,
        watcher,
        ongoing,
        tag_wait,
        stalls,
        original_hist: None,
        worst,
    })
}

/// The records files the tests of this module and its parts read.
#[cfg(test)]
mod fixtures {
    pub const V1: &str = include_str!("../../tests/fixtures/records-v1.txt");
    pub const V2: &str = include_str!("../../tests/fixtures/records-v2.txt");
    pub const WATCHER: &str = include_str!("../../tests/fixtures/records-watcher.txt");
    pub const STALL: &str = include_str!("../../tests/fixtures/records-stall.txt");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::snapshot::*;

    use fixtures::{V1, V2, WATCHER};

    /// Claim: the difference of two snapshots counts only what came between them: events,
    /// histogram counts, stall gaps and records.
    #[test]
    fn delta_counts_only_new_events() {
        let before = parse(V1).unwrap();
        let mut after = before.clone();
        after.cpus[1].hard_events += 2;
        after.cpus[1].hard_hist[6] += 2;
        let mut r = after.records[0].clone();
        r.timestamp_ns += 1;
        after.records.push(r);
        after.cpus[1].stall_gaps += 3;
        let (cpus, recs) = delta(&before, &after);
        assert_eq!(cpus[1].hard_events, 2);
        // Stall gaps are counted apart from the events, and in the difference too.
        assert_eq!((cpus[1].stall_gaps, cpus[0].stall_gaps), (3, 0));
        assert_eq!(cpus[1].hard_hist[6], 2);
        assert_eq!(cpus[0].hard_events, 0);
        assert_eq!(recs.len(), 1);
    }

    /// Claim: v1 records parse with no cause, runnable time, window task, window stack or
    /// overlap, and CPU counts keep softirq totals while the bh-off/ksoftirqd-wait split
    /// is zero with empty histograms (unknown, not zero windows).
    #[test]
    fn v1_records_have_no_v2_facts() {
        let s = parse(V1).unwrap();
        assert_eq!(s.version, 1);
        assert_eq!(s.records.len(), 5);
        for r in &s.records {
            assert_eq!(
                (
                    r.cause,
                    r.runnable_ns,
                    r.window_pid,
                    r.window_comm.as_str(),
                    r.overlap.as_ref()
                ),
                (None, 0, 0, "", None)
            );
            assert!(r.window_stack.is_empty());
        }
        let c = &s.cpus[1];
        assert_eq!(
            (
                c.soft_events,
                c.soft_bh_off_events,
                c.soft_ksoftirqd_wait_events
            ),
            (1, 0, 0)
        );
        // The split is unknown, not zero.
        assert!(c.soft_bh_off_hist.is_empty() && c.soft_ksoftirqd_wait_hist.is_empty());
    }

    /// Claim: files of modules before stalls (records v1, v2, with the watcher; counters)
    /// parse, with no stalls (unknown, not zero) and `stall_gaps` 0; the counters
    /// file's `stall` line (the same header) parses too.
    #[test]
    fn files_before_stalls_parse_unchanged() {
        for text in [V1, V2, WATCHER] {
            let s = parse(text).unwrap();
            assert_eq!(s.stalls, None);
            assert!(s.cpus.iter().all(|c| c.stall_gaps == 0));
        }
        let counters = include_str!("../../tests/fixtures/counters-v1.txt");
        assert_eq!(parse(counters).unwrap().stalls, None);
        let with = counters.replacen(
            "\ncpu 0 ",
            "\nstall count=2 over_threshold=1 sum_ns=70000000 longest_ns=50000000 latest_start_ns=1000 latest_end_ns=50001000\ncpu 0 ",
            1,
        );
        let c = parse(&with).unwrap();
        assert_eq!(
            c.stalls
                .map(|st| (st.count, st.over_threshold, st.longest_ns)),
            Some((2, 1, 50_000_000))
        );
        assert_eq!(c.worst, parse(counters).unwrap().worst);
    }

    /// Claim: in v2 records an unknown key on a record line, an unknown line and an
    /// unknown histogram kind are ignored: the file parses as if they were not there.
    #[test]
    fn v2_unknown_keys_and_lines_are_ignored() {
        let text = V2
            .replace(
                " window_frames=0 window_pid=0",
                " window_frames=0 future=7 window_pid=0",
            )
            .replace(
                "\nend\n",
                "\nfuture_line a=b\nhist 0 soft-future 1 2 3\nend\n",
            );
        assert_eq!(parse(&text).unwrap(), parse(V2).unwrap());
    }
}
