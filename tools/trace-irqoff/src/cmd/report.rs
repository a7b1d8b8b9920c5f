// SPDX-License-Identifier: GPL-2.0
//! `report`: the incident as one self-contained HTML page (`render::report_page`), from a
//! `record` file or from the running module.

use std::path::Path;

use anyhow::Result;
use serde::Serialize;

use super::{Ctx, Outcome};
use crate::cli::ReportArgs;
use crate::enrich;
use crate::error::Problem;
use crate::model::culprit_group::By;
use crate::model::explain_answer::Answer;
use crate::output;
use crate::render;
use crate::source::files::AtomicFile;
use crate::source::procfs::{Backend, Module};
use crate::source::saved::{Loaded, Origin};

/// What `report --json` says it wrote.
#[derive(Serialize)]
struct Written<'a> {
    output: &'a std::path::Path,
    bytes: usize,
    windows: usize,
    cpus: usize,
}

/// The report of what the module holds now: its records since load or clear, with the
/// event ring's windows its store did not keep (as `records` and `top` show them), on
/// this machine; what neither holds is said on stderr.
pub fn run<B: Backend>(a: &ReportArgs, m: &Module<B>, ctx: &Ctx) -> Result<Outcome> {
    let mut snapshot = m.snapshot()?;
    if a.lines.lines && m.is_live() {
        crate::enrich::lines::fill_build_ids(&mut snapshot.records);
    }
    if let Some(l) = super::merge_ring(m, &mut snapshot).sentence() {
        output::note(&l);
    }
    let uname = rustix::system::uname();
    let origin = Origin {
        host: Some(uname.nodename().to_string_lossy().into_owned()),
        kernel: Some(uname.release().to_string_lossy().into_owned()),
        start_time: snapshot.config.counts_since.clone(),
        end_time: Some(crate::model::clock::now_rfc3339()),
    };
    show(
        a,
        &Loaded {
            snapshot,
            now_ns: crate::model::clock::monotonic_ns(),
            origin,
            kernel_build_id: m
                .is_live()
                .then(crate::enrich::lines::running_kernel_build_id)
                .flatten(),
        },
        ctx,
    )
}

/// Writes the report of a loaded recording to `a.output` and says where; with
/// `--explain`, its answer (delays or wake-ups) read first (a bad one writes no page).
pub fn show(a: &ReportArgs, loaded: &Loaded, ctx: &Ctx) -> Result<Outcome> {
    let answer = a.explain.as_deref().map(load_answer).transpose()?;
    let file = AtomicFile::create(&a.output)?;
    let mut annotated;
    let s = match crate::enrich::lines::Resolver::for_args(
        &a.lines,
        loaded.origin.kernel.as_deref(),
        loaded.kernel_build_id.as_deref(),
    ) {
        Some(res) => {
            annotated = loaded.snapshot.clone();
            super::source_lines(Some(res), &mut annotated.records);
            &annotated
        }
        None => &loaded.snapshot,
    };
    let page = render::report_page::html(
        &enrich::snapshot(s),
        &enrich::top(&s.records, By::Culprit),
        &enrich::folded(&s.records, true),
        &loaded.origin,
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
