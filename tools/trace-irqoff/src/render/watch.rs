// SPDX-License-Identifier: GPL-2.0
//! `watch`: one refresh.

use std::collections::HashSet;
use std::fmt::Write;
use std::time::Duration;

use serde::Serialize;

use crate::model::snapshot::{Cause, Kind, Record, RecordKey, Snapshot, Stall};

/// Profile stacks `watch` shows per record (the rest are summed in one line).
const WATCH_STACKS: usize = 3;

/// The header and the 20 newest records with their stacks (`watch --stacks`); those not
/// in `seen` (the previous refresh) are marked new.
pub fn refresh(
    s: &Snapshot,
    seen: Option<&HashSet<RecordKey>>,
    stalls: &[(Stall, bool)],
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
    for item in newest_first(s, stalls).into_iter().take(20) {
        match item {
            Item::Window(r) => {
                let new = seen.is_some_and(|sn| !sn.contains(&r.key()));
                super::record_with(&mut o, r, color, new, 3, s.version, WATCH_STACKS);
            }
            Item::Stall(st, new) => {
                if new {
                    o += &super::paint(color, super::RED, "NEW ");
                }
                o += &super::stall_entry(st, color);
            }
        }
    }
    o
}

/// A line of `watch`: a window, or a stall of the whole machine (with whether it is new).
enum Item<'a> {
    Window(&'a Record),
    Stall(&'a Stall, bool),
}

impl Item<'_> {
    /// When it ended, CLOCK_MONOTONIC.
    fn end_ns(&self) -> u64 {
        match self {
            Item::Window(r) => r.timestamp_ns,
            Item::Stall(st, _) => st.end_ns,
        }
    }
}

/// The terminal view: a header, then one line per window, newest first, as many as
/// `rows` holds (the newest always on screen), each cut to `cols` ([`super::line`]); new
/// ones (not in `seen`) starred and bold. The last line counts what did not fit.
pub fn screen(
    s: &Snapshot,
    seen: Option<&HashSet<RecordKey>>,
    stalls: &[(Stall, bool)],
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
    let recs = newest_first(s, stalls);
    o += &super::resolution_of(s, &s.records, width);
    o += &(super::paint(color, super::BOLD, &super::line::header(width)) + "\n");
    // The lines so far, and the line the cursor rests on.
    let room = rows.saturating_sub(o.lines().count() + 1).max(1);
    let shown = if recs.len() > room {
        room - 1
    } else {
        recs.len()
    };
    for item in recs.iter().take(shown) {
        let (l, new) = match item {
            Item::Window(r) => {
                let new = seen.is_some_and(|sn| !sn.contains(&r.key()));
                (super::line::window(r, new, width), new)
            }
            Item::Stall(st, new) => (super::stall_line(st, *new, width), *new),
        };
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

/// The windows of `s` and the `stalls`, newest first.
fn newest_first<'a>(s: &'a Snapshot, stalls: &'a [(Stall, bool)]) -> Vec<Item<'a>> {
    let mut items: Vec<Item> = s.records.iter().map(Item::Window).collect();
    items.extend(stalls.iter().map(|(st, new)| Item::Stall(st, *new)));
    items.sort_by_key(|i| std::cmp::Reverse(i.end_ns()));
    items
}

/// A refresh on a pipe: the header and the records so far the first time, then only the
/// records that are new (oldest first), so that a log holds each once.
pub fn appended(
    s: &Snapshot,
    new: &[Record],
    new_stalls: &[Stall],
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
    for item in oldest_first(new, new_stalls) {
        match item {
            Item::Window(r) => {
                super::record_with(&mut o, r, color, false, 3, s.version, WATCH_STACKS)
            }
            Item::Stall(st, _) => o += &super::stall_entry(st, color),
        }
    }
    o
}

/// The windows `new` and the stalls `new_stalls`, oldest first (as they came).
fn oldest_first<'a>(new: &'a [Record], new_stalls: &'a [Stall]) -> Vec<Item<'a>> {
    let mut items: Vec<Item> = new.iter().map(Item::Window).collect();
    items.extend(new_stalls.iter().map(|st| Item::Stall(st, true)));
    // Stable: windows of the same end keep their order.
    items.sort_by_key(Item::end_ns);
    items
}

/// A stall in `watch --json`: its fields, with `"kind": "stall"` (a window's kind is
/// "hard" or "soft").
#[derive(Serialize)]
struct StallJson<'a> {
    kind: &'static str,
    #[serde(flatten)]
    stall: &'a Stall,
}

/// `watch --json` on a pipe: one object a line, windows (records) and stalls
/// (`"kind": "stall"`), oldest first.
pub fn ndjson(new: &[Record], new_stalls: &[Stall]) -> serde_json::Result<String> {
    let mut o = String::new();
    for item in oldest_first(new, new_stalls) {
        o += &match item {
            Item::Window(r) => serde_json::to_string(r)?,
            Item::Stall(stall, _) => serde_json::to_string(&StallJson {
                kind: "stall",
                stall,
            })?,
        };
        o.push('\n');
    }
    Ok(o)
}

/// The last line of `watch --until`.
pub fn caught(r: &Record, ms: u64) -> String {
    format!(
        "caught a window of at least {ms} ms: {}\n",
        super::window_sentence(r)
    )
}
