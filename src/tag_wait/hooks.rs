// SPDX-License-Identifier: GPL-2.0

//! The tag-wait sources as Rust sees them: the declarations bindgen generates from
//! `hooks.h` ([`raw`]), which source this kernel offers ([`TagSource`]), their registration
//! ([`Registered`]), the tracepoint each wait fires, and what the C hooks (`hooks.c`) hand
//! over, reduced to calls on [`TagWait`]. `entry.rs` owns the `#[no_mangle]` entry points
//! and forwards them here once it has the module's state.

use kernel::error::to_result;
use kernel::ffi::{c_int, c_uint};
use kernel::prelude::*;

use super::key::TagKey;
use super::{pool, Kick, TagWait};

#[allow(
    dead_code,
    missing_docs,
    non_camel_case_types,
    non_upper_case_globals,
    unreachable_pub,
    clippy::all
)]
pub(crate) mod raw {
    include!("hooks_bindings.rs");
}

/// Where tag waits come from on this kernel.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum TagSource {
    None,
    /// A probe on the upstream block:block_rq_tag_wait tracepoint.
    Tracepoint,
    /// Kprobes on blk_mq_run_hw_queue and sbitmap_prepare_to_wait called from
    /// blk_mq_get_tag.
    Kprobe,
}

impl TagSource {
    fn raw(self) -> c_int {
        (match self {
            TagSource::None => raw::TIO_TAG_SOURCE_NONE,
            TagSource::Tracepoint => raw::TIO_TAG_SOURCE_TRACEPOINT,
            TagSource::Kprobe => raw::TIO_TAG_SOURCE_KPROBE,
        }) as c_int
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            TagSource::None => "none",
            TagSource::Tracepoint => "tracepoint",
            TagSource::Kprobe => "kprobe",
        }
    }

    /// Whether this source's hooks can be placed on this kernel (tries, then removes them).
    pub(crate) fn available(self) -> bool {
        // SAFETY: No preconditions; nothing stays registered.
        self != TagSource::None && unsafe { raw::tio_tag_wait_available(self.raw()) } != 0
    }
}

/// The registered tag-wait hooks; dropping them unregisters them and waits until none runs.
///
/// # Invariants
///
/// The hooks of `source` were registered by `tio_tag_wait_register` and not yet
/// unregistered; `source` is not [`TagSource::None`].
pub(super) struct Registered {
    source: TagSource,
}

impl Registered {
    pub(super) fn register(source: TagSource) -> Result<Self> {
        if source == TagSource::None {
            // 7.2's kernel crate names no EOPNOTSUPP; the errno itself is the same.
            return Err(Error::from_errno(-(kernel::bindings::EOPNOTSUPP as i32)));
        }
        // SAFETY: No preconditions; the hooks reach the module's state only through the
        // entry points, which check that it exists.
        to_result(unsafe { raw::tio_tag_wait_register(source.raw()) })?;
        // INVARIANT: registered just now.
        Ok(Self { source })
    }
}

impl Drop for Registered {
    fn drop(&mut self) {
        // SAFETY: By the type invariant the hooks of `source` are registered.
        unsafe { raw::tio_tag_wait_unregister(self.source.raw()) };
    }
}

/// Fires `trace_irqoff:block_rq_tag_wait` (`trace.h`).
pub(super) fn block_rq_tag_wait(dev: u32, hctx: u32, nr_tags: u32, sched: bool, reserved: bool) {
    // SAFETY: Plain integers.
    unsafe {
        raw::tio_trace_block_rq_tag_wait(
            dev,
            hctx,
            nr_tags,
            c_int::from(sched),
            c_int::from(reserved),
        )
    };
}

impl TagWait {
    /// `trace_irqoff_rs_tag_wait`: a submitter is about to sleep for a tag of the pool
    /// (`is_sched`, `is_reserved`) of hardware queue `hctx_id` of `dev` (hook context).
    pub(crate) fn on_wait(
        &self,
        dev: c_uint,
        hctx_id: c_uint,
        nr_tags: c_uint,
        is_sched: bool,
        is_reserved: bool,
    ) {
        let key = TagKey {
            dev,
            hctx: hctx_id,
            pool: pool(is_sched, is_reserved),
        };
        self.wait(key, nr_tags);
    }

    /// `trace_irqoff_rs_tag_kick` (kprobe source): a task kicked a hardware queue in
    /// blk_mq_get_tag; `k` is what the hook copied while the hctx was valid.
    pub(crate) fn on_kick(&self, k: &raw::tio_tag_kick) {
        self.kick(&Kick {
            task: k.task as u64,
            dev: k.dev,
            hctx: k.hctx_id,
            pools: k.pool.map(|p| p as u64),
            nr_tags: k.nr_tags,
        });
    }
}
