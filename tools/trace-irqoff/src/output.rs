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
    o.write_all(text.as_bytes())
        .and_then(|_| o.flush())
        .map_err(|_| ClosedPipe)?;
    Ok(())
}

/// Prints `v` as pretty JSON.
pub fn print_json<T: Serialize>(v: &T) -> Result<()> {
    print(&(serde_json::to_string_pretty(v)? + "\n"))
}

/// The notes said so far, for views that clear the screen (`watch`, `top --live`) to say
/// again in their header.
static NOTES: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

/// A remark for the user beside the results (stderr): "note: ...". Kept for [`notes`].
pub fn note(text: &str) {
    eprintln!("note: {text}");
    if let Ok(mut v) = NOTES.lock() {
        if !v.iter().any(|n| n == text) {
            v.push(text.to_string());
        }
    }
}

/// The notes [`note`] said so far, oldest first, each once: a view that clears the screen
/// shows them again below its title, so that a warning such as "sampling is disabled"
/// stays on screen.
pub fn notes() -> Vec<String> {
    NOTES.lock().map(|v| v.clone()).unwrap_or_default()
}

/// The terminal's size on stdout as (rows, columns), if stdout is a terminal that says;
/// `LINES` and `COLUMNS` override it, as for other tools.
pub fn terminal_size() -> Option<(usize, usize)> {
    use std::io::IsTerminal;
    let env = |name: &str| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse::<usize>().ok())
            .filter(|n| *n > 0)
    };
    let stdout = std::io::stdout();
    let (rows, cols) = match rustix::termios::tcgetwinsize(&stdout) {
        Ok(ws) if stdout.is_terminal() => (usize::from(ws.ws_row), usize::from(ws.ws_col)),
        _ => (0, 0),
    };
    let rows = env("LINES").unwrap_or(rows);
    let cols = env("COLUMNS").unwrap_or(cols);
    (rows > 0 && cols > 0).then_some((rows, cols))
}
