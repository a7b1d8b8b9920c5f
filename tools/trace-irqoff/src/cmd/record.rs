// SPDX-License-Identifier: GPL-2.0
//! `record`: enable for a while, save what happened, restore the previous state.
//!
//! Trustworthy in every way it can end: the output paths are checked before the module is
//! touched, a second `record` is refused (an advisory lock on the module's directory), a
//! change someone else makes meanwhile is noticed and reported, the settings found are
//! restored on every exit path (also Ctrl-C, SIGTERM, an error, a panic), and the files
//! appear whole or not at all.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::Result;
use serde::Serialize;

use super::{Ctx, Outcome};
use crate::cli::RecordArgs;
use crate::culprit;
use crate::error::Problem;
use crate::files::AtomicFile;
use crate::output;
use crate::procfs::{Backend, Module, Settings};
use crate::render;
use crate::snapshot::{self, Cpu, Record, Snapshot};

/// What `record` saves.
#[derive(Serialize)]
pub struct Recording {
    pub duration_ms: u64,
    pub interrupted: bool,
    /// Settings while recording, and the ones restored afterwards.
    pub settings: Settings,
    pub restored: Settings,
    /// Changes someone else made to the module while it recorded, in order.
    pub outside_changes: Vec<OutsideChange>,
    /// Events per CPU and histograms counted during the recording.
    pub cpus: Vec<Cpu>,
    /// Records that appeared during the recording.
    pub records: Vec<Record>,
}

/// A change to the module that `record` did not make.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OutsideChange {
    /// When it was noticed, from the start of the recording.
    pub at_ms: u64,
    /// What changed, as a sentence: "the module was disabled".
    pub what: String,
}

/// How often the settings are compared with the ones `record` set.
const SETTINGS_POLL: Duration = Duration::from_millis(100);
/// How often the records file is read during a recording (to notice a clear; progress).
const SNAPSHOT_POLL: Duration = Duration::from_secs(1);

pub fn run<B: Backend>(a: &RecordArgs, m: &Module<B>, ctx: &Ctx) -> Result<Outcome> {
    // Before touching the module: where the results go, and whether it is ours to drive.
    let json_file = AtomicFile::create(&a.output)?;
    let folded_file = a.folded.as_deref().map(AtomicFile::create).transpose()?;
    let _lock = m.try_lock()?.ok_or_else(|| {
        Problem::failure(
            "another trace-irqoff record is running on this module",
            "wait for it to end, or stop it (Ctrl-C); two recordings would restore each other's settings",
        )
    })?;
    let stop = super::interrupt_flag()?;
    let rec = record(m, a, &stop, std::io::stderr().is_terminal())?;
    json_file.commit((serde_json::to_string_pretty(&rec)? + "\n").as_bytes())?;
    if let Some(f) = folded_file {
        f.commit(culprit::folded(&rec.records).as_bytes())?;
    }
    output::print(&render::record::summary(&rec, &a.output, ctx.color))?;
    Ok(if rec.interrupted { Outcome::Interrupted } else { Outcome::Done })
}

/// Enables with the asked settings, waits for the duration or `stop`, and restores the
/// settings found, whatever happened in between.
pub fn record<B: Backend>(m: &Module<B>, a: &RecordArgs, stop: &AtomicBool, progress: bool) -> Result<Recording> {
    let prior = m.settings()?;
    super::validate(a.period, a.threshold, prior.period_ms)?;
    let mut tracker = Tracker::new(m.snapshot()?);
    let guard = Restore { m, to: prior, armed: true };
    super::apply(m, a.period, a.threshold)?;
    // As the module has them (it raises the threshold to 2P when the period grows).
    let used = m.settings()?;
    let mut expected = used;
    let mut changes = Vec::new();
    let start = Instant::now();
    let mut last_snapshot = start;
    while start.elapsed() < a.duration && !stop.load(Ordering::SeqCst) {
        std::thread::sleep(SETTINGS_POLL.min(a.duration.saturating_sub(start.elapsed())));
        let at_ms = start.elapsed().as_millis() as u64;
        let now = m.settings()?;
        changes.extend(describe(&expected, &now).into_iter().map(|what| OutsideChange { at_ms, what }));
        expected = now;
        if last_snapshot.elapsed() >= SNAPSHOT_POLL {
            last_snapshot = Instant::now();
            if tracker.observe(m.snapshot()?) {
                changes.push(OutsideChange { at_ms, what: CLEARED.into() });
            }
            if progress {
                let ev: u64 = tracker.total().0.iter().map(|c| c.hard_events + c.soft_events).sum();
                eprint!("\rrecording: {:>4}s / {}s, {} events ", start.elapsed().as_secs(), a.duration.as_secs(), ev);
            }
        }
    }
    if progress {
        eprintln!();
    }
    let took = start.elapsed();
    if tracker.observe(m.snapshot()?) {
        changes.push(OutsideChange { at_ms: took.as_millis() as u64, what: CLEARED.into() });
    }
    guard.finish()?;
    let (cpus, records) = tracker.total();
    Ok(Recording {
        duration_ms: took.as_millis() as u64,
        interrupted: stop.load(Ordering::SeqCst),
        settings: used,
        restored: prior,
        outside_changes: changes,
        cpus,
        records,
    })
}

const CLEARED: &str = "the records and counters were cleared (events just before that may be missing)";

/// What differs between the settings `record` expects and the ones found, as sentences.
fn describe(expected: &Settings, now: &Settings) -> Vec<String> {
    let mut v = Vec::new();
    if expected.enabled != now.enabled {
        v.push(if now.enabled { "the module was enabled again" } else { "the module was disabled: no events were seen after this" }.to_string());
    }
    if expected.period_ms != now.period_ms {
        v.push(format!("the sampling period changed from {} to {} ms", expected.period_ms, now.period_ms));
    }
    if expected.threshold_ms != now.threshold_ms {
        v.push(format!("the threshold changed from {} to {} ms", expected.threshold_ms, now.threshold_ms));
    }
    v
}

/// Puts the settings back when dropped (an error, a panic), or by [`Restore::finish`].
struct Restore<'a, B: Backend> {
    m: &'a Module<B>,
    to: Settings,
    armed: bool,
}

impl<B: Backend> Restore<'_, B> {
    fn finish(mut self) -> Result<()> {
        self.armed = false;
        Ok(self.m.restore(self.to)?)
    }
}

impl<B: Backend> Drop for Restore<'_, B> {
    fn drop(&mut self) {
        if self.armed {
            if let Err(e) = self.m.restore(self.to) {
                // The only place left to say it: the error that brought us here follows.
                eprintln!("trace-irqoff: could not restore the module's settings: {e}");
            }
        }
    }
}

/// The events counted since the recording started, across clears made by someone else
/// (a clear resets the module's counters: what was counted before it is kept here).
struct Tracker {
    /// What the module had counted when counting (re)started from `base`.
    base: Snapshot,
    last: Snapshot,
    cpus: Vec<Cpu>,
    records: Vec<Record>,
}

impl Tracker {
    fn new(before: Snapshot) -> Self {
        Self { base: before.clone(), last: before, cpus: Vec::new(), records: Vec::new() }
    }

    /// Takes a new snapshot in; true when the module was cleared since the last one.
    fn observe(&mut self, s: Snapshot) -> bool {
        let cleared = s.cpus.iter().any(|c| {
            self.last.cpus.iter().any(|l| l.cpu == c.cpu && (c.hard_events < l.hard_events || c.soft_events < l.soft_events))
        });
        if cleared {
            let (cpus, records) = snapshot::delta(&self.base, &self.last);
            add(&mut self.cpus, &cpus);
            self.records.extend(records);
            // Counting restarted from zero: no CPU, no record.
            self.base = Snapshot { cpus: Vec::new(), records: Vec::new(), ..s.clone() };
        }
        self.last = s;
        cleared
    }

    /// Per-CPU counts and new records so far.
    fn total(&self) -> (Vec<Cpu>, Vec<Record>) {
        let (cpus, records) = snapshot::delta(&self.base, &self.last);
        let mut all_cpus = self.cpus.clone();
        add(&mut all_cpus, &cpus);
        let mut all_records = self.records.clone();
        all_records.extend(records);
        (all_cpus, all_records)
    }
}

/// Adds per-CPU counts and histograms of `more` to `into`.
fn add(into: &mut Vec<Cpu>, more: &[Cpu]) {
    fn addv(a: &mut Vec<u64>, b: &[u64]) {
        if a.len() < b.len() {
            a.resize(b.len(), 0);
        }
        for (x, y) in a.iter_mut().zip(b) {
            *x += y;
        }
    }
    for c in more {
        let Some(t) = into.iter_mut().find(|t| t.cpu == c.cpu) else {
            into.push(c.clone());
            continue;
        };
        t.online = c.online;
        t.hard_events += c.hard_events;
        t.soft_events += c.soft_events;
        t.soft_bh_off_events += c.soft_bh_off_events;
        t.soft_ksoftirqd_wait_events += c.soft_ksoftirqd_wait_events;
        t.dropped += c.dropped;
        t.replaced += c.replaced;
        t.idle_gaps += c.idle_gaps;
        addv(&mut t.hard_hist, &c.hard_hist);
        addv(&mut t.soft_hist, &c.soft_hist);
        addv(&mut t.soft_bh_off_hist, &c.soft_bh_off_hist);
        addv(&mut t.soft_ksoftirqd_wait_hist, &c.soft_ksoftirqd_wait_hist);
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::procfs::fake::Fake;

    const RECORDS: &str = include_str!("../../tests/fixtures/records-v1.txt");

    fn args(duration_ms: u64) -> RecordArgs {
        RecordArgs {
            duration: Duration::from_millis(duration_ms),
            period: Some(5),
            threshold: Some(30),
            output: PathBuf::from("/dev/null"),
            folded: None,
        }
    }

    #[test]
    fn record_changes_then_restores_settings() {
        let fake = Fake::new(RECORDS);
        let m = Module::open(&fake).unwrap();
        let rec = record(&m, &args(20), &AtomicBool::new(false), false).unwrap();
        assert!(!rec.interrupted);
        assert_eq!((rec.settings.enabled, rec.settings.period_ms, rec.settings.threshold_ms), (true, 5, 30));
        let now = m.settings().unwrap();
        assert_eq!((now.enabled, now.period_ms, now.threshold_ms), (false, 10, 50));
        assert!(rec.outside_changes.is_empty());
    }

    #[test]
    fn record_interrupted_still_restores() {
        let fake = Fake::new(RECORDS);
        let m = Module::open(&fake).unwrap();
        let rec = record(&m, &args(60_000), &AtomicBool::new(true), false).unwrap();
        assert!(rec.interrupted);
        assert!(!m.settings().unwrap().enabled);
    }

    #[test]
    fn an_error_midway_still_restores() {
        let fake = Fake::new(RECORDS);
        // The baseline read works, the next one (after enabling) fails.
        fake.records_reads_left.set(Some(1));
        let m = Module::open(&fake).unwrap();
        let r = record(&m, &args(50), &AtomicBool::new(false), false);
        assert!(r.is_err());
        assert!(fake.writes.borrow().contains(&("enable".into(), "1".into())), "it never enabled");
        assert_eq!(m.settings().unwrap(), Settings { enabled: false, period_ms: 10, threshold_ms: 50 });
    }

    #[test]
    fn restore_writes_nothing_when_nothing_changed() {
        let fake = Fake::new(RECORDS);
        let m = Module::open(&fake).unwrap();
        let s = m.settings().unwrap();
        m.restore(s).unwrap();
        assert!(fake.writes.borrow().is_empty());
    }

    #[test]
    fn outside_changes_are_sentences() {
        let e = Settings { enabled: true, period_ms: 10, threshold_ms: 60 };
        assert_eq!(describe(&e, &Settings { enabled: false, ..e }), ["the module was disabled: no events were seen after this"]);
        assert_eq!(
            describe(&e, &Settings { period_ms: 20, threshold_ms: 80, ..e }),
            ["the sampling period changed from 10 to 20 ms", "the threshold changed from 60 to 80 ms"]
        );
        assert!(describe(&e, &e).is_empty());
    }

    #[test]
    fn counts_survive_a_clear_made_by_someone_else() {
        let before = snapshot::parse(RECORDS).unwrap();
        let mut t = Tracker::new(before.clone());
        let mut more = before.clone();
        more.cpus[1].hard_events += 3;
        more.cpus[1].hard_hist[6] += 3;
        assert!(!t.observe(more));
        // Cleared: counts restart from zero, then one more event.
        let mut cleared = before.clone();
        for c in &mut cleared.cpus {
            c.hard_events = 0;
            c.soft_events = 0;
            c.hard_hist.iter_mut().for_each(|v| *v = 0);
            c.soft_hist.iter_mut().for_each(|v| *v = 0);
        }
        cleared.records.clear();
        cleared.cpus[1].hard_events = 1;
        cleared.cpus[1].hard_hist[5] = 1;
        assert!(t.observe(cleared));
        let (cpus, records) = t.total();
        assert_eq!(cpus[1].hard_events, 4);
        assert_eq!((cpus[1].hard_hist[5], cpus[1].hard_hist[6]), (1, 3));
        assert!(records.is_empty());
    }
}
