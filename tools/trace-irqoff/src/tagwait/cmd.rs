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
        let on = sw == OnOff::On;
        m.set_tag_wait(on)?;
        if ctx.json {
            output::print_json(&serde_json::json!({ "tag_wait": on }))?;
        } else {
            output::print(&format!(
                "tag-wait tracking: {}\n",
                if on { "enabled" } else { "disabled" }
            ))?;
        }
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
