// SPDX-License-Identifier: GPL-2.0
//! `trace-irqoff`: the command line an engineer drives the trace_irqoff module with during
//! an incident. See `trace-irqoff --help` and Documentation/trace-irqoff-cli.rst.
//!
//! Layout: `cli` (the clap types) and `cmd` (one file per subcommand: read and drive the
//! module, print). The module is read through `procfs` (its files), `stream` (its event
//! ring) and `saved` (a recording read back), parsed by `parse` (`parse::records`,
//! `parse::original`) into `model` (its state, `model::snapshot`; settings, recordings,
//! `model::cgroup`, `model::culprit`). `culprit`, `mechanism`, `cgroup`, `precision`,
//! `lines`, `symbols` and `profile` say what a record means (its culprit, the mechanism
//! frames around it, its cgroup's path, the bounds of its length, its source lines,
//! readable names, its in-window profile as every view shows it); `enrich` works that
//! out once between parse and render (a record's culprit and cgroup in words, a
//! snapshot's precision and open windows, the culprit groups and folded stacks), so that
//! `render` (enriched values to text and JSON, no I/O) and `output` (stdout) only show
//! it; `files` writes files whole, `clock` gives wall-clock
//! times, `conf` reads the service's settings file; `fields` and `prom` are what readers
//! of the module's lines and writers of metrics share; `journal` is what `cmd::journal`
//! writes to the systemd journal (each window's entry, its priority, the rate limit in
//! `journal::limit`, where entries go in `journal::sink`), and `tagwait` is the one
//! feature unrelated to irq-off (the blk-mq tag waits). `explain` joins delays (block
//! requests, softirqs, a task's CPUs; `explain::trace` reads them from tracefs; a
//! request's CPUs are those of its real path, `explain::path`; a NIC's NET_RX delays are
//! those on the CPUs of its rx queues' interrupts and RPS, `explain::netdev`; a task's
//! wake-ups split into their phases, `explain::wakeup`) with windows (`explain::join`)
//! and says so (`explain::render`). The exit status of every error is decided in
//! `error::Exit`. (tests/layout-check: every module is named here, and every name is a
//! module.)

use std::process::ExitCode;

use clap::Parser;

mod cgroup;
mod cli;
mod clock;
mod cmd;
mod conf;
mod culprit;
mod enrich;
mod error;
mod explain;
mod fields;
mod files;
mod journal;
mod lines;
mod mechanism;
mod model;
mod output;
mod parse;
mod precision;
mod procfs;
mod profile;
mod prom;
mod render;
mod saved;
mod stream;
mod symbols;
mod tagwait;

use cmd::Outcome;
use error::Exit;

fn main() -> ExitCode {
    let cli = match cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return ExitCode::from(command_line_error(&e)),
    };
    ExitCode::from(exit_status(cmd::run(&cli)).code())
}

/// A command line clap refused: in the one error style of every other failure (a sentence,
/// then a hint), exit status 2. Help and version (and the help shown when the command is
/// missing) print as clap prints them.
fn command_line_error(e: &clap::Error) -> u8 {
    use clap::error::ErrorKind;
    match e.kind() {
        ErrorKind::DisplayHelp
        | ErrorKind::DisplayVersion
        | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = e.print();
            e.exit_code() as u8
        }
        _ => {
            eprint!("{}", clap_error_text(&e.render().to_string()));
            Exit::Usage.code()
        }
    }
}

/// Turns clap's error text ("error: ...", indented details, "  tip: ...", "Usage: ...",
/// "For more information...") into "trace-irqoff: SENTENCE\nhint: HINT\n".
fn clap_error_text(text: &str) -> String {
    let mut lines = text.lines();
    let mut sentence = lines
        .next()
        .unwrap_or("")
        .trim_start_matches("error: ")
        .trim_end()
        .to_string();
    let (mut tips, mut usage) = (Vec::new(), None);
    let mut details = Vec::new();
    for l in lines {
        if let Some(t) = l.trim_start().strip_prefix("tip: ") {
            tips.push(t.trim().to_string());
        } else if let Some(u) = l.strip_prefix("Usage: ") {
            usage = Some(u.trim().to_string());
        } else if l.starts_with("  ") && usage.is_none() && tips.is_empty() && !l.trim().is_empty()
        {
            details.push(l.trim().to_string());
        }
    }
    if !details.is_empty() {
        sentence = format!(
            "{} {}",
            sentence.trim_end_matches(':').to_string() + ":",
            details.join(", ")
        );
    }
    let hint = match (tips.is_empty(), usage) {
        (false, Some(u)) => format!("{}; usage: {u}", tips.join("; ")),
        (false, None) => tips.join("; "),
        (true, Some(u)) => format!("usage: {u} (see --help)"),
        (true, None) => "see trace-irqoff --help".to_string(),
    };
    format!("trace-irqoff: {sentence}\nhint: {hint}\n")
}

/// The exit status of a command's result (Documentation/trace-irqoff-cli.rst, EXIT STATUS),
/// after telling the user what went wrong: one sentence, and a hint when there is one.
fn exit_status(result: anyhow::Result<Outcome>) -> Exit {
    let e = match result {
        Ok(Outcome::Done) => return Exit::Success,
        Ok(Outcome::Caught) => return Exit::Caught,
        Ok(Outcome::NotExplained) => return Exit::NotExplained,
        Ok(Outcome::Unknown) => return Exit::Unknown,
        Ok(Outcome::Interrupted) => return Exit::Interrupted,
        Err(e) => e,
    };
    let (code, hint) = Exit::of_error(&e);
    if code == Exit::Success {
        return code;
    }
    eprintln!("trace-irqoff: {e:#}");
    if let Some(hint) = hint {
        eprintln!("hint: {hint}");
    }
    code
}

#[cfg(test)]
mod tests {
    use super::clap_error_text;

    /// clap's refusals read like every other error: one sentence and a hint.
    #[test]
    fn clap_errors_in_the_one_error_style() {
        assert_eq!(
            clap_error_text("error: unexpected argument '--kynd' found\n\n  tip: a similar argument exists: '--kind'\n\nUsage: trace-irqoff records --kind <KIND>\n\nFor more information, try '--help'.\n"),
            "trace-irqoff: unexpected argument '--kynd' found\nhint: a similar argument exists: '--kind'; usage: trace-irqoff records --kind <KIND>\n"
        );
        assert_eq!(
            clap_error_text("error: the following required arguments were not provided:\n  <WHAT>\n  <VALUE>\n\nUsage: trace-irqoff set <WHAT> <VALUE>\n\nFor more information, try '--help'.\n"),
            "trace-irqoff: the following required arguments were not provided: <WHAT>, <VALUE>\nhint: usage: trace-irqoff set <WHAT> <VALUE> (see --help)\n"
        );
        assert_eq!(
            clap_error_text("error: invalid value '0' for '--interval <INTERVAL>': '0' is zero: give a duration longer than that (e.g. 1s)\n\nFor more information, try '--help'.\n"),
            "trace-irqoff: invalid value '0' for '--interval <INTERVAL>': '0' is zero: give a duration longer than that (e.g. 1s)\nhint: see trace-irqoff --help\n"
        );
    }
}
