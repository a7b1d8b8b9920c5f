// SPDX-License-Identifier: GPL-2.0
//! `top`: records grouped by culprit; `top --live`: per CPU and kind, refreshed.

use std::io::IsTerminal;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use anyhow::Result;

use super::{Ctx, From, Outcome};
use crate::cli::TopArgs;
use crate::enrich;
use crate::enrich::prepare::{Options, Prepared};
use crate::enrich::ring_windows::Tally;
use crate::model::clock;
use crate::model::culprit_group::Culprit;
use crate::model::snapshot::KindLabel;
use crate::output;
use crate::render;
use crate::source::procfs::{Backend, Module};

/// Arguments, prepare (the ring's windows merged; with `--lines`, build ids and source
/// lines), select (the culprit groups), render.
pub fn run(a: &TopArgs, from: &From, ctx: &Ctx) -> Result<Outcome> {
    let p = from.prepare(Options::views(&a.lines))?;
    let mut t = enrich::top(&p.snapshot().records, a.grouping());
    t.truncate(a.limit);
    show(&t, &p, ctx)
}

/// Prints the culprits `t` of `p`'s records, and below them what its coverage says is
/// not shown (on stderr with `--json`).
fn show(t: &[Culprit], p: &Prepared, ctx: &Ctx) -> Result<Outcome> {
    let coverage = &p.coverage;
    if ctx.json {
        output::print_json(&t)?;
        if let Some(l) = coverage.sentence() {
            output::note(&l);
        }
    } else {
        // On a terminal, fitted to its width; on a pipe, the full table scripts read.
        let s = &p.enriched();
        let text = match output::terminal_size() {
            Some((_, cols)) => {
                render::top_view::screen(t, ctx.color, cols)
                    + &render::resolution(s, t.iter().map(|c| (c.kind, c.cause)), Some(cols))
                    + &render::top_view::stall_footnote(s.stalls.as_ref(), Some(cols))
                    + &coverage.footnote(Some(cols))
            }
            None => {
                render::top_view::text(t, ctx.color)
                    + &render::resolution(s, t.iter().map(|c| (c.kind, c.cause)), None)
                    + &render::top_view::stall_footnote(s.stalls.as_ref(), None)
                    + &coverage.footnote(None)
            }
        };
        output::print(&text)?;
    }
    Ok(Outcome::Done)
}

/// Redrawn in place on a terminal until Ctrl-C; printed once otherwise (a pipe, a log).
pub fn live<B: Backend>(a: &TopArgs, m: &Module<B>, ctx: &Ctx) -> Result<Outcome> {
    let tty = std::io::stdout().is_terminal();
    let count = refreshes(a, tty);
    let started = Instant::now();
    let deadline = a.duration.map(|d| started + d);
    let mut cols = None;
    let stop = super::interrupt_flag()?;
    let mut previous = None;
    // Counts since the first refresh: that one shows what the module has since load.
    let mut base: Option<(render::live::Base, String)> = None;
    // Every window since the first refresh, for last, min and max (where it can be read).
    let mut stream = if count > 1 {
        super::open_stream(m, false)
    } else {
        None
    };
    let mut tally: Option<Tally> = None;
    let mut n = 0;
    while n < count && !stop.load(Ordering::SeqCst) {
        let last = deadline.is_some_and(|d| Instant::now() >= d);
        let events = stream
            .as_mut()
            .map(|st| st.poll().windows)
            .unwrap_or_default();
        let taken = clock::monotonic_ns();
        let s = crate::enrich::prepare::module_snapshot(m)?;
        if let Some(t) = tally.as_mut() {
            t.add(&events);
        }
        let rows = render::live::rows(&s, base.as_ref().map(|b| &b.0), tally.as_ref());
        // Whether these rows' last, min and max came from the ring (not in the first refresh).
        let ring = base.is_some() && tally.is_some();
        let since = since(base.as_ref(), &s);
        // Stalls in the span the counts cover: since load or clear, then since the start.
        let stalls = s
            .stalls
            .as_ref()
            .map(|st| st.since(base.as_ref().and_then(|b| b.0.stalls.as_ref())));
        if base.is_none() {
            let started =
                humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
            base = Some((
                render::live::Base::new(&s, taken),
                started.get(11..19).unwrap_or("?").to_string(),
            ));
            tally = stream.as_ref().map(|_| Tally::new(taken));
        }
        if ctx.json {
            output::print(&(serde_json::to_string(&rows)? + "\n"))?;
        } else {
            let view = Refresh {
                s: &s,
                rows: &rows,
                previous: previous.as_deref(),
                since: (&since, ring),
                stalls: stalls.as_ref(),
            };
            let (table, width) = view.table(tty, ctx.color);
            cols = width.or(cols);
            output::print(&if tty { render::in_place(&table) } else { table })?;
        }
        previous = Some(rows);
        n += 1;
        if last {
            break;
        }
        let until = Instant::now() + a.interval;
        let until = deadline.map_or(until, |d| until.min(d));
        while n < count && Instant::now() < until && !stop.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    if n > 1 || a.duration.is_some() || stop.load(Ordering::SeqCst) {
        end_line(previous.as_deref(), started.elapsed(), cols, tty, ctx)?;
    }
    Ok(Outcome::Done)
}

/// How many refreshes: `--count`; without it, until Ctrl-C or `--duration` on a
/// terminal, once on a pipe.
fn refreshes(a: &TopArgs, tty: bool) -> u64 {
    a.count.unwrap_or(if tty || a.duration.is_some() {
        u64::MAX
    } else {
        1
    })
}

/// What the rows count since: the first refresh's time, or the load or clear.
fn since(
    base: Option<&(render::live::Base, String)>,
    s: &crate::model::snapshot::Snapshot,
) -> String {
    match (base, &s.config.counts_since) {
        (Some(b), _) => format!("since {} UTC", b.1),
        (None, Some(t)) => {
            format!("since {} UTC (load or clear)", t.get(11..19).unwrap_or("?"))
        }
        (None, None) => "since load".to_string(),
    }
}

/// One refresh of `top --live` as text.
struct Refresh<'a> {
    s: &'a crate::model::snapshot::Snapshot,
    rows: &'a [render::live::Row],
    previous: Option<&'a [render::live::Row]>,
    /// What the counts are since, and whether last, min and max came from the ring.
    since: (&'a str, bool),
    stalls: Option<&'a crate::model::snapshot::Stalls>,
}

impl Refresh<'_> {
    /// The table: on a terminal fitted to it (the width returned), the stall footnote
    /// below it keeping the lines it takes free and the notes said before the first
    /// redraw below the title; off one, the text scripts read.
    fn table(&self, tty: bool, color: bool) -> (String, Option<usize>) {
        let now = clock::now_rfc3339();
        let e = enrich::snapshot(self.s);
        match output::terminal_size().filter(|_| tty) {
            Some((height, width)) => {
                let foot = render::top_view::stall_footnote(self.stalls, Some(width));
                let notes = render::line::notes(&crate::output::notes(), width);
                let view = render::live::screen(
                    &e,
                    self.rows,
                    self.previous,
                    &now,
                    self.since,
                    color,
                    (
                        height.saturating_sub(foot.lines().count() + notes.lines().count()),
                        width,
                    ),
                );
                let table = match view.split_once('\n') {
                    Some((title, rest)) => format!("{title}\n{notes}{rest}{foot}"),
                    None => view + &notes + &foot,
                };
                (table, Some(width))
            }
            None => (
                render::live::text(&e, self.rows, self.previous, &now, self.since, color)
                    + &render::top_view::stall_footnote(self.stalls, None),
                None,
            ),
        }
    }
}

/// The line a run that refreshed ends with (also on Ctrl-C): what the last rows count
/// since the start; on stderr with --json and off a terminal (the table on stdout stays
/// as scripts read it).
fn end_line(
    rows: Option<&[render::live::Row]>,
    span: Duration,
    cols: Option<usize>,
    tty: bool,
    ctx: &Ctx,
) -> Result<()> {
    let mut tally = render::line::Tally::default();
    for r in rows.into_iter().flatten() {
        tally.add(r.kind.label(), r.cpu, r.events, r.max_ns);
    }
    let text = tally.summary("top --live", span, cols);
    if ctx.json || !tty {
        eprint!("{text}");
        Ok(())
    } else {
        output::print(&text)
    }
}
