// SPDX-License-Identifier: GPL-2.0
//! `completions SHELL`: a completion script, from the clap definitions.

use anyhow::Result;
use clap::CommandFactory;
use clap_complete::Shell;

use super::Outcome;
use crate::cli::{Cli, CompletionsArgs};
use crate::output;

pub fn run(a: &CompletionsArgs) -> Result<Outcome> {
    output::print(&script(a.shell))?;
    Ok(Outcome::Done)
}

/// The script for `shell`. clap_complete's bash script names a subcommand's state after
/// the binary with its hyphen spelt `__` where it sets it (`trace__irqoff__subcmd__records`)
/// and `__subcmd__` where it matches it (`trace__subcmd__irqoff__subcmd__records`), so
/// nothing after the subcommand's name completed: the matching side is spelt as the
/// setting side.
fn script(shell: Shell) -> String {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "trace-irqoff", &mut script);
    let script = String::from_utf8_lossy(&script).into_owned();
    match shell {
        Shell::Bash => script.replace("trace__subcmd__irqoff", "trace__irqoff"),
        _ => script,
    }
}
