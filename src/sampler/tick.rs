// SPDX-License-Identifier: GPL-2.0

//! When the hrtimer is due: on the tick's grid where it rides the tick, else a period on
//! from its last expiry (the kernel's `hrtimer_forward`).

use crate::logic::gap::Rules;

/// Whether the hrtimer rides the tick here ([`Rules::rides_tick`]: P at least a tick),
/// on x86 only. On arm64 it keeps its own interrupt: riding the tick there made the
/// timer_list of the CPU that ran the test's shell late again and again (Debian's 7.3,
/// HZ 250: 194 late timer gaps and 118 ksoftirqd-wait events in case 12's busy part,
/// none without), which is not understood yet (design.rst, "How it detects").
pub(super) fn rides(rules: &Rules) -> bool {
    cfg!(CONFIG_X86) && rules.rides_tick()
}

/// The time between two of the hrtimer's runs on time: [`Rules::run_spacing`] where it
/// [rides](rides) the tick, else the period.
pub(super) fn spacing(rules: &Rules) -> u64 {
    if rides(rules) {
        rules.run_spacing()
    } else {
        rules.period_ns
    }
}

/// Where a parked hrtimer of CPU `cpu` is queued again on a wake-up at `now`: at most a
/// period on, on the tick's grid where it [rides](rides) the tick.
pub(super) fn unpark_expiry(rules: &Rules, now: u64, cpu: u32) -> u64 {
    if rides(rules) {
        rules.next_expiry(now, now, cpu)
    } else {
        now.saturating_add(rules.period_ns)
    }
}
