// SPDX-License-Identifier: GPL-2.0
//! The cmd wing: the subcommands, one file each (`record` is `recording`, `records` is
//! `latency`, its alias, since `parse::records` has the name), each
//! `run(args, &Module, &Ctx) -> Result<Outcome>` (the views of records take a [`From`]:
//! a saved file or the module): arguments, prepare (`enrich::prepare`, whatever the
//! source), select, render, print; `main` turns their result into the exit status. This file
//! holds the steps several commands share.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use anyhow::{Context, Result};
use tio_logic::limits::{self, PERIOD_MS_MAX, PERIOD_MS_MIN, THRESHOLD_MS_MAX};

use crate::cli::{Cli, ColorWhen, Command};
use crate::enrich::prepare::{prepare, Options, Prepared, Source};
use crate::error::Problem;
use crate::output;
use crate::source::procfs::{Backend, Dir, Module};

mod clear;
mod completions;
mod disable;
mod enable;
mod explain;
mod hist;
mod journal;
pub mod latency;
mod man;
mod metrics;
pub mod recording;
mod report;
mod serve;
mod service;
mod set;
mod status;
mod tagwait;
mod top;
mod watch;

/// How a command ended, when it did not fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Done,
    /// Ended early by Ctrl-C (its work is saved and the module restored).
    Interrupted,
    /// `--until`: a window at least that long was recorded.
    Caught,
    /// `explain`: no delay asked about was held by an irq-off window (verdict no).
    NotExplained,
    /// `explain`: whether one was cannot be told (verdict unknown).
    Unknown,
}

/// What every command gets besides its own arguments.
pub struct Ctx {
    pub json: bool,
    pub color: bool,
}

/// Runs the command of `cli`.
pub fn run(cli: &Cli) -> Result<Outcome> {
    let open = || Module::open(Dir::new(&cli.proc_root)).map(|m| m.raw_symbols(cli.raw_symbols));
    let ctx = Ctx {
        json: cli.json,
        color: use_color(cli.color),
    };
    match &cli.command {
        Command::Status => status::run(&open()?, &ctx),
        Command::Enable(a) => enable::run(a, &open()?, &ctx),
        Command::Disable => disable::run(&open()?, &ctx),
        Command::Clear => clear::run(&open()?, &ctx),
        Command::Set(a) => set::run(a, &open()?, &ctx),
        // From a saved `record` file (no module needed), or from the module: one
        // preparation either way (`enrich::prepare`).
        Command::Records(a) => latency::run(a, &from(&a.from, cli)?, &ctx),
        Command::Hist(a) => hist::run(a, &from(&a.from, cli)?, &ctx),
        Command::Top(a) if a.live => top::live(a, &open()?, &ctx),
        Command::Top(a) => top::run(a, &from(&a.from, cli)?, &ctx),
        Command::Report(a) => report::run(a, &from(&a.from, cli)?, &ctx),
        Command::Watch(a) => watch::run(a, &open()?, &ctx),
        Command::Record(a) => recording::run(a, &open()?, &ctx),
        Command::Journal(a) => journal::run(a, &open()?, &ctx),
        Command::Tagwait(a) => tagwait::run(a, &open()?, &ctx),
        Command::Explain(a) => {
            // A renamed option is refused before anything else is looked at.
            explain::refuse_last(a)?;
            explain::run(a, &open()?, &cli.proc_root, &ctx)
        }
        // Says "not loaded" in its own format.
        Command::Metrics(a) => metrics::run(a, open()),
        // Open the module themselves: the exporter on every scrape, the service after
        // loading it.
        Command::Serve(a) => serve::run(a, &cli.proc_root, &interrupt_flag()?),
        Command::Service(a) => service::run(a, &cli.proc_root, &ctx),
        // Need no module.
        Command::Completions(a) => completions::run(a),
        Command::Man(a) => man::run(a),
    }
}

/// Where a view's records come from: the saved file `--from FILE` names, or the module
/// under the proc root.
pub enum From {
    Saved(std::path::PathBuf, bool),
    Module(Module<Dir>),
}

fn from(file: &Option<std::path::PathBuf>, cli: &Cli) -> Result<From> {
    Ok(match file {
        Some(f) => From::Saved(f.clone(), cli.raw_symbols),
        None => From::Module(Module::open(Dir::new(&cli.proc_root))?.raw_symbols(cli.raw_symbols)),
    })
}

impl From {
    /// Prepares its records (`enrich::prepare`) with `o`, the saved file's `--raw-symbols`
    /// added; says on stderr what `--lines` found no debug information for.
    pub fn prepare(&self, mut o: Options) -> Result<Prepared> {
        let p = match self {
            From::Saved(f, raw) => {
                o.raw_symbols = *raw;
                prepare(Source::<Dir>::Saved(f), &o)?
            }
            From::Module(m) => prepare(Source::Module(m), &o)?,
        };
        lines_hint(p.lines_hint.as_deref());
        Ok(p)
    }
}

/// Whether to colour stdout: an explicit `always` or `never` wins; `auto` colours a
/// terminal unless `NO_COLOR` is set (no-color.org: it sets the default, which an option
/// overrides).
fn use_color(when: ColorWhen) -> bool {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    match when {
        ColorWhen::Always => true,
        ColorWhen::Never => false,
        ColorWhen::Auto => !no_color && std::io::stdout().is_terminal(),
    }
}

/// Set once by Ctrl-C; `watch` and `record` poll it.
fn interrupt_flag() -> Result<Arc<AtomicBool>> {
    let flag = Arc::new(AtomicBool::new(false));
    let f = flag.clone();
    ctrlc::set_handler(move || f.store(true, Ordering::SeqCst))
        .context("installing the Ctrl-C handler")?;
    Ok(flag)
}

/// Confirms a change in one line: the settings as the module has them now.
fn confirm<B: Backend>(m: &Module<B>, ctx: &Ctx) -> Result<Outcome> {
    let s = m.settings()?;
    if ctx.json {
        output::print_json(&s)?;
    } else {
        output::print(&crate::render::status_view::settings_line(&s))?;
    }
    Ok(Outcome::Done)
}

/// This machine's event stream, where there is one (the running kernel's module, tracefs,
/// root); says once why not otherwise. `start`: turn it on where it is off, which waits
/// for every CPU (for commands that drive the module, which wait for them anyway); pure
/// readers only read a ring that runs.
fn open_stream<B: Backend>(m: &Module<B>, start: bool) -> Option<crate::source::ring::Stream> {
    if !m.is_live() && !crate::source::ring::overridden() {
        return None;
    }
    let opened = if start {
        crate::source::ring::Stream::open()
    } else {
        crate::source::ring::Stream::open_running()
    };
    match opened {
        Ok(s) => Some(s),
        Err(why) => {
            output::note(&format!(
                "no event ring: {why}; windows the module's record store does not keep are missed"
            ));
            None
        }
    }
}

/// What `--lines` found no debug information for, how to get it (`hint`, from
/// `enrich::prepare`): one sentence on stderr, fitted to the terminal as the rest of the
/// output.
pub fn lines_hint(hint: Option<&str>) {
    if let Some(hint) = hint {
        let cols = output::terminal_size().map(|(_, c)| c);
        // A line of its own, also off a terminal (where nothing fits it).
        eprint!(
            "{}",
            crate::render::line::fitted(&format!("trace-irqoff: {hint}\n"), cols)
        );
    }
}

/// Warns that a `record` is running, before a change it will notice (and undo at its end).
fn note_recording<B: Backend>(m: &Module<B>) {
    if m.recording_elsewhere() {
        output::note("a trace-irqoff record is running: it will report this change, and restore its own settings when it ends");
    }
}

/// Checks period and threshold with the module's own rules (`src/logic/parse.rs`), so the user
/// gets the rule instead of a bare EINVAL.
pub fn validate(
    period: Option<u64>,
    threshold: Option<u64>,
    current_period: u64,
) -> Result<(), Problem> {
    if let Some(p) = period.filter(|&p| !limits::period_ok(p)) {
        return Err(Problem::usage(
            format!("the sampling period must be {PERIOD_MS_MIN}..{PERIOD_MS_MAX} ms, not {p} ms"),
            "pick a period in that range, e.g. --period 10",
        ));
    }
    if let Some(t) = threshold {
        let p = period.unwrap_or(current_period);
        if !limits::threshold_ok(t, p) {
            return Err(Problem::usage(
                format!("the threshold must be at least twice the period ({} ms) and at most {THRESHOLD_MS_MAX} ms, not {t} ms", 2 * p),
                format!("use a threshold of {}..{THRESHOLD_MS_MAX} ms, or a shorter period", 2 * p),
            ));
        }
    }
    Ok(())
}

/// Sets period and threshold (validated), then enables: a new period while enabled needs
/// the module disabled first (EBUSY otherwise).
/// Makes `list` the CPUs sampled (disabling first if it changes the selection while
/// sampling is on: the module refuses it then); `apply` enables again.
fn select_cpus<B: Backend>(m: &Module<B>, list: &str) -> Result<()> {
    let list = list.trim();
    if m.cpus()?.as_deref() == Some(list) {
        return Ok(());
    }
    // The syntax, checked with the module's own parser before anything changes; whether
    // each CPU exists only the module knows.
    if !tio_logic::limits::cpulist_ok(list, u32::MAX) {
        return Err(Problem::usage(
            format!("'{list}' is not a CPU list"),
            "give CPUs as the kernel lists them, e.g. --cpus 0-3,8",
        )
        .into());
    }
    let was = m.settings()?.enabled;
    m.set_enabled(false)?;
    if let Err(e) = m.set_cpus(list) {
        // Refused (a CPU that is not possible): as it was before.
        if was {
            m.set_enabled(true)?;
        }
        return Err(e.into());
    }
    Ok(())
}

fn apply<B: Backend>(m: &Module<B>, period: Option<u64>, threshold: Option<u64>) -> Result<()> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::procfs::fake::Fake;

    /// Claim: applying a new period to an enabled module, which answers EBUSY to that
    /// while enabled, succeeds by disabling first and leaves the module enabled at the
    /// new 20 ms period.
    #[test]
    fn enabling_while_enabled_with_a_new_period_disables_first() {
        let fake = Fake::new(include_str!("../tests/fixtures/records-v1.txt"));
        let m = Module::open(&fake).unwrap();
        m.set_enabled(true).unwrap();
        // The fake answers EBUSY to a period change while enabled, like the module.
        apply(&m, Some(20), None).unwrap();
        let s = m.settings().unwrap();
        assert_eq!((s.enabled, s.period_ms), (true, 20));
    }

    /// `enable --cpus` while enabled: the module refuses a new selection then, so the CLI
    /// disables, selects, enables; the same selection again writes nothing.
    #[test]
    fn enabling_with_a_new_cpu_selection_disables_first() {
        let fake = Fake::new(include_str!("../tests/fixtures/records-v1.txt"));
        fake.files
            .borrow_mut()
            .insert("cpus".into(), "0-3\n".into());
        let m = Module::open(&fake).unwrap();
        m.set_enabled(true).unwrap();
        select_cpus(&m, "1,3").unwrap();
        apply(&m, None, None).unwrap();
        assert_eq!(m.cpus().unwrap().as_deref(), Some("1,3"));
        assert!(m.settings().unwrap().enabled);
        let n = fake.writes.borrow().len();
        select_cpus(&m, "1,3\n").unwrap();
        assert_eq!(fake.writes.borrow().len(), n);
        // Not a list: refused before anything changes.
        let e = select_cpus(&m, "x").unwrap_err();
        assert_eq!(
            e.downcast_ref::<Problem>().unwrap().sentence,
            "'x' is not a CPU list"
        );
        assert_eq!(fake.writes.borrow().len(), n);
        // A CPU the machine does not have: the module's EINVAL, with a hint that names the
        // syntax, and sampling on again as it was.
        let e = select_cpus(&m, "7").unwrap_err();
        let p = e
            .downcast_ref::<crate::source::procfs::ProcError>()
            .unwrap();
        assert!(p.hint().unwrap().contains("0-3,8"));
        assert!(m.settings().unwrap().enabled);
        assert_eq!(m.cpus().unwrap().as_deref(), Some("1,3"));
    }

    /// Claim: a value the command line cannot have is one class of error, whoever
    /// refuses it: `--cpus 5-9` where CPUs 5-9 do not exist (the module's EINVAL) exits
    /// as `--period 0` does (the CLI's own range check), with status 2; something that
    /// failed (the module busy) stays 1.
    #[test]
    fn refused_values_exit_alike() {
        use crate::exit::Exit;
        let fake = Fake::new(include_str!("../tests/fixtures/records-v1.txt"));
        fake.files
            .borrow_mut()
            .insert("cpus".into(), "0-3\n".into());
        let m = Module::open(&fake).unwrap();
        let cpus = select_cpus(&m, "5-9").unwrap_err();
        let period: anyhow::Error = validate(Some(0), None, 10).unwrap_err().into();
        assert_eq!(Exit::of_error(&cpus).0, Exit::Usage);
        assert_eq!(Exit::of_error(&period).0, Exit::Usage);
        assert!(Exit::of_error(&cpus).1.unwrap().contains("0-3,8"));
        let busy: anyhow::Error = crate::source::procfs::ProcError::Busy.into();
        assert_eq!(Exit::of_error(&busy).0, Exit::Failure);
    }

    /// Claim: validation follows the module's rules: a period of 1..1000 ms and a
    /// threshold of at least twice the period and at most 10000 ms; values outside are
    /// usage errors whose sentence gives the range and the value.
    #[test]
    fn validation_uses_the_modules_rules() {
        assert!(validate(Some(1), Some(2), 10).is_ok());
        let e = validate(Some(0), None, 10).unwrap_err();
        assert_eq!(
            e.sentence,
            "the sampling period must be 1..1000 ms, not 0 ms"
        );
        assert!(e.usage);
        let e = validate(None, Some(19), 10).unwrap_err();
        assert_eq!(e.sentence, "the threshold must be at least twice the period (20 ms) and at most 10000 ms, not 19 ms");
        assert!(validate(None, Some(10_001), 10).is_err());
    }
}
