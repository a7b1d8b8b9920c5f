// SPDX-License-Identifier: GPL-2.0
//! `trace-irqoff`: the command line an engineer drives the trace_irqoff module with during
//! an incident. See `trace-irqoff --help` and Documentation/trace-irqoff-cli.rst.
//!
//! Layout: six wings, each a file that says what it holds beside a folder of the same
//! name; a feature is a file in each wing it needs, not a wing of its own. `source`
//! (where the data comes from: the module's files, `source::procfs`; its event ring in
//! tracefs, `source::ring`; explain's own tracefs instance, `source::explain_instance`;
//! sysfs and /proc for explain, `source::sysfs`; a recording read back, `source::saved`;
//! output files written whole, `source::files`); `parse` (text into the model: the
//! records and counters files, `parse::records`; the original module's files,
//! `parse::original`; tracefs text, `parse::tracefs`; the service's settings file,
//! `parse::conf`; the tag-wait lines, `parse::tag_wait_lines`; wake-ups in a trace,
//! `parse::wakeup_trace`); `model` (the types: `model::snapshot`, `model::settings`,
//! `model::saved_recording`, `model::explain_answer`, `model::tag_wait`, `model::clock`
//! and the rest); `enrich` (what is added to what was read, in one preparation stage for
//! every source, `enrich::prepare`: culprits, `enrich::culprit`;
//! mechanism frames, `enrich::mechanism`; cgroups, `enrich::cgroup`; precision,
//! `enrich::precision`; source lines, `enrich::lines`; delays joined with windows,
//! `enrich::explain_join`); `render` (values to text, JSON, HTML and metrics, no I/O:
//! `render::records_view`, `render::report_page`, `render::explain_text`,
//! `render::journal_entry` and the rest) and `cmd` (one file per subcommand: arguments,
//! prepare, select, render, print). Beside them: `cli` (the clap types), `output`
//! (stdout), `error` (the CLI's own refusals), `exit` (the exit status of every error,
//! `exit::Exit`), and what the module's lines and frames share with every reader,
//! `fields` and `symbols`. (tests/layout-check: every module is named here, and every
//! name is a module.)

use std::process::ExitCode;

use clap::Parser;

mod cli;
mod cmd;
mod enrich;
mod error;
mod exit;
mod fields;
mod model;
mod output;
mod parse;
mod render;
mod source;
mod symbols;

use cmd::Outcome;
use exit::Exit;

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
