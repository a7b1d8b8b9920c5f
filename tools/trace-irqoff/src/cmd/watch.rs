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

pub fn run<B: Backend>(a: &WatchArgs, m: &Module<B>, ctx: &Ctx) -> Result<Outcome> {
    let settings = m.settings()?;
    if !settings.enabled {
        // Not an error (the kept records are still shown), but nothing new will come.
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
    let stop = super::interrupt_flag()?;
    let redraw = std::io::stdout().is_terminal() && !ctx.json;
    let mut seen: Option<HashSet<RecordKey>> = None;
    // Every window at the threshold, also those the module's store does not keep.
    let mut stream = super::open_stream(m, false);
    let mut streamed: VecDeque<Record> = VecDeque::new();
    // Stalls of the whole machine: the stream's, and the module's latest one (all there is
    // without a stream). Never windows; shown apart, each once on a pipe.
    let mut stalls: VecDeque<Stall> = VecDeque::new();
    let mut seen_stalls: Option<HashSet<(u64, u64)>> = None;
    // What the ring holds already shows with the first refresh, beside the kept records.
    let mut held = stream
        .as_ref()
        .and_then(|st| st.read().ok())
        .unwrap_or_default();
    let mut n = 0u64;
    let started = Instant::now();
    let started_ns = crate::model::clock::monotonic_ns();
    let deadline = a.duration.map(|d| started + d);
    // Every window that ended while watching, once, for the summary.
    let mut ended: HashSet<RecordKey> = HashSet::new();
    let mut tally = render::line::Tally::default();
    let mut size = None;
    // --lines: one resolver throughout, each debug file read once.
    let mut lines = crate::enrich::lines::Resolver::for_running(&a.lines, m.is_live());
    while !stop.load(Ordering::SeqCst) && a.count.is_none_or(|c| n < c) {
        let last = deadline.is_some_and(|d| Instant::now() >= d);
        // The stream first: the store is then at least as new as what it carried.
        let mut ring = std::mem::take(&mut held);
        if let Some(more) = stream.as_mut().map(|st| st.poll()) {
            ring.windows.extend(more.windows);
            ring.stalls.extend(more.stalls);
        }
        let mut s = crate::enrich::prepare::module_snapshot(m)?;
        add_streamed(m, &mut s, &mut streamed, &ring.windows);
        add_stalls(&s, &mut stalls, ring.stalls);
        crate::enrich::cgroup::resolve(&m.proc_root(), &mut s.records);
        if let Some(res) = lines.as_mut() {
            if m.is_live() {
                crate::enrich::lines::fill_build_ids(&mut s.records);
            }
            for r in s.records.iter_mut() {
                res.annotate(r);
            }
        }
        for r in &s.records {
            if !r.ongoing && r.timestamp_ns >= started_ns && ended.insert(r.key()) {
                let kind = render::kind_or_cause(r.kind, r.cause);
                tally.add(kind, r.cpu, 1, Some(r.latency_ns));
            }
        }
        let shown_stalls: Vec<(Stall, bool)> = stalls
            .iter()
            .map(|st| {
                let new = seen_stalls
                    .as_ref()
                    .is_none_or(|sn| !sn.contains(&st.key()));
                (st.clone(), new)
            })
            .collect();
        // On a pipe each window is printed once, when it has ended: a window still open
        // has a record whose length grows at every refresh (the terminal view shows it).
        let mut new: Vec<Record> = s
            .records
            .iter()
            .filter(|r| redraw || !r.ongoing)
            .filter(|r| seen.as_ref().is_none_or(|sn| !sn.contains(&r.key())))
            .cloned()
            .collect();
        new.sort_by_key(|r| r.timestamp_ns);
        // On a terminal the first refresh marks nothing new, as for windows.
        let marked: Vec<(Stall, bool)> = shown_stalls
            .iter()
            .map(|(st, new)| (st.clone(), *new && seen_stalls.is_some()))
            .collect();
        let new_stalls: Vec<Stall> = shown_stalls
            .iter()
            .filter(|(_, new)| *new)
            .map(|(st, _)| st.clone())
            .collect();
        let e = enrich::snapshot(&s);
        if redraw {
            size = output::terminal_size();
            let view = match size {
                Some((rows, cols)) => {
                    // The notes said before the screen was cleared stay below the title.
                    let notes = render::line::notes(&output::notes(), cols);
                    let size = (rows.saturating_sub(notes.lines().count()), cols);
                    let view = if a.stacks || a.lines.lines {
                        render::watch_view::stacks_screen(
                            &e,
                            seen.as_ref(),
                            &marked,
                            a.interval,
                            ctx.color,
                            size,
                        )
                    } else {
                        render::watch_view::screen(
                            &e,
                            seen.as_ref(),
                            &marked,
                            a.interval,
                            ctx.color,
                            size,
                        )
                    };
                    match view.split_once('\n') {
                        Some((title, rest)) => format!("{title}\n{notes}{rest}"),
                        None => view + &notes,
                    }
                }
                None => {
                    render::watch_view::refresh(&e, seen.as_ref(), &marked, a.interval, ctx.color)
                }
            };
            output::print(&(render::CLEAR_SCREEN.to_string() + &view))?;
        } else if ctx.json {
            output::print(&render::watch_view::ndjson(&new, &new_stalls)?)?;
        } else {
            output::print(&render::watch_view::appended(
                &e,
                &enrich::windows(&new),
                &new_stalls,
                seen.is_none(),
                a.interval,
                ctx.color,
            ))?;
        }
        // Only windows that came after the first refresh end it.
        if let (Some(ms), Some(_)) = (a.until, &seen) {
            if let Some(r) = snapshot::first_at_least(&new, ms, s.version) {
                if !ctx.json {
                    let text = render::watch_view::caught(r, ms);
                    output::print(&match size {
                        Some((_, cols)) => render::line::wrap(text.trim_end(), cols),
                        None => text,
                    })?;
                }
                return Ok(Outcome::Caught);
            }
        }
        seen = Some(s.records.iter().map(|r| r.key()).collect());
        seen_stalls = Some(stalls.iter().map(Stall::key).collect());
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
    if let Some(res) = &lines {
        super::lines_hint(res.hint().as_deref());
    }
    summary(&tally, started.elapsed(), size.map(|(_, cols)| cols), ctx)?;
    Ok(Outcome::Done)
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
