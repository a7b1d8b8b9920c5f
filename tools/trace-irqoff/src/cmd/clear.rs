// SPDX-License-Identifier: GPL-2.0
//! `clear`: forget records, histograms and counters.

use anyhow::Result;

use super::Outcome;
use crate::procfs::{Backend, Module};

pub fn run<B: Backend>(m: &Module<B>) -> Result<Outcome> {
    super::note_recording(m);
    m.clear()?;
    Ok(Outcome::Done)
}
