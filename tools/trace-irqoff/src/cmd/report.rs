// SPDX-License-Identifier: GPL-2.0
//! `report`: the incident as one self-contained HTML page (`render::report_page`), from a
//! `record` file or from the running module.

use std::path::Path;

use anyhow::Result;
use serde::Serialize;

use super::{Ctx, From, Outcome};
use crate::cli::ReportArgs;
use crate::enrich;
use crate::enrich::prepare::Options;
use crate::error::Problem;
use crate::model::culprit_group::By;
use crate::model::explain_answer::Answer;
use crate::output;
use crate::render;
use crate::source::files::AtomicFile;

/// What `report --json` says it wrote.
#[derive(Serialize)]
struct Written<'a> {
    output: &'a std::path::Path,
    bytes: usize,
    windows: usize,
    cpus: usize,
}

/// The report of a `record` file, or of what the module holds now (its records since
/// load or clear, with the event ring's windows its store did not keep, as `records` and
/// `top` show them, on this machine; what neither holds is said on stderr): arguments,
/// prepare, render, write; with `--explain`, its answer (delays or wake-ups) read first
/// (a bad one writes no page).
pub fn run(a: &ReportArgs, from: &From, ctx: &Ctx) -> Result<Outcome> {
    let p = from.prepare(Options::views(&a.lines))?;
    if let Some(l) = p.coverage.sentence() {
        output::note(&l);
    }
    let answer = a.explain.as_deref().map(load_answer).transpose()?;
    let file = AtomicFile::create(&a.output)?;
    let s = p.snapshot();
    let page = render::report_page::html(
        &p.enriched(),
        &enrich::top(&s.records, By::Culprit),
        &enrich::folded(&s.records, true),
        &p.loaded.origin,
        answer.as_ref(),
    );
    file.commit(page.as_bytes())?;
    let written = Written {
        output: &a.output,
        bytes: page.len(),
        windows: s.records.len(),
        cpus: render::report_page::cpus_with_windows(&s.records),
    };
    if ctx.json {
        output::print_json(&written)?;
    } else {
        output::print(&format!(
            "wrote {} ({} KB): {} windows on {}; open it in a browser\n",
            a.output.display(),
            written.bytes.div_ceil(1024),
            written.windows,
            render::report_page::cpus(written.cpus)
        ))?;
    }
    Ok(Outcome::Done)
}

/// The answer `explain --json` or `explain --wakeups --json` wrote to `path` (one model:
/// the wake-ups' answer is the delays' with `wakeups` set, its delays mostly empty): one
/// sentence and a hint when it cannot be read (exit status 1) or is neither answer (2),
/// as `load` says of a record file.
fn load_answer(path: &Path) -> Result<Answer, Problem> {
    let hint = "give --explain the output of trace-irqoff explain --json or of trace-irqoff explain --wakeups --pid PID --json (JSON)";
    let text = std::fs::read_to_string(path)
        .map_err(|e| Problem::failure(format!("cannot read {}: {e}", path.display()), hint))?;
    serde_json::from_str(&text).map_err(|e| {
        Problem::usage(
            format!(
                "{} is not an answer of trace-irqoff explain --json (nor of explain --wakeups --json): {e}",
                path.display()
            ),
            hint,
        )
    })
}
