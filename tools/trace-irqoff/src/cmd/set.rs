// SPDX-License-Identifier: GPL-2.0
//! `set period|threshold MS`.

use anyhow::Result;

use super::{Ctx, Outcome};
use crate::cli::{SetArgs, Tunable};
use crate::source::procfs::{Backend, Module};

pub fn run<B: Backend>(a: &SetArgs, m: &Module<B>, ctx: &Ctx) -> Result<Outcome> {
    super::note_recording(m);
    let s = m.settings()?;
    match a.what {
        Tunable::Period => {
            super::validate(Some(a.value), None, s.period_ms)?;
            m.set_period(a.value)?;
        }
        Tunable::Threshold => {
            super::validate(None, Some(a.value), s.period_ms)?;
            m.set_threshold(a.value)?;
        }
    }
    super::confirm(m, ctx)
}
