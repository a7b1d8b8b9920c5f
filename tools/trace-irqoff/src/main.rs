// SPDX-License-Identifier: GPL-2.0
//! `trace-irqoff`: the command line an engineer drives the trace_irqoff module with during
//! an incident. See `trace-irqoff --help` and Documentation/trace-irqoff-cli.rst.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::{CommandFactory, Parser, Subcommand, ValueEnum};

mod commands;
// The module's own bucket edges and histogram layout, compiled here too, so the CLI
// prints exactly what /proc/trace_irqoff/distribute prints.
#[allow(dead_code)]
#[path = "../../../src/gap.rs"]
mod gap;
#[allow(dead_code)]
#[path = "../../../src/histogram.rs"]
mod histogram;
mod mechanism;
mod metrics;
mod original;
mod procfs;
mod render;
mod snapshot;
mod symbols;
mod top;

use procfs::ProcError;
use snapshot::Kind;

/// Find CPUs that ran with hard interrupts or softirqs off for too long, and who did it.
///
/// Reads and drives /proc/trace_irqoff (the trace_irqoff kernel module).
#[derive(Parser, Debug)]
#[command(version, about, long_about = None, after_help = "Example: trace-irqoff enable && sleep 60 && trace-irqoff top")]
pub struct Cli {
    /// Root of the proc file system (tests, containers).
    #[arg(long, global = true, default_value = "/proc", value_name = "DIR")]
    pub proc_root: PathBuf,

    /// Machine-readable JSON output (stable; see Documentation/trace-irqoff-cli.rst).
    #[arg(long, global = true)]
    pub json: bool,

    /// Show Rust symbols as the kernel printed them (mangled), not demangled.
    #[arg(long, global = true)]
    pub raw_symbols: bool,

    /// When to colour the output (never with NO_COLOR set, or when not a terminal in auto).
    #[arg(long, global = true, value_enum, default_value_t = ColorWhen::Auto)]
    pub color: ColorWhen,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum ColorWhen {
    Auto,
    Always,
    Never,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Is the module loaded and enabled; period, threshold, per-CPU events and drops.
    #[command(after_help = "Example: trace-irqoff status --json")]
    Status,
    /// Start sampling, optionally setting the period and threshold first.
    #[command(after_help = "Example: trace-irqoff enable --period 10 --threshold 50")]
    Enable {
        /// Sampling period in ms (1..1000).
        #[arg(long, value_name = "MS", value_parser = parse_ms_arg)]
        period: Option<u64>,
        /// Record stacks for latencies of at least this many ms (2 x period..10000).
        #[arg(long, value_name = "MS", value_parser = parse_ms_arg)]
        threshold: Option<u64>,
    },
    /// Stop sampling (records stay readable).
    #[command(after_help = "Example: trace-irqoff disable")]
    Disable,
    /// Forget all records, histograms and drop counters.
    #[command(after_help = "Example: trace-irqoff clear")]
    Clear,
    /// Set one tunable.
    #[command(after_help = "Example: trace-irqoff set threshold 100")]
    Set {
        what: Tunable,
        /// Value in ms (a trailing "ms" is accepted).
        #[arg(value_parser = parse_ms_arg)]
        value: u64,
    },
    /// The recorded events with their stacks, worst or newest first.
    #[command(visible_alias = "latency", after_help = "Example: trace-irqoff records --kind hard --cpu 3 --min 80 --since 10m")]
    Records(commands::RecordsArgs),
    /// Log2 latency histograms per kind, summed over CPUs or per CPU.
    #[command(after_help = "Example: trace-irqoff hist --per-cpu")]
    Hist {
        /// One histogram per CPU.
        #[arg(long)]
        per_cpu: bool,
        /// Only this kind.
        #[arg(long, value_enum)]
        kind: Option<Kind>,
    },
    /// Who keeps doing this: records grouped by culprit (first frame, or whole stack).
    #[command(after_help = "Example: trace-irqoff top --stack")]
    Top {
        /// Group by the whole stack instead of the first frame.
        #[arg(long)]
        stack: bool,
        /// Show at most this many culprits.
        #[arg(long, default_value_t = 10)]
        limit: usize,
    },
    /// Live view, refreshed every --interval; new events are highlighted.
    #[command(after_help = "Example: trace-irqoff watch --interval 2s")]
    Watch {
        #[arg(long, default_value = "1s", value_parser = humantime::parse_duration)]
        interval: Duration,
        /// Stop after this many refreshes (default: until Ctrl-C).
        #[arg(long)]
        count: Option<u64>,
    },
    /// Enable for a while, then save what happened to JSON and restore the previous state.
    #[command(after_help = "Example: trace-irqoff record --duration 30s -o incident.json --folded incident.folded")]
    Record(commands::RecordArgs),
    /// blk-mq tag starvation: waits per device, hardware queue and pool, and how long.
    #[command(after_help = "Example: trace-irqoff tagwait on && sleep 10 && trace-irqoff tagwait")]
    Tagwait {
        /// Switch tracking on or off (it costs nothing while off).
        #[arg(value_enum)]
        switch: Option<OnOff>,
    },
    /// Counters in the Prometheus text format (node_exporter textfile collector).
    #[command(after_help = "Example: trace-irqoff metrics > /var/lib/node_exporter/trace_irqoff.prom")]
    Metrics,
    /// Shell completion script.
    #[command(after_help = "Example: trace-irqoff completions bash > /etc/bash_completion.d/trace-irqoff")]
    Completions { shell: clap_complete::Shell },
    /// The man page (roff), generated from these definitions.
    #[command(after_help = "Example: trace-irqoff man > trace-irqoff.1")]
    Man,
}

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum OnOff {
    On,
    Off,
}

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum Tunable {
    /// Sampling period (ms).
    Period,
    /// Record threshold (ms).
    Threshold,
}

/// "10", "10ms" -> 10.
fn parse_ms_arg(s: &str) -> Result<u64, String> {
    let v = s.strip_suffix("ms").unwrap_or(s);
    v.parse().map_err(|_| format!("'{s}' is not a whole number of milliseconds"))
}

/// Whether to colour stdout.
pub fn use_color(when: ColorWhen) -> bool {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    match when {
        _ if no_color => false,
        ColorWhen::Always => true,
        ColorWhen::Never => false,
        ColorWhen::Auto => std::io::stdout().is_terminal(),
    }
}

fn run(cli: Cli) -> Result<()> {
    match &cli.command {
        Command::Completions { shell } => {
            clap_complete::generate(*shell, &mut Cli::command(), "trace-irqoff", &mut std::io::stdout());
            Ok(())
        }
        Command::Man => {
            clap_mangen::Man::new(Cli::command()).render(&mut std::io::stdout()).context("writing the man page")?;
            Ok(())
        }
        _ => commands::run(&cli),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let code = match e.downcast_ref::<ProcError>() {
                Some(pe) => {
                    eprintln!("trace-irqoff: {pe}");
                    if let Some(hint) = pe.hint() {
                        eprintln!("hint: {hint}");
                    }
                    pe.exit_code()
                }
                None => {
                    eprintln!("trace-irqoff: {e:#}");
                    1
                }
            };
            ExitCode::from(code)
        }
    }
}

/// Client-side validation, so the user gets the rule instead of a bare EINVAL.
pub fn validate(period: Option<u64>, threshold: Option<u64>, current_period: u64) -> Result<()> {
    if let Some(p) = period {
        if !(1..=1000).contains(&p) {
            bail!("the sampling period must be 1..1000 ms, not {p} ms");
        }
    }
    if let Some(t) = threshold {
        let p = period.unwrap_or(current_period);
        if t < 2 * p || t > 10_000 {
            bail!("the threshold must be at least twice the period ({} ms) and at most 10000 ms, not {t} ms", 2 * p);
        }
    }
    Ok(())
}
