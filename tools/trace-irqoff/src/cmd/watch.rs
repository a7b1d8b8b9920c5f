// SPDX-License-Identifier: GPL-2.0
//! `watch`: the newest records, refreshed. On a terminal the screen is redrawn; on a pipe
//! (a log, a collector) the records are printed once each, as they come, as text or as
//! NDJSON with `--json`.

use std::collections::{HashSet, VecDeque};
use std::io::IsTerminal;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use anyhow::Result;

use super::{Ctx, Outcome};
use crate::cli::WatchArgs;
use crate::enrich;
use crate::error::Problem;
use crate::model::snapshot::{self, Record, RecordKey, Snapshot, Stall};
use crate::output;
use crate::render;
use crate::source::procfs::{Backend, Module};

/// Arguments, then at every refresh: prepare (the module's records with the stream's
/// windows, cgroups, `--lines`), select (what is new), render; the summary at the end.
pub fn run<B: Backend>(a: &WatchArgs, m: &Module<B>, ctx: &Ctx) -> Result<Outcome> {
    check(a, &m.settings()?)?;
    let stop = super::interrupt_flag()?;
    let mut w = Watching::new(a, m, ctx);
    let started = Instant::now();
    let deadline = a.duration.map(|d| started + d);
    let mut n = 0u64;
    while !stop.load(Ordering::SeqCst) && a.count.is_none_or(|c| n < c) {
        let last = deadline.is_some_and(|d| Instant::now() >= d);
        let s = w.read(m)?;
        let news = w.news(&s);
        w.draw(a, ctx, &s, &news)?;
        // Only windows that came after the first refresh end it.
        if w.seen.is_some() && w.caught(a, ctx, &s, &news.records)? {
            return Ok(Outcome::Caught);
        }
        w.seen = Some(s.records.iter().map(|r| r.key()).collect());
        w.seen_stalls = Some(w.stalls.iter().map(Stall::key).collect());
        n += 1;
        if last || a.count.is_some_and(|c| n >= c) {
            break;
        }
        let until = Instant::now() + a.interval;
        let until = deadline.map_or(until, |d| until.min(d));
        while Instant::now() < until && !stop.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    if let Some(res) = &w.lines {
        super::lines_hint(res.hint().as_deref());
    }
    summary(
        &w.tally,
        started.elapsed(),
        w.size.map(|(_, cols)| cols),
        ctx,
    )?;
    Ok(Outcome::Done)
}

/// Says when sampling is off (the kept records are still shown, but nothing new will
/// come); refuses an `--until` below the threshold (such a window is not recorded).
fn check(a: &WatchArgs, settings: &crate::model::settings::Settings) -> Result<()> {
    if !settings.enabled {
        output::note(
            "sampling is disabled: no new window will be recorded until `trace-irqoff enable`",
        );
    }
    if let Some(ms) = a.until {
        let threshold = settings.threshold_ms;
        if ms < threshold {
            return Err(Problem::usage(
                format!("--until {ms} is below the threshold ({threshold} ms): such a window would not be recorded"),
                format!("lower the threshold first (trace-irqoff set threshold {ms}), or use trace-irqoff record --until {ms}"),
            )
            .into());
        }
    }
    Ok(())
}

/// What a refresh shows that the one before did not.
struct News {
    /// Windows new since the last refresh (on a pipe only those that ended), oldest first.
    records: Vec<Record>,
    /// The stalls kept, each with whether it is new (the first refresh marks none).
    marked: Vec<(Stall, bool)>,
    /// The stalls new since the last refresh.
    stalls: Vec<Stall>,
}

/// `watch` under way: what it has shown, and what it keeps across refreshes.
struct Watching {
    /// On a terminal the screen is redrawn; on a pipe each window is printed once.
    redraw: bool,
    /// The records and stalls the last refresh showed (none before the first).
    seen: Option<HashSet<RecordKey>>,
    seen_stalls: Option<HashSet<(u64, u64)>>,
    /// Every window at the threshold, also those the module's store does not keep.
    stream: Option<crate::source::ring::Stream>,
    streamed: VecDeque<Record>,
    /// Stalls of the whole machine: the stream's, and the module's latest one (all there
    /// is without a stream). Never windows; shown apart, each once on a pipe.
    stalls: VecDeque<Stall>,
    /// What the ring holds already: shown with the first refresh, beside the kept records.
    held: crate::model::ring_event::Ring,
    started_ns: u64,
    /// Every window that ended while watching, once, for the summary.
    ended: HashSet<RecordKey>,
    tally: render::line::Tally,
    size: Option<(usize, usize)>,
    /// --lines: one resolver throughout, each debug file read once.
    lines: Option<crate::enrich::lines::Resolver>,
}

impl Watching {
    fn new<B: Backend>(a: &WatchArgs, m: &Module<B>, ctx: &Ctx) -> Self {
        let stream = super::open_stream(m, false);
        let held = stream
            .as_ref()
            .and_then(|st| st.read().ok())
            .unwrap_or_default();
        Self {
            redraw: std::io::stdout().is_terminal() && !ctx.json,
            seen: None,
            seen_stalls: None,
            stream,
            streamed: VecDeque::new(),
            stalls: VecDeque::new(),
            held,
            started_ns: crate::model::clock::monotonic_ns(),
            ended: HashSet::new(),
            tally: render::line::Tally::default(),
            size: None,
            lines: crate::enrich::lines::Resolver::for_running(&a.lines, m.is_live()),
        }
    }

    /// One refresh's snapshot, prepared: the stream read first (the store is then at least
    /// as new as what it carried), its windows and stalls added, cgroups, `--lines`; the
    /// windows that ended counted for the summary.
    fn read<B: Backend>(&mut self, m: &Module<B>) -> Result<Snapshot> {
        let mut ring = std::mem::take(&mut self.held);
        if let Some(more) = self.stream.as_mut().map(|st| st.poll()) {
            ring.windows.extend(more.windows);
            ring.stalls.extend(more.stalls);
        }
        let mut s = crate::enrich::prepare::module_snapshot(m)?;
        add_streamed(m, &mut s, &mut self.streamed, &ring.windows);
        add_stalls(&s, &mut self.stalls, ring.stalls);
        crate::enrich::cgroup::resolve(&m.proc_root(), &mut s.records);
        if let Some(res) = self.lines.as_mut() {
            if m.is_live() {
                crate::enrich::lines::fill_build_ids(&mut s.records);
            }
            for r in s.records.iter_mut() {
                res.annotate(r);
            }
        }
        for r in &s.records {
            if !r.ongoing && r.timestamp_ns >= self.started_ns && self.ended.insert(r.key()) {
                let kind = render::kind_or_cause(r.kind, r.cause);
                self.tally.add(kind, r.cpu, 1, Some(r.latency_ns));
            }
        }
        Ok(s)
    }

    /// What `s` holds that the last refresh did not show.
    fn news(&self, s: &Snapshot) -> News {
        let shown_stalls: Vec<(Stall, bool)> = self
            .stalls
            .iter()
            .map(|st| {
                let new = self
                    .seen_stalls
                    .as_ref()
                    .is_none_or(|sn| !sn.contains(&st.key()));
                (st.clone(), new)
            })
            .collect();
        // On a pipe each window is printed once, when it has ended: a window still open
        // has a record whose length grows at every refresh (the terminal view shows it).
        let mut records: Vec<Record> = s
            .records
            .iter()
            .filter(|r| self.redraw || !r.ongoing)
            .filter(|r| self.seen.as_ref().is_none_or(|sn| !sn.contains(&r.key())))
            .cloned()
            .collect();
        records.sort_by_key(|r| r.timestamp_ns);
        // On a terminal the first refresh marks nothing new, as for windows.
        let marked = shown_stalls
            .iter()
            .map(|(st, new)| (st.clone(), *new && self.seen_stalls.is_some()))
            .collect();
        let stalls = shown_stalls
            .iter()
            .filter(|(_, new)| *new)
            .map(|(st, _)| st.clone())
            .collect();
        News {
            records,
            marked,
            stalls,
        }
    }

    /// Shows a refresh: the screen redrawn on a terminal; on a pipe the new windows and
    /// stalls, as text or NDJSON.
    fn draw(&mut self, a: &WatchArgs, ctx: &Ctx, s: &Snapshot, news: &News) -> Result<()> {
        let e = enrich::snapshot(s);
        if self.redraw {
            self.size = output::terminal_size();
            let view = match self.size {
                Some(size) => self.screen(a, ctx, &e, &news.marked, size),
                None => render::watch_view::refresh(
                    &e,
                    self.seen.as_ref(),
                    &news.marked,
                    a.interval,
                    ctx.color,
                ),
            };
            output::print(&(render::CLEAR_SCREEN.to_string() + &view))
        } else if ctx.json {
            output::print(&render::watch_view::ndjson(&news.records, &news.stalls)?)
        } else {
            output::print(&render::watch_view::appended(
                &e,
                &enrich::windows(&news.records),
                &news.stalls,
                self.seen.is_none(),
                a.interval,
                ctx.color,
            ))
        }
    }

    /// The terminal's screen of `rows` x `cols`: the notes said before it was cleared
    /// stay below the title.
    fn screen(
        &self,
        a: &WatchArgs,
        ctx: &Ctx,
        e: &enrich::Enriched,
        marked: &[(Stall, bool)],
        (rows, cols): (usize, usize),
    ) -> String {
        let notes = render::line::notes(&output::notes(), cols);
        let size = (rows.saturating_sub(notes.lines().count()), cols);
        let view = if a.stacks || a.lines.lines {
            render::watch_view::stacks_screen(
                e,
                self.seen.as_ref(),
                marked,
                a.interval,
                ctx.color,
                size,
            )
        } else {
            render::watch_view::screen(e, self.seen.as_ref(), marked, a.interval, ctx.color, size)
        };
        match view.split_once('\n') {
            Some((title, rest)) => format!("{title}\n{notes}{rest}"),
            None => view + &notes,
        }
    }

    /// `--until`: whether one of the `new` windows is that long (said, but with `--json`).
    fn caught(&self, a: &WatchArgs, ctx: &Ctx, s: &Snapshot, new: &[Record]) -> Result<bool> {
        let Some(ms) = a.until else {
            return Ok(false);
        };
        let Some(r) = snapshot::first_at_least(new, ms, s.version) else {
            return Ok(false);
        };
        if !ctx.json {
            let text = render::watch_view::caught(r, ms);
            output::print(&match self.size {
                Some((_, cols)) => render::line::wrap(text.trim_end(), cols),
                None => text,
            })?;
        }
        Ok(true)
    }
}

/// The line `watch` ends with (at its end, on Ctrl-C, `--count` or `--duration`): the
/// windows that ended while it watched, by kind, the longest, on how many CPUs; fitted to
/// a terminal's width; on stderr off a terminal and with `--json` (a log or one object a
/// line on stdout stays as it was).
fn summary(
    tally: &render::line::Tally,
    span: Duration,
    cols: Option<usize>,
    ctx: &Ctx,
) -> Result<()> {
    let text = tally.summary("watch", span, cols);
    if ctx.json || !std::io::stdout().is_terminal() {
        eprint!("{text}");
        Ok(())
    } else {
        output::print(&text)
    }
}

/// Streamed windows kept for the views (the newest ones).
const STREAMED_KEPT: usize = 256;

/// Adds to the snapshot's records the streamed windows at its threshold that its store
/// does not hold (kept in `streamed` across refreshes, the newest [`STREAMED_KEPT`]).
fn add_streamed<B: Backend>(
    m: &Module<B>,
    s: &mut Snapshot,
    streamed: &mut VecDeque<Record>,
    events: &[crate::model::ring_event::Event],
) {
    streamed.extend(crate::enrich::prepare::ring_records(
        m,
        events,
        &s.config,
        s.config.threshold_ns,
    ));
    while streamed.len() > STREAMED_KEPT {
        streamed.pop_front();
    }
    let extra = crate::enrich::ring_windows::missing(&s.records, streamed.iter());
    s.records.extend(extra);
}

/// Adds to `stalls` (kept across refreshes, the newest [`STREAMED_KEPT`], oldest first)
/// the streamed ones and the module's latest one (where the stream did not carry it: no
/// stream, or a module without the event), with wall-clock times.
fn add_stalls(s: &Snapshot, stalls: &mut VecDeque<Stall>, streamed: Vec<Stall>) {
    let clock = crate::model::clock::Clock::of_anchor(s.config.realtime_offset_ns);
    let latest = s.stalls.as_ref().and_then(|st| st.latest());
    for st in streamed.into_iter().chain(latest) {
        if !stalls.iter().any(|k| k.key() == st.key()) {
            stalls.push_back(st.stamped(&clock));
        }
    }
    stalls.make_contiguous().sort_by_key(|st| st.end_ns);
    while stalls.len() > STREAMED_KEPT {
        stalls.pop_front();
    }
}
