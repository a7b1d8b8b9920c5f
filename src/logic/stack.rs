// SPDX-License-Identifier: GPL-2.0

//! Removing the sampler's own frames from a captured stack, so that the first frame shown
//! is where the culprit was. Pure logic (`core` only).
//!
//! A stack saved from a sampler starts with trace_irqoff's handler, then the timer and
//! interrupt (or softirq) machinery that called it, then the interrupted code. The cut is
//! made after the interrupt entry (`asm_*`, exact when the interrupted IP is known), or
//! else after the softirq machinery (`handle_softirqs` .. `__local_bh_enable_ip`).
//! When the interrupted code was itself another interrupt's return path (re-enabling
//! interrupts took a pending IPI first, whose exit rescheduled with interrupts on, as seen
//! on PREEMPT_RT), that path and its entry are cut too.

/// Frames looked at for the cut; the machinery is never deeper than this.
pub(crate) const SCAN_DEPTH: usize = 24;

/// The architecture-specific frame names the cut knows: one table per architecture, the
/// one in use chosen by the target the module is built for ([`THIS_ARCH`]). Everything
/// else in the cut is the same on every architecture.
#[derive(Debug)]
pub(crate) struct ArchFrames {
    /// Prefixes of the interrupt (and NMI) entry: the last frame before the interrupted
    /// code.
    pub(crate) entry_prefixes: &'static [&'static str],
    /// Whole names of entry frames that no prefix covers.
    pub(crate) entry_names: &'static [&'static str],
    /// Frames by which this architecture runs softirqs on its own stack.
    pub(crate) softirq_stack: &'static [&'static str],
    /// Frames of this architecture's interrupt return path, between the generic ones
    /// (`INTERRUPT_EXIT`) and the entry frame.
    pub(crate) exit_names: &'static [&'static str],
}

/// x86_64: `asm_sysvec_*` for the APIC's vectors, `asm_common_interrupt` for device
/// interrupts, `asm_exc_nmi` and `end_repeat_nmi` for NMIs (the NMI handler's own frames
/// come before them).
#[cfg_attr(target_arch = "aarch64", allow(dead_code))]
pub(crate) const X86_64: ArchFrames = ArchFrames {
    entry_prefixes: &["asm_sysvec_", "asm_common_interrupt", "asm_exc_nmi"],
    entry_names: &["end_repeat_nmi"],
    softirq_stack: &[],
    exit_names: &[],
};

/// arm64: the exception vectors taken from EL1 (`el1h_64_irq`, and `_fiq`, `_error`; a
/// pseudo-NMI arrives through `el1h_64_irq` too) and from EL0; softirqs run on the IRQ
/// stack through `call_on_irq_stack` and `____do_softirq`.
#[cfg_attr(not(target_arch = "aarch64"), allow(dead_code))]
pub(crate) const ARM64: ArchFrames = ArchFrames {
    entry_prefixes: &[],
    entry_names: &[
        "el1h_64_irq",
        "el1h_64_fiq",
        "el1h_64_error",
        "el0t_64_irq",
        "el0t_64_fiq",
        "el0t_32_irq",
        "el0t_32_fiq",
    ],
    softirq_stack: &["call_on_irq_stack", "____do_softirq"],
    exit_names: &[
        "arm64_exit_to_kernel_mode_preempt",
        "exit_to_kernel_mode",
        "el1_interrupt",
        "el1h_64_irq_handler",
    ],
};

/// The table of the architecture the module is built for.
#[cfg(target_arch = "aarch64")]
pub(crate) const THIS_ARCH: &ArchFrames = &ARM64;
/// The table of the architecture the module is built for.
#[cfg(not(target_arch = "aarch64"))]
pub(crate) const THIS_ARCH: &ArchFrames = &X86_64;

/// Frames of the softirq machinery, up to and including the function that ran it for the
/// culprit (`__local_bh_enable_ip` when bottom halves were re-enabled).
const SOFTIRQ_MACHINERY: &[&str] = &[
    "call_timer_fn",
    "__run_timers",
    "__run_timer_base",
    "run_timer_base",
    "run_timer_softirq",
    "do_softirq",
    "do_softirq_own_stack",
    "__local_bh_enable_ip",
    "irq_exit_rcu",
    "__irq_exit_rcu",
];

/// The functions that run the pending softirqs one handler after the other.
const SOFTIRQ_LOOP: &[&str] = &["handle_softirqs", "__do_softirq"];

/// Frames of an interrupt's return path that may run with interrupts enabled (preemption
/// on interrupt exit), so that the sampler's interrupt can nest in them.
const INTERRUPT_EXIT: &[&str] = &[
    "preempt_schedule_irq",
    "irqentry_exit",
    "irqentry_exit_cond_resched",
    "raw_irqentry_exit_cond_resched",
    "dynamic_irqentry_exit_cond_resched",
];

/// The functions of the return to user space that run with interrupts on.
const RETURN_TO_USER: &[&str] = &["exit_to_user_mode_loop"];

/// The functions whose class the cut needs where it may look nothing up, and that have
/// whole names to be found by: the interrupt return paths and whole-named entries of
/// `arch`, the softirq loop, the return to user space. Learnt by name in process context.
pub(crate) fn named_classes(arch: &ArchFrames) -> impl Iterator<Item = &'static str> {
    INTERRUPT_EXIT
        .iter()
        .chain(arch.exit_names)
        .chain(arch.entry_names)
        .chain(SOFTIRQ_LOOP)
        .chain(RETURN_TO_USER)
        .copied()
}

/// What a frame is, for the cut.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FrameClass {
    /// The kernel's interrupt entry ([`ArchFrames`]: `asm_sysvec_*` on x86_64,
    /// `el1h_64_irq` on arm64).
    InterruptEntry,
    /// Part of the softirq machinery that ran the timer_list sampler.
    Softirq,
    /// The softirq loop itself (`handle_softirqs`, `__do_softirq` before 6.8), between
    /// handlers: an interrupt that comes in here finds softirqs running, not held off.
    /// Part of the machinery for the cut.
    SoftirqLoop,
    /// An interrupt's return path (`irqentry_exit`, `preempt_schedule_irq`).
    InterruptExit,
    /// The return to user space, where the kernel turns interrupts on to do the work
    /// pending before it (`exit_to_user_mode_loop`): an interrupt that comes in here finds
    /// the handler or exception that interrupted user space returned, not its culprit.
    ReturnToUser,
    /// Anything else, or a frame without a symbol.
    Other,
    /// Not known without a symbol lookup, where none may be made (hard interrupt and NMI
    /// context): the culprit's for the cut, but taken as the entry where it follows an
    /// interrupt's return path (whose next frame is always its interrupt's entry).
    Unknown,
}

/// Classifies a symbol name for the architecture the module is built for; a trailing
/// " [module]" is ignored.
pub(crate) fn classify(symbol: &str) -> FrameClass {
    classify_for(THIS_ARCH, symbol)
}

/// Classifies a symbol name with `arch`'s frame names.
pub(crate) fn classify_for(arch: &ArchFrames, symbol: &str) -> FrameClass {
    let name = symbol.split(' ').next().unwrap_or(symbol);
    if arch.entry_prefixes.iter().any(|p| name.starts_with(p)) || arch.entry_names.contains(&name) {
        FrameClass::InterruptEntry
    } else if SOFTIRQ_LOOP.contains(&name) {
        FrameClass::SoftirqLoop
    } else if SOFTIRQ_MACHINERY.contains(&name) || arch.softirq_stack.contains(&name) {
        FrameClass::Softirq
    } else if INTERRUPT_EXIT.contains(&name) || arch.exit_names.contains(&name) {
        FrameClass::InterruptExit
    } else if RETURN_TO_USER.contains(&name) {
        FrameClass::ReturnToUser
    } else {
        FrameClass::Other
    }
}

/// A function's extent from its printed symbol (`func+0x1f/0x80 [module]`, as `%pS`
/// prints it): the name, the address's offset into the function and the function's size.
/// `None` for an address without a symbol (`0x...`) or a form without offset and size.
pub(crate) fn symbol_extent(symbol: &str) -> Option<(&str, u64, u64)> {
    let sym = symbol.split(' ').next()?;
    let (name, rest) = sym.rsplit_once('+')?;
    let (off, size) = rest.split_once('/')?;
    let hex = |s: &str| u64::from_str_radix(s.strip_prefix("0x")?, 16).ok();
    let (off, size) = (hex(off)?, hex(size)?);
    (!name.is_empty() && off < size).then_some((name, off, size))
}

/// Index of the first frame to show.
///
/// `irq_ip` is the interrupted instruction pointer when the sampler ran in hard interrupt
/// context (0 when unknown); `class_of(i)` classifies frame `i`. It is called for every
/// scanned frame only when the interrupted IP is not among the frames; otherwise only for
/// the few frames after the cut.
pub(crate) fn first_culprit_frame(
    frames: &[u64],
    irq_ip: u64,
    mut class_of: impl FnMut(usize) -> FrameClass,
) -> usize {
    let depth = frames.len().min(SCAN_DEPTH);
    let at_ip = if irq_ip != 0 {
        frames[..depth].iter().position(|&f| f == irq_ip)
    } else {
        None
    };
    let cut = match at_ip {
        Some(i) => i,
        None => {
            let mut cut = 0;
            for i in 0..depth {
                match class_of(i) {
                    FrameClass::InterruptEntry => {
                        cut = i + 1;
                        break;
                    }
                    FrameClass::Softirq | FrameClass::SoftirqLoop => cut = i + 1,
                    FrameClass::InterruptExit
                    | FrameClass::ReturnToUser
                    | FrameClass::Other
                    | FrameClass::Unknown => {}
                }
            }
            cut
        }
    };
    skip_interrupt_returns(cut, depth, class_of)
}

/// Whether a walk of an interrupted stack (the interrupted instruction first, as
/// [`first_culprit_frame`] then cuts it at once) may stop at its `n` frames so far: at
/// least `keep` of them are from the cut on, and more frames cannot move the cut (the
/// frames from it do not all belong to an interrupt return path, whose end the next frame
/// could show to be its interrupt's entry). `class_of(i)` classifies frame `i`.
pub(crate) fn walk_may_stop(
    n: usize,
    keep: usize,
    mut class_of: impl FnMut(usize) -> FrameClass,
) -> bool {
    let depth = n.min(SCAN_DEPTH);
    let cut = skip_interrupt_returns(0, depth, &mut class_of);
    n.saturating_sub(cut) >= keep && (cut..depth).any(|i| class_of(i) != FrameClass::InterruptExit)
}

/// From `cut`, skips every interrupt return path that ends in its interrupt's entry frame.
fn skip_interrupt_returns(
    mut cut: usize,
    depth: usize,
    mut class_of: impl FnMut(usize) -> FrameClass,
) -> usize {
    loop {
        let mut i = cut;
        while i < depth && class_of(i) == FrameClass::InterruptExit {
            i += 1;
        }
        if i == cut
            || i >= depth
            || !matches!(
                class_of(i),
                FrameClass::InterruptEntry | FrameClass::Unknown
            )
        {
            return cut;
        }
        cut = i + 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cut_for(arch: &ArchFrames, names: &[&'static str], irq_ip: u64) -> usize {
        let frames: [u64; 16] = core::array::from_fn(|i| 0x1000 + i as u64);
        first_culprit_frame(&frames[..names.len()], irq_ip, |i| {
            classify_for(arch, names[i])
        })
    }

    fn cut(names: &[&'static str], irq_ip: u64) -> usize {
        cut_for(&X86_64, names, irq_ip)
    }

    fn may_stop(names: &[&'static str], keep: usize) -> bool {
        walk_may_stop(names.len(), keep, |i| classify_for(&X86_64, names[i]))
    }

    /// Claim: a walk from the interrupted instruction stops as soon as it holds `keep`
    /// culprit frames, and not before.
    #[test]
    fn walk_stops_at_keep_culprit_frames() {
        let names = [
            "sample_irq_enable",
            "hardirq_window",
            "write_iter",
            "vfs_write",
        ];
        assert!(!may_stop(&names[..2], 3));
        assert!(may_stop(&names[..3], 3));
        assert!(may_stop(&names, 3));
    }

    /// Claim: frames of an interrupt return path (interrupts re-enabled on the way out of
    /// an earlier interrupt) do not count: the walk goes on through them and their
    /// interrupt's entry until `keep` frames of the code that interrupt interrupted.
    #[test]
    fn walk_goes_through_an_interrupt_return_path() {
        let names = [
            "preempt_schedule_irq",
            "irqentry_exit",
            "asm_sysvec_apic_timer_interrupt",
            "sample_irq_enable",
            "hardirq_window",
            "write_iter",
        ];
        for n in 1..names.len() {
            assert!(!may_stop(&names[..n], 3), "stopped at {n} frames");
        }
        assert!(may_stop(&names, 3));
        assert_eq!(cut(&names, 0x1000), 3);
    }

    /// Claim: a walk that holds only an interrupt return path never stops early (its
    /// entry frame may be next), whatever `keep` is.
    #[test]
    fn walk_never_stops_inside_a_return_path() {
        let names = ["preempt_schedule_irq", "irqentry_exit"];
        assert!(!may_stop(&names, 1));
        assert!(!may_stop(&names, 2));
    }

    /// Claim: when the interrupted instruction pointer is among the frames, the cut is at
    /// that frame (index 4), whatever the frames above it are named.
    #[test]
    fn hardirq_cut_at_interrupted_ip() {
        let names = [
            "handler",
            "__hrtimer_run_queues",
            "hrtimer_interrupt",
            "x",
            "culprit",
        ];
        assert_eq!(cut(&names, 0x1004), 4);
    }

    /// Claim: without the interrupted instruction pointer, the hrtimer's frames are cut
    /// just after the interrupt entry frame `asm_sysvec_apic_timer_interrupt`, so the first
    /// frame shown is the interrupted `sample_irq_enable`.
    #[test]
    fn hardirq_cut_after_entry_by_name() {
        let names = [
            "trace_irqoff_hrtimer",
            "__hrtimer_run_queues",
            "hrtimer_interrupt",
            "__sysvec_apic_timer_interrupt",
            "sysvec_apic_timer_interrupt",
            "asm_sysvec_apic_timer_interrupt",
            "sample_irq_enable",
            "irqoff_sample_hardirq_window",
        ];
        assert_eq!(cut(&names, 0), 6);
    }

    /// Claim: a timer_list sampler run from `__local_bh_enable_ip` has every softirq
    /// machinery frame up to and including it cut, so the first frame shown is
    /// `sample_bh_enable`, the code that enabled bottom halves.
    #[test]
    fn softirq_cut_after_local_bh_enable() {
        let names = [
            "trace_irqoff_rs_softirq_sample",
            "tio_softtimer_fn",
            "call_timer_fn",
            "__run_timers",
            "run_timer_softirq",
            "handle_softirqs",
            "do_softirq",
            "__local_bh_enable_ip",
            "sample_bh_enable",
            "irqoff_sample_softirq_window",
            "vfs_write",
        ];
        assert_eq!(cut(&names, 0), 8);
    }

    /// Claim: the frames of softirqs run on interrupt exit (`__irq_exit_rcu`) are cut
    /// through the interrupt entry frame, so the first frame shown is the interrupted code
    /// (`busy_loop`).
    #[test]
    fn softirq_on_irq_exit_cuts_at_interrupted_code() {
        let names = [
            "h",
            "call_timer_fn",
            "run_timer_softirq",
            "handle_softirqs",
            "__irq_exit_rcu",
            "sysvec_apic_timer_interrupt",
            "asm_sysvec_apic_timer_interrupt",
            "busy_loop",
        ];
        assert_eq!(cut(&names, 0), 7);
    }

    /// Claim: in ksoftirqd the cut comes right after the softirq loop (`handle_softirqs`):
    /// `run_ksoftirqd` and `smpboot_thread_fn` are shown.
    #[test]
    fn ksoftirqd_keeps_its_own_frames() {
        let names = [
            "h",
            "call_timer_fn",
            "handle_softirqs",
            "run_ksoftirqd",
            "smpboot_thread_fn",
        ];
        assert_eq!(cut(&names, 0), 3);
    }

    /// Claim: an interrupt return path (`preempt_schedule_irq`, `irqentry_exit`) that ends
    /// in its interrupt's entry frame is cut with it, down to `sample_irq_enable`, whether
    /// the interrupted IP points into that path or is unknown; a return path not followed
    /// by an entry frame is the culprit's own code and kept.
    #[test]
    fn nested_interrupt_return_is_cut() {
        // PREEMPT_RT: re-enabling interrupts took a reschedule IPI whose exit preempted
        // with interrupts on, and the sampler's timer interrupt came in there.
        let names = [
            "handler",
            "hrtimer_interrupt",
            "asm_sysvec_apic_timer_interrupt",
            "preempt_schedule_irq",
            "irqentry_exit",
            "asm_sysvec_reschedule_ipi",
            "sample_irq_enable",
            "irqoff_sample_hardirq_window",
        ];
        assert_eq!(cut(&names, 0x1003), 6);
        assert_eq!(cut(&names, 0), 6);
        // A return path not ending in an entry frame is the culprit's own code: kept.
        let names = [
            "handler",
            "asm_sysvec_apic_timer_interrupt",
            "preempt_schedule_irq",
            "culprit",
        ];
        assert_eq!(cut(&names, 0), 2);
    }

    /// Claim: an NMI sampler's frames up to and including `end_repeat_nmi` are cut, so the
    /// first frame shown is the interrupted `delay_tsc`, whether found by the interrupted
    /// IP or by the frames' names.
    #[test]
    fn nmi_frames_are_cut() {
        let names = [
            "trace_irqoff_rs_nmi",
            "tio_nmi_handler",
            "nmi_handle",
            "unknown_nmi_error",
            "default_do_nmi",
            "exc_nmi",
            "end_repeat_nmi",
            "delay_tsc",
            "irqoff_sample_hardirq_window",
        ];
        assert_eq!(cut(&names, 0x1007), 7);
        assert_eq!(cut(&names, 0), 7);
    }

    /// The return to user space is its own class on both architectures: an interrupt
    /// that comes in there finds the handler that interrupted user space returned.
    #[test]
    fn return_to_user_is_its_own_class() {
        assert_eq!(classify("exit_to_user_mode_loop"), FrameClass::ReturnToUser);
        assert_eq!(
            classify_for(&ARM64, "exit_to_user_mode_loop"),
            FrameClass::ReturnToUser
        );
    }

    /// Claim: `classify` ignores a trailing " [module]": `run_timer_softirq [foo]` is
    /// softirq machinery, and a module's own function is `Other`; the softirq loops,
    /// `call_timer_fn` and the x86 interrupt entry get their classes.
    #[test]
    fn module_suffix_is_ignored() {
        assert_eq!(classify("handle_softirqs"), FrameClass::SoftirqLoop);
        assert_eq!(classify("__do_softirq"), FrameClass::SoftirqLoop);
        assert_eq!(classify("call_timer_fn"), FrameClass::Softirq);
        assert_eq!(
            classify("asm_sysvec_apic_timer_interrupt"),
            FrameClass::InterruptEntry
        );
        assert_eq!(classify("run_timer_softirq [foo]"), FrameClass::Softirq);
        assert_eq!(
            classify("irqoff_sample_softirq_window [irqoff_sample]"),
            FrameClass::Other
        );
    }

    /// arm64: the hrtimer sampler's stack from Debian's 7.3 arm64 kernel ends in the EL1
    /// IRQ vector, and the cut lands on the interrupted code with or without its IP.
    #[test]
    fn arm64_hardirq_cut_after_el1_vector() {
        let names = [
            "trace_irqoff_rs_hrtimer",
            "__hrtimer_run_queues",
            "hrtimer_interrupt",
            "arch_timer_handler_virt",
            "handle_percpu_devid_irq",
            "generic_handle_domain_irq",
            "gic_handle_irq",
            "call_on_irq_stack",
            "do_interrupt_handler",
            "el1_interrupt",
            "el1h_64_irq_handler",
            "el1h_64_irq",
            "irqoff_sample_hardirq_window",
        ];
        assert_eq!(cut_for(&ARM64, &names, 0), 12);
        assert_eq!(cut_for(&ARM64, &names, 0x100c), 12);
        // The x86_64 table does not know the vector: it keeps the stack whole.
        assert_eq!(cut_for(&X86_64, &names, 0), 0);
    }

    /// arm64: softirqs run on the IRQ stack through `call_on_irq_stack`; the cut lands
    /// after `__local_bh_enable_ip`, where the culprit re-enabled bottom halves.
    #[test]
    fn arm64_softirq_cut_through_irq_stack() {
        let names = [
            "trace_irqoff_rs_softirq_sample",
            "call_timer_fn",
            "__run_timers",
            "run_timer_softirq",
            "handle_softirqs",
            "____do_softirq",
            "call_on_irq_stack",
            "do_softirq_own_stack",
            "do_softirq",
            "__local_bh_enable_ip",
            "irqoff_sample_softirq_window",
        ];
        assert_eq!(cut_for(&ARM64, &names, 0), 10);
        assert_eq!(
            classify_for(&ARM64, "call_on_irq_stack"),
            FrameClass::Softirq
        );
        assert_eq!(classify_for(&X86_64, "el1h_64_irq"), FrameClass::Other);
    }

    /// arm64 PREEMPT_RT: re-enabling interrupts took a pending interrupt whose return
    /// path preempted with interrupts on, and the sampler's interrupt came in there (as
    /// read off Debian's 7.3.4+deb13-rt-arm64): the return path and its vector are cut,
    /// down to the code that re-enabled interrupts.
    #[test]
    fn arm64_nested_interrupt_return_is_cut() {
        let names = [
            "trace_irqoff_rs_hrtimer",
            "hrtimer_interrupt",
            "el1h_64_irq",
            "preempt_schedule_irq",
            "raw_irqentry_exit_cond_resched",
            "arm64_exit_to_kernel_mode_preempt",
            "el1_interrupt",
            "el1h_64_irq_handler",
            "el1h_64_irq",
            "sample_irq_enable",
            "write_iter",
        ];
        assert_eq!(cut_for(&ARM64, &names, 0x1003), 9);
        assert_eq!(cut_for(&ARM64, &names, 0), 9);
    }

    /// Claim: a stack with no frame the cut knows, and an empty stack, are cut at 0: kept
    /// whole.
    #[test]
    fn unknown_stack_is_kept_whole() {
        assert_eq!(cut(&["a", "b"], 0), 0);
        assert_eq!(cut(&[], 0), 0);
    }

    /// Claim: `symbol_extent` reads the name, offset and size of a `%pS` symbol, with or
    /// without a module suffix, and keeps dots in names (`do_x.cold`).
    #[test]
    fn symbol_extent_reads_offset_and_size() {
        assert_eq!(
            symbol_extent("handle_softirqs+0x1f/0x2a0"),
            Some(("handle_softirqs", 0x1f, 0x2a0))
        );
        assert_eq!(
            symbol_extent("irqoff_sample_spin+0x0/0x80 [irqoff_sample 0a1b]"),
            Some(("irqoff_sample_spin", 0, 0x80))
        );
        // Names with a dot or a plus of their own (`.cold`, `.isra.0`).
        assert_eq!(
            symbol_extent("do_x.cold+0x3/0x10"),
            Some(("do_x.cold", 3, 0x10))
        );
    }

    /// Claim: `symbol_extent` gives `None` for a raw address, a bare name, an offset not
    /// below the size, an empty name and an offset without `0x`.
    #[test]
    fn symbol_extent_rejects_what_is_not_one() {
        assert_eq!(symbol_extent("0xffffffffc0001234"), None);
        assert_eq!(symbol_extent("handle_softirqs"), None);
        assert_eq!(symbol_extent("f+0x10/0x10"), None);
        assert_eq!(symbol_extent("+0x1/0x10"), None);
        assert_eq!(symbol_extent("f+1f/0x20"), None);
    }

    /// Claim: where nothing may be looked up, an unknown frame after a known interrupt
    /// return path is taken as its entry and cut with it (cut at 3), while unknown frames
    /// without a return path before them, and a return path followed by a known non-entry
    /// frame, are kept (cut at 0).
    #[test]
    fn nested_interrupt_return_is_cut_before_its_entry_is_known() {
        // In interrupt context nothing is looked up: an entry not known yet, after a
        // known return path, is taken as its entry.
        let classes = [
            FrameClass::InterruptExit,
            FrameClass::InterruptExit,
            FrameClass::Unknown,
            FrameClass::Other,
            FrameClass::Other,
        ];
        let frames = [0x10u64, 0x20, 0x30, 0x40, 0x50];
        assert_eq!(first_culprit_frame(&frames, 0x10, |i| classes[i]), 3);
        // Unknown frames without a return path before them are the culprit's.
        let classes = [FrameClass::Unknown, FrameClass::Unknown, FrameClass::Other];
        assert_eq!(first_culprit_frame(&frames[..3], 0x10, |i| classes[i]), 0);
        // A known non-entry after the return path: nothing is cut.
        let classes = [
            FrameClass::InterruptExit,
            FrameClass::Other,
            FrameClass::Other,
        ];
        assert_eq!(first_culprit_frame(&frames[..3], 0x10, |i| classes[i]), 0);
    }

    /// Claim: every name `named_classes` lists for x86_64 and arm64 is classified as
    /// something other than `Other` on its architecture, and the lists hold
    /// `preempt_schedule_irq` (x86_64) and `el1h_64_irq` (arm64).
    #[test]
    fn named_classes_are_classed_by_their_names() {
        for arch in [&X86_64, &ARM64] {
            for name in named_classes(arch) {
                assert_ne!(classify_for(arch, name), FrameClass::Other, "{name}");
            }
        }
        assert!(named_classes(&X86_64).any(|n| n == "preempt_schedule_irq"));
        assert!(named_classes(&ARM64).any(|n| n == "el1h_64_irq"));
    }
}
