// SPDX-License-Identifier: GPL-2.0

//! Tag-wait tracking's switch: the source picked at load ([`choose_source`]), and
//! tracking turned on and off by `echo 0|1 > /proc/trace_irqoff/tag_wait` (and off at
//! unload). Serialised by its own lock, not the module's control lock: a toggle does not
//! wait for a disable of sampling.

use kernel::prelude::*;
use kernel::sync::atomic::Relaxed;

use super::hooks::{Registered, TagSource};
use super::TagWait;
use crate::logic::parse;
use crate::phase::Phase;

/// Picks where tag waits come from (the tracepoint unless `force_kprobe`, the
/// `tag_wait_kprobe` parameter), and says so in the kernel log.
pub(crate) fn choose_source(force_kprobe: bool) -> TagSource {
    let tracepoint = !force_kprobe && TagSource::Tracepoint.available();
    let source = if tracepoint {
        TagSource::Tracepoint
    } else if TagSource::Kprobe.available() {
        TagSource::Kprobe
    } else {
        TagSource::None
    };
    match source {
        TagSource::Tracepoint => pr_info!("tag_wait: source is the tracepoint block:block_rq_tag_wait\n"),
        TagSource::Kprobe => pr_info!(
            "tag_wait: source is the kprobe shim (sbitmap_prepare_to_wait from blk_mq_get_tag){}\n",
            if force_kprobe { ", forced by tag_wait_kprobe=1" } else { "" }
        ),
        TagSource::None => pr_info!("tag_wait: no source on this kernel (no tracepoint, kprobes not placeable); tracking unavailable\n"),
    }
    source
}

impl TagWait {
    /// Tracking on, off or being switched: never waits for the lock, whose holder may wait
    /// for every CPU (kprobe (un)registration patches kernel text).
    pub(crate) fn phase(&self) -> Phase {
        self.phase.get()
    }

    /// Switches tracking on or off; EOPNOTSUPP when no source is available.
    pub(crate) fn set_enabled(&self, on: bool) -> Result {
        let mut hooks = self.hooks.lock();
        match (on, hooks.is_some()) {
            (true, false) => {
                // Waits begun under an earlier registration never end here.
                for p in self.pending.iter() {
                    p.wait.store(0, Relaxed);
                }
                // Kicks stored before the last unregistration never see their finish_wait.
                for c in self.callers.iter() {
                    c.task.store(0, Relaxed);
                }
                self.phase.set(Phase::TurningOn);
                let registered = Registered::register(self.source);
                self.phase.set(if registered.is_ok() {
                    Phase::On
                } else {
                    Phase::Off
                });
                *hooks = Some(registered?);
            }
            (false, true) => {
                self.phase.set(Phase::TurningOff);
                *hooks = None;
                self.phase.set(Phase::Off);
            }
            _ => {}
        }
        Ok(())
    }

    /// `echo 0|1 > tag_wait`: tracking off or on.
    pub(crate) fn write(&self, buf: &[u8]) -> Result {
        self.set_enabled(parse::enable(buf)?)
    }
}
