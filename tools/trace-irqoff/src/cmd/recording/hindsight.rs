// SPDX-License-Identifier: GPL-2.0
//! `record --last`: a recording made in hindsight, of what the module's event ring and
//! records file still hold; the module is only read.

use std::time::Duration;

use anyhow::Result;

use crate::error::Problem;
use crate::model::clock;
use crate::model::saved_recording::{Recording, StreamSummary};
use crate::model::snapshot::Record;
use crate::source::procfs::{Backend, Module};
use crate::source::ring;

use super::Machine;

/// `--last`: the windows of the last `last` that the event ring holds, with the module's
/// records of that time (those the store kept have their in-window samples); the module
/// is only read.
pub fn hindsight<B: Backend>(m: &Module<B>, last: Duration) -> Result<Recording> {
    let s = crate::enrich::prepare::module_snapshot(m)?;
    let settings = m.settings()?;
    let st = open_ring(m)?;
    let now = clock::monotonic_ns();
    let from = now.saturating_sub(u64::try_from(last.as_nanos()).unwrap_or(u64::MAX));
    let crate::model::ring_event::Ring {
        windows: ring,
        stalls,
        ..
    } = st
        .read()
        .map_err(|why| Problem::failure(why, "run as root"))?;
    let clock = clock::Clock::of_anchor(s.config.realtime_offset_ns);
    let history_from = ring
        .iter()
        .map(|e| e.end_ns)
        .min()
        .map(|ns| clock.rfc3339(ns));
    let events: Vec<crate::model::ring_event::Event> = ring
        .into_iter()
        .filter(|e| e.end_ns >= from && e.end_ns <= now)
        .collect();
    let mut records: Vec<Record> = s
        .records
        .iter()
        .filter(|r| !r.ongoing && r.timestamp_ns >= from)
        .cloned()
        .collect();
    let kept = records.len();
    crate::enrich::ring_windows::add_missing(
        &mut records,
        &crate::enrich::prepare::ring_records(m, &events, &s.config, s.config.threshold_ns),
    );
    crate::enrich::cgroup::resolve(&m.proc_root(), &mut records);
    crate::enrich::precision::annotate(&s.config, &mut records);
    let mut cursor = ring::Cursor::default();
    cursor.take(events.clone());
    let Machine {
        host,
        kernel,
        kernel_build_id,
    } = Machine::of(m);
    Ok(Recording {
        host,
        kernel,
        kernel_build_id,
        cli_version: env!("CARGO_PKG_VERSION"),
        module: super::module_info(&s),
        started: clock.rfc3339(from),
        ended: clock.rfc3339(now),
        duration_ms: (now - from) / 1_000_000,
        realtime_offset_ns: s.config.realtime_offset_ns,
        ended_monotonic_ns: now,
        interrupted: false,
        settings,
        restored: settings,
        outside_changes: Vec::new(),
        kept_outside: Vec::new(),
        until_ms: None,
        caught: None,
        cpus: crate::enrich::ring_windows::counts(&events),
        // Those that ended in the span; the module's counters cover all time, not it.
        stalls: stalls
            .into_iter()
            .filter(|st| st.end_ns >= from && st.end_ns <= now)
            .map(|st| st.stamped(&clock))
            .collect(),
        stalls_counted: None,
        stream: Some(StreamSummary {
            windows: events.len() as u64,
            not_kept: (records.len() - kept) as u64,
            lost: cursor.lost,
            history_from,
        }),
        records,
    })
}

/// The event ring to look back in: the running kernel's (or the one a test names);
/// refused, with why, where there is none.
fn open_ring<B: Backend>(m: &Module<B>) -> Result<ring::Stream, Problem> {
    let st = if m.is_live() || ring::overridden() {
        ring::Stream::open_running().map_err(Some)
    } else {
        Err(None)
    };
    st.map_err(|why| {
        Problem::failure(
            format!("there is no event ring to look back in{}", why.map(|w| format!(": {w}")).unwrap_or_default()),
            "the ring starts with trace-irqoff enable, watch or record on this machine; record --last finds what came after",
        )
    })
}
