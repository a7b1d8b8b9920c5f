// SPDX-License-Identifier: GPL-2.0
//! `hist`: the log2 latency histograms.

use anyhow::Result;

use super::{Ctx, From, Outcome};
use crate::cli::HistArgs;
use crate::model::snapshot::Snapshot;
use crate::output;
use crate::render;

/// Arguments, prepare, render (the histograms are the module's counts: nothing to select).
pub fn run(a: &HistArgs, from: &From, ctx: &Ctx) -> Result<Outcome> {
    show(a, from.prepare(Default::default())?.snapshot(), ctx)
}

/// Prints the histograms of a snapshot.
fn show(a: &HistArgs, s: &Snapshot, ctx: &Ctx) -> Result<Outcome> {
    if ctx.json {
        output::print_json(&render::hist_view::json(s, a.per_cpu))?;
    } else {
        output::print(&render::hist_view::text(s, a.per_cpu, a.kind))?;
    }
    Ok(Outcome::Done)
}
