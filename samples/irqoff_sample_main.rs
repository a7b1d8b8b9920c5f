// SPDX-License-Identifier: GPL-2.0

//! irqoff_sample: disables hard interrupts, bottom halves or preemption on purpose, so
//! that tests can check what trace_irqoff reports against a known window.
//!
//! Writing `MODE MS` to `/dev/irqoff_sample` runs one window of `MS` milliseconds on the
//! CPU the writer runs on (pin it with `taskset`), in the writer's own context, so the
//! writer is the culprit trace_irqoff should name. `MODE` is `hardirq`, `softirq` or
//! `preempt`. The true length of each window, measured here, goes to the kernel log:
//!
//! ```text
//! # taskset -c 1 sh -c 'echo hardirq 100 > /dev/irqoff_sample'
//! irqoff_sample: hardirq window cpu=1 ns=100000731
//! ```

use kernel::{
    fs::Kiocb,
    iov::IovIterSource,
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
const MAX_MS: u32 = 5000;

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

#[derive(Clone, Copy)]
enum Mode {
    Hardirq,
    Softirq,
    Preempt,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::Hardirq => "hardirq",
            Mode::Softirq => "softirq",
            Mode::Preempt => "preempt",
        }
    }
}

fn parse(cmd: &[u8]) -> Result<(Mode, u32)> {
    let text = core::str::from_utf8(cmd).map_err(|_| EINVAL)?.trim();
    let mut words = text.split_ascii_whitespace();
    let mode = match words.next() {
        Some("hardirq") => Mode::Hardirq,
        Some("softirq") => Mode::Softirq,
        Some("preempt") => Mode::Preempt,
        _ => return Err(EINVAL),
    };
    let ms: u32 = words.next().ok_or(EINVAL)?.parse().map_err(|_| EINVAL)?;
    if ms == 0 || ms > MAX_MS || words.next().is_some() {
        return Err(EINVAL);
    }
    Ok((mode, ms))
}

/// Interrupts stay off for `ms`; the timer interrupt that trace_irqoff waits for fires
/// inside `sample_irq_enable`, called from here.
///
/// Each window function measures its own length between disable and enable and returns it
/// in ns (the ground truth); `black_box` after the enable keeps the enable from being a
/// tail call, so this function is still on the stack when the pending interrupt fires.
#[no_mangle]
#[inline(never)]
fn irqoff_sample_hardirq_window(ms: u32) -> i64 {
    // SAFETY: Paired with the enable below; nothing in between sleeps.
    unsafe { raw::sample_irq_disable() };
    let start = Instant::<Monotonic>::now();
    // SAFETY: Busy wait, valid in any context.
    unsafe { raw::sample_mdelay(ms) };
    let ns = start.elapsed().as_nanos();
    // SAFETY: Interrupts were disabled above by this function.
    unsafe { raw::sample_irq_enable() };
    core::hint::black_box(ns)
}

/// Bottom halves stay off for `ms`; pending softirqs run from `local_bh_enable` here.
#[no_mangle]
#[inline(never)]
fn irqoff_sample_softirq_window(ms: u32) -> i64 {
    // SAFETY: Paired with the enable below; nothing in between sleeps.
    unsafe { raw::sample_bh_disable() };
    let start = Instant::<Monotonic>::now();
    // SAFETY: Busy wait, valid in any context.
    unsafe { raw::sample_mdelay(ms) };
    let ns = start.elapsed().as_nanos();
    // SAFETY: Bottom halves were disabled above by this function.
    unsafe { raw::sample_bh_enable() };
    core::hint::black_box(ns)
}

/// Preemption stays off for `ms`: neither hardirqs nor softirqs are blocked, so
/// trace_irqoff must report nothing for this window (a negative control).
#[no_mangle]
#[inline(never)]
fn irqoff_sample_preempt_window(ms: u32) -> i64 {
    // SAFETY: Paired with the enable below; nothing in between sleeps.
    unsafe { raw::sample_preempt_disable() };
    let start = Instant::<Monotonic>::now();
    // SAFETY: Busy wait, valid in any context.
    unsafe { raw::sample_mdelay(ms) };
    let ns = start.elapsed().as_nanos();
    // SAFETY: Preemption was disabled above by this function.
    unsafe { raw::sample_preempt_enable() };
    core::hint::black_box(ns)
}

#[vtable]
impl MiscDevice for SampleDevice {
    type Ptr = ();

    fn open(_file: &kernel::fs::File, _misc: &MiscDeviceRegistration<Self>) -> Result<()> {
        Ok(())
    }

    fn write_iter(_kiocb: Kiocb<'_, ()>, iov: &mut IovIterSource<'_>) -> Result<usize> {
        let mut buf = [0u8; 32];
        let len = iov.len();
        if len > buf.len() {
            return Err(EINVAL);
        }
        let n = iov.copy_from_iter(&mut buf[..len]);
        let (mode, ms) = parse(&buf[..n])?;
        let ns = match mode {
            Mode::Hardirq => irqoff_sample_hardirq_window(ms),
            Mode::Softirq => irqoff_sample_softirq_window(ms),
            Mode::Preempt => irqoff_sample_preempt_window(ms),
        };
        // SAFETY: Reads the CPU number; no preconditions.
        let cpu = unsafe { raw::sample_this_cpu() };
        pr_info!("{} window cpu={} ns={}\n", mode.name(), cpu, ns);
        Ok(n)
    }
}
