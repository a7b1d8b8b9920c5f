// SPDX-License-Identifier: GPL-2.0

//! splat_sample: raises one kernel WARNING when loaded. Only the harness self-test loads
//! it, to prove that tests/vm/run fails a run whose guest log holds a splat.

use kernel::prelude::*;

module! {
    type: SplatSample,
    name: "splat_sample",
    authors: ["trace_irqoff developers"],
    description: "Triggers a WARNING on load (test harness self-test)",
    license: "GPL",
}

struct SplatSample;

impl kernel::Module for SplatSample {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        kernel::warn_on!(true);
        Ok(SplatSample)
    }
}
