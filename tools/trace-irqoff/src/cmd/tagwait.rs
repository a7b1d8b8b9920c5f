// SPDX-License-Identifier: GPL-2.0
//! `tagwait [on|off]`: blk-mq tag starvation.

use anyhow::Result;

use super::{Ctx, Outcome};
use crate::cli::{OnOff, TagwaitArgs};
use crate::output;
use crate::procfs::{Backend, Module};
use crate::render;

pub fn run<B: Backend>(a: &TagwaitArgs, m: &Module<B>, ctx: &Ctx) -> Result<Outcome> {
    if let Some(sw) = a.switch {
        m.set_tag_wait(sw == OnOff::On)?;
        return Ok(Outcome::Done);
    }
    let s = m.snapshot()?;
    if ctx.json {
        output::print_json(&s.tag_wait)?;
    } else {
        output::print(&render::tagwait::text(&s))?;
    }
    Ok(Outcome::Done)
}
