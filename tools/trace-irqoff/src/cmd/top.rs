// SPDX-License-Identifier: GPL-2.0
//! `top`: records grouped by culprit.

use anyhow::Result;

use super::{Ctx, Outcome};
use crate::cli::TopArgs;
use crate::culprit;
use crate::output;
use crate::procfs::{Backend, Module};
use crate::render;

pub fn run<B: Backend>(a: &TopArgs, m: &Module<B>, ctx: &Ctx) -> Result<Outcome> {
    let s = m.snapshot()?;
    let mut t = culprit::top(&s.records, a.stack);
    t.truncate(a.limit);
    if ctx.json {
        output::print_json(&t)?;
    } else {
        output::print(&render::top::text(&t, ctx.color))?;
    }
    Ok(Outcome::Done)
}
