// SPDX-License-Identifier: GPL-2.0

//! irqoff_sample: disables hard interrupts, bottom halves or preemption on purpose, so
//! that tests can check what trace_irqoff reports against a known window.
//!
//! Writing `MODE LENGTH` to `/dev/irqoff_sample` runs one window of LENGTH (`100` or
//! `100ms` for milliseconds, `500us` for microseconds) on the
//! CPU the writer runs on (pin it with `taskset`), in the writer's own context, so the
//! writer is the culprit trace_irqoff should name. `MODE` is `hardirq`, `softirq` or
//! `preempt`. `ipiwait CPU` instead keeps bottom halves off while waiting for CPU to run
//! an empty function (an IPI): one CPU delayed by another that has interrupts off. The true
//! length of each window, measured here, goes to the kernel log:
//!
//! ```text
//! # taskset -c 1 sh -c 'echo hardirq 100 > /dev/irqoff_sample'
//! irqoff_sample: hardirq window cpu=1 ns=100000731
//! ```
//!
//! Reading the device returns the last window's length in ns (for benchmarks, which write
//! and read on one descriptor).

use kernel::{
    fs::Kiocb,
    iov::{IovIterDest, IovIterSource},
    str::CString,
    sync::atomic::{Atomic, Relaxed},
    miscdevice::{MiscDevice, MiscDeviceOptions, MiscDeviceRegistration},
    prelude::*,
    time::{Instant, Monotonic},
};

#[allow(dead_code, missing_docs, non_camel_case_types, unreachable_pub, clippy::all)]
mod raw {
    include!("irqoff_sample_bindings.rs");
}

module! {
    type: IrqoffSample,
    name: "irqoff_sample",
    authors: ["trace_irqoff developers"],
    description: "Disables hardirqs, softirqs or preemption on request (test ground truth)",
    license: "GPL",
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
            _dev <- MiscDeviceRegistration::register(MiscDeviceOptions { name: c"irqoff_sample" }),
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
    /// Bottom halves off while waiting for another CPU to answer an IPI.
    IpiWait,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::Hardirq => "hardirq",
            Mode::Softirq => "softirq",
            Mode::Preempt => "preempt",
            Mode::IpiWait => "ipiwait",
        }
    }
}

/// Parses `MODE LENGTH`, or `ipiwait CPU`; returns the mode and the length in µs (the
/// CPU for `ipiwait`).
fn parse(cmd: &[u8]) -> Result<(Mode, u32)> {
    let text = core::str::from_utf8(cmd).map_err(|_| EINVAL)?.trim();
    let mut words = text.split_ascii_whitespace();
    if let Some(rest) = text.strip_prefix("ipiwait ") {
        let cpu: u32 = rest.trim().parse().map_err(|_| EINVAL)?;
        return Ok((Mode::IpiWait, cpu));
    }
    let mode = match words.next() {
        Some("hardirq") => Mode::Hardirq,
        Some("softirq") => Mode::Softirq,
        Some("preempt") => Mode::Preempt,
        _ => return Err(EINVAL),
    };
    let len = words.next().ok_or(EINVAL)?;
    let (digits, scale) = match len.strip_suffix("us") {
        Some(d) => (d, 1),
        None => (len.strip_suffix("ms").unwrap_or(len), 1000),
    };
    let n: u32 = digits.parse().map_err(|_| EINVAL)?;
    let us = n.checked_mul(scale).ok_or(EINVAL)?;
    if us == 0 || us > MAX_US || words.next().is_some() {
        return Err(EINVAL);
    }
    Ok((mode, us))
}

/// Spins for `us` µs of monotonic time. Not mdelay(): its loop calibration is unreliable
/// under emulation (it drifted by 2.5x with the host busy), the clock is not.
#[inline(never)]
fn busy_wait(us: u32) {
    let start = Instant::<Monotonic>::now();
    let length = kernel::time::Delta::from_micros(i64::from(us));
    while start.elapsed() < length {
        core::hint::spin_loop();
    }
}

/// Interrupts stay off for `us`; the timer interrupt that trace_irqoff waits for fires
/// inside `sample_irq_enable`, called from here.
///
/// Each window function measures its own length between disable and enable and returns it
/// in ns (the ground truth); `black_box` after the enable keeps the enable from being a
/// tail call, so this function is still on the stack when the pending interrupt fires.
#[no_mangle]
#[inline(never)]
fn irqoff_sample_hardirq_window(us: u32) -> i64 {
    // SAFETY: Paired with the enable below; nothing in between sleeps.
    unsafe { raw::sample_irq_disable() };
    let start = Instant::<Monotonic>::now();
    busy_wait(us);
    let ns = start.elapsed().as_nanos();
    // SAFETY: Interrupts were disabled above by this function.
    unsafe { raw::sample_irq_enable() };
    core::hint::black_box(ns)
}

/// Bottom halves stay off for `us`; pending softirqs run from `local_bh_enable` here.
#[no_mangle]
#[inline(never)]
fn irqoff_sample_softirq_window(us: u32) -> i64 {
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
fn irqoff_sample_preempt_window(us: u32) -> i64 {
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
fn irqoff_sample_ipi_wait(cpu: u32) -> Result<i64> {
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
        let (mode, us) = parse(&buf[..n])?;
        let ns = match mode {
            Mode::Hardirq => irqoff_sample_hardirq_window(us),
            Mode::Softirq => irqoff_sample_softirq_window(us),
            Mode::Preempt => irqoff_sample_preempt_window(us),
            Mode::IpiWait => irqoff_sample_ipi_wait(us)?,
        };
        LAST_NS.store(ns, Relaxed);
        // SAFETY: Reads the CPU number; no preconditions.
        let cpu = unsafe { raw::sample_this_cpu() };
        pr_info!("{} window cpu={} ns={}\n", mode.name(), cpu, ns);
        Ok(n)
    }
}
