// SPDX-License-Identifier: GPL-2.0
//! What the CLI itself refuses (the module's refusals are [`crate::procfs::ProcError`]):
//! one plain sentence and a hint; `main` prints them and picks the exit status.

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
    /// Ctrl-C ended it early (its work saved, the module restored): 128 + SIGINT.
    Interrupted,
}

impl Exit {
    pub fn code(self) -> u8 {
        match self {
            Exit::Success => 0,
            Exit::Failure => 1,
            Exit::Usage => 2,
            Exit::Caught => 3,
            Exit::Interrupted => 130,
        }
    }
}

/// A refusal of the CLI's own.
#[derive(Debug, thiserror::Error)]
#[error("{sentence}")]
pub struct Problem {
    pub sentence: String,
    pub hint: String,
    /// The command line asked for something impossible (exit status 2, as clap's own
    /// errors), rather than something failing (1).
    pub usage: bool,
}

impl Problem {
    /// A value or combination of options that cannot work.
    pub fn usage(sentence: impl Into<String>, hint: impl Into<String>) -> Self {
        Self {
            sentence: sentence.into(),
            hint: hint.into(),
            usage: true,
        }
    }

    /// Something that failed although the command line was fine.
    pub fn failure(sentence: impl Into<String>, hint: impl Into<String>) -> Self {
        Self {
            sentence: sentence.into(),
            hint: hint.into(),
            usage: false,
        }
    }
}
