// SPDX-License-Identifier: GPL-2.0
//! `journal`: every window in the systemd journal, what trace-irqoff-journal.service runs.
//! It reads the module's event ring every `--interval` (never consuming it: the windows
//! numbered after those it saw, `ring::Cursor`) and writes one structured entry per
//! window (`journal_entry::window`), rate-limited (`journal_entry::rate_limit`), until SIGTERM or
//! Ctrl-C;
//! the summary of what was dropped and not told yet comes last.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use anyhow::Result;

use super::{Ctx, Outcome};
use crate::cli::JournalArgs;
use crate::error::Problem;
use crate::model::clock::monotonic_ns;
use crate::output;
use crate::render::journal_entry::journal_sink::{Journal, Print, Sink};
use crate::render::journal_entry::{self, Limits, Writer};
use crate::source::procfs::{Backend, Module};
use crate::source::ring::{self, Stream};

pub fn run<B: Backend>(a: &JournalArgs, m: &Module<B>, ctx: &Ctx) -> Result<Outcome> {
    if !m.is_live() && !ring::overridden() {
        return Err(Problem::usage(
            "journal reads the running kernel's event ring, which a copy of the module's files has not",
            "run it without --proc-root",
        )
        .into());
    }
    // The events turned on where they are off (as `enable` does): a service may start
    // before anyone enabled them.
    let stream = Stream::open().map_err(|why| {
        Problem::failure(
            format!("cannot read the module's event ring: {why}"),
            "run it as root, with the module loaded (systemctl start trace-irqoff)",
        )
    })?;
    let limits = Limits {
        burst: a.burst,
        rate: a.rate,
        summary_interval_ns: a.summary_interval.as_nanos() as u64,
        warning_ns: a.warning_ns,
    };
    if a.print {
        follow(a, m, stream, Writer::new(Print { json: ctx.json }, limits))
    } else {
        follow(a, m, stream, Writer::new(Journal::open()?, limits))
    }
}

/// Reads the ring and writes its new windows to `w` until stopped.
fn follow<B: Backend, S: Sink>(
    a: &JournalArgs,
    m: &Module<B>,
    mut stream: Stream,
    mut w: Writer<S>,
) -> Result<Outcome> {
    let stop = super::interrupt_flag()?;
    let min_ns = a.min_ns.unwrap_or(0);
    output::note(&format!(
        "writing {} to {} (rate limit: burst {}, {}/s)",
        match a.min_ns {
            Some(ns) => format!("every window of {} or more", journal_entry::ms(ns)),
            None => "every window".to_string(),
        },
        if a.print { "stdout" } else { "the journal" },
        a.burst,
        a.rate
    ));
    // The threshold and clock anchor, read again when windows come (the threshold may
    // change); the last ones read where the module cannot be read.
    let mut config = m.counters()?.config;
    let mut lost_before = stream.cursor.lost;
    let mut ring_off = false;
    let (mut unsent_told, mut unsent_at) = (0u64, None::<Instant>);
    let mut reads = 0u64;
    loop {
        let until = Instant::now() + a.interval;
        while Instant::now() < until && !stop.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(50).min(a.interval));
        }
        if stop.load(Ordering::SeqCst) {
            break;
        }
        // A module loaded again has its events off in the instance.
        match stream.keep_on() {
            Ok(()) => ring_off = false,
            Err(why) if !ring_off => {
                eprintln!("note: the event ring is off ({why}): waiting for the module");
                ring_off = true;
            }
            Err(_) => {}
        }
        let ring = stream.poll();
        if !ring.windows.is_empty() {
            if let Ok(s) = m.counters() {
                config = s.config;
            }
        }
        let mut windows = crate::enrich::prepare::ring_records(m, &ring.windows, &config, min_ns);
        windows.sort_by_key(|r| r.timestamp_ns);
        let lost = stream.cursor.lost - lost_before;
        lost_before = stream.cursor.lost;
        w.read(&windows, lost, config.threshold_ns, monotonic_ns())?;
        // Entries journald refused: said on stderr, at most once per summary interval.
        if w.unsent > unsent_told && unsent_at.is_none_or(|t| t.elapsed() >= a.summary_interval) {
            eprintln!(
                "note: {} entr{} not written: {}",
                w.unsent,
                if w.unsent == 1 { "y" } else { "ies" },
                w.unsent_why.as_deref().unwrap_or("")
            );
            (unsent_told, unsent_at) = (w.unsent, Some(Instant::now()));
        }
        reads += 1;
        if a.reads.is_some_and(|n| reads >= n) {
            break;
        }
    }
    w.finish()?;
    // SIGTERM is how systemd stops it: a clean end, exit status 0.
    Ok(Outcome::Done)
}
