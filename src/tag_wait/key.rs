// SPDX-License-Identifier: GPL-2.0

//! Keys of the tag-wait counters: device x hardware queue x pool, packed into one non-zero
//! u64 so that a slot can be claimed with one compare-and-swap. Pure logic (`core` only,
//! no `unsafe`), as in `logic/`: `tools/tio-logic` mounts this file and runs its tests.

#![forbid(unsafe_code)]

/// Which tag pool a submitter waited for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Pool {
    /// The I/O scheduler's pool (else the driver's, "hardware").
    pub(crate) sched: bool,
    /// The reserved part of the pool.
    pub(crate) reserved: bool,
}

impl Pool {
    /// As the upstream tracepoint prints it: "scheduler", "hardware reserved", ...
    pub(crate) fn name(self) -> &'static str {
        match (self.sched, self.reserved) {
            (true, false) => "scheduler",
            (true, true) => "scheduler reserved",
            (false, false) => "hardware",
            (false, true) => "hardware reserved",
        }
    }
}

/// One counter's identity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TagKey {
    /// dev_t of the disk (kernel encoding: major << 20 | minor), 0 without a disk.
    pub(crate) dev: u32,
    pub(crate) hctx: u32,
    pub(crate) pool: Pool,
}

const HCTX_BITS: u32 = 29;
/// Largest hctx id that is kept exactly; larger ones share this value.
pub(crate) const HCTX_MAX: u32 = (1 << HCTX_BITS) - 1;

impl TagKey {
    /// Never 0 (0 marks a free slot).
    pub(crate) const fn pack(self) -> u64 {
        let hctx = if self.hctx > HCTX_MAX {
            HCTX_MAX
        } else {
            self.hctx
        } as u64;
        ((self.dev as u64) << 32)
            | (hctx << 3)
            | ((self.pool.sched as u64) << 2)
            | ((self.pool.reserved as u64) << 1)
            | 1
    }

    pub(crate) const fn unpack(v: u64) -> Self {
        Self {
            dev: (v >> 32) as u32,
            hctx: ((v >> 3) & HCTX_MAX as u64) as u32,
            pool: Pool {
                sched: (v >> 2) & 1 == 1,
                reserved: (v >> 1) & 1 == 1,
            },
        }
    }

    /// The kernel's MAJOR()/MINOR() of `dev`.
    pub(crate) const fn major_minor(self) -> (u32, u32) {
        (self.dev >> 20, self.dev & ((1 << 20) - 1))
    }
}

/// Slot to try first for `packed` in a table of `len` slots (then linear probing).
/// How many entries from its home slot a key (or task, or wait) may take or be found in:
/// a hook touches at most this many entries, however full the table.
pub(crate) const PROBE_LIMIT: usize = 8;

/// A counter whose last wait is this old gives its slot to a new key when every slot in
/// reach is taken (its device gone, or idle): rows of current starvation win.
pub(crate) const AGE_NS: u64 = 60_000_000_000;

/// Whether a counter last counted at `last_ns` may give its slot away at `now_ns`.
pub(crate) const fn aged(last_ns: u64, now_ns: u64) -> bool {
    now_ns.saturating_sub(last_ns) >= AGE_NS
}

pub(crate) const fn home_slot(packed: u64, len: usize) -> usize {
    // Fibonacci hashing spreads the regular bit patterns of the keys.
    (packed.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32) as usize % len
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Claim: a tag key packs to a non-zero word that unpacks to the same key, for the
    /// smallest and largest device numbers, hctx ids and pools; an hctx above `HCTX_MAX` is
    /// kept as `HCTX_MAX`.
    #[test]
    fn pack_round_trips_and_is_never_zero() {
        for &(dev, hctx, sched, reserved) in &[
            (0u32, 0u32, false, false),
            ((251 << 20) | 3, 7, true, false),
            (u32::MAX, HCTX_MAX, true, true),
        ] {
            let k = TagKey {
                dev,
                hctx,
                pool: Pool { sched, reserved },
            };
            assert_ne!(k.pack(), 0);
            assert_eq!(TagKey::unpack(k.pack()), k);
        }
        let big = TagKey {
            dev: 1,
            hctx: u32::MAX,
            pool: Pool {
                sched: false,
                reserved: false,
            },
        };
        assert_eq!(TagKey::unpack(big.pack()).hctx, HCTX_MAX);
    }

    /// Claim: pools are named as the upstream tracepoint prints them ("hardware",
    /// "scheduler reserved"), and `major_minor` splits the kernel's dev_t ((251 << 20) | 2)
    /// into (251, 2).
    #[test]
    fn names_and_device_numbers() {
        assert_eq!(
            Pool {
                sched: false,
                reserved: false
            }
            .name(),
            "hardware"
        );
        assert_eq!(
            Pool {
                sched: true,
                reserved: true
            }
            .name(),
            "scheduler reserved"
        );
        let k = TagKey {
            dev: (251 << 20) | 2,
            hctx: 0,
            pool: Pool {
                sched: false,
                reserved: false,
            },
        };
        assert_eq!(k.major_minor(), (251, 2));
    }

    /// Claim: a counter is aged only once `AGE_NS` (a minute) or more passed since its last
    /// wait, and not for a clock read before that wait.
    #[test]
    fn counters_age_after_a_minute_without_waits() {
        assert!(!aged(5, 5));
        assert!(!aged(0, AGE_NS - 1));
        assert!(aged(0, AGE_NS));
        // A clock read before the last wait (another CPU's) is not age.
        assert!(!aged(10, 3));
    }

    /// Claim: `home_slot` is below the table's length for any key, 1 to `u64::MAX`.
    #[test]
    fn home_slot_in_range() {
        for v in [1u64, 3, 1 << 40, u64::MAX] {
            assert!(home_slot(v, 256) < 256);
        }
    }
}
