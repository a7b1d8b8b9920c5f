// SPDX-License-Identifier: GPL-2.0

//! What each core-kernel return address is to the stack cut (`stack::FrameClass`),
//! remembered, so that the cut costs one symbol lookup per address once instead of up to
//! [`stack::SCAN_DEPTH`] lookups per capture. Measured in the test VM, the timer_list's cut
//! took 13-17 lookups (80-135 µs under TCG) per record before; the same few return
//! addresses (`call_timer_fn+0x..`, `handle_softirqs+0x..`) recur in every capture.
//!
//! A direct-mapped table of atomic words, each holding the low 32 bits of an address, its
//! class and a valid bit: racing writers only overwrite whole entries, a reader takes an
//! entry only if the address matches. Only core-kernel text is looked up and cached (it
//! never goes away), so an entry never goes stale; frames in module text are never
//! machinery and need no lookup. Core-kernel text lies in one 4 GiB window whose upper 32
//! bits are those of a core function (`0xffffffff` on x86_64, `0xffff8000` on arm64
//! without KASLR); an address outside it is looked up every time, never cached.

use kernel::sync::atomic::{Atomic, Relaxed};

use crate::ffi;
use crate::logic::stack::{self, FrameClass};

const ENTRIES: usize = 256;
/// An entry: the address's low 32 bits from bit 8, the valid bit, the class in the low bits.
const CLASS_MASK: u64 = 7;
const VALID: u64 = 1 << 3;

/// The table; lives in the module's data.
pub(crate) struct FrameCache {
    entries: [Atomic<u64>; ENTRIES],
}

fn class_bits(c: FrameClass) -> u64 {
    match c {
        FrameClass::Other => 0,
        FrameClass::InterruptEntry => 1,
        FrameClass::Softirq => 2,
        FrameClass::InterruptExit => 3,
        FrameClass::SoftirqLoop => 4,
        FrameClass::ReturnToUser => 5,
    }
}

fn class_of_bits(b: u64) -> FrameClass {
    match b & CLASS_MASK {
        1 => FrameClass::InterruptEntry,
        2 => FrameClass::Softirq,
        3 => FrameClass::InterruptExit,
        4 => FrameClass::SoftirqLoop,
        5 => FrameClass::ReturnToUser,
        _ => FrameClass::Other,
    }
}

impl FrameCache {
    pub(crate) const fn new() -> Self {
        Self {
            entries: [const { Atomic::new(0) }; ENTRIES],
        }
    }

    fn slot(addr: u64) -> usize {
        ((addr ^ (addr >> 11)) as usize) % ENTRIES
    }

    /// The class of the frame at `addr`: remembered, or looked up (and remembered if it is
    /// core-kernel text). Any context.
    pub(crate) fn classify(&self, addr: u64) -> FrameClass {
        if ffi::text_can_vanish(addr) {
            // The interrupt and softirq machinery is core-kernel code: no module frame is
            // part of it.
            return FrameClass::Other;
        }
        let cacheable = addr >> 32 == u64::from(ffi::core_text_high());
        let entry = &self.entries[Self::slot(addr)];
        let key = (addr & 0xffff_ffff) << 8 | VALID;
        if cacheable {
            let e = entry.load(Relaxed);
            if e & !CLASS_MASK == key {
                return class_of_bits(e);
            }
        }
        let class =
            ffi::symbol_name(addr).map_or(FrameClass::Other, |s| stack::classify(s.as_str()));
        if cacheable {
            entry.store(key | class_bits(class), Relaxed);
        }
        class
    }
}
