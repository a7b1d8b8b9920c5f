// SPDX-License-Identifier: GPL-2.0
//! `watch`: one refresh.

use std::collections::HashSet;
use std::fmt::Write;
use std::time::Duration;

use crate::model::snapshot::{Cause, Kind, Record, RecordKey, Snapshot};

/// Profile stacks `watch` shows per record (the rest are summed in one line).
const WATCH_STACKS: usize = 3;

/// The header and the 20 newest records with their stacks (`watch --stacks`); those not
/// in `seen` (the previous refresh) are marked new.
pub fn refresh(
    s: &Snapshot,
    seen: Option<&HashSet<RecordKey>>,
    interval: Duration,
    color: bool,
) -> String {
    let mut o = String::new();
    let total: u64 = s.cpus.iter().map(|c| c.hard_events + c.soft_events).sum();
    let now = crate::clock::now_rfc3339();
    let _ = writeln!(
        o,
        "trace-irqoff watch: {now}, {total} events, {} records, every {interval:?} (Ctrl-C quits)",
        s.records.len()
    );
    o += &super::resolution(
        s,
        [
            (Kind::Hard, None),
            (Kind::Soft, Some(Cause::BhOff)),
            (Kind::Soft, Some(Cause::KsoftirqdWait)),
        ],
        None,
    );
    for r in newest_first(s).into_iter().take(20) {
        let new = seen.is_some_and(|sn| !sn.contains(&r.key()));
        super::record_with(&mut o, r, color, new, 3, s.version, WATCH_STACKS);
    }
    o
}

/// The terminal view: a header, then one line per window, newest first, as many as
/// `rows` holds (the newest always on screen), each cut to `cols` ([`super::line`]); new
/// ones (not in `seen`) starred and bold. The last line counts what did not fit.
pub fn screen(
    s: &Snapshot,
    seen: Option<&HashSet<RecordKey>>,
    interval: Duration,
    color: bool,
    (rows, cols): (usize, usize),
) -> String {
    let width = Some(cols);
    let total: u64 = s.cpus.iter().map(|c| c.hard_events + c.soft_events).sum();
    let now = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    let title = format!(
        "trace-irqoff watch: {} UTC, {total} events, {} windows with stacks, every {}",
        now.get(11..19).unwrap_or("?"),
        s.records.len(),
        humantime::format_duration(interval)
    );
    let mut o = super::line::fit(&title, width) + "\n";
    let recs = newest_first(s);
    o += &super::resolution_of(s, &s.records, width);
    o += &(super::paint(color, super::BOLD, &super::line::header(width)) + "\n");
    // The lines so far, and the line the cursor rests on.
    let room = rows.saturating_sub(o.lines().count() + 1).max(1);
    let shown = if recs.len() > room {
        room - 1
    } else {
        recs.len()
    };
    for r in recs.iter().take(shown) {
        let new = seen.is_some_and(|sn| !sn.contains(&r.key()));
        let l = super::line::window(r, new, width);
        o += &(if new {
            super::paint(color, super::BOLD, &l)
        } else {
            l
        } + "\n");
    }
    if recs.is_empty() {
        o += " (no window recorded yet)\n";
    }
    if recs.len() > shown {
        o += &(super::line::fit(
            &format!(
                " ... {} older (trace-irqoff records; watch --stacks)",
                recs.len() - shown
            ),
            width,
        ) + "\n");
    }
    o
}

fn newest_first(s: &Snapshot) -> Vec<&Record> {
    let mut recs: Vec<&Record> = s.records.iter().collect();
    recs.sort_by_key(|r| std::cmp::Reverse(r.timestamp_ns));
    recs
}

/// A refresh on a pipe: the header and the records so far the first time, then only the
/// records that are new (oldest first), so that a log holds each once.
pub fn appended(
    s: &Snapshot,
    new: &[Record],
    first: bool,
    interval: Duration,
    color: bool,
) -> String {
    let mut o = String::new();
    if first {
        let total: u64 = s.cpus.iter().map(|c| c.hard_events + c.soft_events).sum();
        let _ = writeln!(
            o,
            "trace-irqoff watch: {}, {total} events, {} records, every {interval:?} (Ctrl-C quits)",
            crate::clock::now_rfc3339(),
            s.records.len()
        );
        o += &super::resolution(
            s,
            [
                (Kind::Hard, None),
                (Kind::Soft, Some(Cause::BhOff)),
                (Kind::Soft, Some(Cause::KsoftirqdWait)),
            ],
            None,
        );
    }
    for r in new {
        super::record_with(&mut o, r, color, false, 3, s.version, WATCH_STACKS);
    }
    o
}

/// The last line of `watch --until`.
pub fn caught(r: &Record, ms: u64) -> String {
    format!(
        "caught a window of at least {ms} ms: {}\n",
        super::window_sentence(r)
    )
}
