// SPDX-License-Identifier: GPL-2.0

//! Frame names taken at capture time, packed into a record. Pure logic (`core` only),
//! shared with the host via `tools/tio-logic`.
//!
//! Addresses in code that can be unloaded (modules, BPF, trampolines) are named when the
//! stack is captured, because after `rmmod` nobody can name them any more. A record's two
//! stacks share one region: the names of the first stack, then those of the second, each
//! ended by a NUL, in frame order; a bit per frame and stack says which frames have one.
//! Sharing matters for Rust drivers, whose names run to 200 bytes: a hardirq record, which
//! has only one stack, gets the whole region. A name that does not fit is not stored, and
//! its frame is named when read, as core-kernel frames always are.

/// Bytes of a record's name region.
pub(crate) const REGION_LEN: usize = 1024;

/// Where the next name goes: the used part of the region and, per stack, the bits of the
/// frames named so far.
///
/// # Invariants
///
/// Every name of stack 0 is placed before any name of stack 1, so that a stack's names
/// can be found by counting.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Packer {
    used: usize,
    named: [u32; 2],
}

impl Packer {
    pub(crate) const fn new() -> Self {
        Self { used: 0, named: [0; 2] }
    }

    /// Reserves room for the name of frame `frame` of stack `stack` (0 or 1; `len` bytes,
    /// without NUL); returns the offset to write it at (its NUL goes at offset + len), or
    /// `None` when it does not fit, the frame cannot have a bit, or stack 0 comes after
    /// stack 1.
    pub(crate) fn place(&mut self, stack: usize, frame: usize, len: usize) -> Option<usize> {
        if stack > 1 || frame >= 32 || len == 0 || self.used + len + 1 > REGION_LEN {
            return None;
        }
        if stack == 0 && self.named[1] != 0 {
            return None;
        }
        let at = self.used;
        self.used += len + 1;
        // INVARIANT: checked above: no stack 0 name after a stack 1 name.
        self.named[stack] |= 1 << frame;
        Some(at)
    }

    /// The bits of the named frames of each stack.
    pub(crate) const fn named(&self) -> [u32; 2] {
        self.named
    }
}

/// The stored name of frame `frame` of stack `stack`, given the region and the bits.
pub(crate) fn name_of(region: &[u8], named: [u32; 2], stack: usize, frame: usize) -> Option<&[u8]> {
    if stack > 1 || frame >= 32 || named[stack] & (1 << frame) == 0 {
        return None;
    }
    // The k-th name of the region: all names of stack 0 come first.
    let before = if stack == 1 { named[0].count_ones() as usize } else { 0 };
    let k = before + (named[stack] & ((1u32 << frame) - 1)).count_ones() as usize;
    region.split(|&b| b == 0).nth(k).filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pack(names: &[(usize, usize, &str)]) -> ([u8; REGION_LEN], [u32; 2]) {
        let mut region = [0u8; REGION_LEN];
        let mut p = Packer::new();
        for &(stack, frame, name) in names {
            if let Some(at) = p.place(stack, frame, name.len()) {
                region[at..at + name.len()].copy_from_slice(name.as_bytes());
                region[at + name.len()] = 0;
            }
        }
        (region, p.named())
    }

    #[test]
    fn names_come_back_by_stack_and_frame() {
        let (region, named) =
            pack(&[(0, 1, "f+0x1/0x2 [m]"), (0, 4, "g+0x3/0x4 [m]"), (0, 31, "h"), (1, 0, "w0"), (1, 2, "w2")]);
        assert_eq!(named, [(1 << 1) | (1 << 4) | (1 << 31), 0b101]);
        assert_eq!(name_of(&region, named, 0, 1), Some(&b"f+0x1/0x2 [m]"[..]));
        assert_eq!(name_of(&region, named, 0, 4), Some(&b"g+0x3/0x4 [m]"[..]));
        assert_eq!(name_of(&region, named, 0, 31), Some(&b"h"[..]));
        assert_eq!(name_of(&region, named, 1, 0), Some(&b"w0"[..]));
        assert_eq!(name_of(&region, named, 1, 2), Some(&b"w2"[..]));
        assert_eq!(name_of(&region, named, 0, 0), None);
        assert_eq!(name_of(&region, named, 1, 1), None);
        assert_eq!(name_of(&region, named, 0, 40), None);
        assert_eq!(name_of(&region, named, 2, 0), None);
    }

    #[test]
    fn four_long_rust_names_fit() {
        // As seen on Debian's GCC-built 7.3: the sample's stack has four module frames,
        // two of them Rust trait methods of 180+ bytes.
        let long = "_RNvMs2_NtCsb5MLIFMWygY_6kernel10miscdeviceINtB5_16MiscdeviceVTableNtCs7mu83waahYW_18irqoff_sample_main12SampleDeviceE10write_iterB14_+0x21/0x70 [irqoff_sample]";
        let names = [(0, 0, "sample_irq_enable+0xf/0x20 [irqoff_sample]"), (0, 1, "irqoff_sample_hardirq_window+0x30/0x60 [irqoff_sample]"), (0, 2, long), (0, 3, long)];
        let (_, named) = pack(&names);
        assert_eq!(named, [0b1111, 0]);
    }

    #[test]
    fn a_name_that_does_not_fit_is_left_out() {
        let long = "x".repeat(REGION_LEN - 10);
        let (region, named) = pack(&[(0, 0, &long), (0, 1, "does-not-fit"), (0, 2, "ok")]);
        assert_eq!(named, [0b101, 0]);
        assert_eq!(name_of(&region, named, 0, 0).map(<[u8]>::len), Some(REGION_LEN - 10));
        assert_eq!(name_of(&region, named, 0, 1), None);
        assert_eq!(name_of(&region, named, 0, 2), Some(&b"ok"[..]));
    }

    #[test]
    fn stack_0_never_after_stack_1() {
        let mut p = Packer::new();
        assert_eq!(p.place(1, 0, 3), Some(0));
        assert_eq!(p.place(0, 0, 3), None);
        assert_eq!(p.place(1, 1, 3), Some(4));
    }

    #[test]
    fn exact_fit_and_empty_names() {
        let mut p = Packer::new();
        assert_eq!(p.place(0, 0, 0), None);
        assert_eq!(p.place(0, 0, REGION_LEN - 1), Some(0));
        assert_eq!(p.place(0, 1, 1), None);
        assert_eq!(p.place(0, 32, 1), None);
        assert_eq!(p.place(2, 0, 1), None);
    }
}
