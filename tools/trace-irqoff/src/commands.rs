// SPDX-License-Identifier: GPL-2.0
//! The subcommands that talk to the module.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use serde::Serialize;

use crate::procfs::{Backend, Dir, Module, Settings};
use crate::render::{self, paint, BOLD};
use crate::snapshot::{Cause, Cpu, Kind, Record, Snapshot, NR_BUCKETS};
use crate::{metrics, top, use_color, validate, Cli, Command, Tunable};

#[derive(clap::Args, Debug)]
pub struct RecordsArgs {
    /// Only these CPUs (repeatable).
    #[arg(long)]
    pub cpu: Vec<u32>,
    /// Only this kind.
    #[arg(long, value_enum)]
    pub kind: Option<Kind>,
    /// Only latencies of at least this many ms.
    #[arg(long, value_name = "MS")]
    pub min: Option<u64>,
    /// Only events of the last DURATION (e.g. 10m, 1h).
    #[arg(long, value_parser = humantime::parse_duration)]
    pub since: Option<Duration>,
    /// Order: worst first, or newest first.
    #[arg(long, value_enum, default_value_t = Sort::Worst)]
    pub sort: Sort,
    /// Show at most this many records.
    #[arg(long)]
    pub limit: Option<usize>,
    /// Frames shown per record (all in --json).
    #[arg(long, default_value_t = 12)]
    pub depth: usize,
}

#[derive(Clone, Copy, Debug, clap::ValueEnum, PartialEq, Eq)]
pub enum Sort {
    Worst,
    Newest,
}

#[derive(clap::Args, Debug)]
pub struct RecordArgs {
    /// How long to record (e.g. 30s, 5m).
    #[arg(long, default_value = "30s", value_parser = humantime::parse_duration)]
    pub duration: Duration,
    /// Sampling period in ms while recording.
    #[arg(long, value_name = "MS")]
    pub period: Option<u64>,
    /// Threshold in ms while recording.
    #[arg(long, value_name = "MS")]
    pub threshold: Option<u64>,
    /// Where to write the JSON result.
    #[arg(short, long, default_value = "trace-irqoff-record.json")]
    pub output: PathBuf,
    /// Also write folded stacks (for flamegraph.pl, inferno) to this file.
    #[arg(long, value_name = "FILE")]
    pub folded: Option<PathBuf>,
}

/// Current CLOCK_MONOTONIC in ns: the clock of the module's timestamps.
fn monotonic_ns() -> u64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
    (t.tv_sec as u64).saturating_mul(1_000_000_000).saturating_add(t.tv_nsec as u64)
}

/// Prints to stdout; a closed pipe (`| head`) ends the program quietly.
fn out(text: &str) {
    let mut o = anstream::stdout();
    if o.write_all(text.as_bytes()).and_then(|_| o.flush()).is_err() {
        std::process::exit(0);
    }
}

fn json<T: Serialize>(v: &T) -> Result<()> {
    out(&(serde_json::to_string_pretty(v)? + "\n"));
    Ok(())
}

/// Set once by Ctrl-C; `watch` and `record` poll it.
fn interrupt_flag() -> Result<Arc<AtomicBool>> {
    let flag = Arc::new(AtomicBool::new(false));
    let f = flag.clone();
    ctrlc::set_handler(move || f.store(true, Ordering::SeqCst)).context("installing the Ctrl-C handler")?;
    Ok(flag)
}

pub fn run(cli: &Cli) -> Result<()> {
    let m = Module::open(Dir::new(&cli.proc_root))?.raw_symbols(cli.raw_symbols);
    let color = use_color(cli.color);
    match &cli.command {
        Command::Status => status(&m, cli.json, color),
        Command::Enable { period, threshold } => enable(&m, *period, *threshold),
        Command::Disable => Ok(m.set_enabled(false)?),
        Command::Clear => Ok(m.clear()?),
        Command::Set { what, value } => {
            let s = m.settings()?;
            match what {
                Tunable::Period => {
                    validate(Some(*value), None, s.period_ms)?;
                    Ok(m.set_period(*value)?)
                }
                Tunable::Threshold => {
                    validate(None, Some(*value), s.period_ms)?;
                    Ok(m.set_threshold(*value)?)
                }
            }
        }
        Command::Records(a) => records(&m, a, cli.json, color),
        Command::Hist { per_cpu, kind } => hist(&m, *per_cpu, *kind, cli.json),
        Command::Top { stack, limit } => {
            let s = m.snapshot()?;
            let mut t = top::top(&s.records, *stack);
            t.truncate(*limit);
            if cli.json {
                return json(&t);
            }
            out(&render_top(&t, color));
            Ok(())
        }
        Command::Watch { interval, count } => watch(&m, *interval, *count, color),
        Command::Record(a) => record(&m, a, color),
        Command::Tagwait { switch } => {
            if let Some(sw) = switch {
                return Ok(m.set_tag_wait(*sw == crate::OnOff::On)?);
            }
            let s = m.snapshot()?;
            if cli.json {
                return json(&s.tag_wait);
            }
            out(&render_tag_wait(&s));
            Ok(())
        }
        Command::Metrics => {
            out(&metrics::exposition(&m.snapshot()?));
            Ok(())
        }
        Command::Completions { .. } | Command::Man => unreachable!("handled in main"),
    }
}

#[derive(Serialize)]
struct Status {
    loaded: bool,
    #[serde(flatten)]
    settings: Settings,
    hz: u64,
    soft_event_ns: u64,
    records_per_cpu: u32,
    cpus: Vec<Cpu>,
    tag_wait: Option<crate::snapshot::TagWait>,
}

fn status<B: Backend>(m: &Module<B>, as_json: bool, color: bool) -> Result<()> {
    let settings = m.settings()?;
    let s = m.snapshot()?;
    if as_json {
        return json(&Status {
            loaded: true,
            settings,
            hz: s.config.hz,
            soft_event_ns: s.config.soft_event_ns,
            records_per_cpu: s.config.records_per_cpu,
            cpus: s.cpus,
            tag_wait: s.tag_wait,
        });
    }
    let mut text = render_status(&settings, &s, color);
    if let Some(tw) = &s.tag_wait {
        let waits: u64 = tw.counts.iter().map(|c| c.waits).sum();
        let _ = writeln!(text, "tag-wait tracking: {} (source: {}), {} waits counted", if tw.enabled { "enabled" } else { "disabled" }, tw.source, waits);
    }
    out(&text);
    Ok(())
}

pub fn render_status(settings: &Settings, s: &Snapshot, color: bool) -> String {
    let mut o = String::new();
    let state = if settings.enabled { "enabled" } else { "disabled" };
    let _ = writeln!(
        o,
        "trace_irqoff: {}, period {} ms, threshold {} ms, HZ {}, {} records per CPU and kind",
        paint(color, BOLD, state),
        settings.period_ms,
        settings.threshold_ms,
        s.config.hz,
        s.config.records_per_cpu
    );
    let _ = writeln!(
        o,
        "events: hardirq-off from {} ms gaps, softirq-off from {} gaps",
        2 * settings.period_ms,
        render::ms(s.config.soft_event_ns)
    );
    // From format v2 on, softirq events are also split by cause.
    let by_cause = s.version >= 2;
    let split = |bh: &str, ksw: &str| if by_cause { format!(" {bh:>8} {ksw:>14}") } else { String::new() };
    let _ = writeln!(
        o,
        "{:>4}  {:<7} {:>12} {:>12}{} {:>8} {:>9} {:>10}",
        "CPU",
        "online",
        "hardirq-off",
        "softirq-off",
        split("bh-off", "ksoftirqd-wait"),
        "dropped",
        "replaced",
        "idle gaps"
    );
    for c in &s.cpus {
        let _ = writeln!(
            o,
            "{:>4}  {:<7} {:>12} {:>12}{} {:>8} {:>9} {:>10}",
            c.cpu,
            if c.online { "yes" } else { "no" },
            c.hard_events,
            c.soft_events,
            split(&c.soft_bh_off_events.to_string(), &c.soft_ksoftirqd_wait_events.to_string()),
            c.dropped,
            c.replaced,
            c.idle_gaps
        );
    }
    o
}

fn enable<B: Backend>(m: &Module<B>, period: Option<u64>, threshold: Option<u64>) -> Result<()> {
    let s = m.settings()?;
    validate(period, threshold, s.period_ms)?;
    if let Some(p) = period.filter(|&p| p != s.period_ms) {
        m.set_enabled(false)?;
        m.set_period(p)?;
    }
    if let Some(t) = threshold {
        m.set_threshold(t)?;
    }
    Ok(m.set_enabled(true)?)
}

/// Records after the filters, in the chosen order.
pub fn select(s: &Snapshot, a: &RecordsArgs, now_ns: u64) -> Vec<Record> {
    let mut v: Vec<Record> = s
        .records
        .iter()
        .filter(|r| a.cpu.is_empty() || a.cpu.contains(&r.cpu))
        .filter(|r| a.kind.is_none_or(|k| k == r.kind))
        .filter(|r| a.min.is_none_or(|ms| r.latency_ns >= ms.saturating_mul(1_000_000)))
        .filter(|r| a.since.is_none_or(|d| r.timestamp_ns >= now_ns.saturating_sub(d.as_nanos() as u64)))
        .cloned()
        .collect();
    match a.sort {
        Sort::Worst => v.sort_by(|x, y| y.latency_ns.cmp(&x.latency_ns).then(y.timestamp_ns.cmp(&x.timestamp_ns))),
        Sort::Newest => v.sort_by_key(|r| std::cmp::Reverse(r.timestamp_ns)),
    }
    if let Some(n) = a.limit {
        v.truncate(n);
    }
    v
}

fn records<B: Backend>(m: &Module<B>, a: &RecordsArgs, as_json: bool, color: bool) -> Result<()> {
    let s = m.snapshot()?;
    let v = select(&s, a, monotonic_ns());
    if as_json {
        return json(&v);
    }
    let mut o = String::new();
    if v.is_empty() {
        let _ = writeln!(o, "no records{}", if s.config.enabled { "" } else { " (sampling is disabled: trace-irqoff enable)" });
    }
    for r in &v {
        render::record(&mut o, r, color, false, a.depth, s.version);
    }
    out(&o);
    Ok(())
}

#[derive(Serialize)]
struct HistJson {
    /// Bucket k holds latencies of [2^k, 2^(k+1)) ms.
    bucket_ms: Vec<[u64; 2]>,
    hard: Vec<u64>,
    soft: Vec<u64>,
    /// `soft` split by cause (records format v2 on; absent before).
    #[serde(skip_serializing_if = "Option::is_none")]
    soft_bh_off: Option<Vec<u64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    soft_ksoftirqd_wait: Option<Vec<u64>>,
    per_cpu: Option<Vec<CpuHist>>,
}

#[derive(Serialize)]
struct CpuHist {
    cpu: u32,
    hard: Vec<u64>,
    soft: Vec<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    soft_bh_off: Option<Vec<u64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    soft_ksoftirqd_wait: Option<Vec<u64>>,
}

/// The softirq causes a snapshot splits its counts by: none before records format v2.
fn causes(s: &Snapshot) -> &'static [Cause] {
    if s.version >= 2 {
        &[Cause::BhOff, Cause::KsoftirqdWait]
    } else {
        &[]
    }
}

fn hist<B: Backend>(m: &Module<B>, per_cpu: bool, kind: Option<Kind>, as_json: bool) -> Result<()> {
    let s = m.snapshot()?;
    if as_json {
        let split = s.version >= 2;
        return json(&HistJson {
            bucket_ms: (0..NR_BUCKETS).map(|k| { let (a, b) = render::bucket_range(k); [a, b] }).collect(),
            hard: render::summed(&s, Kind::Hard, None),
            soft: render::summed(&s, Kind::Soft, None),
            soft_bh_off: split.then(|| render::summed(&s, Kind::Soft, Some(Cause::BhOff))),
            soft_ksoftirqd_wait: split.then(|| render::summed(&s, Kind::Soft, Some(Cause::KsoftirqdWait))),
            per_cpu: per_cpu.then(|| {
                s.cpus
                    .iter()
                    .map(|c| CpuHist {
                        cpu: c.cpu,
                        hard: c.hard_hist.clone(),
                        soft: c.soft_hist.clone(),
                        soft_bh_off: split.then(|| c.soft_bh_off_hist.clone()),
                        soft_ksoftirqd_wait: split.then(|| c.soft_ksoftirqd_wait_hist.clone()),
                    })
                    .collect()
            }),
        });
    }
    out(&render_hist(&s, per_cpu, kind));
    Ok(())
}

pub fn render_hist(s: &Snapshot, per_cpu: bool, kind: Option<Kind>) -> String {
    let kinds: Vec<Kind> = kind.map_or(vec![Kind::Hard, Kind::Soft], |k| vec![k]);
    let mut o = String::new();
    if let Some(orig) = &s.original_hist {
        // The original module: only its summed rows, with its own bucket edges.
        for (k, rows) in orig.iter().filter(|(k, _)| kinds.contains(k)) {
            let max = rows.iter().map(|r| r.count).max().unwrap_or(0).max(1);
            // Not the module's edges: the original labels its buckets by its own period.
            let _ = writeln!(o, "{}:", k.label());
            let _ = writeln!(o, "{:9}msecs{:10} : {:<9} distribution", "", "", "count");
            for r in rows {
                let _ = writeln!(o, "{:>10} -> {:<10} : {:<8} |{:<40}|", r.lo_ms, r.hi_ms, r.count, "*".repeat((r.count * 40 / max) as usize));
            }
        }
        return if o.is_empty() { "no events\n".into() } else { o };
    }
    // Softirqs: all of them, then each cause (format v2).
    let mut views: Vec<(Kind, Option<Cause>)> = Vec::new();
    for k in kinds {
        views.push((k, None));
        if k == Kind::Soft {
            views.extend(causes(s).iter().map(|&c| (k, Some(c))));
        }
    }
    for (k, cause) in views {
        let label = render::kind_cause(k, cause);
        if per_cpu {
            for c in &s.cpus {
                o += &render::histogram(&format!("{label} cpu {}:", c.cpu), c.hist(k, cause));
            }
        } else {
            o += &render::histogram(&format!("{label}:"), &render::summed(s, k, cause));
        }
    }
    if o.is_empty() {
        o = "no events\n".into();
    }
    o
}

pub fn render_tag_wait(s: &Snapshot) -> String {
    let Some(tw) = &s.tag_wait else {
        return "this trace_irqoff module has no tag-wait tracking\n".into();
    };
    let mut o = String::new();
    let _ = writeln!(o, "tag-wait tracking: {} (source: {})", if tw.enabled { "enabled" } else { "disabled" }, tw.source);
    if tw.counts.is_empty() {
        let _ = writeln!(o, "no waits counted");
    } else {
        let _ = writeln!(o, "{:>10} {:>6}  {:<20} {:>10}", "DEV", "HCTX", "POOL", "WAITS");
        let mut rows = tw.counts.clone();
        rows.sort_by_key(|c| std::cmp::Reverse(c.waits));
        for c in rows {
            let pool = if c.reserved { format!("{} reserved", c.pool) } else { c.pool.clone() };
            let _ = writeln!(o, "{:>10} {:>6}  {:<20} {:>10}", format!("{},{}", c.major, c.minor), c.hctx, pool, c.waits);
        }
    }
    if tw.overflow + tw.unattributed + tw.missed > 0 {
        let _ = writeln!(o, "not counted per device: {} (table full), {} (queue unknown); durations missed: {}", tw.overflow, tw.unattributed, tw.missed);
    }
    o += &render::histogram_unit("wait duration:", "usecs", &tw.duration_hist_us);
    o
}

pub fn render_top(t: &[top::Culprit], color: bool) -> String {
    let mut o = String::new();
    if t.is_empty() {
        return "no records\n".into();
    }
    let _ = writeln!(o, "{:<12} {:<14} {:>6} {:>14} {:>14}  {:<24} culprit", "kind", "cause", "count", "worst", "total", "tasks");
    for c in t {
        let _ = writeln!(
            o,
            "{:<12} {:<14} {:>6} {:>14} {:>14}  {:<24} {}",
            c.kind.label(),
            c.cause.map_or("-", Cause::name),
            c.count,
            render::ms(c.worst_ns),
            render::ms(c.total_ns),
            c.comms.join(","),
            paint(color, BOLD, &c.culprit)
        );
    }
    o
}

fn key(r: &Record) -> (u32, Kind, u64, u64) {
    (r.cpu, r.kind, r.timestamp_ns, r.latency_ns)
}

fn watch<B: Backend>(m: &Module<B>, interval: Duration, count: Option<u64>, color: bool) -> Result<()> {
    let stop = interrupt_flag()?;
    let tty = std::io::stdout().is_terminal();
    let mut seen: Option<HashSet<(u32, Kind, u64, u64)>> = None;
    let mut n = 0u64;
    while !stop.load(Ordering::SeqCst) && count.is_none_or(|c| n < c) {
        let s = m.snapshot()?;
        let mut o = String::new();
        if tty {
            o += "\x1b[H\x1b[2J";
        }
        let total: u64 = s.cpus.iter().map(|c| c.hard_events + c.soft_events).sum();
        let _ = writeln!(o, "trace-irqoff watch: {} events, {} records, every {:?} (Ctrl-C quits)", total, s.records.len(), interval);
        let mut recs = s.records.clone();
        recs.sort_by_key(|r| std::cmp::Reverse(r.timestamp_ns));
        for r in recs.iter().take(20) {
            let new = seen.as_ref().is_some_and(|sn| !sn.contains(&key(r)));
            render::record(&mut o, r, color, new, 3, s.version);
        }
        out(&o);
        seen = Some(s.records.iter().map(key).collect());
        n += 1;
        let until = Instant::now() + interval;
        while Instant::now() < until && !stop.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    Ok(())
}

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

/// What changed between two snapshots.
pub fn diff(before: &Snapshot, after: &Snapshot) -> (Vec<Cpu>, Vec<Record>) {
    let old: HashSet<_> = before.records.iter().map(key).collect();
    let records = after.records.iter().filter(|r| !old.contains(&key(r))).cloned().collect();
    let cpus = after
        .cpus
        .iter()
        .map(|a| {
            let b = before.cpus.iter().find(|b| b.cpu == a.cpu);
            let sub = |x: u64, y: Option<u64>| x.saturating_sub(y.unwrap_or(0));
            let subv = |x: &Vec<u64>, y: Option<&Vec<u64>>| {
                x.iter().enumerate().map(|(i, v)| v.saturating_sub(y.and_then(|y| y.get(i).copied()).unwrap_or(0))).collect()
            };
            Cpu {
                cpu: a.cpu,
                online: a.online,
                hard_events: sub(a.hard_events, b.map(|b| b.hard_events)),
                soft_events: sub(a.soft_events, b.map(|b| b.soft_events)),
                soft_bh_off_events: sub(a.soft_bh_off_events, b.map(|b| b.soft_bh_off_events)),
                soft_ksoftirqd_wait_events: sub(a.soft_ksoftirqd_wait_events, b.map(|b| b.soft_ksoftirqd_wait_events)),
                dropped: sub(a.dropped, b.map(|b| b.dropped)),
                replaced: sub(a.replaced, b.map(|b| b.replaced)),
                idle_gaps: sub(a.idle_gaps, b.map(|b| b.idle_gaps)),
                hard_hist: subv(&a.hard_hist, b.map(|b| &b.hard_hist)),
                soft_hist: subv(&a.soft_hist, b.map(|b| &b.soft_hist)),
                soft_bh_off_hist: subv(&a.soft_bh_off_hist, b.map(|b| &b.soft_bh_off_hist)),
                soft_ksoftirqd_wait_hist: subv(&a.soft_ksoftirqd_wait_hist, b.map(|b| &b.soft_ksoftirqd_wait_hist)),
            }
        })
        .collect();
    (cpus, records)
}

pub fn record_with<B: Backend>(m: &Module<B>, a: &RecordArgs, stop: &AtomicBool, progress: bool) -> Result<Recording> {
    let before_settings = m.settings()?;
    validate(a.period, a.threshold, before_settings.period_ms)?;
    let before = m.snapshot()?;
    let run = || -> Result<(Settings, bool, Duration)> {
        enable(m, a.period, a.threshold)?;
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
                let (cpus, _) = diff(&before, &s);
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
    let (cpus, records) = diff(&before, &after?);
    Ok(Recording { duration_ms: took.as_millis() as u64, interrupted, settings: used, restored: before_settings, cpus, records })
}

fn record<B: Backend>(m: &Module<B>, a: &RecordArgs, color: bool) -> Result<()> {
    let stop = interrupt_flag()?;
    let rec = record_with(m, a, &stop, std::io::stderr().is_terminal())?;
    std::fs::write(&a.output, serde_json::to_string_pretty(&rec)? + "\n").with_context(|| format!("writing {}", a.output.display()))?;
    if let Some(path) = &a.folded {
        std::fs::write(path, top::folded(&rec.records)).with_context(|| format!("writing {}", path.display()))?;
    }
    let hard: u64 = rec.cpus.iter().map(|c| c.hard_events).sum();
    let soft: u64 = rec.cpus.iter().map(|c| c.soft_events).sum();
    let bh_off: u64 = rec.cpus.iter().map(|c| c.soft_bh_off_events).sum();
    let ksoftirqd_wait: u64 = rec.cpus.iter().map(|c| c.soft_ksoftirqd_wait_events).sum();
    // Only a v2 module splits softirq events by cause; before, both are 0.
    let split = if bh_off + ksoftirqd_wait > 0 { format!(" ({bh_off} bh-off, {ksoftirqd_wait} ksoftirqd-wait)") } else { String::new() };
    let mut o = String::new();
    let _ = writeln!(
        o,
        "recorded {:.1} s{}: {} hardirq-off and {} softirq-off{} events, {} records -> {}",
        rec.duration_ms as f64 / 1000.0,
        if rec.interrupted { " (interrupted)" } else { "" },
        hard,
        soft,
        split,
        rec.records.len(),
        a.output.display()
    );
    let t = top::top(&rec.records, false);
    if !t.is_empty() {
        o += &render_top(&t[..t.len().min(5)], color);
    }
    let _ = writeln!(o, "module restored: {}, period {} ms, threshold {} ms", if rec.restored.enabled { "enabled" } else { "disabled" }, rec.restored.period_ms, rec.restored.threshold_ms);
    out(&o);
    if rec.interrupted {
        std::process::exit(130);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::procfs::fake::Fake;

    const RECORDS: &str = include_str!("../tests/fixtures/records-v1.txt");

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
        let rec = record_with(&m, &args(20), &AtomicBool::new(false), false).unwrap();
        assert!(!rec.interrupted);
        assert_eq!((rec.settings.enabled, rec.settings.period_ms, rec.settings.threshold_ms), (true, 5, 30));
        let now = m.settings().unwrap();
        assert_eq!((now.enabled, now.period_ms, now.threshold_ms), (false, 10, 50));
    }

    #[test]
    fn record_interrupted_still_restores() {
        let fake = Fake::new(RECORDS);
        let m = Module::open(&fake).unwrap();
        let rec = record_with(&m, &args(60_000), &AtomicBool::new(true), false).unwrap();
        assert!(rec.interrupted);
        assert!(!m.settings().unwrap().enabled);
    }

    #[test]
    fn kernel_errnos_become_sentences() {
        let mut fake = Fake::new(RECORDS);
        fake.fail_writes = Some(16);
        let m = Module::open(&fake).unwrap();
        let e = m.set_period(20).unwrap_err();
        assert_eq!(e.to_string(), "the sampling period cannot change while tracing is enabled");
        assert!(e.hint().unwrap().contains("disable first"));
        fake.fail_writes = Some(22);
        let m = Module::open(&fake).unwrap();
        assert_eq!(m.set_threshold(7).unwrap_err().to_string(), "the module refused '7' for trace_latency: malformed or out of range");
        fake.fail_writes = Some(13);
        let m = Module::open(&fake).unwrap();
        let e = m.set_enabled(true).unwrap_err();
        assert!(e.to_string().starts_with("permission denied on"));
        assert!(e.hint().unwrap().contains("root"));
    }

    #[test]
    fn enabling_while_enabled_with_a_new_period_disables_first() {
        let fake = Fake::new(RECORDS);
        let m = Module::open(&fake).unwrap();
        m.set_enabled(true).unwrap();
        // The fake answers EBUSY to a period change while enabled, like the module.
        enable(&m, Some(20), None).unwrap();
        let s = m.settings().unwrap();
        assert_eq!((s.enabled, s.period_ms), (true, 20));
    }

    #[test]
    fn unloaded_module() {
        let mut fake = Fake::new(RECORDS);
        fake.loaded = false;
        assert!(matches!(Module::open(&fake), Err(crate::procfs::ProcError::NotLoaded(_))));
    }

    #[test]
    fn diff_counts_only_new_events() {
        let before = crate::snapshot::parse(RECORDS).unwrap();
        let mut after = before.clone();
        after.cpus[1].hard_events += 2;
        after.cpus[1].hard_hist[6] += 2;
        let mut r = after.records[0].clone();
        r.timestamp_ns += 1;
        after.records.push(r);
        let (cpus, recs) = diff(&before, &after);
        assert_eq!(cpus[1].hard_events, 2);
        assert_eq!(cpus[1].hard_hist[6], 2);
        assert_eq!(cpus[0].hard_events, 0);
        assert_eq!(recs.len(), 1);
    }
}
