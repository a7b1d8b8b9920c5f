// SPDX-License-Identifier: GPL-2.0
//! `tagwait [on|off]`: blk-mq tag starvation (the feature's text and data: `model::tag_wait`, `parse::tag_wait_lines`, `render::tag_wait_text`).

use anyhow::Result;

use super::{Ctx, Outcome};
use crate::cli::{OnOff, TagwaitArgs as Args};
use crate::output;
use crate::render::tag_wait_text;
use crate::source::procfs::{Backend, Module};

pub fn run<B: Backend>(a: &Args, m: &Module<B>, ctx: &Ctx) -> Result<Outcome> {
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
    let s = crate::enrich::prepare::module_snapshot(m)?;
    if ctx.json {
        output::print_json(&s.tag_wait)?;
    } else {
        output::print(&tag_wait_text::text(s.tag_wait.as_ref()))?;
    }
    Ok(Outcome::Done)
}
