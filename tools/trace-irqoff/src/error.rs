// SPDX-License-Identifier: GPL-2.0
//! What the CLI itself refuses (the module's refusals are `source::procfs::ProcError`):
//! one plain sentence and a hint; `main` prints them, and `exit::Exit` picks the exit
//! status.

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
