// SPDX-License-Identifier: GPL-2.0
//! `status`: loaded and enabled, the settings, per-CPU counts.

use anyhow::Result;

use super::{Ctx, Outcome};
use crate::enrich;
use crate::output;
use crate::render;
use crate::source::procfs::{Backend, Module};

pub fn run<B: Backend>(m: &Module<B>, ctx: &Ctx) -> Result<Outcome> {
    let settings = m.settings()?;
    let snapshot = crate::enrich::prepare::module_snapshot(m)?;
    let s = enrich::snapshot(&snapshot);
    if ctx.json {
        output::print_json(&render::status_view::json(settings, &s))?;
    } else {
        // On a terminal, fitted to its width; on a pipe, the lines scripts read.
        let text = match output::terminal_size() {
            Some((_, cols)) => render::status_view::screen(&settings, &s, ctx.color, cols),
            None => render::status_view::text(&settings, &s, ctx.color),
        };
        output::print(&text)?;
    }
    Ok(Outcome::Done)
}
