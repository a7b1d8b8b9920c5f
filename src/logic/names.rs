// SPDX-License-Identifier: GPL-2.0

//! Frame names taken at capture time, packed into a record. Pure logic (`core` only),
//! unit-tested on the host by `tools/tio-logic`.
//!
//! Addresses in code that can be unloaded (modules, BPF, trampolines) are named when the
//! stack is captured, because after `rmmod` nobody can name them any more. The names of
//! one stack are packed back to back, each ended by a NUL, in frame order, into a fixed
//! region; a bit per frame says which frames have one. A name that does not fit is not
//! stored, and its frame is named when read, as core-kernel frames always are.

/// Bytes of one stack's name region.
/// Sized for Rust drivers, whose names run to 200 bytes: on Debian's GCC-built kernels
/// the sample's stack has four module frames of 45 to 190 bytes (384 lost one).
pub(crate) const REGION_LEN: usize = 640;

/// Where the next name of a stack goes: tracks the used part of its region and the bits
/// of the frames named so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Packer {
    used: usize,
    named: u32,
    /// Bytes of the region.
    len: usize,
}

impl Packer {
    /// For a region of [`REGION_LEN`] bytes.
    pub(crate) const fn new() -> Self {
        Self::with_len(REGION_LEN)
    }

    /// For a region of `len` bytes (a profile's smaller stacks).
    pub(crate) const fn with_len(len: usize) -> Self {
        Self {
            used: 0,
            named: 0,
            len,
        }
    }

    /// Reserves room for the name of frame `frame` (`len` bytes, without NUL); returns the
    /// offset to write it at (its NUL goes at offset + len), or `None` when it does not fit
    /// or the frame cannot have a bit.
    pub(crate) fn place(&mut self, frame: usize, len: usize) -> Option<usize> {
        if frame >= 32 || len == 0 || self.used + len + 1 > self.len {
            return None;
        }
        let at = self.used;
        self.used += len + 1;
        self.named |= 1 << frame;
        Some(at)
    }

    /// The bits of the named frames.
    pub(crate) const fn named(&self) -> u32 {
        self.named
    }
}

/// The stored name of frame `frame`, given the region and its bits, if it has one.
pub(crate) fn name_of(region: &[u8], named: u32, frame: usize) -> Option<&[u8]> {
    if frame >= 32 || named & (1 << frame) == 0 {
        return None;
    }
    // The k-th name of the region, k = named frames before this one.
    let k = (named & ((1u32 << frame) - 1)).count_ones() as usize;
    region.split(|&b| b == 0).nth(k).filter(|s| !s.is_empty())
}

/// The frame name `name` as `%pS` prints it: where it ends in a module's build id
/// (`func+0x1f/0x80 [module 0123...ef]`, `%pSb` on kernels with CONFIG_STACKTRACE_BUILD_ID),
/// the part before the id's space; the closing `]` is then to be added. `None` for a name
/// without one.
pub(crate) fn without_build_id(name: &[u8]) -> Option<&[u8]> {
    let inner = name.strip_suffix(b"]")?;
    let space = inner.iter().rposition(|&b| b == b' ')?;
    let id = &inner[space + 1..];
    let open = inner[..space].iter().rposition(|&b| b == b'[')?;
    let module = &inner[open + 1..space];
    // Whole bytes in hex: an even count of digits.
    let hex = id.len() >= 2 && id.len() % 2 == 0 && id.iter().all(u8::is_ascii_hexdigit);
    let one_word = !module.is_empty() && !module.contains(&b' ');
    (hex && one_word && open > 0 && inner[open - 1] == b' ').then_some(&inner[..space])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Claim: a module frame's build id is cut off, `]` left to add; other names are kept.
    #[test]
    fn build_ids_are_cut_off() {
        assert_eq!(
            without_build_id(b"f+0x1/0x2 [irqoff_sample 326c88b7c23e10123378fb3ce9cb09f688f289f3]"),
            Some(&b"f+0x1/0x2 [irqoff_sample"[..])
        );
        for name in [
            &b"f+0x1/0x2 [m]"[..],
            b"vfs_write+0x1d7/0x210",
            b"f [m x]",
            b"f+0x1/0x2 [m abc]",
            b"0x1234",
        ] {
            assert_eq!(without_build_id(name), None);
        }
    }

    fn pack(names: &[(usize, &str)]) -> ([u8; REGION_LEN], u32) {
        let mut region = [0u8; REGION_LEN];
        let mut p = Packer::new();
        for &(frame, name) in names {
            if let Some(at) = p.place(frame, name.len()) {
                region[at..at + name.len()].copy_from_slice(name.as_bytes());
                region[at + name.len()] = 0;
            }
        }
        (region, p.named())
    }

    /// Claim: names packed for frames 1, 4 and 31 set those frames' bits and come back by
    /// frame number; frames without a name (0, 2) and beyond 31 give `None`.
    #[test]
    fn names_come_back_by_frame() {
        let (region, named) = pack(&[(1, "f+0x1/0x2 [m]"), (4, "g+0x3/0x4 [m]"), (31, "h")]);
        assert_eq!(named, (1 << 1) | (1 << 4) | (1 << 31));
        assert_eq!(name_of(&region, named, 1), Some(&b"f+0x1/0x2 [m]"[..]));
        assert_eq!(name_of(&region, named, 4), Some(&b"g+0x3/0x4 [m]"[..]));
        assert_eq!(name_of(&region, named, 31), Some(&b"h"[..]));
        assert_eq!(name_of(&region, named, 0), None);
        assert_eq!(name_of(&region, named, 2), None);
        assert_eq!(name_of(&region, named, 40), None);
    }

    /// Claim: the sample's four Rust module frames, two of them 160-byte mangled names, all
    /// fit in one region of `REGION_LEN` bytes.
    #[test]
    fn four_long_rust_names_fit() {
        let long = "_RNvMs2_NtCsb5MLIFMWygY_6kernel10miscdeviceINtB5_16MiscdeviceVTableNtCs7mu83waahYW_18irqoff_sample_main12SampleDeviceE10write_iterB14_+0x21/0x70 [irqoff_sample]";
        let mut p = Packer::new();
        for (i, name) in [
            "sample_irq_enable+0xf/0x20 [irqoff_sample]",
            "irqoff_sample_hardirq_window+0x30/0x60 [irqoff_sample]",
            long,
            long,
        ]
        .iter()
        .enumerate()
        {
            assert!(p.place(i, name.len()).is_some(), "{name}");
        }
    }

    /// Claim: a name that does not fit in what is left of the region is left out, its bit
    /// unset, while a later shorter name that fits is still stored and read back.
    #[test]
    fn a_name_that_does_not_fit_is_left_out() {
        let long = "x".repeat(REGION_LEN - 10);
        let (region, named) = pack(&[(0, &long), (1, "does-not-fit"), (2, "ok")]);
        assert_eq!(named, 0b101);
        assert_eq!(
            name_of(&region, named, 0).map(<[u8]>::len),
            Some(REGION_LEN - 10)
        );
        assert_eq!(name_of(&region, named, 1), None);
        assert_eq!(name_of(&region, named, 2), Some(&b"ok"[..]));
    }

    /// Claim: a name of `REGION_LEN - 1` bytes fills the region exactly with its NUL, after
    /// which nothing fits; empty names and frames from 32 on are never placed; an 8-byte
    /// region likewise holds one 7-byte name and nothing more.
    #[test]
    fn exact_fit_and_empty_names() {
        let mut p = Packer::new();
        assert_eq!(p.place(0, 0), None);
        assert_eq!(p.place(0, REGION_LEN - 1), Some(0));
        assert_eq!(p.place(1, 1), None);
        assert_eq!(p.place(32, 1), None);
        let mut small = Packer::with_len(8);
        assert_eq!(small.place(0, 7), Some(0));
        assert_eq!(small.place(1, 1), None);
    }
}
