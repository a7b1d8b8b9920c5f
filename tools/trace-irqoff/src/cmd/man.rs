// SPDX-License-Identifier: GPL-2.0
//! `man`: the man page, from the clap definitions.

use anyhow::{Context, Result};
use clap::CommandFactory;

use super::Outcome;
use crate::cli::Cli;
use crate::output;

pub fn run() -> Result<Outcome> {
    let mut page = Vec::new();
    clap_mangen::Man::new(Cli::command()).render(&mut page).context("rendering the man page")?;
    output::print(&String::from_utf8_lossy(&page))?;
    Ok(Outcome::Done)
}
