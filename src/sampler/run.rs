// SPDX-License-Identifier: GPL-2.0

//! One hrtimer run's facts, read once at its start and handed to each step of its
//! verdict: the rules in force, what it interrupted, and the gap it ends.

use crate::ffi;
use crate::logic::gap;

/// One run of a CPU's hrtimer (its callback only).
#[derive(Clone, Copy)]
pub(super) struct Run<'a> {
    /// The rules of the settings in force.
    pub(super) rules: &'a gap::Rules,
    /// What its interrupt interrupted.
    pub(super) interrupted: ffi::Interrupted,
    /// The run before it: the gap's start (ns, monotonic).
    pub(super) prev: u64,
    /// This run: the gap's end (ns, monotonic; its one clock read).
    pub(super) now: u64,
}
