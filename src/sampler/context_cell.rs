// SPDX-License-Identifier: GPL-2.0

//! State that one execution context owns: plain memory, no atomics.
//!
//! The kernel's Rust atomics are calls into C helpers on kernels that do not inline them
//! (all of Debian's, built with GCC). In a sampler that runs every period on every CPU a
//! load is then a call, and the hrtimer's common path made about a dozen. What only one
//! context ever touches, such as the hrtimer callback's own bookkeeping, needs none of
//! that: a pinned hrtimer's callback never runs concurrently with itself, so its state can
//! be plain fields, borrowed mutably for the length of one run.

use core::cell::UnsafeCell;

/// A value that only its owning context uses, one borrow at a time.
///
/// # Invariants
///
/// At most one reference obtained from [`ContextCell::get`] is live at any time: every
/// caller is the one context the field's documentation names as its owner, which never
/// runs concurrently with itself (for example the callback of one pinned hrtimer, or the
/// code that starts that hrtimer, before it is started).
pub(crate) struct ContextCell<T>(UnsafeCell<T>);

// SAFETY: The value is only ever accessed by its one owning context at a time (the type
// invariant), so sharing the cell between threads never gives two of them access at once;
// moving the value between those contexts needs `T: Send`.
unsafe impl<T: Send> Sync for ContextCell<T> {}

impl<T> ContextCell<T> {
    pub(crate) const fn new(value: T) -> Self {
        Self(UnsafeCell::new(value))
    }

    /// The value, borrowed for the owner's current run.
    ///
    /// # Safety
    ///
    /// The caller is the cell's owning context, and no other reference returned by this
    /// function is live while the returned one is.
    #[allow(clippy::mut_from_ref)]
    pub(crate) unsafe fn get(&self) -> &mut T {
        // SAFETY: By the caller's guarantee no other reference to the value is live, so
        // this one is unique for its lifetime.
        unsafe { &mut *self.0.get() }
    }
}
