// SPDX-License-Identifier: GPL-2.0
//! Taking a culprit's stack, in one place for every context that does (the samplers'
//! handlers, the watcher's NMI): the stack saved, the tracer's own frames cut off with the
//! help of a cache of frame classes shared by all CPUs, and addresses written into a
//! record; and the namer (`capture/namer.rs`), which names the frames in module code later,
//! in process context, off this path.

mod frame_cache;
pub(crate) mod namer;

use crate::ffi;
use crate::logic::stack;
use crate::records::{Which, Writer, MAX_FRAMES};
use frame_cache::FrameCache;

/// Classes of the return addresses the stack cut has seen, shared by all CPUs.
static FRAME_CACHE: FrameCache = FrameCache::new();

/// The class of the return address `ip` (cached).
pub(crate) fn classify(ip: u64) -> stack::FrameClass {
    FRAME_CACHE.classify(ip)
}

/// Saves the stack into `raw` and returns the culprit's part: without the sampler's (or
/// NMI handler's) own frames, at most [`MAX_FRAMES`]. `irq_ip` is the interrupted
/// instruction (0: unknown). Any context, NMI included.
pub(crate) fn capture_raw(raw: &mut [u64; MAX_FRAMES + stack::SCAN_DEPTH], irq_ip: u64) -> &[u64] {
    let n = ffi::save_stack(raw);
    let frames = &raw[..n];
    let first = stack::first_culprit_frame(frames, irq_ip, |i| FRAME_CACHE.classify(frames[i]));
    let kept = frames.get(first..).unwrap_or(&[]);
    &kept[..kept.len().min(MAX_FRAMES)]
}

/// Saves the stack into `which` of the record being written, without the sampler's own
/// frames. Addresses only: frames in code that can be unloaded are named by the namer
/// (`capture/namer.rs`), off this path, so a capture costs the same whatever module the culprit
/// is in.
pub(crate) fn capture(w: &mut Writer<'_>, which: Which) {
    let mut raw = [0u64; MAX_FRAMES + stack::SCAN_DEPTH];
    let kept = capture_raw(&mut raw, ffi::irq_regs_ip());
    w.frames(which, kept);
}

/// Puts a stack taken earlier with [`capture_raw`] into `which` of the record being
/// written (addresses only, as `capture`: the namer names them). A module unloaded between
/// the capture and the record leaves its frames unnamed.
pub(crate) fn put_frames(w: &mut Writer<'_>, which: Which, frames: &[u64]) {
    w.frames(which, frames);
}
