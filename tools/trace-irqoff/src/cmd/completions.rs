// SPDX-License-Identifier: GPL-2.0
//! `completions SHELL`: a completion script, from the clap definitions.

use anyhow::Result;
use clap::CommandFactory;

use super::Outcome;
use crate::cli::{Cli, CompletionsArgs};
use crate::output;

pub fn run(a: &CompletionsArgs) -> Result<Outcome> {
    let mut script = Vec::new();
    clap_complete::generate(a.shell, &mut Cli::command(), "trace-irqoff", &mut script);
    output::print(&String::from_utf8_lossy(&script))?;
    Ok(Outcome::Done)
}
