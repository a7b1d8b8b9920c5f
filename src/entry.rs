// SPDX-License-Identifier: GPL-2.0

//! The functions the C shim calls (`#[no_mangle]`, prototypes in `shim.h`, and the tag-wait
//! hooks' in `tag_wait/hooks.h`), and the registration that makes them reach the module's
//! state.
//!
//! Every entry point finds the state through [`instance`], which is set only while the
//! callbacks that lead here are registered, and dispatches to safe code. Errors become
//! errnos here, at the C edge, and nowhere else.

use core::pin::Pin;

use kernel::ffi::{c_char, c_int, c_uint, c_ulong, c_ulonglong, c_void};
use kernel::prelude::*;
use kernel::seq_file::SeqFile;
use kernel::sync::atomic::{Acquire, Atomic, Release};
use kernel::sync::Arc;

use crate::ffi::{self, ProcDir};
use crate::procfs::{self, ProcFile};
use crate::sampler::CpuSampler;
use crate::state::State;
use crate::tag_wait;

/// Fails to compile unless each entry point `$f` has exactly the type bindgen gives its
/// prototype in `$m::raw` (from `shim.h`, or `tag_wait/hooks.h`; the `_` are inferred
/// from each side, then compared): the two sides cannot drift apart.
macro_rules! same_prototype {
    ($m:ident => $($f:ident($($arg:tt),*)),* $(,)?) => {
        $(const _: () = {
            let theirs: unsafe extern "C" fn($($arg),*) -> _ = $m::raw::$f;
            let ours: unsafe extern "C" fn($($arg),*) -> _ = $f;
            let _ = [theirs, ours];
        };)*
    };
}

same_prototype!(ffi =>
    trace_irqoff_rs_elements(_),
    trace_irqoff_rs_show(_, _, _),
    trace_irqoff_rs_write(_, _, _),
    trace_irqoff_rs_softirq_sample(_),
    trace_irqoff_rs_probe_ran(_),
    trace_irqoff_rs_cpu_online(_),
    trace_irqoff_rs_cpu_offline(_),
    trace_irqoff_rs_nmi(_, _),
    trace_irqoff_rs_name_frames(),
    trace_irqoff_rs_sleep(),
    trace_irqoff_rs_woken(),
    trace_irqoff_rs_tick(),
);
// The tag-wait feature's, declared in `tag_wait/hooks.h`.
same_prototype!(tag_wait =>
    trace_irqoff_rs_tag_wait(_, _, _, _, _),
    trace_irqoff_rs_tag_kick(_),
    trace_irqoff_rs_tag_prepare(_, _),
    trace_irqoff_rs_tag_done(_),
    trace_irqoff_rs_tag_wait_start(_, _),
    trace_irqoff_rs_tag_wait_end(_, _),
);

/// Address of the [`State`] that the C callbacks reach, 0 while there is none.
///
/// INVARIANT: non-zero only between [`Registration::new`] publishing a pinned, live `State`
/// and [`Registration`]'s `drop` removing every callback that could read it.
static INSTANCE: Atomic<usize> = Atomic::new(0);

fn instance() -> Option<&'static State> {
    let addr = INSTANCE.load(Acquire);
    if addr == 0 {
        return None;
    }
    // SAFETY: By the invariant of `INSTANCE`, a non-zero value is the address of a pinned
    // `State` that stays alive until every callback that can call this has been
    // unregistered and has returned (`proc_remove` waits for running file operations).
    Some(unsafe { &*(addr as *const State) })
}

fn sampler(cpu: c_uint) -> Option<&'static Arc<CpuSampler>> {
    instance()?.cpu(cpu)
}

/// Owns the state and the /proc files that reach it.
///
/// Drop order (fields drop in declaration order after `drop`): `drop` stops the samplers
/// and unpublishes the state once the files are gone; then `state` is freed.
pub(crate) struct Registration {
    /// The files; `None` only inside `drop`.
    proc: Option<ProcDir>,
    /// The namer's module notifier and work item; `None` only inside `drop`.
    namer: Option<ffi::Namer>,
    state: Pin<KBox<State>>,
}

impl Registration {
    pub(crate) fn new(state: Pin<KBox<State>>) -> Result<Self> {
        // INVARIANT: `state` is pinned in its box and lives as long as the registration,
        // whose `drop` clears `INSTANCE` before freeing it.
        INSTANCE.store(core::ptr::from_ref::<State>(&*state) as usize, Release);
        match ffi::Namer::register().and_then(|namer| Ok((namer, ProcDir::create()?))) {
            Ok((namer, proc)) => {
                // Its first pass learns the frame classes found by name, off the load.
                ffi::namer_kick();
                Ok(Self {
                    proc: Some(proc),
                    namer: Some(namer),
                    state,
                })
            }
            Err(e) => {
                INSTANCE.store(0, Release);
                Err(e)
            }
        }
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        // Removes the files and waits for running file operations.
        drop(self.proc.take());
        // Stops the samplers: no hotplug, hrtimer or timer_list callback runs after this,
        // so nothing kicks the namer any more.
        self.state.shutdown();
        // Removes the module notifier and waits for the namer's work item.
        drop(self.namer.take());
        INSTANCE.store(0, Release);
    }
}

fn errno(r: Result) -> c_int {
    match r {
        Ok(()) => 0,
        Err(e) => e.to_errno(),
    }
}

/// Number of elements of `file` (the shim's seq_file iterator), 0 without a state.
#[no_mangle]
pub(crate) extern "C" fn trace_irqoff_rs_elements(file: c_uint) -> c_ulong {
    match (instance(), ProcFile::from_id(file)) {
        (Some(state), Some(file)) => procfs::elements(state, file) as c_ulong,
        _ => 0,
    }
}

/// Called by the shim's seq_file `show` for element `index` of `file`.
///
/// # Safety
///
/// `seq` must be the live `struct seq_file` of the current show call, used by no one else
/// until this returns.
#[no_mangle]
pub(crate) unsafe extern "C" fn trace_irqoff_rs_show(
    file: c_uint,
    seq: *mut c_void,
    index: c_ulong,
) -> c_int {
    let (Some(state), Some(file)) = (instance(), ProcFile::from_id(file)) else {
        return ENODEV.to_errno();
    };
    // SAFETY: Guaranteed by this function's safety contract.
    let m = unsafe { SeqFile::from_raw(seq.cast()) };
    procfs::show(state, file, m, index);
    0
}

/// Called by the shim's `proc_write` with the bytes copied from user space.
///
/// # Safety
///
/// `buf` must point to `len` readable bytes that stay valid until this returns.
#[no_mangle]
pub(crate) unsafe extern "C" fn trace_irqoff_rs_write(
    file: c_uint,
    buf: *const c_char,
    len: c_ulong,
) -> c_int {
    let (Some(state), Some(file)) = (instance(), ProcFile::from_id(file)) else {
        return ENODEV.to_errno();
    };
    // SAFETY: Guaranteed by this function's safety contract.
    let bytes = unsafe { core::slice::from_raw_parts(buf.cast::<u8>(), len) };
    errno(procfs::write(state, file, bytes))
}

/// Timer_list expiry on `cpu` (softirq context); returns the next delay in jiffies, 0 to
/// stop.
#[no_mangle]
pub(crate) extern "C" fn trace_irqoff_rs_softirq_sample(cpu: c_uint) -> c_ulong {
    sampler(cpu).map_or(0, |s| s.soft_sample() as c_ulong)
}

/// The softirq probe of `cpu` ran (softirq context, on `cpu`).
#[no_mangle]
pub(crate) extern "C" fn trace_irqoff_rs_probe_ran(cpu: c_uint) {
    if let Some(s) = sampler(cpu) {
        s.probe_ran();
    }
}

/// The idle loop puts this CPU to sleep (the `power:cpu_idle` probe; hard interrupts off).
#[no_mangle]
pub(crate) extern "C" fn trace_irqoff_rs_sleep() {
    if let Some(s) = sampler(kernel::cpu::CpuId::current().as_u32()) {
        s.going_to_sleep();
    }
}

/// This CPU is back from the idle loop's wait, or in an interrupt's entry, before its
/// handler (hard interrupts off).
#[no_mangle]
pub(crate) extern "C" fn trace_irqoff_rs_woken() {
    if let Some(s) = sampler(kernel::cpu::CpuId::current().as_u32()) {
        s.woken();
    }
}

/// x86: this CPU's local timer interrupt, at its entry, before its handler and after
/// [`trace_irqoff_rs_woken`] (hard interrupts off): it takes the hrtimer's sample if one
/// is due.
#[no_mangle]
pub(crate) extern "C" fn trace_irqoff_rs_tick() {
    if let Some(s) = sampler(kernel::cpu::CpuId::current().as_u32()) {
        s.ticked();
    }
}

/// CPU hotplug: `cpu` is online (runs on `cpu`). Its state is made at its first online.
/// Never fails: an observer must not keep a CPU from coming online. Where its samplers
/// cannot be set up (no memory for its state, or the callback not on `cpu`), the CPU
/// comes online unsampled, and the `config` line's `unsampled` list names it.
#[no_mangle]
pub(crate) extern "C" fn trace_irqoff_rs_cpu_online(cpu: c_uint) -> c_int {
    let Some(state) = instance() else {
        return 0;
    };
    let here = kernel::cpu::CpuId::current().as_u32() == cpu;
    let made = if here {
        state.cpu_came_online(cpu).ok()
    } else {
        None
    };
    state.peers.set_unsampled(cpu, made.is_none());
    if let Some(s) = made {
        // Not selected (`cpus`): left alone, as if sampling were off there.
        if state.peers.selected(cpu) {
            CpuSampler::start(s);
        }
    }
    0
}

/// CPU hotplug: `cpu` goes offline, or sampling is disabled (runs on `cpu`).
#[no_mangle]
pub(crate) extern "C" fn trace_irqoff_rs_cpu_offline(cpu: c_uint) -> c_int {
    if let Some(s) = sampler(cpu) {
        s.stop();
    }
    0
}

/// Tag-wait hook (`tag_wait/hooks.h`): a submitter is about to sleep for a tag.
#[no_mangle]
pub(crate) extern "C" fn trace_irqoff_rs_tag_wait(
    dev: c_uint,
    hctx_id: c_uint,
    nr_tags: c_uint,
    is_sched: c_int,
    is_reserved: c_int,
) {
    if let Some(state) = instance() {
        state
            .tag_wait
            .on_wait(dev, hctx_id, nr_tags, is_sched != 0, is_reserved != 0);
    }
}

/// Tag-wait hook (kprobe source): a task kicked a hardware queue in blk_mq_get_tag.
///
/// # Safety
///
/// `kick` must point to a valid `struct tio_tag_kick` for the duration of the call.
#[no_mangle]
pub(crate) unsafe extern "C" fn trace_irqoff_rs_tag_kick(kick: *const tag_wait::raw::tio_tag_kick) {
    // SAFETY: Guaranteed by this function's safety contract.
    let Some(k) = (unsafe { kick.as_ref() }) else {
        return;
    };
    if let Some(state) = instance() {
        state.tag_wait.on_kick(k);
    }
}

/// Tag-wait hook (kprobe source): `task` is about to sleep on the pool at `bt`.
#[no_mangle]
pub(crate) extern "C" fn trace_irqoff_rs_tag_prepare(task: c_ulong, bt: c_ulong) {
    if let Some(state) = instance() {
        state.tag_wait.prepare(task as u64, bt as u64);
    }
}

/// Tag-wait hook (kprobe source): `task` passed sbitmap_finish_wait in blk_mq_get_tag.
#[no_mangle]
pub(crate) extern "C" fn trace_irqoff_rs_tag_done(task: c_ulong) {
    if let Some(state) = instance() {
        state.tag_wait.done(task as u64);
    }
}

/// Tag-wait hook: the wait whose `struct sbq_wait` is at `wait` begins.
#[no_mangle]
pub(crate) extern "C" fn trace_irqoff_rs_tag_wait_start(wait: c_ulong, now_ns: c_ulonglong) {
    if let Some(state) = instance() {
        state.tag_wait.start(wait as u64, now_ns);
    }
}

/// Tag-wait hook: the wait whose `struct sbq_wait` is at `wait` ends.
#[no_mangle]
pub(crate) extern "C" fn trace_irqoff_rs_tag_wait_end(wait: c_ulong, now_ns: c_ulonglong) {
    if let Some(state) = instance() {
        state.tag_wait.end(wait as u64, now_ns);
    }
}

/// An NMI on `cpu` that no other handler claimed (NMI context, on `cpu`), which
/// interrupted `ip`: non-zero if the module claims it (one per NMI it asked for). Never
/// waits for anything.
#[no_mangle]
pub(crate) extern "C" fn trace_irqoff_rs_nmi(cpu: c_uint, ip: c_ulong) -> c_int {
    instance().map_or(0, |state| {
        c_int::from(state.watch.nmi(&state.peers, cpu, ip as u64))
    })
}

/// The namer's pass: the work item [`ffi::namer_kick`] queued, or a module about to go
/// (process context).
#[no_mangle]
pub(crate) extern "C" fn trace_irqoff_rs_name_frames() {
    if let Some(state) = instance() {
        state.name_frames();
    }
}
