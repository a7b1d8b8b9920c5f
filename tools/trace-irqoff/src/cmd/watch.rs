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
use crate::error::Problem;
use crate::model::snapshot::{self, Record, RecordKey, Snapshot};
use crate::output;
use crate::procfs::{Backend, Module};
use crate::render;
use crate::stream;

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
    // What the ring holds already shows with the first refresh, beside the kept records.
    let mut held = stream
        .as_ref()
        .and_then(|st| st.read().ok())
        .unwrap_or_default();
    let mut n = 0u64;
    while !stop.load(Ordering::SeqCst) && a.count.is_none_or(|c| n < c) {
        // The stream first: the store is then at least as new as what it carried.
        let mut events = std::mem::take(&mut held);
        events.extend(stream.as_mut().map(|st| st.poll()).unwrap_or_default());
        let mut s = m.snapshot()?;
        add_streamed(&mut s, &mut streamed, &events);
        m.resolve_cgroups(&mut s.records);
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
        if redraw {
            let view = match output::terminal_size() {
                Some(size) if !a.stacks => {
                    render::watch::screen(&s, seen.as_ref(), a.interval, ctx.color, size)
                }
                _ => render::watch::refresh(&s, seen.as_ref(), a.interval, ctx.color),
            };
            output::print(&(render::CLEAR_SCREEN.to_string() + &view))?;
        } else if ctx.json {
            let mut o = String::new();
            for r in &new {
                o += &(serde_json::to_string(r)? + "\n");
            }
            output::print(&o)?;
        } else {
            output::print(&render::watch::appended(
                &s,
                &new,
                seen.is_none(),
                a.interval,
                ctx.color,
            ))?;
        }
        // Only windows that came after the first refresh end it.
        if let (Some(ms), Some(_)) = (a.until, &seen) {
            if let Some(r) = snapshot::first_at_least(&new, ms, s.version) {
                if !ctx.json {
                    output::print(&render::watch::caught(r, ms))?;
                }
                return Ok(Outcome::Caught);
            }
        }
        seen = Some(s.records.iter().map(|r| r.key()).collect());
        n += 1;
        if a.count.is_some_and(|c| n >= c) {
            break;
        }
        let until = Instant::now() + a.interval;
        while Instant::now() < until && !stop.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    Ok(Outcome::Done)
}

/// Streamed windows kept for the views (the newest ones).
const STREAMED_KEPT: usize = 256;

/// Adds to the snapshot's records the streamed windows at its threshold that its store
/// does not hold (kept in `streamed` across refreshes, the newest [`STREAMED_KEPT`]).
fn add_streamed(s: &mut Snapshot, streamed: &mut VecDeque<Record>, events: &[stream::Event]) {
    let clock = crate::clock::Clock::of_anchor(s.config.realtime_offset_ns);
    streamed.extend(stream::records(events, s.config.threshold_ns, &clock));
    while streamed.len() > STREAMED_KEPT {
        streamed.pop_front();
    }
    let extra = stream::missing(&s.records, streamed.iter());
    s.records.extend(extra);
}
