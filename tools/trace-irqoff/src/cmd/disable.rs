// SPDX-License-Identifier: GPL-2.0
//! `disable`: stop sampling; the records stay.

use anyhow::Result;

use super::{Ctx, Outcome};
use crate::source::procfs::{Backend, Module};

pub fn run<B: Backend>(m: &Module<B>, ctx: &Ctx) -> Result<Outcome> {
    super::note_recording(m);
    m.set_enabled(false)?;
    super::confirm(m, ctx)
}
