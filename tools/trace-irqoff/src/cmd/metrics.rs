// SPDX-License-Identifier: GPL-2.0
//! `metrics`: the Prometheus text exposition.

use anyhow::Result;

use super::Outcome;
use crate::output;
use crate::procfs::{Backend, Module};
use crate::render;

pub fn run<B: Backend>(m: &Module<B>) -> Result<Outcome> {
    output::print(&render::metrics::exposition(&m.snapshot()?))?;
    Ok(Outcome::Done)
}
