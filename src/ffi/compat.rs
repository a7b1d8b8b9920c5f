// SPDX-License-Identifier: GPL-2.0

//! What differs between the `kernel` crates of the releases the module is built for.
//!
//! Debian's stock 7.2 kernel has the barrier functions `smp_rmb`/`smp_wmb`; 7.3 replaced
//! them with `smp_mb(Read)`/`smp_mb(Write)`. Kbuild sets `--cfg tio_kernel_before_7_3`
//! from the kernel's version, so the rest of the module calls these names only.

#[cfg(tio_kernel_before_7_3)]
pub(crate) use kernel::sync::barrier::{smp_rmb, smp_wmb};

/// Orders earlier loads before later loads (`smp_rmb()`).
#[cfg(not(tio_kernel_before_7_3))]
#[inline]
pub(crate) fn smp_rmb() {
    kernel::sync::barrier::smp_mb(kernel::sync::barrier::Read);
}

/// Orders earlier stores before later stores (`smp_wmb()`).
#[cfg(not(tio_kernel_before_7_3))]
#[inline]
pub(crate) fn smp_wmb() {
    kernel::sync::barrier::smp_mb(kernel::sync::barrier::Write);
}

/// A module parameter's value: 7.2's `ModuleParamAccess::value` returns a reference, 7.3's
/// a copy; both borrow as `T`.
pub(crate) fn param<T: Copy>(value: impl core::borrow::Borrow<T>) -> T {
    *value.borrow()
}

/// Shows a `core::fmt::Display` (from the `core`-only files) through the kernel's
/// formatting macros (`seq_print!`, `pr_err!`), whose `Display` is the kernel crate's own
/// from 7.3 on.
pub(crate) struct Show<T>(pub(crate) T);

impl<T: core::fmt::Display> kernel::fmt::Display for Show<T> {
    fn fmt(&self, f: &mut kernel::fmt::Formatter<'_>) -> kernel::fmt::Result {
        core::fmt::Display::fmt(&self.0, f)
    }
}
