// SPDX-License-Identifier: GPL-2.0
//! `record --until`: the threshold that a recording waiting for a window of some length
//! needs, and the window that ends it when it comes.

use crate::cli::RecordArgs;
use crate::error::Problem;
use crate::model::saved_recording::Caught;
use crate::model::settings::Settings;
use crate::model::snapshot::{self, Cpu, Kind, Record};

/// The threshold to record with: with `--until`, low enough that the window it waits for
/// is recorded (the module keeps stacks only from the threshold on).
pub fn threshold_for(a: &RecordArgs, prior: &Settings) -> Result<Option<u64>, Problem> {
    let Some(until) = a.until else {
        return Ok(a.threshold);
    };
    let period = a.period.unwrap_or(prior.period_ms);
    if until < 2 * period {
        return Err(Problem::usage(
            format!("--until {until} is below the shortest window the module reports at a period of {period} ms ({} ms)", 2 * period),
            format!("use --until {} or more, or a shorter --period", 2 * period),
        ));
    }
    match a.threshold {
        Some(t) if t > until => Err(Problem::usage(
            format!(
                "--until {until} is below --threshold {t}: such a window would not be recorded"
            ),
            format!("use --threshold {until} or less, or leave it out"),
        )),
        Some(t) => Ok(Some(t)),
        None if prior.threshold_ms > until => Ok(Some(until)),
        None => Ok(None),
    }
}

/// The first window of at least `ms` among what a recording saw: its record, or, when the
/// module did not keep it, a histogram bucket that only such windows fall in.
pub fn caught(cpus: &[Cpu], records: &[Record], ms: u64, version: u32) -> Option<Caught> {
    if let Some(r) = snapshot::first_at_least(records, ms, version) {
        let (lo, hi) = crate::render::bucket_range(tio_logic::hist::bucket(r.latency_ns));
        return Some(Caught {
            cpu: r.cpu,
            kind: r.kind,
            bucket_ms: [lo, hi],
            record: Some(r.clone()),
        });
    }
    cpus.iter().find_map(|c| {
        [Kind::Hard, Kind::Soft].into_iter().find_map(|kind| {
            let k = c
                .hist(kind, None)
                .iter()
                .enumerate()
                .position(|(k, &n)| n > 0 && crate::render::bucket_range(k).0 >= ms)?;
            let (lo, hi) = crate::render::bucket_range(k);
            Some(Caught {
                cpu: c.cpu,
                kind,
                bucket_ms: [lo, hi],
                record: None,
            })
        })
    })
}

#[cfg(test)]
pub(super) mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::cli::Weight;
    use crate::parse::records::parse;

    const V2: &str = include_str!("../../../tests/fixtures/records-v2.txt");

    /// The arguments of `record --until UNTIL [--threshold THRESHOLD]`.
    pub fn args(until: u64, threshold: Option<u64>) -> RecordArgs {
        RecordArgs {
            last: None,
            duration: None,
            until: Some(until),
            period: None,
            threshold,
            output: PathBuf::from("/dev/null"),
            folded: None,
            weight: Weight::Count,
            lines: Default::default(),
        }
    }

    /// Claim: with `--until` below the module's 50 ms threshold the recording threshold
    /// comes down to it, above it the threshold is kept, an explicit lower `--threshold`
    /// wins, and an `--until` below `--threshold` or below twice the period is refused
    /// with a sentence saying why.
    #[test]
    fn the_threshold_comes_down_to_until() {
        let prior = Settings {
            enabled: false,
            period_ms: 10,
            threshold_ms: 50,
            switching: None,
        };
        assert_eq!(threshold_for(&args(40, None), &prior).unwrap(), Some(40));
        assert_eq!(threshold_for(&args(80, None), &prior).unwrap(), None);
        assert_eq!(
            threshold_for(&args(80, Some(30)), &prior).unwrap(),
            Some(30)
        );
        let e = threshold_for(&args(40, Some(60)), &prior).unwrap_err();
        assert_eq!(
            e.sentence,
            "--until 40 is below --threshold 60: such a window would not be recorded"
        );
        let e = threshold_for(&args(15, None), &prior).unwrap_err();
        assert_eq!(e.sentence, "--until 15 is below the shortest window the module reports at a period of 10 ms (20 ms)");
    }

    /// Claim: a window is caught by a record at least `--until` long (with its CPU, kind
    /// and bucket), or, with no record kept, by a per-CPU count in a bucket whose lower
    /// bound is at least `--until`; a bucket holding shorter windows too, a v2 window
    /// still open, or nothing long enough catch nothing, while a v1 lower bound does.
    #[test]
    fn caught_by_its_record_or_by_its_bucket() {
        let s = parse(V2).unwrap();
        let c = caught(&[], &s.records, 55, 2).unwrap();
        assert_eq!((c.cpu, c.kind, c.bucket_ms), (0, Kind::Soft, [64, 127]));
        assert_eq!(c.record.unwrap().latency_ns, 100_111_000);
        assert!(caught(&[], &s.records, 101, 2).is_none());
        // The 57 ms softirq window on CPU 3 is still open (v2): its record comes when it
        // ends. A v1 lower bound is a record of its own.
        assert!(caught(&[], &s.records[4..], 50, 2).is_none());
        assert!(caught(&[], &s.records[4..], 50, 1).is_some());
        // Counted in bucket [64, 127] (CPU 0 first) but not kept: still caught at 64.
        assert_eq!(
            caught(&s.cpus, &[], 64, 2).map(|c| (c.cpu, c.kind, c.bucket_ms, c.record)),
            Some((0, Kind::Soft, [64, 127], None))
        );
        // A bucket that holds shorter windows too proves nothing.
        assert!(caught(&s.cpus, &[], 65, 2).is_none());
    }
}
