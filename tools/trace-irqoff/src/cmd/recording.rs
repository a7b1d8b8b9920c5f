// SPDX-License-Identifier: GPL-2.0
//! `record`: enable for a while, save what happened, restore the previous state.
//!
//! Trustworthy in every way it can end: the output paths are checked before the module is
//! touched, a second `record` is refused (an advisory lock on the module's directory), a
//! change someone else makes meanwhile is noticed and reported, the settings found are
//! restored on every exit path (also Ctrl-C, SIGTERM, an error, a panic), and the files
//! appear whole or not at all.
//!
//! `hindsight` makes `record --last`, `until` serves `record --until`, `restore` puts the
//! settings back, `tracker` counts across clears.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::Result;

use super::{Ctx, Outcome};
use crate::cli::{RecordArgs, Weight};
use crate::enrich;
use crate::error::Problem;
use crate::model::clock;
use crate::model::culprit_group::By;
use crate::model::saved_recording::{ModuleInfo, OutsideChange, Recording, StreamSummary};
use crate::model::snapshot::Stall;
use crate::output;
use crate::render;
use crate::source::files::AtomicFile;
use crate::source::procfs::{Backend, Module};
use crate::source::ring;

mod hindsight;
mod restore;
mod tracker;
mod until;

use hindsight::hindsight;
use restore::{describe, keep_outside, Restore};
use tracker::Tracker;
use until::{caught, threshold_for};

/// How often the settings are compared with the ones `record` set.
const SETTINGS_POLL: Duration = Duration::from_millis(100);
/// How often the records file is read during a recording (to notice a clear; progress).
const SNAPSHOT_POLL: Duration = Duration::from_secs(1);
/// With `--until`, so that it ends soon after the window.
const UNTIL_POLL: Duration = Duration::from_millis(250);
/// `--duration` when not given, without `--until`.
const DEFAULT_DURATION: Duration = Duration::from_secs(30);

const CLEARED: &str =
    "the records and counters were cleared (events just before that may be missing)";

/// The machine a recording is taken on: its host name and kernel release, and, reading
/// the live module, the running kernel's build id.
struct Machine {
    host: String,
    kernel: String,
    kernel_build_id: Option<String>,
}

impl Machine {
    fn of<B: Backend>(m: &Module<B>) -> Self {
        let uname = rustix::system::uname();
        Self {
            host: uname.nodename().to_string_lossy().into_owned(),
            kernel: uname.release().to_string_lossy().into_owned(),
            kernel_build_id: m
                .is_live()
                .then(crate::enrich::lines::running_kernel_build_id)
                .flatten(),
        }
    }
}

/// `--lines`: the recording's frames with their source lines, resolved on this machine and
/// kept in the file (`records --from FILE` and `report FILE` show them).
fn source_lines(a: &RecordArgs, rec: &mut Recording) {
    let resolver = crate::enrich::lines::Resolver::for_args(
        &a.lines,
        Some(&rec.kernel),
        rec.kernel_build_id.as_deref(),
    );
    super::lines_hint(crate::enrich::prepare::source_lines(resolver, &mut rec.records).as_deref());
}

pub fn run<B: Backend>(a: &RecordArgs, m: &Module<B>, ctx: &Ctx) -> Result<Outcome> {
    // Before touching the module: where the results go, and whether it is ours to drive.
    let json_file = AtomicFile::create(&a.output)?;
    let folded_file = a.folded.as_deref().map(AtomicFile::create).transpose()?;
    // Held until the files are written.
    let mut _lock = None;
    let rec = match a.last {
        // Hindsight reads only: no lock, no settings to restore.
        Some(last) => hindsight(m, last)?,
        None => {
            _lock = Some(lock(m)?);
            let stop = super::interrupt_flag()?;
            record(m, a, &stop, std::io::stderr().is_terminal())?
        }
    };
    write_end(a, m, rec, json_file, folded_file, ctx)
}

/// The lock that makes this recording the module's only one; says where the kernel
/// cannot exclude another.
fn lock<B: Backend>(m: &Module<B>) -> Result<crate::source::procfs::Lock> {
    let lock = m.try_lock()?.ok_or_else(|| {
        Problem::failure(
            "another trace-irqoff record is running on this module",
            "wait for it to end, or stop it (Ctrl-C); two recordings would restore each other's settings",
        )
    })?;
    if !lock.is_held() {
        eprintln!("note: this kernel has no file locking (CONFIG_FILE_LOCKING), so another record could run at the same time unnoticed");
    }
    Ok(lock)
}

/// The end of every recording (`--last` too): the build ids of the modules in its stacks
/// the kernel did not print and `--lines`, the file (and `--folded`'s) written whole, the
/// summary printed; how it ended.
fn write_end<B: Backend>(
    a: &RecordArgs,
    m: &Module<B>,
    mut rec: Recording,
    json_file: AtomicFile,
    folded_file: Option<AtomicFile>,
    ctx: &Ctx,
) -> Result<Outcome> {
    if m.is_live() {
        crate::enrich::lines::fill_build_ids(&mut rec.records);
    }
    source_lines(a, &mut rec);
    json_file.commit((serde_json::to_string_pretty(&rec)? + "\n").as_bytes())?;
    if let Some(f) = folded_file {
        f.commit(enrich::folded(&rec.records, a.weight == Weight::Latency).as_bytes())?;
    }
    let culprits = enrich::top(&rec.records, By::Culprit);
    output::print(&render::line::fitted(
        &render::record_summary::summary(&rec, &culprits, &a.output, ctx.color),
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
    let before = crate::enrich::prepare::module_snapshot(m)?;
    let module = module_info(&before);
    let realtime_offset_ns = before.config.realtime_offset_ns;
    // The stream starts before sampling does, so that it sees every window.
    let mut run = Running::new(before, super::open_stream(m, true));
    let guard = Restore::new(m, prior);
    super::apply(m, a.period, threshold)?;
    // As the module has them (it raises the threshold to 2P when the period grows).
    let used = m.settings()?;
    // The configuration the lengths are measured with (their bounds: `precision`).
    let used_config = m.counters()?.config;
    let started = clock::now_rfc3339();
    let start = Instant::now();
    let watch = Watch {
        stop,
        progress,
        start,
    };
    run.follow(m, a, &used_config, used, &watch)?;
    let took = start.elapsed();
    let ended = clock::now_rfc3339();
    let ended_monotonic_ns = clock::monotonic_ns();
    run.observe(m, took.as_millis() as u64)?;
    // What someone else set meanwhile stays: their disable is not undone by ours ending.
    let (restore_to, kept_outside) = keep_outside(prior, used, m.settings()?);
    guard.to(restore_to).finish()?;
    let (cpus, records, stream) = run.windows(m, &used_config);
    let Machine {
        host,
        kernel,
        kernel_build_id,
    } = Machine::of(m);
    let clock = clock::Clock::of_anchor(realtime_offset_ns);
    Ok(Recording {
        host,
        kernel,
        kernel_build_id,
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
        outside_changes: run.changes,
        until_ms: a.until,
        caught: a
            .until
            .and_then(|ms| caught(&cpus, &records, ms, run.version)),
        cpus,
        records,
        stalls: run.stalls.into_iter().map(|s| s.stamped(&clock)).collect(),
        stalls_counted: run.tracker.stalls(),
        stream,
    })
}

/// What a recording says of the module it was taken with.
fn module_info(s: &crate::model::snapshot::Snapshot) -> ModuleInfo {
    ModuleInfo {
        records_format: s.version,
        hz: s.config.hz,
        records_per_cpu: s.config.records_per_cpu,
        soft_period_ns: s.config.soft_period_ns,
        soft_event_ns: s.config.soft_event_ns,
    }
}

/// A recording under way: its records across clears, the event stream and what it
/// carried, and the changes someone else made.
struct Running {
    /// The records file's version, for `--until`.
    version: u32,
    tracker: Tracker,
    stream: Option<crate::source::ring::Stream>,
    streamed: Vec<crate::model::ring_event::Event>,
    /// Stalls of the whole machine the stream carried: kept apart, never windows.
    stalls: Vec<Stall>,
    changes: Vec<OutsideChange>,
}

/// How a recording is watched while it runs: `stop` ends it early, `progress` draws the
/// progress line, `start` is when sampling began.
struct Watch<'a> {
    stop: &'a AtomicBool,
    progress: bool,
    start: Instant,
}

impl Running {
    fn new(before: crate::model::snapshot::Snapshot, stream: Option<ring::Stream>) -> Self {
        Self {
            version: before.version,
            tracker: Tracker::new(before),
            stream,
            streamed: Vec::new(),
            stalls: Vec::new(),
            changes: Vec::new(),
        }
    }

    /// Waits for the duration (`--duration`, or until `--until`'s window), or `stop`:
    /// compares the settings with `expected` often, reads the records and the stream
    /// less often (a clear, the progress line, `--until`'s window).
    fn follow<B: Backend>(
        &mut self,
        m: &Module<B>,
        a: &RecordArgs,
        used_config: &crate::model::snapshot::Config,
        mut expected: crate::model::settings::Settings,
        watch: &Watch<'_>,
    ) -> Result<()> {
        let &Watch {
            stop,
            progress,
            start,
        } = watch;
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
        let mut last_snapshot = start;
        let left = || limit.map_or(SETTINGS_POLL, |d| d.saturating_sub(start.elapsed()));
        while !left().is_zero() && !stop.load(Ordering::SeqCst) {
            std::thread::sleep(SETTINGS_POLL.min(left()));
            let at_ms = start.elapsed().as_millis() as u64;
            let now = m.settings()?;
            self.changes.extend(
                describe(&expected, &now)
                    .into_iter()
                    .map(|what| OutsideChange { at_ms, what }),
            );
            expected = now;
            if last_snapshot.elapsed() >= snapshot_poll {
                last_snapshot = Instant::now();
                self.observe(m, at_ms)?;
                self.poll_stream();
                let (cpus, mut records) = self.tracker.total();
                crate::enrich::ring_windows::add_missing(
                    &mut records,
                    &ring_records(m, &self.streamed, used_config),
                );
                if progress {
                    progress_line(&cpus, limit, a.until, start);
                }
                if a.until
                    .is_some_and(|ms| caught(&cpus, &records, ms, self.version).is_some())
                {
                    break;
                }
            }
        }
        if progress {
            eprintln!();
        }
        Ok(())
    }

    /// Reads the records; notes a clear (at `at_ms` from the start).
    fn observe<B: Backend>(&mut self, m: &Module<B>, at_ms: u64) -> Result<()> {
        if self
            .tracker
            .observe(crate::enrich::prepare::module_snapshot(m)?)
        {
            self.changes.push(OutsideChange {
                at_ms,
                what: CLEARED.into(),
            });
        }
        Ok(())
    }

    /// Takes what the stream carried since it was last polled.
    fn poll_stream(&mut self) {
        if let Some(st) = self.stream.as_mut() {
            let new = st.poll();
            self.streamed.extend(new.windows);
            self.stalls.extend(new.stalls);
        }
    }

    /// The recording's counts and windows: the module's records, with the stream's windows
    /// its store did not keep; and what the stream gave.
    fn windows<B: Backend>(
        &mut self,
        m: &Module<B>,
        used_config: &crate::model::snapshot::Config,
    ) -> (
        Vec<crate::model::snapshot::Cpu>,
        Vec<crate::model::snapshot::Record>,
        Option<StreamSummary>,
    ) {
        let (cpus, mut records) = self.tracker.total();
        self.poll_stream();
        let kept = records.len();
        crate::enrich::ring_windows::add_missing(
            &mut records,
            &ring_records(m, &self.streamed, used_config),
        );
        crate::enrich::cgroup::resolve(&m.proc_root(), &mut records);
        crate::enrich::precision::annotate(used_config, &mut records);
        let stream = self.stream.as_ref().map(|st| StreamSummary {
            windows: self.streamed.len() as u64,
            not_kept: (records.len() - kept) as u64,
            lost: st.cursor.lost,
            history_from: None,
        });
        (cpus, records, stream)
    }
}

/// The stream's windows at the threshold `record` set, prepared as the store's are.
fn ring_records<B: Backend>(
    m: &Module<B>,
    streamed: &[crate::model::ring_event::Event],
    config: &crate::model::snapshot::Config,
) -> Vec<crate::model::snapshot::Record> {
    crate::enrich::prepare::ring_records(m, streamed, config, config.threshold_ns)
}

/// The progress line on a terminal's stderr: the time so far, to the end, the events.
fn progress_line(
    cpus: &[crate::model::snapshot::Cpu],
    limit: Option<Duration>,
    until: Option<u64>,
    start: Instant,
) {
    let ev: u64 = cpus.iter().map(|c| c.hard_events + c.soft_events).sum();
    let end = match (limit, until) {
        (Some(d), _) => format!(" / {}s", d.as_secs()),
        (None, Some(ms)) => format!(", until a window of {ms} ms"),
        (None, None) => String::new(),
    };
    eprint!(
        "\rrecording: {:>4}s{end}, {ev} events ",
        start.elapsed().as_secs()
    );
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::model::settings::Settings;
    use crate::source::procfs::fake::Fake;

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
            lines: Default::default(),
        }
    }

    /// Claim: a 20 ms recording with period 5 and threshold 30 records with the module
    /// enabled at those settings, then leaves it as it found it (disabled, 10 ms, 50 ms),
    /// seeing no change made by anyone else.
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

    /// Claim: a recording stopped by its interrupt flag before its 60 s are up is marked
    /// interrupted and still leaves the module disabled as it found it.
    #[test]
    fn record_interrupted_still_restores() {
        let fake = Fake::new(RECORDS);
        let m = Module::open(&fake).unwrap();
        let rec = record(&m, &args(60_000), &AtomicBool::new(true), false).unwrap();
        assert!(rec.interrupted);
        assert!(!m.settings().unwrap().enabled);
    }

    /// Claim: when reading the records fails after the module was enabled, the recording
    /// returns the error and still restores the module to disabled, 10 ms, 50 ms.
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
}

#[cfg(test)]
mod until_tests {
    use super::until::tests::args;
    use super::*;
    use crate::model::settings::Settings;
    use crate::model::snapshot::Kind;
    use crate::source::procfs::fake::Fake;

    /// Claim: an `--until 100` recording ends within 2 s of a 120 ms hardirq-off window
    /// appearing, catching its CPU, kind, bucket and stack, keeps the module's 50 ms
    /// threshold (already below 100) and restores the module.
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

    /// Claim: an `--until 60` recording with a 300 ms duration and no such window runs
    /// the whole duration, catches nothing, and keeps the threshold at 50 ms and the
    /// until at 60.
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
