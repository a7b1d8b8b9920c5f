// SPDX-License-Identifier: GPL-2.0

//! What each core-kernel return address is to the stack cut (`stack::FrameClass`),
//! remembered, so that the contexts that must not look symbols up (hard interrupt and NMI)
//! need not: there, a class is taken from what is known, and an address not known yet is
//! left for the namer to learn in process context ([`FrameCache::learn_pending`]).
//!
//! Two tables of atomic words, shared by all CPUs:
//!
//! - the extents of the machinery's functions (`handle_softirqs`, `asm_sysvec_*`,
//!   `irqentry_exit`...; every class but `Other`), learnt whole from the first lookup of any
//!   address in them (`func+0x1f/0x80` gives the start and the size), so that every
//!   instruction of such a function is known after one lookup. Searched linearly: at most
//!   [`RANGES`] compares, whatever was interrupted;
//! - the class of single addresses (`Other` above all), direct-mapped, each entry holding
//!   the address's low 32 bits, its class and a valid bit. Racing writers only overwrite
//!   whole entries; a reader takes an entry only if the address matches.
//!
//! Only core-kernel text is looked up and remembered (it never goes away), so an entry
//! never goes stale; an address in code that can be unloaded (a module, BPF) is never
//! machinery and needs no lookup. Single entries key the 4 GiB window of core-kernel text
//! whose upper 32 bits are those of a core function (`0xffffffff` on x86_64, `0xffff8000`
//! on arm64 without KASLR); an address outside it is known only by extent.

use kernel::sync::atomic::{Acquire, Atomic, Relaxed, Release};

use crate::ffi;
use crate::logic::stack::{self, FrameClass};

const ENTRIES: usize = 256;
/// Machinery functions remembered by extent: the tables name 40 or so, of which a kernel
/// runs fewer than half.
pub(crate) const RANGES: usize = 48;
/// Addresses waiting to be learnt; more are dropped until the namer's next pass.
const PENDING: usize = 16;
/// An entry: the address's low 32 bits from bit 8, the valid bit, the class in the low bits.
const CLASS_MASK: u64 = 7;
const VALID: u64 = 1 << 3;
/// The longest symbol `format_symbol` writes here (`%pS` of core text: no module).
const SYMBOL_LEN: usize = 160;

/// The tables; live in the module's data.
pub(crate) struct FrameCache {
    entries: [Atomic<u64>; ENTRIES],
    /// A machinery function's start (0: free), published after its `range_info`.
    range_start: [Atomic<u64>; RANGES],
    /// Its size from bit 8, its class in the low bits.
    range_info: [Atomic<u64>; RANGES],
    /// Range slots claimed.
    ranges_used: Atomic<u32>,
    /// Addresses a capture met without knowing them (0: none).
    pending: [Atomic<u64>; PENDING],
    pending_any: Atomic<u32>,
    /// [`FrameCache::learn_names`] ran.
    names_learnt: Atomic<bool>,
}

fn class_bits(c: FrameClass) -> u64 {
    match c {
        FrameClass::Other => 0,
        FrameClass::InterruptEntry => 1,
        FrameClass::Softirq => 2,
        FrameClass::InterruptExit => 3,
        FrameClass::SoftirqLoop => 4,
        FrameClass::ReturnToUser => 5,
        // Never stored: `classify` always knows.
        FrameClass::Unknown => 0,
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
            range_start: [const { Atomic::new(0) }; RANGES],
            range_info: [const { Atomic::new(0) }; RANGES],
            ranges_used: Atomic::new(0),
            pending: [const { Atomic::new(0) }; PENDING],
            pending_any: Atomic::new(0),
            names_learnt: Atomic::new(false),
        }
    }

    fn slot(addr: u64) -> usize {
        ((addr ^ (addr >> 11)) as usize) % ENTRIES
    }

    fn key(addr: u64) -> u64 {
        (addr & 0xffff_ffff) << 8 | VALID
    }

    /// The class of `addr` if it is known without a lookup: in code that can be unloaded
    /// (never machinery), in a machinery function seen before, or an address seen before.
    /// Any context, NMI included; at most [`RANGES`] + 1 loads.
    pub(crate) fn known(&self, addr: u64) -> Option<FrameClass> {
        if ffi::text_can_vanish(addr) {
            return Some(FrameClass::Other);
        }
        let used = (self.ranges_used.load(Relaxed) as usize).min(RANGES);
        for (start, info) in self.range_start[..used].iter().zip(&self.range_info) {
            let start = start.load(Acquire);
            if start == 0 {
                continue;
            }
            let info = info.load(Relaxed);
            if addr.wrapping_sub(start) < (info >> 8) {
                return Some(class_of_bits(info));
            }
        }
        if !Self::cacheable(addr) {
            return None;
        }
        let e = self.entries[Self::slot(addr)].load(Relaxed);
        (e & !CLASS_MASK == Self::key(addr)).then(|| class_of_bits(e))
    }

    /// Whether `addr` is in the 4 GiB window of core-kernel text that single entries key.
    fn cacheable(addr: u64) -> bool {
        addr >> 32 == u64::from(ffi::core_text_high())
    }

    /// The class of `addr` as far as it is known ([`FrameCache::known`]); an address not
    /// known is `Unknown` and left for [`FrameCache::learn_pending`]. Any context, NMI
    /// included: never looks a symbol up.
    pub(crate) fn classify_known(&self, addr: u64) -> FrameClass {
        self.known(addr).unwrap_or_else(|| {
            self.pending[Self::slot(addr) % PENDING].store(addr, Relaxed);
            self.pending_any.store(1, Relaxed);
            FrameClass::Unknown
        })
    }

    /// Learns the functions [`stack::named_classes`] names, found by name (process
    /// context; once per load: later calls return at once).
    pub(crate) fn learn_names(&self) {
        if self.names_learnt.xchg(true, Relaxed) {
            return;
        }
        for name in stack::named_classes(stack::THIS_ARCH) {
            let addr = ffi::function_address(name);
            if addr != 0 {
                self.classify(addr);
            }
        }
    }

    /// The class of the frame at `addr`: known, or looked up and remembered. Not in NMI
    /// context (the lookup takes kallsyms); a lookup is of core-kernel text only.
    pub(crate) fn classify(&self, addr: u64) -> FrameClass {
        if let Some(c) = self.known(addr) {
            return c;
        }
        let mut buf = [0u8; SYMBOL_LEN];
        let n = ffi::format_symbol(&mut buf, addr);
        let Some((name, off, size)) = core::str::from_utf8(&buf[..n])
            .ok()
            .and_then(stack::symbol_extent)
        else {
            return FrameClass::Other;
        };
        let class = stack::classify(name);
        if class != FrameClass::Other {
            self.add_range(addr.wrapping_sub(off), size, class);
        }
        if Self::cacheable(addr) {
            self.entries[Self::slot(addr)].store(Self::key(addr) | class_bits(class), Relaxed);
        }
        class
    }

    /// Remembers the machinery function `[start, start + size)`, unless the table is full.
    fn add_range(&self, start: u64, size: u64, class: FrameClass) {
        let i = self.ranges_used.fetch_add(1, Relaxed) as usize;
        let (Some(s), Some(info)) = (self.range_start.get(i), self.range_info.get(i)) else {
            // Full: keep the count from growing without bound.
            self.ranges_used.store(RANGES as u32, Relaxed);
            return;
        };
        info.store(size.min(u64::MAX >> 8) << 8 | class_bits(class), Relaxed);
        s.store(start, Release);
    }

    /// Whether captures met addresses that [`FrameCache::learn_pending`] should learn.
    pub(crate) fn has_pending(&self) -> bool {
        self.pending_any.load(Relaxed) != 0
    }

    /// Looks up the addresses captures met without knowing them (process context: the
    /// namer's pass), so that the next capture knows them.
    pub(crate) fn learn_pending(&self) {
        if self.pending_any.xchg(0, Relaxed) == 0 {
            return;
        }
        for p in &self.pending {
            let addr = p.xchg(0, Relaxed);
            if addr != 0 {
                self.classify(addr);
            }
        }
    }

    /// Machinery functions known by extent.
    pub(crate) fn ranges(&self) -> usize {
        (self.ranges_used.load(Relaxed) as usize).min(RANGES)
    }
}
