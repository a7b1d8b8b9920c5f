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

use super::{Ctx, Outcome};
use crate::cli::{RecordArgs, Weight};
use crate::clock;
use crate::enrich;
use crate::error::Problem;
use crate::files::AtomicFile;
use crate::model::culprit::By;
use crate::model::recording::{Caught, ModuleInfo, OutsideChange, Recording, StreamSummary};
use crate::model::settings::Settings;
use crate::model::snapshot::{self, Cpu, Kind, Record, Snapshot, Stall};
use crate::output;
use crate::procfs::{Backend, Module};
use crate::render;
use crate::stream;

/// How often the settings are compared with the ones `record` set.
const SETTINGS_POLL: Duration = Duration::from_millis(100);
/// How often the records file is read during a recording (to notice a clear; progress).
const SNAPSHOT_POLL: Duration = Duration::from_secs(1);
/// With `--until`, so that it ends soon after the window.
const UNTIL_POLL: Duration = Duration::from_millis(250);
/// `--duration` when not given, without `--until`.
const DEFAULT_DURATION: Duration = Duration::from_secs(30);

pub fn run<B: Backend>(a: &RecordArgs, m: &Module<B>, ctx: &Ctx) -> Result<Outcome> {
    // Before touching the module: where the results go, and whether it is ours to drive.
    let json_file = AtomicFile::create(&a.output)?;
    let folded_file = a.folded.as_deref().map(AtomicFile::create).transpose()?;
    if let Some(last) = a.last {
        // Hindsight reads only: no lock, no settings to restore.
        let mut rec = hindsight(m, last)?;
        if m.is_live() {
            crate::lines::fill_build_ids(&mut rec.records);
        }
        json_file.commit((serde_json::to_string_pretty(&rec)? + "\n").as_bytes())?;
        if let Some(f) = folded_file {
            f.commit(enrich::folded(&rec.records, a.weight == Weight::Latency).as_bytes())?;
        }
        let culprits = enrich::top(&rec.records, By::Culprit);
        output::print(&render::line::fitted(
            &render::record::summary(&rec, &culprits, &a.output, ctx.color),
            output::terminal_size().map(|(_, c)| c),
        ))?;
        return Ok(Outcome::Done);
    }
    let lock = m.try_lock()?.ok_or_else(|| {
        Problem::failure(
            "another trace-irqoff record is running on this module",
            "wait for it to end, or stop it (Ctrl-C); two recordings would restore each other's settings",
        )
    })?;
    if !lock.is_held() {
        eprintln!("note: this kernel has no file locking (CONFIG_FILE_LOCKING), so another record could run at the same time unnoticed");
    }
    let stop = super::interrupt_flag()?;
    let mut rec = record(m, a, &stop, std::io::stderr().is_terminal())?;
    // The build ids of the modules in its stacks the kernel did not print (`--lines`).
    if m.is_live() {
        crate::lines::fill_build_ids(&mut rec.records);
    }
    json_file.commit((serde_json::to_string_pretty(&rec)? + "\n").as_bytes())?;
    if let Some(f) = folded_file {
        f.commit(enrich::folded(&rec.records, a.weight == Weight::Latency).as_bytes())?;
    }
    let culprits = enrich::top(&rec.records, By::Culprit);
    output::print(&render::line::fitted(
        &render::record::summary(&rec, &culprits, &a.output, ctx.color),
        output::terminal_size().map(|(_, c)| c),
    ))?;
    Ok(if rec.interrupted {
        Outcome::Interrupted
    } else if rec.caught.is_some() {
        Outcome::Caught
    } else {
        Outcome::Done
    })
}

/// Enables with the asked settings, waits for the duration or `stop`, and restores the
/// settings found, whatever happened in between.
pub fn record<B: Backend>(
    m: &Module<B>,
    a: &RecordArgs,
    stop: &AtomicBool,
    progress: bool,
) -> Result<Recording> {
    let prior = m.settings()?;
    let threshold = threshold_for(a, &prior)?;
    super::validate(a.period, threshold, prior.period_ms)?;
    let limit = a.duration.or(if a.until.is_some() {
        None
    } else {
        Some(DEFAULT_DURATION)
    });
    let snapshot_poll = if a.until.is_some() {
        UNTIL_POLL
    } else {
        SNAPSHOT_POLL
    };
    let before = m.snapshot()?;
    let version = before.version;
    let realtime_offset_ns = before.config.realtime_offset_ns;
    let module = ModuleInfo {
        records_format: before.version,
        hz: before.config.hz,
        records_per_cpu: before.config.records_per_cpu,
        soft_period_ns: before.config.soft_period_ns,
        soft_event_ns: before.config.soft_event_ns,
    };
    let mut tracker = Tracker::new(before);
    // The stream starts before sampling does, so that it sees every window.
    let mut stream = super::open_stream(m, true);
    let mut streamed: Vec<stream::Event> = Vec::new();
    // Stalls of the whole machine it carried: kept apart, never windows.
    let mut stalls: Vec<Stall> = Vec::new();
    let clock = clock::Clock::of_anchor(realtime_offset_ns);
    let guard = Restore {
        m,
        to: prior,
        armed: true,
    };
    super::apply(m, a.period, threshold)?;
    // As the module has them (it raises the threshold to 2P when the period grows).
    let used = m.settings()?;
    // The configuration the lengths are measured with (their bounds: `precision`).
    let used_config = m.counters()?.config;
    let mut expected = used;
    let mut changes = Vec::new();
    let started = clock::now_rfc3339();
    let start = Instant::now();
    let mut last_snapshot = start;
    let left = || limit.map_or(SETTINGS_POLL, |d| d.saturating_sub(start.elapsed()));
    while !left().is_zero() && !stop.load(Ordering::SeqCst) {
        std::thread::sleep(SETTINGS_POLL.min(left()));
        let at_ms = start.elapsed().as_millis() as u64;
        let now = m.settings()?;
        changes.extend(
            describe(&expected, &now)
                .into_iter()
                .map(|what| OutsideChange { at_ms, what }),
        );
        expected = now;
        if last_snapshot.elapsed() >= snapshot_poll {
            last_snapshot = Instant::now();
            if tracker.observe(m.snapshot()?) {
                changes.push(OutsideChange {
                    at_ms,
                    what: CLEARED.into(),
                });
            }
            if let Some(st) = stream.as_mut() {
                let new = st.poll();
                streamed.extend(new.windows);
                stalls.extend(new.stalls);
            }
            let (cpus, mut records) = tracker.total();
            stream::add_missing(&mut records, &m.ring_records(&streamed, &used_config));
            if progress {
                let ev: u64 = cpus.iter().map(|c| c.hard_events + c.soft_events).sum();
                let end = match (limit, a.until) {
                    (Some(d), _) => format!(" / {}s", d.as_secs()),
                    (None, Some(ms)) => format!(", until a window of {ms} ms"),
                    (None, None) => String::new(),
                };
                eprint!(
                    "\rrecording: {:>4}s{end}, {ev} events ",
                    start.elapsed().as_secs()
                );
            }
            if a.until
                .is_some_and(|ms| caught(&cpus, &records, ms, version).is_some())
            {
                break;
            }
        }
    }
    if progress {
        eprintln!();
    }
    let took = start.elapsed();
    let ended = clock::now_rfc3339();
    let ended_monotonic_ns = clock::monotonic_ns();
    if tracker.observe(m.snapshot()?) {
        changes.push(OutsideChange {
            at_ms: took.as_millis() as u64,
            what: CLEARED.into(),
        });
    }
    // What someone else set meanwhile stays: their disable is not undone by ours ending.
    let (restore_to, kept_outside) = keep_outside(prior, used, m.settings()?);
    let guard = guard.to(restore_to);
    guard.finish()?;
    let (cpus, mut records) = tracker.total();
    if let Some(st) = stream.as_mut() {
        let new = st.poll();
        streamed.extend(new.windows);
        stalls.extend(new.stalls);
    }
    let kept = records.len();
    stream::add_missing(&mut records, &m.ring_records(&streamed, &used_config));
    m.resolve_cgroups(&mut records);
    crate::precision::annotate(&used_config, &mut records);
    let stream = stream.map(|st| StreamSummary {
        windows: streamed.len() as u64,
        not_kept: (records.len() - kept) as u64,
        lost: st.cursor.lost,
        history_from: None,
    });
    let uname = rustix::system::uname();
    Ok(Recording {
        host: uname.nodename().to_string_lossy().into_owned(),
        kernel: uname.release().to_string_lossy().into_owned(),
        kernel_build_id: m
            .is_live()
            .then(crate::lines::running_kernel_build_id)
            .flatten(),
        cli_version: env!("CARGO_PKG_VERSION"),
        module,
        started,
        ended,
        duration_ms: took.as_millis() as u64,
        realtime_offset_ns,
        ended_monotonic_ns,
        interrupted: stop.load(Ordering::SeqCst),
        settings: used,
        restored: restore_to,
        kept_outside,
        outside_changes: changes,
        until_ms: a.until,
        caught: a.until.and_then(|ms| caught(&cpus, &records, ms, version)),
        cpus,
        records,
        stalls: stalls.into_iter().map(|s| s.stamped(&clock)).collect(),
        stalls_counted: tracker.stalls(),
        stream,
    })
}

/// `--last`: the windows of the last `last` that the event ring holds, with the module's
/// records of that time (those the store kept have their in-window samples); the module
/// is only read.
fn hindsight<B: Backend>(m: &Module<B>, last: Duration) -> Result<Recording> {
    let s = m.snapshot()?;
    let settings = m.settings()?;
    let st = if m.is_live() || stream::overridden() {
        stream::Stream::open_running().map_err(Some)
    } else {
        Err(None)
    };
    let st = st.map_err(|why| {
        Problem::failure(
            format!("there is no event ring to look back in{}", why.map(|w| format!(": {w}")).unwrap_or_default()),
            "the ring starts with trace-irqoff enable, watch or record on this machine; record --last finds what came after",
        )
    })?;
    let now = clock::monotonic_ns();
    let from = now.saturating_sub(u64::try_from(last.as_nanos()).unwrap_or(u64::MAX));
    let stream::Ring {
        windows: ring,
        stalls,
    } = st
        .read()
        .map_err(|why| Problem::failure(why, "run as root"))?;
    let clock = clock::Clock::of_anchor(s.config.realtime_offset_ns);
    let history_from = ring
        .iter()
        .map(|e| e.end_ns)
        .min()
        .map(|ns| clock.rfc3339(ns));
    let events: Vec<stream::Event> = ring
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
    stream::add_missing(&mut records, &m.ring_records(&events, &s.config));
    m.resolve_cgroups(&mut records);
    crate::precision::annotate(&s.config, &mut records);
    let mut cursor = stream::Cursor::default();
    cursor.take(events.clone());
    let uname = rustix::system::uname();
    Ok(Recording {
        host: uname.nodename().to_string_lossy().into_owned(),
        kernel: uname.release().to_string_lossy().into_owned(),
        kernel_build_id: m
            .is_live()
            .then(crate::lines::running_kernel_build_id)
            .flatten(),
        cli_version: env!("CARGO_PKG_VERSION"),
        module: ModuleInfo {
            records_format: s.version,
            hz: s.config.hz,
            records_per_cpu: s.config.records_per_cpu,
            soft_period_ns: s.config.soft_period_ns,
            soft_event_ns: s.config.soft_event_ns,
        },
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
        cpus: stream::counts(&events),
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

/// The threshold to record with: with `--until`, low enough that the window it waits for
/// is recorded (the module keeps stacks only from the threshold on).
fn threshold_for(a: &RecordArgs, prior: &Settings) -> Result<Option<u64>, Problem> {
    let Some(until) = a.until else {
        return Ok(a.threshold);
    };
    let period = a.period.unwrap_or(prior.period_ms);
    if until < 2 * period {
        return Err(Problem::usage(
            format!("--until {until} is below the shortest window the module reports at a period of {period} ms ({} ms)", 2 * period),
            format!("use --until {} or more, or a shorter --period", 2 * period),
        ));
    }
    match a.threshold {
        Some(t) if t > until => Err(Problem::usage(
            format!(
                "--until {until} is below --threshold {t}: such a window would not be recorded"
            ),
            format!("use --threshold {until} or less, or leave it out"),
        )),
        Some(t) => Ok(Some(t)),
        None if prior.threshold_ms > until => Ok(Some(until)),
        None => Ok(None),
    }
}

/// The first window of at least `ms` among what a recording saw: its record, or, when the
/// module did not keep it, a histogram bucket that only such windows fall in.
fn caught(cpus: &[Cpu], records: &[Record], ms: u64, version: u32) -> Option<Caught> {
    if let Some(r) = snapshot::first_at_least(records, ms, version) {
        let (lo, hi) = crate::render::bucket_range(tio_logic::hist::bucket(r.latency_ns));
        return Some(Caught {
            cpu: r.cpu,
            kind: r.kind,
            bucket_ms: [lo, hi],
            record: Some(r.clone()),
        });
    }
    cpus.iter().find_map(|c| {
        [Kind::Hard, Kind::Soft].into_iter().find_map(|kind| {
            let k = c
                .hist(kind, None)
                .iter()
                .enumerate()
                .position(|(k, &n)| n > 0 && crate::render::bucket_range(k).0 >= ms)?;
            let (lo, hi) = crate::render::bucket_range(k);
            Some(Caught {
                cpu: c.cpu,
                kind,
                bucket_ms: [lo, hi],
                record: None,
            })
        })
    })
}

/// The settings to put back at the end: those found at the start, except what someone
/// else changed from what `record` had set (`used`, found `now`): their value stays. The
/// period and threshold go together (the threshold's bound is twice the period).
fn keep_outside(prior: Settings, used: Settings, now: Settings) -> (Settings, Vec<&'static str>) {
    let mut to = prior;
    let mut kept = Vec::new();
    if now.enabled != used.enabled {
        to.enabled = now.enabled;
        kept.push("enabled");
    }
    if now.period_ms != used.period_ms || now.threshold_ms != used.threshold_ms {
        (to.period_ms, to.threshold_ms) = (now.period_ms, now.threshold_ms);
        kept.extend(["period_ms", "threshold_ms"]);
    }
    (to, kept)
}

const CLEARED: &str =
    "the records and counters were cleared (events just before that may be missing)";

/// What differs between the settings `record` expects and the ones found, as sentences.
fn describe(expected: &Settings, now: &Settings) -> Vec<String> {
    let mut v = Vec::new();
    if expected.enabled != now.enabled {
        v.push(
            if now.enabled {
                "the module was enabled again"
            } else {
                "the module was disabled: no events were seen after this"
            }
            .to_string(),
        );
    }
    if expected.period_ms != now.period_ms {
        v.push(format!(
            "the sampling period changed from {} to {} ms",
            expected.period_ms, now.period_ms
        ));
    }
    if expected.threshold_ms != now.threshold_ms {
        v.push(format!(
            "the threshold changed from {} to {} ms",
            expected.threshold_ms, now.threshold_ms
        ));
    }
    v
}

/// Puts the settings back when dropped (an error, a panic), or by [`Restore::finish`].
struct Restore<'a, B: Backend> {
    m: &'a Module<B>,
    to: Settings,
    armed: bool,
}

impl<'a, B: Backend> Restore<'a, B> {
    /// The same guard, restoring `to` instead.
    fn to(mut self, to: Settings) -> Restore<'a, B> {
        self.to = to;
        self
    }

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
    /// Stalls counted before the last clear.
    stalls: u64,
}

impl Tracker {
    fn new(before: Snapshot) -> Self {
        Self {
            base: before.clone(),
            last: before,
            cpus: Vec::new(),
            records: Vec::new(),
            stalls: 0,
        }
    }

    /// Stalls the module counted since the start, across clears; none from a module that
    /// does not count them.
    fn stalls(&self) -> Option<u64> {
        let last = self.last.stalls.as_ref()?;
        let base = self.base.stalls.as_ref().map_or(0, |b| b.count);
        Some(self.stalls + last.count.saturating_sub(base))
    }

    /// Takes a new snapshot in; true when the module was cleared since the last one.
    fn observe(&mut self, s: Snapshot) -> bool {
        let cleared = s.cpus.iter().any(|c| {
            self.last.cpus.iter().any(|l| {
                l.cpu == c.cpu && (c.hard_events < l.hard_events || c.soft_events < l.soft_events)
            })
        });
        if cleared {
            let (cpus, records) = snapshot::delta(&self.base, &self.last);
            add(&mut self.cpus, &cpus);
            self.records.extend(records);
            self.stalls = self.stalls().unwrap_or(0);
            // Counting restarted from zero: no CPU, no record, no stall.
            self.base = Snapshot {
                cpus: Vec::new(),
                records: Vec::new(),
                stalls: None,
                ..s.clone()
            };
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
        t.late_timer_gaps += c.late_timer_gaps;
        t.steal_gaps += c.steal_gaps;
        t.stall_gaps += c.stall_gaps;
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
            last: None,
            duration: Some(Duration::from_millis(duration_ms)),
            until: None,
            period: Some(5),
            threshold: Some(30),
            output: PathBuf::from("/dev/null"),
            folded: None,
            weight: Weight::Count,
        }
    }

    #[test]
    fn record_changes_then_restores_settings() {
        let fake = Fake::new(RECORDS);
        let m = Module::open(&fake).unwrap();
        let rec = record(&m, &args(20), &AtomicBool::new(false), false).unwrap();
        assert!(!rec.interrupted);
        assert_eq!(
            (
                rec.settings.enabled,
                rec.settings.period_ms,
                rec.settings.threshold_ms
            ),
            (true, 5, 30)
        );
        let now = m.settings().unwrap();
        assert_eq!(
            (now.enabled, now.period_ms, now.threshold_ms),
            (false, 10, 50)
        );
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
        assert!(
            fake.writes
                .borrow()
                .contains(&("enable".into(), "1".into())),
            "it never enabled"
        );
        assert_eq!(
            m.settings().unwrap(),
            Settings {
                enabled: false,
                period_ms: 10,
                threshold_ms: 50,
                switching: None
            }
        );
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
        let e = Settings {
            enabled: true,
            period_ms: 10,
            threshold_ms: 60,
            switching: None,
        };
        assert_eq!(
            describe(
                &e,
                &Settings {
                    enabled: false,
                    ..e
                }
            ),
            ["the module was disabled: no events were seen after this"]
        );
        assert_eq!(
            describe(
                &e,
                &Settings {
                    period_ms: 20,
                    threshold_ms: 80,
                    ..e
                }
            ),
            [
                "the sampling period changed from 10 to 20 ms",
                "the threshold changed from 60 to 80 ms"
            ]
        );
        assert!(describe(&e, &e).is_empty());
    }

    /// At the end, what someone else changed stays; the rest goes back to what was found.
    #[test]
    fn outside_changes_are_kept_at_the_end() {
        let prior = Settings {
            enabled: false,
            period_ms: 10,
            threshold_ms: 50,
            switching: None,
        };
        let used = Settings {
            enabled: true,
            threshold_ms: 60,
            ..prior
        };
        assert_eq!(keep_outside(prior, used, used), (prior, vec![]));
        let (to, kept) = keep_outside(
            prior,
            used,
            Settings {
                enabled: false,
                ..used
            },
        );
        assert_eq!((to, kept), (prior, vec!["enabled"]));
        let (to, kept) = keep_outside(
            prior,
            used,
            Settings {
                period_ms: 20,
                threshold_ms: 80,
                ..used
            },
        );
        assert_eq!(
            (to, kept),
            (
                Settings {
                    period_ms: 20,
                    threshold_ms: 80,
                    ..prior
                },
                vec!["period_ms", "threshold_ms"]
            )
        );
        let prior_on = Settings {
            enabled: true,
            ..prior
        };
        let (to, kept) = keep_outside(
            prior_on,
            used,
            Settings {
                enabled: false,
                ..used
            },
        );
        assert_eq!((to.enabled, kept), (false, vec!["enabled"]));
    }

    #[test]
    fn counts_survive_a_clear_made_by_someone_else() {
        let before = crate::parse::records::parse(RECORDS).unwrap();
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

    /// Claim: the stalls a recording counts are those the module counted since its start,
    /// also across a clear someone else made (which resets them with the events), and
    /// none from a module that does not count them.
    #[test]
    fn stalls_are_counted_across_a_clear() {
        let before =
            crate::parse::records::parse(include_str!("../../tests/fixtures/records-stall.txt"))
                .unwrap();
        let mut t = Tracker::new(before.clone());
        assert_eq!(t.stalls(), Some(0));
        let mut more = before.clone();
        if let Some(st) = more.stalls.as_mut() {
            st.count += 2;
        }
        assert!(!t.observe(more.clone()));
        assert_eq!(t.stalls(), Some(2));
        // Cleared: events and stalls restart from zero, then one more stall.
        let mut cleared = more;
        for c in &mut cleared.cpus {
            c.hard_events = 0;
            c.soft_events = 0;
        }
        if let Some(st) = cleared.stalls.as_mut() {
            st.count = 1;
        }
        assert!(t.observe(cleared));
        assert_eq!(t.stalls(), Some(3));
        let old = crate::parse::records::parse(RECORDS).unwrap();
        assert_eq!(Tracker::new(old).stalls(), None);
    }
}

#[cfg(test)]
mod until_tests {
    use std::path::PathBuf;

    use super::*;
    use crate::procfs::fake::Fake;

    const V2: &str = include_str!("../../tests/fixtures/records-v2.txt");

    fn args(until: u64, threshold: Option<u64>) -> RecordArgs {
        RecordArgs {
            last: None,
            duration: None,
            until: Some(until),
            period: None,
            threshold,
            output: PathBuf::from("/dev/null"),
            folded: None,
            weight: Weight::Count,
        }
    }

    #[test]
    fn the_threshold_comes_down_to_until() {
        let prior = Settings {
            enabled: false,
            period_ms: 10,
            threshold_ms: 50,
            switching: None,
        };
        assert_eq!(threshold_for(&args(40, None), &prior).unwrap(), Some(40));
        assert_eq!(threshold_for(&args(80, None), &prior).unwrap(), None);
        assert_eq!(
            threshold_for(&args(80, Some(30)), &prior).unwrap(),
            Some(30)
        );
        let e = threshold_for(&args(40, Some(60)), &prior).unwrap_err();
        assert_eq!(
            e.sentence,
            "--until 40 is below --threshold 60: such a window would not be recorded"
        );
        let e = threshold_for(&args(15, None), &prior).unwrap_err();
        assert_eq!(e.sentence, "--until 15 is below the shortest window the module reports at a period of 10 ms (20 ms)");
    }

    #[test]
    fn caught_by_its_record_or_by_its_bucket() {
        let s = crate::parse::records::parse(V2).unwrap();
        let c = caught(&[], &s.records, 55, 2).unwrap();
        assert_eq!((c.cpu, c.kind, c.bucket_ms), (0, Kind::Soft, [64, 127]));
        assert_eq!(c.record.unwrap().latency_ns, 100_111_000);
        assert!(caught(&[], &s.records, 101, 2).is_none());
        // The 57 ms softirq window on CPU 3 is still open (v2): its record comes when it
        // ends. A v1 lower bound is a record of its own.
        assert!(caught(&[], &s.records[4..], 50, 2).is_none());
        assert!(caught(&[], &s.records[4..], 50, 1).is_some());
        // Counted in bucket [64, 127] (CPU 0 first) but not kept: still caught at 64.
        assert_eq!(
            caught(&s.cpus, &[], 64, 2).map(|c| (c.cpu, c.kind, c.bucket_ms, c.record)),
            Some((0, Kind::Soft, [64, 127], None))
        );
        // A bucket that holds shorter windows too proves nothing.
        assert!(caught(&s.cpus, &[], 65, 2).is_none());
    }

    #[test]
    fn until_ends_the_recording_when_the_window_comes() {
        let v1 = include_str!("../../tests/fixtures/records-v1.txt");
        let fake = Fake::new(v1);
        // After the baseline read, a 120 ms hardirq-off window on CPU 1 appears.
        let window = "record cpu=1 kind=hard lower_bound=0 latency_ns=120000000 timestamp_ns=9000000000 pid=7 comm=hog frames=1\nframe hog_fn+0x1/0x2\nend\n";
        fake.records_script
            .borrow_mut()
            .push(v1.replace("end\n", window));
        let m = Module::open(&fake).unwrap();
        let start = Instant::now();
        let rec = record(&m, &args(100, None), &AtomicBool::new(false), false).unwrap();
        assert!(
            start.elapsed() < Duration::from_secs(2),
            "it did not end at the window"
        );
        let c = rec.caught.unwrap();
        assert_eq!((c.cpu, c.kind, c.bucket_ms), (1, Kind::Hard, [64, 127]));
        assert_eq!(c.record.unwrap().stack, ["hog_fn+0x1/0x2"]);
        // The threshold (50 ms) was below 100 already: kept.
        assert_eq!(rec.settings.threshold_ms, 50);
        assert_eq!(
            m.settings().unwrap(),
            Settings {
                enabled: false,
                period_ms: 10,
                threshold_ms: 50,
                switching: None
            }
        );
    }

    #[test]
    fn without_the_window_until_runs_out_the_duration() {
        let fake = Fake::new(include_str!("../../tests/fixtures/records-v1.txt"));
        let m = Module::open(&fake).unwrap();
        let a = RecordArgs {
            duration: Some(Duration::from_millis(300)),
            ..args(60, None)
        };
        let rec = record(&m, &a, &AtomicBool::new(false), false).unwrap();
        assert!(rec.caught.is_none());
        assert!(rec.duration_ms >= 300);
        assert_eq!((rec.settings.threshold_ms, rec.until_ms), (50, Some(60)));
    }
}
