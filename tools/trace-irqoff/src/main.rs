// SPDX-License-Identifier: GPL-2.0
//! `trace-irqoff`: the command line an engineer drives the trace_irqoff module with during
//! an incident. See `trace-irqoff --help` and Documentation/trace-irqoff-cli.rst.
//!
//! Layout: `cli` (the clap types), `cmd` (one file per subcommand: read and drive the
//! module, print), `render` (values to text and JSON, no I/O), `procfs` (the module's
//! files), `snapshot` and `original` (their formats). Only this file decides the exit
//! status.

use std::process::ExitCode;

use clap::Parser;

mod cli;
mod clock;
mod cmd;
mod culprit;
mod error;
mod files;
mod mechanism;
mod original;
mod output;
mod procfs;
mod render;
mod snapshot;
mod symbols;

use cmd::Outcome;
use error::Problem;
use output::ClosedPipe;
use procfs::ProcError;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    ExitCode::from(exit_status(cmd::run(&cli)))
}

/// The exit status of a command's result (Documentation/trace-irqoff-cli.rst, EXIT STATUS),
/// after telling the user what went wrong: one sentence, and a hint when there is one.
fn exit_status(result: anyhow::Result<Outcome>) -> u8 {
    let e = match result {
        Ok(Outcome::Done) => return 0,
        Ok(Outcome::Caught) => return 3,
        Ok(Outcome::Interrupted) => return 130,
        Err(e) => e,
    };
    if e.is::<ClosedPipe>() {
        return 0;
    }
    let (hint, code) = if let Some(pe) = e.downcast_ref::<ProcError>() {
        (pe.hint(), if matches!(pe, ProcError::NotLoaded(_) | ProcError::ProcRootMissing(_)) { 2 } else { 1 })
    } else if let Some(p) = e.downcast_ref::<Problem>() {
        (Some(p.hint.clone()), if p.usage { 2 } else { 1 })
    } else {
        (None, 1)
    };
    eprintln!("trace-irqoff: {e:#}");
    if let Some(hint) = hint {
        eprintln!("hint: {hint}");
    }
    code
}
