// SPDX-License-Identifier: GPL-2.0
//! `record`: enable for a while, save what happened, restore the previous state.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use serde::Serialize;

use super::{Ctx, Outcome};
use crate::cli::RecordArgs;
use crate::culprit;
use crate::output;
use crate::procfs::{Backend, Module, Settings};
use crate::render;
use crate::snapshot::{self, Cpu, Record};

/// What `record` saves.
#[derive(Serialize)]
pub struct Recording {
    pub duration_ms: u64,
    pub interrupted: bool,
    /// Settings while recording, and the ones restored afterwards.
    pub settings: Settings,
    pub restored: Settings,
    /// Events per CPU and histograms counted during the recording.
    pub cpus: Vec<Cpu>,
    /// Records that appeared during the recording.
    pub records: Vec<Record>,
}

pub fn run<B: Backend>(a: &RecordArgs, m: &Module<B>, ctx: &Ctx) -> Result<Outcome> {
    let stop = super::interrupt_flag()?;
    let rec = record(m, a, &stop, std::io::stderr().is_terminal())?;
    std::fs::write(&a.output, serde_json::to_string_pretty(&rec)? + "\n").with_context(|| format!("writing {}", a.output.display()))?;
    if let Some(path) = &a.folded {
        std::fs::write(path, culprit::folded(&rec.records)).with_context(|| format!("writing {}", path.display()))?;
    }
    output::print(&render::record::summary(&rec, &a.output, ctx.color))?;
    Ok(if rec.interrupted { Outcome::Interrupted } else { Outcome::Done })
}

/// Enables with the asked settings, waits for the duration or `stop`, and restores the
/// settings found, whatever happened in between.
pub fn record<B: Backend>(m: &Module<B>, a: &RecordArgs, stop: &AtomicBool, progress: bool) -> Result<Recording> {
    let before_settings = m.settings()?;
    super::validate(a.period, a.threshold, before_settings.period_ms)?;
    let before = m.snapshot()?;
    let run = || -> Result<(Settings, bool, Duration)> {
        super::apply(m, a.period, a.threshold)?;
        let period_ms = a.period.unwrap_or(before_settings.period_ms);
        let used = Settings {
            enabled: true,
            period_ms,
            // The module raises the threshold to 2P when the period grows.
            threshold_ms: a.threshold.unwrap_or(before_settings.threshold_ms.max(2 * period_ms)),
        };
        let start = Instant::now();
        let mut last_line = Instant::now() - Duration::from_secs(1);
        while start.elapsed() < a.duration && !stop.load(Ordering::SeqCst) {
            if progress && last_line.elapsed() >= Duration::from_millis(500) {
                let s = m.snapshot()?;
                let (cpus, _) = snapshot::delta(&before, &s);
                let ev: u64 = cpus.iter().map(|c| c.hard_events + c.soft_events).sum();
                eprint!("\rrecording: {:>4}s / {}s, {} events ", start.elapsed().as_secs(), a.duration.as_secs(), ev);
                last_line = Instant::now();
            }
            std::thread::sleep(Duration::from_millis(50).min(a.duration));
        }
        if progress {
            eprintln!();
        }
        Ok((used, stop.load(Ordering::SeqCst), start.elapsed()))
    };
    let result = run();
    // Always put the module back as it was, also after an error or Ctrl-C.
    let after = m.snapshot();
    m.restore(before_settings)?;
    let (used, interrupted, took) = result?;
    let (cpus, records) = snapshot::delta(&before, &after?);
    Ok(Recording { duration_ms: took.as_millis() as u64, interrupted, settings: used, restored: before_settings, cpus, records })
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
    }

    #[test]
    fn record_interrupted_still_restores() {
        let fake = Fake::new(RECORDS);
        let m = Module::open(&fake).unwrap();
        let rec = record(&m, &args(60_000), &AtomicBool::new(true), false).unwrap();
        assert!(rec.interrupted);
        assert!(!m.settings().unwrap().enabled);
    }
}
