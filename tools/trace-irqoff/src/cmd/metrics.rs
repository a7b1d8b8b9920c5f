// SPDX-License-Identifier: GPL-2.0
//! `metrics [--textfile DIR]`: the Prometheus text exposition.

use anyhow::Result;

use super::Outcome;
use crate::cli::MetricsArgs;
use crate::output;
use crate::render;
use crate::source::files::AtomicFile;
use crate::source::procfs::{Backend, Module, ProcError};

/// The file node_exporter's textfile collector reads (it reads `*.prom`).
pub const TEXTFILE_NAME: &str = "trace_irqoff.prom";

/// A missing module is a fact to export (`trace_irqoff_loaded 0`), not an error: the
/// file must never be empty or stale.
pub fn run<B: Backend>(a: &MetricsArgs, m: Result<Module<B>, ProcError>) -> Result<Outcome> {
    // Checked before reading anything, like every output path.
    let file = a
        .textfile
        .as_ref()
        .map(|dir| AtomicFile::create(&dir.join(TEXTFILE_NAME)))
        .transpose()?;
    let text = exposition(m, a.per_cpu)?;
    match file {
        Some(f) => f.commit(text.as_bytes())?,
        None => output::print(&text)?,
    }
    Ok(Outcome::Done)
}

/// The exposition of the module's counters as they are now (`metrics`, and each scrape of
/// `serve`); a module that is not loaded is `trace_irqoff_loaded 0`.
pub fn exposition<B: Backend>(
    m: Result<Module<B>, ProcError>,
    per_cpu: bool,
) -> Result<String, ProcError> {
    match m {
        Ok(m) => Ok(render::exposition::exposition(&m.counters()?, per_cpu)),
        Err(ProcError::NotLoaded(_)) => Ok(render::exposition::unloaded()),
        Err(e) => Err(e),
    }
}
