// SPDX-License-Identifier: GPL-2.0

//! The module's tracepoints (`trace_irqoff:*`, defined in `trace_irqoff_trace.h`), as safe
//! functions. It uses only the generated shim declarations and the pure `logic::cause`.

use kernel::ffi::{c_char, c_int};

use crate::ffi::{raw, COMM_LEN};
use crate::logic::cause::Cause;

/// How many culprit frames an event carries (`TIO_TRACE_FRAMES`).
pub(crate) const FRAMES: usize = 8;

/// A window as the event stream carries it (`trace_irqoff:hardirq_off`, `softirq_off`).
pub(crate) struct WindowEvent<'a> {
    pub(crate) cpu: u32,
    pub(crate) latency_ns: u64,
    /// When it ended, CLOCK_MONOTONIC.
    pub(crate) end_ns: u64,
    /// Its number among the windows of its CPU, from 1.
    pub(crate) seq: u64,
    pub(crate) pid: i32,
    pub(crate) comm: &'a [u8; COMM_LEN],
    /// The task's cgroup v2 id (0: unknown).
    pub(crate) cgroup_id: u64,
    pub(crate) end_shows_culprit: bool,
    /// Of a hardirq-off window, the part in which every CPU was late together (0: none;
    /// softirq-off windows do not carry it).
    pub(crate) together_ns: u64,
    /// The culprit's frames, culprit first (at most [`FRAMES`] are sent; may be empty).
    pub(crate) frames: &'a [u64],
}

/// Whether either window event is being traced: only then are frames worth capturing
/// for a window the record store does not keep.
pub(crate) fn windows_enabled() -> bool {
    // SAFETY: No preconditions (reads two static keys).
    unsafe { raw::tio_trace_windows_enabled() != 0 }
}

/// Fires `trace_irqoff:hardirq_off`.
pub(crate) fn hardirq_off(e: &WindowEvent<'_>) {
    let frames = &e.frames[..e.frames.len().min(FRAMES)];
    // SAFETY: `comm` is COMM_LEN bytes; the tracepoint copies at most that many (strscpy
    // stops at the array end and always terminates its copy). `frames` holds `len()`
    // addresses, and the tracepoint reads at most that many.
    unsafe {
        raw::tio_trace_hardirq_off(
            e.cpu,
            e.latency_ns,
            e.pid,
            e.comm.as_ptr().cast::<c_char>(),
            e.cgroup_id,
            e.end_ns,
            e.seq,
            c_int::from(e.end_shows_culprit),
            e.together_ns,
            frames.as_ptr(),
            frames.len() as u32,
        )
    };
}

/// Fires `trace_irqoff:softirq_off`, once per window, when it ends.
pub(crate) fn softirq_off(e: &WindowEvent<'_>, cause: Cause) {
    let cause = match cause {
        Cause::BhOff => raw::TIO_CAUSE_BH_OFF,
        Cause::KsoftirqdWait => raw::TIO_CAUSE_KSOFTIRQD_WAIT,
    } as c_int;
    let frames = &e.frames[..e.frames.len().min(FRAMES)];
    // SAFETY: As in `hardirq_off`.
    unsafe {
        raw::tio_trace_softirq_off(
            e.cpu,
            e.latency_ns,
            e.pid,
            e.comm.as_ptr().cast::<c_char>(),
            e.cgroup_id,
            cause,
            e.end_ns,
            e.seq,
            c_int::from(e.end_shows_culprit),
            frames.as_ptr(),
            frames.len() as u32,
        )
    };
}

/// Fires `trace_irqoff:irqoff_ongoing`: a hardirq-off window on `cpu` still open.
pub(crate) fn irqoff_ongoing(
    cpu: u32,
    length_ns: u64,
    pid: i32,
    comm: &[u8; COMM_LEN],
    stuck: bool,
) {
    // SAFETY: As in `hardirq_off`.
    unsafe {
        raw::tio_trace_irqoff_ongoing(
            cpu,
            length_ns,
            pid,
            comm.as_ptr().cast::<c_char>(),
            c_int::from(stuck),
        )
    };
}

/// Fires `trace_irqoff:stall`: no sampled CPU ran from `start_ns` to `end_ns`; `cpu` ended
/// it.
pub(crate) fn stall(cpu: u32, start_ns: u64, end_ns: u64) {
    // SAFETY: Plain integers.
    unsafe { raw::tio_trace_stall(cpu, start_ns, end_ns) };
}
