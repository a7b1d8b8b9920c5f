// SPDX-License-Identifier: GPL-2.0

//! What an allocation really takes, for the `memory` line: kmalloc rounds a request up to
//! its size class (a power of two from 256 bytes on; above 8 KiB whole pages, a power of
//! two of them), vmalloc to whole pages. Pure logic (`core` only).

/// Bytes of one page.
pub(crate) const PAGE: usize = 4096;

/// Largest request the slab caches serve (`KMALLOC_MAX_CACHE_SIZE` with 4 KiB pages);
/// above it kmalloc takes pages from the page allocator.
const SLAB_MAX: usize = 2 * PAGE;

/// The bytes kmalloc gives for a request of `n` (x86_64, 4 KiB pages, no debug padding).
pub(crate) const fn kmalloc_bytes(n: usize) -> usize {
    match n {
        0 => 0,
        1..=8 => 8,
        9..=96 if n > 64 => 96,
        129..=192 => 192,
        _ if n <= SLAB_MAX => n.next_power_of_two(),
        _ => PAGE << page_order(n),
    }
}

/// The page-allocator order of a kmalloc of `n` bytes above the slab caches (0 below).
pub(crate) const fn page_order(n: usize) -> u32 {
    if n <= PAGE {
        return 0;
    }
    (n.div_ceil(PAGE)).next_power_of_two().trailing_zeros()
}

/// The largest kmalloc the module makes: its slab cache needs pages of order 1 at least
/// (8 KiB), which a fragmented machine still has; above it kmalloc needs a block of
/// order 2 or more. Larger memory comes from vmalloc (pages of order 0) or is split.
pub(crate) const KMALLOC_MAX: usize = SLAB_MAX;

/// Whether a kmalloc of `n` bytes needs no block above order 1.
pub(crate) const fn fits_order1(n: usize) -> bool {
    n <= KMALLOC_MAX && page_order(n) <= 1
}

/// The kmalloc request of an `Arc` of a value of `size` bytes aligned to `align`: the
/// refcount (4 bytes) padded to the alignment, then the value, padded to the alignment.
pub(crate) const fn arc_bytes(size: usize, align: usize) -> usize {
    let header = 4usize.next_multiple_of(align);
    (header + size).next_multiple_of(align)
}

/// The bytes vmalloc maps for a request of `n`: whole pages, each of order 0.
pub(crate) const fn vmalloc_bytes(n: usize) -> usize {
    n.div_ceil(PAGE) * PAGE
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kmalloc_classes() {
        assert_eq!(kmalloc_bytes(1), 8);
        assert_eq!(kmalloc_bytes(65), 96);
        assert_eq!(kmalloc_bytes(100), 128);
        assert_eq!(kmalloc_bytes(150), 192);
        assert_eq!(kmalloc_bytes(200), 256);
        assert_eq!(kmalloc_bytes(4097), 8192);
        // Above 8 KiB: pages in powers of two (40 KiB takes 64).
        assert_eq!(kmalloc_bytes(40 * 1024), 64 * 1024);
        assert_eq!(page_order(40 * 1024), 4);
        assert_eq!(page_order(8192), 1);
    }

    #[test]
    fn order1_is_8k() {
        assert!(fits_order1(8192) && fits_order1(4097) && fits_order1(1));
        assert!(!fits_order1(8193));
        assert_eq!(page_order(8193), 2);
        // The refcount padded to the value's alignment, then the value.
        assert_eq!(arc_bytes(100, 8), 112);
        assert_eq!(arc_bytes(100, 64), 192);
        assert_eq!(arc_bytes(0, 8), 8);
    }

    /// The per-CPU tables scale with the CPUs as vmalloc'd pages, never one high-order
    /// block: at Debian's NR_CPUS (8192) a table of 64-byte entries is 128 pages of order 0.
    #[test]
    fn tables_up_to_8192_cpus() {
        for nr in [1usize, 2, 16, 128, 512, 1400, 8192] {
            let bytes = vmalloc_bytes(nr * 64);
            assert!(bytes >= nr * 64 && bytes < nr * 64 + PAGE);
        }
        assert_eq!(vmalloc_bytes(8192 * 64) / PAGE, 128);
        // The same table from kmalloc would be one order-7 block.
        assert_eq!(page_order(8192 * 64), 7);
    }
}
