// SPDX-License-Identifier: GPL-2.0

//! What differs between the `kernel` crates of the releases the module is built for.
//!
//! Debian's stock 7.2 kernel has the barrier functions `smp_rmb`/`smp_wmb`; 7.3 replaced
//! them with `smp_mb(Read)`/`smp_mb(Write)`. Kbuild sets `--cfg tio_kernel_before_7_3`
//! from the kernel's version, so the rest of the module calls these names only.
//!
//! 7.3's `kernel::interrupt::local_interrupt_disable` is not in 7.2's crate; there the shim's
//! `local_irq_save()`/`local_irq_restore()` give the same guard.

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

#[cfg(not(tio_kernel_before_7_3))]
pub(crate) use kernel::interrupt::local_interrupt_disable;

/// Local interrupts off on this CPU for as long as it lives (7.2's stand-in for 7.3's
/// `kernel::interrupt::LocalInterruptDisabled`).
///
/// # Invariants
///
/// `flags` came from `tio_irq_save()` on this CPU, which disabled local interrupts; they are
/// off until the guard drops. The guard is neither `Send` nor `Sync`, so it drops on the CPU
/// (and in the context) that made it.
#[cfg(tio_kernel_before_7_3)]
pub(crate) struct LocalInterruptDisabled {
    flags: kernel::ffi::c_ulong,
    _not_send: core::marker::PhantomData<*mut ()>,
}

/// Disables local interrupts until the returned guard drops (`local_irq_save()`).
#[cfg(tio_kernel_before_7_3)]
#[inline]
pub(crate) fn local_interrupt_disable() -> LocalInterruptDisabled {
    // SAFETY: `local_irq_save()` may be called in any context.
    let flags = unsafe { super::raw::tio_irq_save() };
    // INVARIANT: interrupts are off from `tio_irq_save()` on, and `flags` is its value.
    LocalInterruptDisabled {
        flags,
        _not_send: core::marker::PhantomData,
    }
}

#[cfg(tio_kernel_before_7_3)]
impl Drop for LocalInterruptDisabled {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: By the type invariants, `flags` came from `tio_irq_save()` on this CPU and
        // interrupts stayed off since; restoring them is the matching call.
        unsafe { super::raw::tio_irq_restore(self.flags) };
    }
}
