// SPDX-License-Identifier: GPL-2.0
//! `hist`: the log2 latency histograms.

use anyhow::Result;

use super::{Ctx, Outcome};
use crate::cli::HistArgs;
use crate::model::snapshot::Snapshot;
use crate::output;
use crate::render;
use crate::source::procfs::{Backend, Module};

pub fn run<B: Backend>(a: &HistArgs, m: &Module<B>, ctx: &Ctx) -> Result<Outcome> {
    show(a, &m.snapshot()?, ctx)
}

/// Prints the histograms of a snapshot.
pub fn show(a: &HistArgs, s: &Snapshot, ctx: &Ctx) -> Result<Outcome> {
    if ctx.json {
        output::print_json(&render::hist_view::json(s, a.per_cpu))?;
    } else {
        output::print(&render::hist_view::text(s, a.per_cpu, a.kind))?;
    }
    Ok(Outcome::Done)
}
