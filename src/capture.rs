// SPDX-License-Identifier: GPL-2.0
//! Taking a culprit's stack, in one place for every context that does (the samplers'
//! handlers, the watcher's NMI): the stack saved, the tracer's own frames cut off with the
//! help of a cache of frame classes shared by all CPUs (no symbol lookup in hard interrupt
//! or NMI context), and addresses written into a record; and the namer
//! (`capture/namer.rs`), which names the frames in module code later, in process context,
//! off this path, and learns the frame classes the interrupts met.

mod frame_cache;
pub(crate) mod namer;

use crate::ffi;
use crate::logic::stack;
use crate::records::{Which, Writer, MAX_FRAMES};
use frame_cache::FrameCache;

/// Classes of the return addresses the stack cut has seen, shared by all CPUs.
static FRAME_CACHE: FrameCache = FrameCache::new();

/// Where a capture runs, which says whether it may look a symbol up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Context {
    /// Hard interrupt or NMI context: frames are classed only as far as they are known;
    /// those not known yet count as the culprit's and are learnt later, in process
    /// context ([`learn_pending`]). With the interrupted instruction among the frames, as
    /// in every capture from an interrupt, the cut is exact without any class.
    Interrupt,
    /// Softirq or process context: a frame not known yet is looked up.
    Soft,
}

/// The class of the instruction or return address `ip` as far as it is known, without a
/// symbol lookup: fine in hard interrupt and NMI context. One not known yet counts as
/// `Other` this time and is learnt by the namer's next pass ([`learn_pending`]); a
/// machinery function is known whole once any address in it was looked up.
pub(crate) fn classify_known(ip: u64) -> stack::FrameClass {
    FRAME_CACHE.classify_known(ip)
}

/// Learns the classes of the frames on the current stack that belong to the interrupt
/// and softirq machinery (softirq or process context, interrupts on: it looks symbols
/// up).
pub(crate) fn learn_from_here() {
    let mut raw = [0u64; RAW_FRAMES];
    let n = ffi::save_stack(&mut raw);
    for &f in raw.iter().take(n.min(stack::SCAN_DEPTH)) {
        FRAME_CACHE.classify(f);
    }
}

/// Learns the classes of the addresses captures in interrupt context met without
/// knowing them, and, at the first pass, the machinery functions found by name
/// (`stack::named_classes`: the interrupt return paths above all, which the cut must know
/// from the first window on). Process context (the namer's pass).
pub(crate) fn learn_pending() {
    FRAME_CACHE.learn_names();
    FRAME_CACHE.learn_pending();
}

/// Whether captures left addresses for [`learn_pending`]; checked by the hrtimer, which
/// then kicks the namer.
pub(crate) fn has_pending() -> bool {
    FRAME_CACHE.has_pending()
}

/// Machinery functions known by extent (shown in `records`).
pub(crate) fn known_functions() -> usize {
    FRAME_CACHE.ranges()
}

/// Frames an interrupt's walk may take where the unwind starts at the interrupted
/// registers: the culprit's, and a few for an interrupt return path that the cut skips.
pub(crate) const INTERRUPTED_FRAMES: usize = MAX_FRAMES + 4;

/// Room for a capture anywhere: the whole stack, the tracer's own frames included.
pub(crate) const RAW_FRAMES: usize = MAX_FRAMES + stack::SCAN_DEPTH;

/// The culprit's frames kept where a hardirq-off window ended (its record's end stack,
/// taken in the hrtimer with interrupts off): where interrupts came back on and its
/// callers up to the code that entered the culprit's (`write_iter` of a device, for
/// example). Every further frame costs an unwinder lookup with interrupts off; the
/// window's whole stack is the watcher's in-window one (Documentation/benchmarks.rst).
pub(crate) const END_FRAMES: usize = 3;

/// The classes of an interrupt walk's frames, each looked up once ([`classify_known`]).
struct Classes([Option<stack::FrameClass>; INTERRUPTED_FRAMES]);

impl Classes {
    fn new() -> Self {
        Self([None; INTERRUPTED_FRAMES])
    }

    /// The class of `frames[i]`.
    fn of(&mut self, frames: &[u64], i: usize) -> stack::FrameClass {
        match self.0.get_mut(i) {
            Some(c) => *c.get_or_insert_with(|| classify_known(frames[i])),
            None => classify_known(frames[i]),
        }
    }
}

/// Walks the stack an interrupt interrupted into `raw` ([`INTERRUPTED_FRAMES`] at most),
/// the interrupted instruction first, until `keep` frames of the culprit are past the cut
/// (`stack::walk_may_stop`); returns the frames walked, `None` where the architecture
/// does not allow it.
fn walk_interrupted(raw: &mut [u64], keep: usize, classes: &mut Classes) -> Option<usize> {
    let room = raw.len().min(INTERRUPTED_FRAMES);
    let mut n = 0;
    ffi::walk_interrupted_stack(|addr| {
        let Some(slot) = raw.get_mut(n) else {
            return false;
        };
        *slot = addr;
        n += 1;
        let frames = &raw[..n];
        // Fewer than `keep` frames cannot hold `keep` past the cut: no class is needed yet.
        n < room && (n < keep || !stack::walk_may_stop(n, keep, |i| classes.of(frames, i)))
    })
}

/// Saves the stack into `raw` ([`RAW_FRAMES`] entries; [`INTERRUPTED_FRAMES`] suffice in
/// NMI context on x86_64) and returns the culprit's part: without the sampler's (or NMI
/// handler's) own frames, at most `keep` (and [`MAX_FRAMES`]). `irq_ip` is the interrupted
/// instruction (0: unknown). In `Context::Interrupt`, NMI included, no symbol is looked
/// up, and the unwind starts at the interrupted registers where the architecture allows
/// (x86_64): it walks only the culprit's frames, and stops after `keep` of them.
pub(crate) fn capture_raw(raw: &mut [u64], irq_ip: u64, ctx: Context, keep: usize) -> &[u64] {
    let keep = keep.min(MAX_FRAMES);
    let mut classes = Classes::new();
    let walked = match ctx {
        Context::Interrupt => walk_interrupted(raw, keep, &mut classes),
        Context::Soft => None,
    };
    let (n, irq_ip) = match walked {
        Some(n) => (n, raw.first().copied().unwrap_or(0)),
        None => (ffi::save_stack(raw), irq_ip),
    };
    let frames = &raw[..n];
    let first = stack::first_culprit_frame(frames, irq_ip, |i| match ctx {
        Context::Interrupt => classes.of(frames, i),
        Context::Soft => FRAME_CACHE.classify(frames[i]),
    });
    if ctx == Context::Interrupt {
        // The cut may go through an interrupt return path only as far as its frames are
        // known: the first few after it are noted for the namer to learn together.
        for i in first..n.min(first + LEARN_AHEAD) {
            classes.of(frames, i);
        }
    }
    let kept = frames.get(first..).unwrap_or(&[]);
    &kept[..kept.len().min(keep)]
}

/// Frames after an interrupt-context cut whose classes are learnt if not known: an
/// interrupt return path and its entry (`stack::first_culprit_frame`).
const LEARN_AHEAD: usize = 4;

/// Saves the stack into `which` of the record being written, without the sampler's own
/// frames. Addresses only: frames in code that can be unloaded are named by the namer
/// (`capture/namer.rs`), off this path, so a capture costs the same whatever module the culprit
/// is in.
pub(crate) fn capture(w: &mut Writer<'_>, which: Which, ctx: Context) {
    let mut raw = [0u64; RAW_FRAMES];
    let kept = capture_raw(&mut raw, ffi::irq_regs_ip(), ctx, MAX_FRAMES);
    w.frames(which, kept);
}

/// Puts a stack taken earlier with [`capture_raw`] into `which` of the record being
/// written (addresses only, as `capture`: the namer names them). A module unloaded between
/// the capture and the record leaves its frames unnamed.
pub(crate) fn put_frames(w: &mut Writer<'_>, which: Which, frames: &[u64]) {
    w.frames(which, frames);
}
