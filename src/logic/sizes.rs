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

/// What the module holds on a machine of `possible` CPU numbers (`nr_cpu_ids`) of which
/// `ran` came online while it was loaded: `per_cpu` bytes for each CPU that ran (its
/// state, made at its first online), a vmalloc'd table with an entry of each size in
/// `per_possible` for every CPU number (the index and the peers' table), and `fixed`.
pub(crate) const fn footprint(
    possible: usize,
    ran: usize,
    per_cpu: usize,
    per_possible: &[usize],
    fixed: usize,
) -> usize {
    let mut total = ran * per_cpu + fixed;
    let mut i = 0;
    while i < per_possible.len() {
        total += vmalloc_bytes(possible * per_possible[i]);
        i += 1;
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Claim: `kmalloc_bytes` rounds a request up to its slab class (1 to 8, 65 to 96, 100
    /// to 128, 150 to 192, 200 to 256, 4097 to 8192) and above 8 KiB to a power of two of
    /// pages (40 KiB takes 64 KiB, order 4); 8 KiB is order 1.
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

    /// Claim: requests up to 8192 bytes fit in order-1 pages and 8193 bytes need order 2;
    /// `arc_bytes` pads the refcount to the value's alignment (100 bytes: 112 at align 8,
    /// 192 at align 64; 0 bytes: 8).
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

    /// Memory follows the CPUs that ran, from 1 to 8192 CPU numbers: with the figures of
    /// the test kernel at 16 records per CPU (a CPU's state 106 496 bytes with its
    /// watcher entry; two 16-byte index entries and a 64-byte peer entry per CPU number;
    /// 64 KiB of fixed tables), what is held per CPU number that never ran is 96 bytes,
    /// and a machine that reports 8192 possible CPUs with 2 online holds about 1 MiB
    /// (it held 8192 states, about 870 MB, when they were made per possible CPU).
    #[test]
    fn footprint_follows_cpus_that_ran() {
        let (per_cpu, per_possible, fixed) = (106_496, &[16, 16, 64][..], 65_536);
        for possible in [1usize, 2, 3, 16, 64, 65, 512, 1000, 4096, 8191, 8192] {
            for ran in [1usize, 2, 16, 64, 512, 8192] {
                if ran > possible {
                    continue;
                }
                let held = footprint(possible, ran, per_cpu, per_possible, fixed);
                // The CPUs that ran, and 96 bytes per CPU number plus the page rounding
                // of three tables.
                assert!(held >= ran * per_cpu + fixed + 96 * possible);
                assert!(held < ran * per_cpu + fixed + 96 * possible + 3 * PAGE);
            }
        }
        let idle_numbers = footprint(8192, 2, per_cpu, per_possible, fixed);
        assert!(idle_numbers < 1_100_000, "{idle_numbers}");
        assert_eq!(idle_numbers, 2 * per_cpu + fixed + 192 * PAGE);
        // Linear in the CPUs that ran: each one more costs one CPU's state.
        assert_eq!(
            footprint(8192, 65, per_cpu, per_possible, fixed)
                - footprint(8192, 64, per_cpu, per_possible, fixed),
            per_cpu
        );
    }
}
