// SPDX-License-Identifier: GPL-2.0

//! irqoff_sample: disables hard interrupts, bottom halves or preemption on purpose, so
//! that tests can check what trace_irqoff reports against a known window.
//!
//! Writing `MODE LENGTH` to `/dev/irqoff_sample` runs one window of LENGTH (`100` or
//! `100ms` for milliseconds, `500us` for microseconds) on the
//! CPU the writer runs on (pin it with `taskset`), in the writer's own context, so the
//! writer is the culprit trace_irqoff should name. `MODE` is `hardirq`, `softirq` or
//! `preempt`; `halves` is a hardirq window that spends its first half in
//! `irqoff_sample_first_half` and its second in `irqoff_sample_second_half`; `spin` holds
//! a lock on CPU 0 (a work item, interrupts on) for LENGTH, while the writer's CPU waits
//! for it with interrupts off in `irqoff_sample_spin_window` (write from another CPU).
//! `ipiwait CPU` instead keeps bottom halves off while waiting for CPU to run an empty
//! function (an IPI): one CPU delayed by another that has interrupts off.
//!
//! `MODE CPU LENGTH` opens the window in interrupt context on CPU instead, the way drivers
//! and timers do: `ipi` spins in an IPI function (hard interrupts off), `hrtimer` in a
//! pinned hard hrtimer callback (hard interrupts off), `irqwork` in a hard irq_work that an
//! IPI function queues on CPU (the irq_work interrupt: hard interrupts off), `timerirq` in
//! a pinned timer_list callback with interrupts off, `timer` in one with interrupts on (a
//! long softirq handler: every other softirq on CPU waits), `softhrtimer` in a pinned soft
//! hrtimer callback (the hrtimer softirq), `tasklet` in a tasklet that a pinned hard
//! hrtimer callback schedules on CPU (the tasklet softirq), `bhwork` in a work item of the
//! BH workqueue (`system_bh_wq`) queued on CPU (softirq context); the last four hold bottom
//! halves, with interrupts on. `hrtimerbh` spins in a pinned hard hrtimer callback whose
//! interrupt came into such a tasklet, which spins with interrupts on until the window is
//! over (`sample_tasklet_spin`): no code where that interrupt came in turned interrupts
//! on. (Where softirqs run in threads, PREEMPT_RT or `threadirqs`,
//! the softirq ones run in `ktimers/N` or `ksoftirqd/N`.) The writer waits for the window
//! and for its tasklet, work item, timer or irq_work to be idle again; its log line also
//! says the task that was current (`pid=`, 0 for the idle task) and the context the
//! window ran in (`hardirq`, `softirq`, `idle-task` when the idle task was current,
//! `irqs-off`). `stopmachine CPU LENGTH` spins in the function of a `stop_machine()` run
//! on CPU (`irqoff_sample_stop_window`): every online CPU has hard interrupts off at once,
//! the others in `multi_cpu_stop`.
//!
//! Two windows at once, on CPU and on the writer's CPU: `convoy CPU HOLD AFTER` is a lock
//! convoy (a work item on CPU holds the sample's lock with interrupts off for HOLD, in
//! `sample_hold_fn`; AFTER its start the writer spins for it with `spin_lock_irqsave` in
//! `irqoff_sample_convoy_window` until it is let go); `inside CPU OUTER AT INNER` opens a
//! hardirq window of INNER on the writer's CPU AT after a work item on CPU took interrupts
//! off for OUTER (`irqoff_sample_inside_window` inside `sample_hold_fn`). Their log line
//! gives both lengths (`ns=` here, `other_ns=` on CPU).
//!
//! The true length of each window, measured here, goes to the kernel log:
//!
//! ```text
//! # taskset -c 1 sh -c 'echo hardirq 100 > /dev/irqoff_sample'
//! irqoff_sample: hardirq window cpu=1 ns=100000731
//! ```
//!
//! Reading the device returns the last window's length in ns (for benchmarks, which write
//! and read on one descriptor).

use core::ffi::c_void;
use kernel::{
    fs::Kiocb,
    iov::{IovIterDest, IovIterSource},
    miscdevice::{MiscDevice, MiscDeviceOptions, MiscDeviceRegistration},
    prelude::*,
    str::CString,
    sync::atomic::{Atomic, Relaxed},
    time::{Instant, Monotonic},
};

#[allow(
    dead_code,
    missing_docs,
    non_camel_case_types,
    unreachable_pub,
    clippy::all
)]
mod raw {
    include!("irqoff_sample_bindings.rs");
}

#[cfg(not(irqoff_sample_big))]
module! {
    type: IrqoffSample,
    name: "irqoff_sample",
    authors: ["trace_irqoff developers"],
    description: "Disables hardirqs, softirqs or preemption on request (test ground truth)",
    license: "GPL",
}

// The same sample in a module with 20 000 more symbols (samples/Kbuild): its windows end
// in a module whose symbol table is as large as a big driver's.
#[cfg(irqoff_sample_big)]
module! {
    type: IrqoffSample,
    name: "irqoff_sample_big",
    authors: ["trace_irqoff developers"],
    description: "irqoff_sample in a module of 20000 more symbols (test ground truth)",
    license: "GPL",
}

/// The misc device: `/dev/irqoff_sample`, or `/dev/irqoff_sample_big`.
#[cfg(not(irqoff_sample_big))]
const DEVICE: &CStr = c"irqoff_sample";
#[cfg(irqoff_sample_big)]
const DEVICE: &CStr = c"irqoff_sample_big";

/// Generated functions that only fill the module's symbol table (samples/Kbuild).
#[cfg(irqoff_sample_big)]
#[allow(missing_docs, unreachable_pub, clippy::all)]
mod filler {
    include!("irqoff_sample_filler.rs");
}

/// Longest window accepted, so a typo cannot lock up a CPU for minutes.
const MAX_US: u32 = 5_000_000;

#[pin_data]
struct IrqoffSample {
    #[pin]
    _dev: MiscDeviceRegistration<SampleDevice>,
}

impl kernel::InPlaceModule for IrqoffSample {
    fn init(_module: &'static ThisModule) -> impl PinInit<Self, Error> {
        try_pin_init!(Self {
            _dev <- MiscDeviceRegistration::register(MiscDeviceOptions { name: DEVICE }),
        })
    }
}

struct SampleDevice;

/// Length of the last window, ns.
static LAST_NS: Atomic<i64> = Atomic::new(0);

#[derive(Clone, Copy)]
enum Mode {
    Hardirq,
    Softirq,
    Preempt,
    Halves,
    Spin,
    /// Bottom halves off while waiting for another CPU to answer an IPI.
    IpiWait,
    /// Spins in an IPI function on another CPU.
    Ipi,
    /// Spins in a pinned hard hrtimer callback on another CPU.
    Hrtimer,
    /// Spins in a pinned hard hrtimer callback on another CPU whose interrupt came into a
    /// tasklet that runs with interrupts on.
    HrtimerInBh,
    /// Spins with interrupts off in a pinned timer_list callback.
    TimerIrq,
    /// Spins with interrupts on in a pinned timer_list callback.
    Timer,
    /// Spins in a tasklet scheduled on another CPU.
    Tasklet,
    /// Spins in a BH workqueue item queued on another CPU.
    BhWork,
    /// Spins in a pinned soft hrtimer callback on another CPU.
    SoftHrtimer,
    /// Spins in a hard irq_work raised on another CPU.
    IrqWork,
    /// Spins in the function of a `stop_machine()` on another CPU: every CPU has
    /// interrupts off, the others in `multi_cpu_stop`.
    StopMachine,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::Hardirq => "hardirq",
            Mode::Softirq => "softirq",
            Mode::Preempt => "preempt",
            Mode::Halves => "halves",
            Mode::Spin => "spin",
            Mode::IpiWait => "ipiwait",
            Mode::Ipi => "ipi",
            Mode::Hrtimer => "hrtimer",
            Mode::HrtimerInBh => "hrtimerbh",
            Mode::TimerIrq => "timerirq",
            Mode::Timer => "timer",
            Mode::Tasklet => "tasklet",
            Mode::BhWork => "bhwork",
            Mode::SoftHrtimer => "softhrtimer",
            Mode::IrqWork => "irqwork",
            Mode::StopMachine => "stopmachine",
        }
    }

    /// Whether the mode opens its window in interrupt context on a CPU it is given.
    fn on_cpu(self) -> bool {
        matches!(
            self,
            Mode::Ipi
                | Mode::Hrtimer
                | Mode::HrtimerInBh
                | Mode::TimerIrq
                | Mode::Timer
                | Mode::Tasklet
                | Mode::BhWork
                | Mode::SoftHrtimer
                | Mode::IrqWork
                | Mode::StopMachine
        )
    }
}

/// Parses `MODE LENGTH`, `MODE CPU LENGTH` (the interrupt-context modes) or
/// `ipiwait CPU`; returns the mode, the length in µs (the CPU for `ipiwait`) and the CPU
/// (0 where the mode takes none).
fn parse(cmd: &[u8]) -> Result<(Mode, u32, u32)> {
    let text = core::str::from_utf8(cmd).map_err(|_| EINVAL)?.trim();
    let mut words = text.split_ascii_whitespace();
    if let Some(rest) = text.strip_prefix("ipiwait ") {
        let cpu: u32 = rest.trim().parse().map_err(|_| EINVAL)?;
        return Ok((Mode::IpiWait, cpu, 0));
    }
    let mode = match words.next() {
        Some("hardirq") => Mode::Hardirq,
        Some("softirq") => Mode::Softirq,
        Some("preempt") => Mode::Preempt,
        Some("halves") => Mode::Halves,
        Some("spin") => Mode::Spin,
        Some("ipi") => Mode::Ipi,
        Some("hrtimer") => Mode::Hrtimer,
        Some("hrtimerbh") => Mode::HrtimerInBh,
        Some("timerirq") => Mode::TimerIrq,
        Some("timer") => Mode::Timer,
        Some("tasklet") => Mode::Tasklet,
        Some("bhwork") => Mode::BhWork,
        Some("softhrtimer") => Mode::SoftHrtimer,
        Some("irqwork") => Mode::IrqWork,
        Some("stopmachine") => Mode::StopMachine,
        _ => return Err(EINVAL),
    };
    let cpu: u32 = if mode.on_cpu() {
        words.next().ok_or(EINVAL)?.parse().map_err(|_| EINVAL)?
    } else {
        0
    };
    let us = length_us(words.next().ok_or(EINVAL)?)?;
    if words.next().is_some() {
        return Err(EINVAL);
    }
    Ok((mode, us, cpu))
}

/// A length word: `150` or `150ms` (milliseconds), `500us`; at least 1 µs, at most
/// `MAX_US`.
fn length_us(word: &str) -> Result<u32> {
    let (digits, scale) = match word.strip_suffix("us") {
        Some(d) => (d, 1),
        None => (word.strip_suffix("ms").unwrap_or(word), 1000),
    };
    let n: u32 = digits.parse().map_err(|_| EINVAL)?;
    let us = n.checked_mul(scale).ok_or(EINVAL)?;
    if us == 0 || us > MAX_US {
        return Err(EINVAL);
    }
    Ok(us)
}

/// Two windows at once, one on another CPU (`cpu`) and one here, pinned by the writer.
#[derive(Clone, Copy)]
enum Pair {
    /// `convoy CPU HOLD AFTER`: a work item on `cpu` holds the sample's lock with
    /// interrupts off for `hold` (`sample_hold_fn`); from `after` on, this CPU spins for
    /// it with `spin_lock_irqsave` until it is let go.
    Convoy { cpu: u32, hold: u32, after: u32 },
    /// `inside CPU OUTER AT INNER`: a work item on `cpu` has interrupts off for `outer`
    /// (holding the lock nobody else wants); `at` after its start this CPU has them off
    /// for `inner`, inside it.
    Inside {
        cpu: u32,
        outer: u32,
        at: u32,
        inner: u32,
    },
}

/// Parses `convoy CPU HOLD AFTER` or `inside CPU OUTER AT INNER` (lengths as
/// [`length_us`]); `None` for any other command.
fn parse_pair(cmd: &[u8]) -> Option<Result<Pair>> {
    let text = core::str::from_utf8(cmd).ok()?.trim();
    let mut words = text.split_ascii_whitespace();
    let head = words.next()?;
    if head != "convoy" && head != "inside" {
        return None;
    }
    let mut parse = || -> Result<Pair> {
        let cpu: u32 = words.next().ok_or(EINVAL)?.parse().map_err(|_| EINVAL)?;
        let mut next = || length_us(words.next().ok_or(EINVAL)?);
        let pair = if head == "convoy" {
            Pair::Convoy {
                cpu,
                hold: next()?,
                after: next()?,
            }
        } else {
            Pair::Inside {
                cpu,
                outer: next()?,
                at: next()?,
                inner: next()?,
            }
        };
        if words.next().is_some() {
            return Err(EINVAL);
        }
        Ok(pair)
    };
    Some(parse())
}

/// Spins for `us` µs of monotonic time. Not mdelay(): its loop calibration is unreliable
/// under emulation (it drifted by 2.5x with the host busy), the clock is not.
#[cfg(not(target_arch = "aarch64"))]
#[inline(never)]
fn busy_wait(us: u32) {
    let start = Instant::<Monotonic>::now();
    let length = kernel::time::Delta::from_micros(i64::from(us));
    while start.elapsed() < length {
        cpu_relax();
    }
}

/// arm64: as above, but the clock is called through a pointer. A direct call from a module
/// goes through a PLT veneer when the module lies beyond branch range of the kernel
/// (Debian's `RANDOMIZE_MODULE_REGION_FULL`), and kallsyms names a veneer after the
/// function laid out before it (`cleanup_module+0x234`): an in-window sample taken there
/// named that as the culprit. An indirect call needs no veneer.
#[cfg(target_arch = "aarch64")]
#[inline(never)]
fn busy_wait(us: u32) {
    let clock: unsafe extern "C" fn() -> kernel::bindings::ktime_t =
        core::hint::black_box(kernel::bindings::ktime_get);
    // SAFETY: `ktime_get()` may be called in any context but NMI; this is not one.
    let end = unsafe { clock() } + i64::from(us) * 1000;
    // SAFETY: As above.
    while unsafe { clock() } < end {
        cpu_relax();
    }
}

/// What the kernel's `cpu_relax()` runs between polls, inline (no frame of its own above the
/// window's function): YIELD on arm64. Not `core::hint::spin_loop()` there: that is an ISB,
/// which QEMU's single-threaded TCG never leaves for its other vCPUs, so an idle CPU's timer
/// interrupt waited for the end of the window (seen: idle CPU 0's hrtimer 100 ms late on
/// debian-7.3-arm64, and the window taken for a stall of the whole machine). YIELD hands
/// the emulator's thread over, as PAUSE (`spin_loop()` on x86) does.
#[inline(always)]
fn cpu_relax() {
    #[cfg(target_arch = "aarch64")]
    // SAFETY: YIELD is a hint: it reads and writes no memory or register.
    unsafe {
        core::arch::asm!("yield", options(nomem, nostack, preserves_flags))
    };
    #[cfg(not(target_arch = "aarch64"))]
    core::hint::spin_loop();
}

/// Interrupts stay off for `us`; the timer interrupt that trace_irqoff waits for fires
/// inside `sample_irq_enable`, called from here.
///
/// Each window function measures its own length between disable and enable and returns it
/// in ns (the ground truth); `black_box` after the enable keeps the enable from being a
/// tail call, so this function is still on the stack when the pending interrupt fires.
#[no_mangle]
#[inline(never)]
extern "Rust" fn irqoff_sample_hardirq_window(us: u32) -> i64 {
    // SAFETY: Paired with the enable below; nothing in between sleeps.
    unsafe { raw::sample_irq_disable() };
    let start = Instant::<Monotonic>::now();
    busy_wait(us);
    let ns = start.elapsed().as_nanos();
    // SAFETY: Interrupts were disabled above by this function.
    unsafe { raw::sample_irq_enable() };
    core::hint::black_box(ns)
}

/// Which half of a `halves` window runs: a side effect that differs between the two, so
/// that the compiler cannot fold them into one function (it did, when both bodies were
/// the same, and both halves then carried the first one's name).
static PHASE: Atomic<u32> = Atomic::new(0);

/// The first half of a `halves` window.
#[no_mangle]
#[inline(never)]
extern "Rust" fn irqoff_sample_first_half(us: u32) {
    PHASE.store(1, Relaxed);
    busy_wait(us);
    core::hint::black_box(());
}

/// The second half of a `halves` window.
#[no_mangle]
#[inline(never)]
extern "Rust" fn irqoff_sample_second_half(us: u32) {
    PHASE.store(2, Relaxed);
    busy_wait(us);
    PHASE.store(0, Relaxed);
}

/// Interrupts stay off for `us`: the first half in one function, the second in another.
#[no_mangle]
#[inline(never)]
extern "Rust" fn irqoff_sample_halves_window(us: u32) -> i64 {
    // SAFETY: Paired with the enable below; nothing in between sleeps.
    unsafe { raw::sample_irq_disable() };
    let start = Instant::<Monotonic>::now();
    irqoff_sample_first_half(us / 2);
    irqoff_sample_second_half(us - us / 2);
    let ns = start.elapsed().as_nanos();
    // SAFETY: Interrupts were disabled above by this function.
    unsafe { raw::sample_irq_enable() };
    core::hint::black_box(ns)
}

/// CPU 0 holds a lock for `us` with interrupts on; this CPU waits for it with interrupts
/// off: the window is the spin.
#[no_mangle]
#[inline(never)]
extern "Rust" fn irqoff_sample_spin_window(us: u32) -> Result<i64> {
    // SAFETY: No preconditions; returns once the holder has the lock.
    kernel::error::to_result(unsafe { raw::sample_hold_start(0, us, 0) })?;
    // SAFETY: Paired with the enable below; the lock is taken and released in between,
    // and its holder runs on another CPU with interrupts on.
    unsafe { raw::sample_irq_disable() };
    let start = Instant::<Monotonic>::now();
    // SAFETY: The lock is released below, before interrupts come back on.
    unsafe { raw::sample_lock() };
    // SAFETY: Taken just above.
    unsafe { raw::sample_unlock() };
    let ns = start.elapsed().as_nanos();
    // SAFETY: Interrupts were disabled above by this function.
    unsafe { raw::sample_irq_enable() };
    // SAFETY: No preconditions; waits for the holder's work item to return.
    unsafe { raw::sample_hold_wait() };
    Ok(core::hint::black_box(ns))
}

/// A lock convoy: a work item on `cpu` holds the sample's lock with interrupts off for
/// `hold` µs; from `after` µs on, this CPU spins for it with `spin_lock_irqsave`, its
/// window, which ends in the unlock here. Returns this CPU's window and the holder's, ns.
#[no_mangle]
#[inline(never)]
extern "Rust" fn irqoff_sample_convoy_window(
    cpu: u32,
    hold: u32,
    after: u32,
) -> Result<(i64, i64)> {
    // SAFETY: No preconditions; returns once the holder has the lock.
    kernel::error::to_result(unsafe { raw::sample_hold_start(cpu, hold, 1) })?;
    busy_wait(after);
    // Interrupts off before the clock starts, so that no interrupt between the two makes
    // the measured window longer than the one the sampler can see; the spin itself is
    // `spin_lock_irqsave`'s, which saves them off.
    // SAFETY: Paired with the enable below; nothing in between sleeps.
    unsafe { raw::sample_irq_disable() };
    let start = Instant::<Monotonic>::now();
    // SAFETY: Released right below, with the flags it returned; the holder lets go after
    // `hold` µs, on another CPU.
    let flags = unsafe { raw::sample_lock_irqsave() };
    // SAFETY: Taken just above, with these flags.
    unsafe { raw::sample_unlock_irqrestore(flags) };
    let ns = start.elapsed().as_nanos();
    // SAFETY: Interrupts were disabled above by this function.
    unsafe { raw::sample_irq_enable() };
    // SAFETY: No preconditions; waits for the holder's work item to return.
    unsafe { raw::sample_hold_wait() };
    // SAFETY: No preconditions; the holder has returned.
    let held = unsafe { raw::sample_hold_ns() };
    Ok(core::hint::black_box((ns, held)))
}

/// A window inside another CPU's: a work item on `cpu` has interrupts off for `outer` µs
/// (`sample_hold_fn`, holding the lock that nobody else wants), and `at` µs after it took
/// it this CPU has them off for `inner` µs (`irqoff_sample_hardirq_window`). Returns this
/// CPU's window and the other's, ns.
#[no_mangle]
#[inline(never)]
extern "Rust" fn irqoff_sample_inside_window(
    cpu: u32,
    outer: u32,
    at: u32,
    inner: u32,
) -> Result<(i64, i64)> {
    // SAFETY: No preconditions; returns once the holder has the lock.
    kernel::error::to_result(unsafe { raw::sample_hold_start(cpu, outer, 1) })?;
    busy_wait(at);
    let ns = irqoff_sample_hardirq_window(inner);
    // SAFETY: No preconditions; waits for the holder's work item to return.
    unsafe { raw::sample_hold_wait() };
    // SAFETY: No preconditions; the holder has returned.
    let held = unsafe { raw::sample_hold_ns() };
    Ok(core::hint::black_box((ns, held)))
}

/// Bottom halves stay off for `us`; pending softirqs run from `local_bh_enable` here.
#[no_mangle]
#[inline(never)]
extern "Rust" fn irqoff_sample_softirq_window(us: u32) -> i64 {
    // SAFETY: Paired with the enable below; nothing in between sleeps.
    unsafe { raw::sample_bh_disable() };
    let start = Instant::<Monotonic>::now();
    busy_wait(us);
    let ns = start.elapsed().as_nanos();
    // SAFETY: Bottom halves were disabled above by this function.
    unsafe { raw::sample_bh_enable() };
    core::hint::black_box(ns)
}

/// Preemption stays off for `us`: neither hardirqs nor softirqs are blocked, so
/// trace_irqoff must report nothing for this window (a negative control).
#[no_mangle]
#[inline(never)]
extern "Rust" fn irqoff_sample_preempt_window(us: u32) -> i64 {
    // SAFETY: Paired with the enable below; nothing in between sleeps.
    unsafe { raw::sample_preempt_disable() };
    let start = Instant::<Monotonic>::now();
    busy_wait(us);
    let ns = start.elapsed().as_nanos();
    // SAFETY: Preemption was disabled above by this function.
    unsafe { raw::sample_preempt_enable() };
    core::hint::black_box(ns)
}

/// Bottom halves stay off while this CPU waits for `cpu` to run a function for it (an
/// IPI, as a TLB flush or text patching would send): if `cpu` has interrupts off, this
/// CPU's softirqs wait just as long. One CPU delaying another, on purpose.
#[no_mangle]
#[inline(never)]
extern "Rust" fn irqoff_sample_ipi_wait(cpu: u32) -> Result<i64> {
    // SAFETY: Paired with the enable below; the wait in between spins, it never sleeps.
    unsafe { raw::sample_bh_disable() };
    let start = Instant::<Monotonic>::now();
    // SAFETY: Bottom halves off, interrupts on: smp_call_function_single may wait here.
    let ret = unsafe { raw::sample_call_on(cpu) };
    let ns = start.elapsed().as_nanos();
    // SAFETY: Bottom halves were disabled above by this function.
    unsafe { raw::sample_bh_enable() };
    kernel::error::to_result(ret)?;
    Ok(core::hint::black_box(ns))
}

/// What an interrupt-context window gets from the writer and hands back: its length in
/// µs; the CPU it ran on, its true length in ns, `raw::sample_context()` there and the
/// pid of the task that was current (0: the idle task; where softirqs run in threads,
/// the thread that ran the window).
#[repr(C)]
struct IrqWindow {
    us: u32,
    cpu: u32,
    ns: i64,
    context: u32,
    pid: i32,
}

/// Which interrupt-context window ran last: a side effect that differs between the
/// callbacks, so that the compiler cannot fold them into one function (see `PHASE`).
static IRQ_KIND: Atomic<u32> = Atomic::new(0);

/// The body of the interrupt-context windows, inlined into each callback so that the
/// callback is the frame that spins (below `busy_wait`).
#[inline(always)]
fn irq_window(w: &mut IrqWindow, irqs_off: bool) {
    if irqs_off {
        // SAFETY: Paired with the enable below; nothing in between sleeps.
        unsafe { raw::sample_irq_disable() };
    }
    // SAFETY: No preconditions; reads the context of the running code.
    w.context = unsafe { raw::sample_context() };
    // SAFETY: No preconditions; reads the pid of the task that is current.
    w.pid = unsafe { raw::sample_current_pid() };
    let start = Instant::<Monotonic>::now();
    busy_wait(w.us);
    w.ns = start.elapsed().as_nanos();
    if irqs_off {
        // SAFETY: Interrupts were disabled above by this function.
        unsafe { raw::sample_irq_enable() };
    }
    // After the enable, so that it is not a tail call: the interrupt that comes in right
    // after it must find the callback's frame on the stack, as in a real driver.
    // SAFETY: Reads the CPU number; no preconditions.
    w.cpu = unsafe { raw::sample_this_cpu() };
}

/// Spins in an IPI function (hard interrupt context, interrupts off).
///
/// # Safety
///
/// `arg` points to an `IrqWindow` that nothing else accesses until this returns.
#[no_mangle]
#[inline(never)]
unsafe extern "C" fn irqoff_sample_ipi_window(arg: *mut c_void) {
    IRQ_KIND.store(1, Relaxed);
    // SAFETY: The caller guarantees `arg` is a valid, unshared `IrqWindow`.
    irq_window(unsafe { &mut *arg.cast::<IrqWindow>() }, false);
}

/// Spins as the function of a `stop_machine()` (its stopper thread, interrupts off on
/// every CPU).
///
/// # Safety
///
/// `arg` points to an `IrqWindow` that nothing else accesses until this returns.
#[no_mangle]
#[inline(never)]
unsafe extern "C" fn irqoff_sample_stop_window(arg: *mut c_void) {
    IRQ_KIND.store(9, Relaxed);
    // SAFETY: The caller guarantees `arg` is a valid, unshared `IrqWindow`.
    irq_window(unsafe { &mut *arg.cast::<IrqWindow>() }, false);
}

/// Spins in a pinned hard hrtimer callback (hard interrupt context, interrupts off).
///
/// # Safety
///
/// `arg` points to an `IrqWindow` that nothing else accesses until this returns.
#[no_mangle]
#[inline(never)]
unsafe extern "C" fn irqoff_sample_hrtimer_window(arg: *mut c_void) {
    IRQ_KIND.store(2, Relaxed);
    // SAFETY: The caller guarantees `arg` is a valid, unshared `IrqWindow`.
    irq_window(unsafe { &mut *arg.cast::<IrqWindow>() }, false);
}

/// Spins with interrupts off in a pinned timer_list callback (the timer softirq).
///
/// # Safety
///
/// `arg` points to an `IrqWindow` that nothing else accesses until this returns.
#[no_mangle]
#[inline(never)]
unsafe extern "C" fn irqoff_sample_timer_irqoff_window(arg: *mut c_void) {
    IRQ_KIND.store(3, Relaxed);
    // SAFETY: The caller guarantees `arg` is a valid, unshared `IrqWindow`.
    irq_window(unsafe { &mut *arg.cast::<IrqWindow>() }, true);
}

/// Spins with interrupts on in a pinned timer_list callback: a long softirq handler.
///
/// # Safety
///
/// `arg` points to an `IrqWindow` that nothing else accesses until this returns.
#[no_mangle]
#[inline(never)]
unsafe extern "C" fn irqoff_sample_timer_window(arg: *mut c_void) {
    IRQ_KIND.store(4, Relaxed);
    // SAFETY: The caller guarantees `arg` is a valid, unshared `IrqWindow`.
    irq_window(unsafe { &mut *arg.cast::<IrqWindow>() }, false);
}

/// Spins in a tasklet (the tasklet softirq, interrupts on).
///
/// # Safety
///
/// `arg` points to an `IrqWindow` that nothing else accesses until this returns.
#[no_mangle]
#[inline(never)]
unsafe extern "C" fn irqoff_sample_tasklet_window(arg: *mut c_void) {
    IRQ_KIND.store(5, Relaxed);
    // SAFETY: The caller guarantees `arg` is a valid, unshared `IrqWindow`.
    irq_window(unsafe { &mut *arg.cast::<IrqWindow>() }, false);
}

/// Spins in a work item of the BH workqueue (softirq context, interrupts on).
///
/// # Safety
///
/// `arg` points to an `IrqWindow` that nothing else accesses until this returns.
#[no_mangle]
#[inline(never)]
unsafe extern "C" fn irqoff_sample_bhwork_window(arg: *mut c_void) {
    IRQ_KIND.store(6, Relaxed);
    // SAFETY: The caller guarantees `arg` is a valid, unshared `IrqWindow`.
    irq_window(unsafe { &mut *arg.cast::<IrqWindow>() }, false);
}

/// Spins in a pinned soft hrtimer callback (the hrtimer softirq, interrupts on).
///
/// # Safety
///
/// `arg` points to an `IrqWindow` that nothing else accesses until this returns.
#[no_mangle]
#[inline(never)]
unsafe extern "C" fn irqoff_sample_softhrtimer_window(arg: *mut c_void) {
    IRQ_KIND.store(7, Relaxed);
    // SAFETY: The caller guarantees `arg` is a valid, unshared `IrqWindow`.
    irq_window(unsafe { &mut *arg.cast::<IrqWindow>() }, false);
}

/// Spins in a hard irq_work (the irq_work interrupt, interrupts off).
///
/// # Safety
///
/// `arg` points to an `IrqWindow` that nothing else accesses until this returns.
#[no_mangle]
#[inline(never)]
unsafe extern "C" fn irqoff_sample_irqwork_window(arg: *mut c_void) {
    IRQ_KIND.store(8, Relaxed);
    // SAFETY: The caller guarantees `arg` is a valid, unshared `IrqWindow`.
    irq_window(unsafe { &mut *arg.cast::<IrqWindow>() }, false);
}

/// Opens a window of `us` in interrupt context on `cpu` and waits for it.
fn irq_context_window(mode: Mode, cpu: u32, us: u32) -> Result<IrqWindow> {
    let (how, callback): (u32, unsafe extern "C" fn(*mut c_void)) = match mode {
        Mode::Ipi => (raw::SAMPLE_RUN_IPI, irqoff_sample_ipi_window),
        Mode::Hrtimer => (raw::SAMPLE_RUN_HRTIMER, irqoff_sample_hrtimer_window),
        Mode::HrtimerInBh => (raw::SAMPLE_RUN_HRTIMER_IN_BH, irqoff_sample_hrtimer_window),
        Mode::TimerIrq => (raw::SAMPLE_RUN_TIMER, irqoff_sample_timer_irqoff_window),
        Mode::Timer => (raw::SAMPLE_RUN_TIMER, irqoff_sample_timer_window),
        Mode::Tasklet => (raw::SAMPLE_RUN_TASKLET, irqoff_sample_tasklet_window),
        Mode::BhWork => (raw::SAMPLE_RUN_BHWORK, irqoff_sample_bhwork_window),
        Mode::SoftHrtimer => (
            raw::SAMPLE_RUN_SOFTHRTIMER,
            irqoff_sample_softhrtimer_window,
        ),
        Mode::IrqWork => (raw::SAMPLE_RUN_IRQWORK, irqoff_sample_irqwork_window),
        Mode::StopMachine => (raw::SAMPLE_RUN_STOP_MACHINE, irqoff_sample_stop_window),
        _ => return Err(EINVAL),
    };
    let mut w = IrqWindow {
        us,
        cpu: 0,
        ns: 0,
        context: 0,
        pid: 0,
    };
    // SAFETY: `w` outlives the call: sample_run_on returns only once the callback has
    // returned (or never ran), and nothing else touches `w` meanwhile.
    let ret =
        unsafe { raw::sample_run_on(cpu, how, Some(callback), core::ptr::from_mut(&mut w).cast()) };
    kernel::error::to_result(ret)?;
    Ok(w)
}

/// The context bits of `raw::sample_context()` as words for the log line.
fn context_words(context: u32) -> [&'static str; 4] {
    let word = |bit: u32, name: &'static str| if context & bit != 0 { name } else { "" };
    [
        word(raw::SAMPLE_CTX_HARDIRQ, " hardirq"),
        word(raw::SAMPLE_CTX_SOFTIRQ, " softirq"),
        word(raw::SAMPLE_CTX_IDLE_TASK, " idle-task"),
        word(raw::SAMPLE_CTX_IRQS_OFF, " irqs-off"),
    ]
}

#[vtable]
impl MiscDevice for SampleDevice {
    type Ptr = ();

    fn open(_file: &kernel::fs::File, _misc: &MiscDeviceRegistration<Self>) -> Result<()> {
        Ok(())
    }

    fn read_iter(mut kiocb: Kiocb<'_, ()>, iov: &mut IovIterDest<'_>) -> Result<usize> {
        let text = CString::try_from_fmt(fmt!("{}\n", LAST_NS.load(Relaxed)))?;
        iov.simple_read_from_buffer(kiocb.ki_pos_mut(), text.to_bytes())
    }

    fn write_iter(_kiocb: Kiocb<'_, ()>, iov: &mut IovIterSource<'_>) -> Result<usize> {
        let mut buf = [0u8; 32];
        let len = iov.len();
        if len > buf.len() {
            return Err(EINVAL);
        }
        let n = iov.copy_from_iter(&mut buf[..len]);
        if let Some(pair) = parse_pair(&buf[..n]) {
            let (name, cpu, (ns, other_ns)) = match pair? {
                Pair::Convoy { cpu, hold, after } => (
                    "convoy",
                    cpu,
                    irqoff_sample_convoy_window(cpu, hold, after)?,
                ),
                Pair::Inside {
                    cpu,
                    outer,
                    at,
                    inner,
                } => (
                    "inside",
                    cpu,
                    irqoff_sample_inside_window(cpu, outer, at, inner)?,
                ),
            };
            LAST_NS.store(ns, Relaxed);
            // SAFETY: Reads the CPU number; no preconditions.
            let here = unsafe { raw::sample_this_cpu() };
            pr_info!(
                "{} window cpu={} ns={} other_cpu={} other_ns={}\n",
                name,
                here,
                ns,
                cpu,
                other_ns
            );
            return Ok(n);
        }
        let (mode, us, cpu) = parse(&buf[..n])?;
        if mode.on_cpu() {
            let w = irq_context_window(mode, cpu, us)?;
            LAST_NS.store(w.ns, Relaxed);
            let [a, b, c, d] = context_words(w.context);
            pr_info!(
                "{} window cpu={} ns={} pid={} context:{}{}{}{}\n",
                mode.name(),
                w.cpu,
                w.ns,
                w.pid,
                a,
                b,
                c,
                d
            );
            return Ok(n);
        }
        let ns = match mode {
            Mode::Hardirq => irqoff_sample_hardirq_window(us),
            Mode::Softirq => irqoff_sample_softirq_window(us),
            Mode::Preempt => irqoff_sample_preempt_window(us),
            Mode::Halves => irqoff_sample_halves_window(us),
            Mode::Spin => irqoff_sample_spin_window(us)?,
            Mode::IpiWait => irqoff_sample_ipi_wait(us)?,
            _ => return Err(EINVAL),
        };
        LAST_NS.store(ns, Relaxed);
        // SAFETY: Reads the CPU number; no preconditions.
        let cpu = unsafe { raw::sample_this_cpu() };
        pr_info!("{} window cpu={} ns={}\n", mode.name(), cpu, ns);
        Ok(n)
    }
}
