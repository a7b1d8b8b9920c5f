// SPDX-License-Identifier: GPL-2.0
//! Writing results to stdout, the only place the commands print them.

use std::io::Write;

use anyhow::Result;
use serde::Serialize;

/// Stdout was closed by the reader (`| head`): not something to report; `main` ends quietly.
#[derive(Debug, thiserror::Error)]
#[error("stdout was closed")]
pub struct ClosedPipe;

/// Prints `text` as it is: colour is in it or not as `--color` decided (through a pipe
/// too, with `--color always`).
pub fn print(text: &str) -> Result<()> {
    let mut o = std::io::stdout().lock();
    o.write_all(text.as_bytes()).and_then(|_| o.flush()).map_err(|_| ClosedPipe)?;
    Ok(())
}

/// Prints `v` as pretty JSON.
pub fn print_json<T: Serialize>(v: &T) -> Result<()> {
    print(&(serde_json::to_string_pretty(v)? + "\n"))
}

/// A remark for the user beside the results (stderr): "note: ...".
pub fn note(text: &str) {
    eprintln!("note: {text}");
}
