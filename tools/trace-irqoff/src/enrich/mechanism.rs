// SPDX-License-Identifier: GPL-2.0
//! Frames that are mechanism, not cause: where a CPU happened to be when the sampler saw
//! the window end (re-enabling interrupts, reading the clock in a busy loop, spinning on
//! or releasing a lock, entering an interrupt), not the code that kept interrupts off.
//! `top` names the first frame that is not one of these; `top --stack` keeps every frame.
//! The list is documented in Documentation/trace-irqoff-cli.rst.

/// Whole names.
const EXACT: &[&str] = &[
    "local_irq_enable",
    "local_irq_restore",
    "trace_hardirqs_on",
    "__local_bh_enable_ip",
    "local_bh_enable",
    "cpu_relax",
    "read_tsc",
    "delay_tsc",
    "delay_loop",
    "delay_halt",
    "udelay",
    "mdelay",
    "__udelay",
    "__ndelay",
    "__const_udelay",
    "__delay",
    "queued_spin_lock_slowpath",
    "native_queued_spin_lock_slowpath",
    "do_raw_spin_lock",
    "do_raw_spin_unlock",
    // The original trace-irqoff's own handlers, which its stacks start in, and the timer
    // interrupt that ran them (names of older kernels too).
    "trace_irqoff_hrtimer_handler",
    "trace_irqoff_timer_handler",
    "trace_irqoff_record",
    "__hrtimer_run_queues",
    "hrtimer_interrupt",
    "smp_apic_timer_interrupt",
    "apic_timer_interrupt",
    "__sysvec_apic_timer_interrupt",
    "irq_exit",
    "irq_exit_rcu",
    "__irq_exit_rcu",
    "common_interrupt",
    "asm_common_interrupt",
    // arm64's interrupt entry (the EL1 IRQ vector, the GIC, the IRQ stack).
    "el1h_64_irq",
    "el1h_64_irq_handler",
    "el1_interrupt",
    "do_interrupt_handler",
    "call_on_irq_stack",
    "gic_handle_irq",
    "arch_timer_handler_virt",
    "arch_timer_handler_phys",
    "handle_percpu_devid_irq",
    "generic_handle_domain_irq",
    // Lock debugging (lockdep), entered from clock reads and locks inside a busy loop.
    "lock_acquire",
    "lock_release",
    "__lock_acquire",
    "__lock_release",
    "lock_acquired",
    "lock_contended",
    "lock_is_held_type",
    "mark_lock",
    "validate_chain",
    "find_held_lock",
    "match_held_lock",
    "hlock_class",
    "check_chain_key",
    "lookup_chain_cache",
    "mark_usage",
    "mark_lock_irq",
    "check_irq_usage",
    "rcu_is_watching",
    "debug_lockdep_rcu_enabled",
    "rcu_lockdep_current_cpu_online",
    "rcu_read_lock_held_common",
    "rcu_read_lock_sched_held",
    "seqcount_lockdep_reader_access",
    // Preemption and per-CPU debug checks.
    "preempt_count_add",
    "preempt_count_sub",
    "check_preemption_disabled",
    "debug_smp_processor_id",
    "__this_cpu_preempt_check",
];

/// Name prefixes.
const PREFIX: &[&str] = &[
    "ktime_get",
    "read_hpet",
    "arch_counter_",
    "kvm_clock_",
    "pvclock_",
    "acpi_pm_read",
    "sched_clock",
    "native_sched_clock",
    "local_clock",
    "_raw_spin_lock",
    "_raw_spin_unlock",
    "_raw_read_lock",
    "_raw_read_unlock",
    "_raw_write_lock",
    "_raw_write_unlock",
    "arch_local_irq_",
    "sysvec_",
    "asm_sysvec_",
    "irqentry_",
    "lockdep_",
    "__lock_",
    // Sanitizer and coverage instrumentation called from the culprit's code.
    "__asan_",
    "__kasan_",
    "kasan_",
    "__tsan_",
    "__kcsan_",
    "kcsan_",
    "__ubsan_",
    "__sanitizer_cov_",
];

/// Name suffixes: helpers that wrap an irq or bh enable (e.g. a driver's `foo_irq_enable`),
/// and busy-wait loops (`busy_wait`, a Rust path's `...::busy_wait`), which an in-window
/// stack often shows as its leaf.
const SUFFIX: &[&str] = &[
    "_irq_enable",
    "_irq_restore",
    "_irqrestore",
    "_bh_enable",
    "busy_wait",
];

/// Whether `function` (a bare symbol name) is mechanism rather than a culprit.
pub fn is_mechanism(function: &str) -> bool {
    let matches = |f: &str| {
        EXACT.contains(&f)
            || PREFIX.iter().any(|p| f.starts_with(p))
            || SUFFIX.iter().any(|s| f.ends_with(s))
    };
    // A Rust path (`<kernel::time::Monotonic as kernel::time::ClockSource>::ktime_get`)
    // is judged by its last segment too.
    matches(function)
        || function
            .rsplit_once("::")
            .is_some_and(|(_, last)| matches(last))
}

/// The culprit among `functions` (innermost first): the first that is not mechanism, or
/// the first of all when every frame is.
pub fn culprit<'a>(functions: impl IntoIterator<Item = &'a str> + Clone) -> Option<&'a str> {
    functions
        .clone()
        .into_iter()
        .find(|f| !is_mechanism(f))
        .or_else(|| functions.into_iter().next())
}

/// Callers that say a culprit ran in interrupt context, and which: the first of them
/// below the culprit names it. `__hrtimer_run_queues` is a hard hrtimer callback unless
/// `hrtimer_run_softirq` called it. The same frames above the culprit are the sampler's
/// own interrupt (mechanism), not the culprit's context.
const CONTEXTS: &[(&str, &str)] = &[
    ("__flush_smp_call_function_queue", "an IPI function"),
    ("flush_smp_call_function_queue", "an IPI function"),
    (
        "generic_smp_call_function_single_interrupt",
        "an IPI function",
    ),
    ("generic_smp_call_function_interrupt", "an IPI function"),
    ("smp_call_function_single_interrupt", "an IPI function"),
    ("smp_call_function_interrupt", "an IPI function"),
    ("__sysvec_call_function_single", "an IPI function"),
    ("__sysvec_call_function", "an IPI function"),
    ("do_handle_IPI", "an IPI function"),
    ("tasklet_action_common", "a tasklet"),
    ("tasklet_action", "a tasklet"),
    ("tasklet_hi_action", "a tasklet"),
    ("__hrtimer_run_queues", "a hard hrtimer callback"),
    ("hrtimer_interrupt", "a hard hrtimer callback"),
    ("call_timer_fn", "a timer callback"),
    ("__run_timers", "a timer callback"),
    ("handle_softirqs", "a softirq"),
    ("__do_softirq", "a softirq"),
    ("handle_irq_event", "an interrupt handler"),
    ("handle_irq_event_percpu", "an interrupt handler"),
    ("__handle_irq_event_percpu", "an interrupt handler"),
];

/// The interrupt context a stack's culprit ran in ("an IPI function", "a tasklet", "a
/// hard hrtimer callback", "a softirq hrtimer callback", "a timer callback", "a softirq",
/// "an interrupt handler"), from the callers below it (`functions` innermost first); None
/// in task context, and for softirqs run by ksoftirqd (a task of their own).
pub fn interrupt_context<'a>(
    functions: impl IntoIterator<Item = &'a str> + Clone,
) -> Option<&'static str> {
    let callers: Vec<&str> = functions
        .into_iter()
        .skip_while(|f| is_mechanism(f))
        .skip(1)
        .collect();
    if callers.contains(&"run_ksoftirqd") {
        return None;
    }
    callers.iter().enumerate().find_map(|(i, f)| {
        let (_, words) = CONTEXTS.iter().find(|(name, _)| name == f)?;
        let soft =
            *f == "__hrtimer_run_queues" && callers.get(i + 1) == Some(&"hrtimer_run_softirq");
        Some(if soft {
            "a softirq hrtimer callback"
        } else {
            *words
        })
    })
}

/// A spinlock's contended slow path: entered only when the lock is held elsewhere.
const LOCK_SLOWPATH: &[&str] = &[
    "queued_spin_lock_slowpath",
    "native_queued_spin_lock_slowpath",
    "__pv_queued_spin_lock_slowpath",
];

/// Whether a stack (`functions`, innermost first) was waiting for a spinlock held
/// elsewhere: a contended slow path among the mechanism frames above its culprit.
pub fn waits_for_lock<'a>(functions: impl IntoIterator<Item = &'a str> + Clone) -> bool {
    functions
        .into_iter()
        .take_while(|f| is_mechanism(f))
        .any(|f| LOCK_SLOWPATH.contains(&f))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The frames of a window whose culprit, irqctx_spin, ran in an IPI function that
    /// interrupted kdamond_fn (as the module prints them, innermost first): what the views'
    /// tests of interrupt context start from.
    pub(crate) fn ipi_stack() -> Vec<String> {
        [
            "irqctx_spin+0x10/0x40 [irqctx]",
            "__flush_smp_call_function_queue+0x9a/0x1f0",
            "__sysvec_call_function_single+0x1c/0xb0",
            "kdamond_fn+0x2a/0x300",
        ]
        .map(String::from)
        .to_vec()
    }

    /// Claim: the first interrupt entry below the culprit names its context (an IPI
    /// function, a tasklet, a hard or a softirq hrtimer callback); the sampler's own
    /// interrupt above the culprit does not; task context and ksoftirqd are none.
    #[test]
    fn the_context_is_the_first_interrupt_entry_below_the_culprit() {
        assert_eq!(
            interrupt_context([
                "delay_tsc",
                "irqctx_spin",
                "__flush_smp_call_function_queue",
                "__sysvec_call_function_single",
                "kdamond_fn",
            ]),
            Some("an IPI function")
        );
        assert_eq!(
            interrupt_context([
                "irqctx_spin",
                "tasklet_action_common",
                "handle_softirqs",
                "irq_exit_rcu",
            ]),
            Some("a tasklet")
        );
        assert_eq!(
            interrupt_context(["irqctx_spin", "__hrtimer_run_queues", "hrtimer_interrupt"]),
            Some("a hard hrtimer callback")
        );
        assert_eq!(
            interrupt_context([
                "irqctx_spin",
                "__hrtimer_run_queues",
                "hrtimer_run_softirq",
                "handle_softirqs"
            ]),
            Some("a softirq hrtimer callback")
        );
        // The sampler's interrupt above the culprit, a syscall below: task context.
        assert_eq!(
            interrupt_context([
                "__hrtimer_run_queues",
                "hrtimer_interrupt",
                "irqoff_sample_hardirq_window",
                "vfs_write",
                "do_syscall_64",
            ]),
            None
        );
        assert_eq!(
            interrupt_context([
                "my_timer_fn",
                "call_timer_fn",
                "handle_softirqs",
                "run_ksoftirqd"
            ]),
            None
        );
    }

    /// Claim: a contended slow path above the culprit is a lock wait; taking a lock
    /// uncontended, or a slow path below the culprit, is not.
    #[test]
    fn lock_waits_are_the_slow_path_above_the_culprit() {
        assert!(waits_for_lock([
            "native_queued_spin_lock_slowpath",
            "do_raw_spin_lock",
            "_raw_spin_lock",
            "irqoff_sample_spin_window"
        ]));
        assert!(waits_for_lock([
            "lock_acquire",
            "queued_spin_lock_slowpath",
            "my_driver_isr"
        ]));
        assert!(!waits_for_lock([
            "do_raw_spin_lock",
            "_raw_spin_lock_irqsave",
            "my_driver_isr"
        ]));
        assert!(!waits_for_lock([
            "_raw_spin_unlock_irqrestore",
            "my_driver_isr",
            "queued_spin_lock_slowpath"
        ]));
        assert!(!waits_for_lock([]));
    }

    /// Claim: irq/bh enable helpers, unlock-restore, clock and counter reads, delay and
    /// busy-wait loops, spinlock slow paths and interrupt entry stubs count as mechanism,
    /// while window functions, ordinary kernel functions and names merely like them
    /// (ktime, enable_irq) do not.
    #[test]
    fn skips_enable_helpers_time_reads_and_locks() {
        for f in [
            "sample_irq_enable",
            "_raw_spin_unlock_irqrestore",
            "ktime_get_mono_fast_ns",
            "delay_tsc",
            "native_queued_spin_lock_slowpath",
            "__local_bh_enable_ip",
            "sysvec_apic_timer_interrupt",
            "busy_wait",
            "irqoff_sample_main::busy_wait",
            "read_hpet",
            "kvm_clock_get_cycles",
            "arch_counter_read",
            "__delay",
            "el1h_64_irq",
        ] {
            assert!(is_mechanism(f), "{f}");
        }
        for f in [
            "irqoff_sample_hardirq_window",
            "preemptirq_delay_run",
            "vfs_write",
            "ktime",
            "enable_irq",
        ] {
            assert!(!is_mechanism(f), "{f}");
        }
    }

    /// Claim: the culprit is the first frame that is not mechanism, skipping enable
    /// helpers, lockdep, RCU and KASAN checks, clock reads (Rust ones too) and busy
    /// waits; a stack of mechanism only gives its first frame, and an empty stack none.
    #[test]
    fn culprit_is_first_non_mechanism_frame_or_first() {
        let s = [
            "sample_irq_enable",
            "irqoff_sample_hardirq_window",
            "vfs_write",
        ];
        assert_eq!(
            culprit(s.iter().copied()),
            Some("irqoff_sample_hardirq_window")
        );
        // An in-window sample of a debug kernel: lockdep and RCU checks inside the clock
        // read of the culprit's busy loop (seen on the test kernel).
        let w = [
            "find_held_lock",
            "__lock_release",
            "rcu_is_watching",
            "lock_acquire",
            "ktime_get",
            "irqoff_sample_main::busy_wait",
            "irqoff_sample_hrtimer_window",
        ];
        assert_eq!(
            culprit(w.iter().copied()),
            Some("irqoff_sample_hrtimer_window")
        );
        let k = [
            "__asan_load8",
            "kasan_check_range",
            "irqoff_sample_ipi_window",
        ];
        assert_eq!(culprit(k.iter().copied()), Some("irqoff_sample_ipi_window"));
        let r = [
            "<kernel::time::Monotonic as kernel::time::ClockSource>::ktime_get",
            "irqoff_sample_main::busy_wait",
            "irqoff_sample_ipi_window",
        ];
        assert_eq!(culprit(r.iter().copied()), Some("irqoff_sample_ipi_window"));
        let m = ["ktime_get", "delay_tsc"];
        assert_eq!(culprit(m.iter().copied()), Some("ktime_get"));
        assert_eq!(culprit([].iter().copied()), None);
    }
}
