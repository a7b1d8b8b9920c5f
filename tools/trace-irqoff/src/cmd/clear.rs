// SPDX-License-Identifier: GPL-2.0
//! `clear`: forget records, histograms and counters.

use anyhow::Result;

use super::{Ctx, Outcome};
use crate::output;
use crate::source::procfs::{Backend, Module};

pub fn run<B: Backend>(m: &Module<B>, ctx: &Ctx) -> Result<Outcome> {
    super::note_recording(m);
    m.clear()?;
    if ctx.json {
        output::print_json(&serde_json::json!({ "cleared": true }))?;
    } else {
        output::print("trace_irqoff: records, histograms and drop counters cleared\n")?;
    }
    Ok(Outcome::Done)
}
