// SPDX-License-Identifier: GPL-2.0
//! The exit status of every command: what it returned, or the error it failed with (the
//! module's refusals, [`ProcError`]; the CLI's own, [`Problem`]; a closed pipe). `main`
//! prints the error and exits with it.

use crate::error::Problem;
use crate::output::ClosedPipe;
use crate::source::procfs::ProcError;

/// The exit statuses, all of them (Documentation/trace-irqoff-cli.rst, EXIT STATUS).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Done (also when a reader closed the pipe).
    Success,
    /// Something failed: the module refused, a file could not be read or written.
    Failure,
    /// The command line asked for something impossible, or the module is not loaded.
    Usage,
    /// `--until`: a window at least that long came.
    Caught,
    /// `explain`'s verdict no: no delay asked about was an irq-off window.
    NotExplained,
    /// `explain`'s verdict unknown: it could not be told.
    Unknown,
    /// Ctrl-C ended it early (its work saved, the module restored): 128 + SIGINT.
    Interrupted,
}

impl Exit {
    /// The status of a failed command, and its hint where there is one: what the
    /// command line asked for cannot be (a value out of range, whether the CLI or the
    /// module refused it, e.g. `--period 0` and `--cpus 5-9` on a 2-CPU machine alike; a
    /// module not loaded) is [`Exit::Usage`], anything else that failed [`Exit::Failure`];
    /// a closed pipe is [`Exit::Success`]. The one place these are decided (the table in
    /// Documentation/trace-irqoff-cli.rst, EXIT STATUS, and the man page's).
    pub fn of_error(e: &anyhow::Error) -> (Self, Option<String>) {
        if e.is::<ClosedPipe>() {
            return (Exit::Success, None);
        }
        if let Some(pe) = e.downcast_ref::<ProcError>() {
            let usage = matches!(
                pe,
                ProcError::NotLoaded(_) | ProcError::ProcRootMissing(_) | ProcError::Invalid { .. }
            );
            return (if usage { Exit::Usage } else { Exit::Failure }, pe.hint());
        }
        if let Some(p) = e.downcast_ref::<Problem>() {
            return (
                if p.usage { Exit::Usage } else { Exit::Failure },
                Some(p.hint.clone()),
            );
        }
        (Exit::Failure, None)
    }

    pub fn code(self) -> u8 {
        match self {
            Exit::Success => 0,
            Exit::Failure => 1,
            Exit::Usage => 2,
            Exit::Caught => 3,
            Exit::NotExplained => 4,
            Exit::Unknown => 5,
            Exit::Interrupted => 130,
        }
    }
}
