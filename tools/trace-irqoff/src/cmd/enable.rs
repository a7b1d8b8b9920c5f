// SPDX-License-Identifier: GPL-2.0
//! `enable [--period MS] [--threshold MS]`.

use anyhow::Result;

use super::{Ctx, Outcome};
use crate::cli::EnableArgs;
use crate::source::procfs::{Backend, Module};

pub fn run<B: Backend>(a: &EnableArgs, m: &Module<B>, ctx: &Ctx) -> Result<Outcome> {
    super::note_recording(m);
    if let Some(list) = &a.cpus {
        super::select_cpus(m, list)?;
    }
    super::apply(m, a.period, a.threshold)?;
    // The event ring, from now on: what watch, top --live, --until and record --last read.
    if m.is_live() {
        if let Err(why) = crate::source::ring::prepare() {
            crate::output::note(&format!(
                "no event ring ({why}): record --last will have no history"
            ));
        }
    }
    super::confirm(m, ctx)
}
