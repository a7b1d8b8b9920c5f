// SPDX-License-Identifier: GPL-2.0

//! leak_sample: loses allocations when loaded. Only the harness self-test loads it, to
//! prove that the suite's kmemleak check (tests/vm/lib.sh `kmemleak_check`) fails a run on
//! a sanitizer kernel when a module leaks.

use kernel::prelude::*;

module! {
    type: LeakSample,
    name: "leak_sample",
    authors: ["trace_irqoff developers"],
    description: "Leaks allocations on load (test harness self-test)",
    license: "GPL",
}

/// Recognisable in kmemleak's hex dump of the lost object.
const MARK: &[u8; 16] = b"leak_sample lost";
/// How many allocations are lost.
const LOST: usize = 256;

struct LeakSample;

impl kernel::Module for LeakSample {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        // Many allocations: kmemleak counts an object referenced while any word in
        // memory it scans still holds its address, and stale copies of recent slab
        // pointers survive (on the sanitizer kernel one lost object, and 16, went
        // unreported; of 256, 201 were reported).
        for _ in 0..LOST {
            let mut lost = KBox::new([0u8; 256], GFP_KERNEL)?;
            lost[..MARK.len()].copy_from_slice(MARK);
            // The only pointer to the allocation is dropped without freeing it: a leak.
            let _ = KBox::into_raw(lost);
        }
        Ok(LeakSample)
    }
}
