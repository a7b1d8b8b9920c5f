// SPDX-License-Identifier: GPL-2.0

//! The module's tracepoints (`trace_irqoff:*`, defined in `trace_irqoff_trace.h`), as safe
//! functions. A leaf: only the generated shim declarations.

use kernel::ffi::{c_char, c_int};

use crate::cause::Cause;
use crate::ffi::{raw, COMM_LEN};

/// Fires `trace_irqoff:hardirq_off`.
pub(crate) fn hardirq_off(cpu: u32, latency_ns: u64, pid: i32, comm: &[u8; COMM_LEN]) {
    // SAFETY: `comm` is COMM_LEN bytes; the tracepoint copies at most that many (strscpy
    // stops at the array end and always terminates its copy).
    unsafe { raw::tio_trace_hardirq_off(cpu, latency_ns, 0, pid, comm.as_ptr().cast::<c_char>()) };
}

/// Fires `trace_irqoff:softirq_off`, once per window, when it ends.
pub(crate) fn softirq_off(cpu: u32, latency_ns: u64, pid: i32, comm: &[u8; COMM_LEN], cause: Cause) {
    let cause = match cause {
        Cause::BhOff => raw::TIO_CAUSE_BH_OFF,
        Cause::KsoftirqdWait => raw::TIO_CAUSE_KSOFTIRQD_WAIT,
    } as c_int;
    // SAFETY: As in `hardirq_off`.
    unsafe { raw::tio_trace_softirq_off(cpu, latency_ns, 0, pid, comm.as_ptr().cast::<c_char>(), cause) };
}

/// Fires `trace_irqoff:irqoff_ongoing`: a hardirq-off window on `cpu` still open.
pub(crate) fn irqoff_ongoing(cpu: u32, length_ns: u64, pid: i32, comm: &[u8; COMM_LEN], stuck: bool) {
    // SAFETY: As in `hardirq_off`.
    unsafe { raw::tio_trace_irqoff_ongoing(cpu, length_ns, pid, comm.as_ptr().cast::<c_char>(), c_int::from(stuck)) };
}

/// Fires `trace_irqoff:block_rq_tag_wait`.
pub(crate) fn block_rq_tag_wait(dev: u32, hctx: u32, nr_tags: u32, sched: bool, reserved: bool) {
    // SAFETY: Plain integers.
    unsafe { raw::tio_trace_block_rq_tag_wait(dev, hctx, nr_tags, c_int::from(sched), c_int::from(reserved)) };
}
