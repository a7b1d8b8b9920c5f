// SPDX-License-Identifier: GPL-2.0
//! `enable [--period MS] [--threshold MS]`.

use anyhow::Result;

use super::{Ctx, Outcome};
use crate::cli::EnableArgs;
use crate::procfs::{Backend, Module};

pub fn run<B: Backend>(a: &EnableArgs, m: &Module<B>, ctx: &Ctx) -> Result<Outcome> {
    super::note_recording(m);
    if let Some(list) = &a.cpus {
        super::select_cpus(m, list)?;
    }
    super::apply(m, a.period, a.threshold)?;
    super::confirm(m, ctx)
}
