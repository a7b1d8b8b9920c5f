// SPDX-License-Identifier: GPL-2.0
//! `watch`: one refresh.

use std::borrow::Borrow;
use std::collections::HashSet;
use std::fmt::Write;
use std::time::Duration;

use serde::Serialize;

use super::records_view::{record_with, FromModule};
use crate::enrich::{Enriched, Window};
use crate::model::snapshot::{Cause, Kind, Record, RecordKey, Stall};

/// Profile stacks `watch` shows per record (the rest are summed in one line).
const WATCH_STACKS: usize = 3;

/// The header and the 20 newest records with their stacks (`watch --stacks`); those not
/// in `seen` (the previous refresh) are marked new.
pub fn refresh(
    s: &Enriched,
    seen: Option<&HashSet<RecordKey>>,
    stalls: &[(Stall, bool)],
    interval: Duration,
    color: bool,
) -> String {
    let mut o = String::new();
    let total: u64 = s.cpus.iter().map(|c| c.hard_events + c.soft_events).sum();
    let now = crate::model::clock::now_rfc3339();
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
    for block in blocks(s, seen, stalls, color) {
        o += &block;
    }
    o
}

/// The newest 20 windows and stalls, each as `watch --stacks` shows it: a record with its
/// stacks, or a stall's entry.
fn blocks(
    s: &Enriched,
    seen: Option<&HashSet<RecordKey>>,
    stalls: &[(Stall, bool)],
    color: bool,
) -> Vec<String> {
    let mut v = Vec::new();
    for item in newest_first(s, stalls).into_iter().take(20) {
        let mut o = String::new();
        match item {
            Item::Window(r) => {
                let new = seen.is_some_and(|sn| !sn.contains(&r.key()));
                record_with(&mut o, r, color, new, 3, FromModule::of(s), WATCH_STACKS);
            }
            Item::Stall(st, new) => {
                if new {
                    o += &super::paint(color, super::RED, "NEW ");
                }
                o += &super::stall_entry(st, color);
            }
        }
        v.push(o);
    }
    v
}

/// `watch --stacks` on a terminal of `rows` x `cols`: the title and what the lengths mean,
/// then the newest windows with their stacks, as many whole as the rows hold (the newest
/// at least in part), every line cut to the width; the last line says what was left out
/// and where it is. Never more lines than the terminal has, less the one the cursor rests
/// on.
pub fn stacks_screen(
    s: &Enriched,
    seen: Option<&HashSet<RecordKey>>,
    stalls: &[(Stall, bool)],
    interval: Duration,
    color: bool,
    (rows, cols): (usize, usize),
) -> String {
    let mut o = super::line::fit(&title(s, interval), Some(cols)) + "\n";
    o += &super::resolution_of(s, &s.windows, Some(cols));
    let room = rows.saturating_sub(o.lines().count() + 1).max(1);
    let blocks = blocks(s, seen, stalls, color);
    let shown_of_all = newest_first(s, stalls).len();
    let mut used = 0;
    let mut whole = 0;
    let mut cut_lines = 0;
    for (i, b) in blocks.iter().enumerate() {
        let n = b.lines().count();
        // Keep a line for what was left out, unless this is the last and it fits.
        let rest = shown_of_all - i - 1;
        let reserve = usize::from(rest > 0);
        if used + n + reserve <= room {
            for l in b.lines() {
                o += &fit_visible(l, cols);
                o.push('\n');
            }
            used += n;
            whole += 1;
        } else {
            if whole == 0 {
                // The newest window, in part: its head and what fits of its stacks.
                let keep = room.saturating_sub(1).max(1);
                for l in b.lines().take(keep) {
                    o += &fit_visible(l, cols);
                    o.push('\n');
                }
                cut_lines = n.saturating_sub(keep);
                whole = 1;
            }
            break;
        }
    }
    let more = shown_of_all - whole;
    let mut left = Vec::new();
    if cut_lines > 0 {
        left.push(format!("{cut_lines} more lines of this window"));
    }
    match more {
        0 => {}
        1 => left.push("1 more window".into()),
        n => left.push(format!("{n} more windows")),
    }
    if !left.is_empty() {
        let l = format!(
            " \u{2026} {}; see trace-irqoff records --stacks",
            left.join(", ")
        );
        o += &super::paint(color, super::DIM, &super::line::fit(&l, Some(cols)));
        o.push('\n');
    }
    if shown_of_all == 0 {
        o += " (no window recorded yet)\n";
    }
    o
}

/// `line` as it is where it fits `cols` on screen (its escapes take no room); else cut to
/// the width without its colour, so that a cut never lands inside an escape.
pub fn fit_visible(line: &str, cols: usize) -> String {
    let plain = super::line::strip_escapes(line);
    if plain.chars().count() <= cols {
        line.to_string()
    } else {
        super::line::fit(&plain, Some(cols))
    }
}

/// The first line of `watch` on a terminal.
fn title(s: &Enriched, interval: Duration) -> String {
    let total: u64 = s.cpus.iter().map(|c| c.hard_events + c.soft_events).sum();
    let now = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    format!(
        "trace-irqoff watch: {} UTC, {total} events, {} windows with stacks, every {}",
        now.get(11..19).unwrap_or("?"),
        s.records.len(),
        humantime::format_duration(interval)
    )
}

/// A line of `watch`: a window (a record, or its [`Window`]), or a stall of the whole
/// machine (with whether it is new).
enum Item<'a, W> {
    Window(&'a W),
    Stall(&'a Stall, bool),
}

impl<W: Borrow<Record>> Item<'_, W> {
    /// When it ended, CLOCK_MONOTONIC.
    fn end_ns(&self) -> u64 {
        match self {
            Item::Window(r) => (*r).borrow().timestamp_ns,
            Item::Stall(st, _) => st.end_ns,
        }
    }
}

/// The terminal view: a header, then one line per window, newest first, as many as
/// `rows` holds (the newest always on screen), each cut to `cols` ([`super::line`]); new
/// ones (not in `seen`) starred and bold. The last line counts what did not fit.
pub fn screen(
    s: &Enriched,
    seen: Option<&HashSet<RecordKey>>,
    stalls: &[(Stall, bool)],
    interval: Duration,
    color: bool,
    (rows, cols): (usize, usize),
) -> String {
    let width = Some(cols);
    let mut o = super::line::fit(&title(s, interval), width) + "\n";
    let recs = newest_first(s, stalls);
    o += &super::resolution_of(s, &s.windows, width);
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
fn newest_first<'a>(s: &'a Enriched, stalls: &'a [(Stall, bool)]) -> Vec<Item<'a, Window<'a>>> {
    let mut items: Vec<Item<Window>> = s.windows.iter().map(Item::Window).collect();
    items.extend(stalls.iter().map(|(st, new)| Item::Stall(st, *new)));
    items.sort_by_key(|i| std::cmp::Reverse(i.end_ns()));
    items
}

/// A refresh on a pipe: the header and the records so far the first time, then only the
/// records that are new (oldest first), so that a log holds each once.
pub fn appended(
    s: &Enriched,
    new: &[Window],
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
            crate::model::clock::now_rfc3339(),
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
                record_with(&mut o, r, color, false, 3, FromModule::of(s), WATCH_STACKS)
            }
            Item::Stall(st, _) => o += &super::stall_entry(st, color),
        }
    }
    o
}

/// The windows `new` and the stalls `new_stalls`, oldest first (as they came).
fn oldest_first<'a, W: Borrow<Record>>(new: &'a [W], new_stalls: &'a [Stall]) -> Vec<Item<'a, W>> {
    let mut items: Vec<Item<W>> = new.iter().map(Item::Window).collect();
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

/// `watch --json` on a pipe: one object a line, windows (records with their `context`,
/// as `records --json` gives them) and stalls (`"kind": "stall"`), oldest first.
pub fn ndjson(new: &[Record], new_stalls: &[Stall]) -> serde_json::Result<String> {
    let mut o = String::new();
    for item in oldest_first(new, new_stalls) {
        o += &match item {
            Item::Window(r) => serde_json::to_string(&Window::of(r).json())?,
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
