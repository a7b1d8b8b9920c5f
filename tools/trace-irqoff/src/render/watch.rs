// SPDX-License-Identifier: GPL-2.0
//! `watch`: one refresh.

use std::collections::HashSet;
use std::fmt::Write;
use std::time::Duration;

use crate::snapshot::{Record, RecordKey, Snapshot};

/// Profile stacks `watch` shows per record (the rest are summed in one line).
const WATCH_STACKS: usize = 3;

/// The header and the 20 newest records; those not in `seen` (the previous refresh) are
/// marked new.
pub fn refresh(s: &Snapshot, seen: Option<&HashSet<RecordKey>>, interval: Duration, color: bool) -> String {
    let mut o = String::new();
    let total: u64 = s.cpus.iter().map(|c| c.hard_events + c.soft_events).sum();
    let now = crate::clock::now_rfc3339();
    let _ = writeln!(o, "trace-irqoff watch: {now}, {total} events, {} records, every {interval:?} (Ctrl-C quits)", s.records.len());
    let mut recs = s.records.clone();
    recs.sort_by_key(|r| std::cmp::Reverse(r.timestamp_ns));
    for r in recs.iter().take(20) {
        let new = seen.is_some_and(|sn| !sn.contains(&r.key()));
        super::record_with(&mut o, r, color, new, 3, s.version, WATCH_STACKS);
    }
    o
}

/// A refresh on a pipe: the header and the records so far the first time, then only the
/// records that are new (oldest first), so that a log holds each once.
pub fn appended(s: &Snapshot, new: &[Record], first: bool, interval: Duration, color: bool) -> String {
    let mut o = String::new();
    if first {
        let total: u64 = s.cpus.iter().map(|c| c.hard_events + c.soft_events).sum();
        let _ = writeln!(o, "trace-irqoff watch: {}, {total} events, {} records, every {interval:?} (Ctrl-C quits)", crate::clock::now_rfc3339(), s.records.len());
    }
    for r in new {
        super::record_with(&mut o, r, color, false, 3, s.version, WATCH_STACKS);
    }
    o
}

/// The last line of `watch --until`.
pub fn caught(r: &Record, ms: u64) -> String {
    format!("caught a window of at least {ms} ms: {} on CPU {}, {}, {} (pid {}){}\n", super::record_label(r), r.cpu, super::ms(r.latency_ns), r.comm, r.pid, super::when(r))
}
