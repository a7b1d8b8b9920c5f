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

/// What a frame is, for the cut.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FrameClass {
    /// The kernel's interrupt entry (`asm_sysvec_*`, `asm_common_interrupt`).
    InterruptEntry,
    /// Part of the softirq machinery that ran the timer_list sampler.
    Softirq,
    /// The softirq loop itself (`handle_softirqs`, `__do_softirq` before 6.8), between
    /// handlers: an interrupt that comes in here finds softirqs running, not held off.
    /// Part of the machinery for the cut.
    SoftirqLoop,
    /// An interrupt's return path (`irqentry_exit`, `preempt_schedule_irq`).
    InterruptExit,
    /// Anything else, or a frame without a symbol.
    Other,
}

/// Classifies a symbol name; a trailing " [module]" is ignored.
pub(crate) fn classify(symbol: &str) -> FrameClass {
    let name = symbol.split(' ').next().unwrap_or(symbol);
    // NMIs: the entry's last frame before the interrupted code.
    if name.starts_with("asm_sysvec_")
        || name.starts_with("asm_common_interrupt")
        || name.starts_with("asm_exc_nmi")
        || name == "end_repeat_nmi"
    {
        FrameClass::InterruptEntry
    } else if SOFTIRQ_LOOP.contains(&name) {
        FrameClass::SoftirqLoop
    } else if SOFTIRQ_MACHINERY.contains(&name) {
        FrameClass::Softirq
    } else if INTERRUPT_EXIT.contains(&name) {
        FrameClass::InterruptExit
    } else {
        FrameClass::Other
    }
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
                    FrameClass::InterruptExit | FrameClass::Other => {}
                }
            }
            cut
        }
    };
    skip_interrupt_returns(cut, depth, class_of)
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
        if i == cut || i >= depth || class_of(i) != FrameClass::InterruptEntry {
            return cut;
        }
        cut = i + 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cut(names: &[&'static str], irq_ip: u64) -> usize {
        let frames: [u64; 16] = core::array::from_fn(|i| 0x1000 + i as u64);
        first_culprit_frame(&frames[..names.len()], irq_ip, |i| classify(names[i]))
    }

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

    #[test]
    fn nmi_frames_are_cut() {
        let names = [
            "trace_irqoff_rs_nmi",
            "tio_nmi_handler",
            "nmi_handle",
            "default_do_nmi",
            "exc_nmi",
            "end_repeat_nmi",
            "delay_tsc",
            "irqoff_sample_hardirq_window",
        ];
        assert_eq!(cut(&names, 0x1006), 6);
        assert_eq!(cut(&names, 0), 6);
    }

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

    #[test]
    fn unknown_stack_is_kept_whole() {
        assert_eq!(cut(&["a", "b"], 0), 0);
        assert_eq!(cut(&[], 0), 0);
    }
}
