#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# boot: idle=poll
# proves: windows opened in interrupt context (IPI, hard hrtimer, hard irq_work, timer_list, soft hrtimer, tasklet, BH work item) are events with their culprit, idle CPU or busy, also with `idle=poll` (design.rst: idle gaps)
# icount-shift: 1
# Booted with `idle=poll`: an idle CPU spins in the idle loop with interrupts on instead of
# halting, and a function another CPU asks it to run (an IPI) is not sent as an interrupt:
# the idle loop finds it queued and runs it itself, in the idle task with interrupts off
# (flush_smp_call_function_queue). The interrupt-context case (cases/12-interrupt-context.sh)
# runs here on the idle CPU (the busy one never reaches the idle loop, so that half is the
# suite's): every window it opens is reported with its culprit also when the idle loop
# never sleeps.
. /tests/lib.sh
check "booted with idle=poll" grep -qw idle=poll /proc/cmdline
# The case as the suite runs it (tests/vm/suite.sh): a subtest in a shell of its own, with
# CPU 1 idle only (busy, it never reaches the idle loop: that half is the suite's).
(
	CASE12_LOADS=idle
	T_INDENT="    " T_N=0 T_FAILED=0
	echo "# case 12-interrupt-context.sh: $(sed -n 's/^# description: *//p' /tests/cases/12-interrupt-context.sh)"
	echo "    KTAP version 1"
	echo "    # Subtest: 12-interrupt-context.sh"
	. /tests/cases/12-interrupt-context.sh
	echo "    1..$T_N"
	[ "$T_FAILED" = 0 ]
)
rc=$?
if [ $rc = 0 ]; then ok "12-interrupt-context.sh under idle=poll: every window reported with its culprit"; else not_ok "12-interrupt-context.sh under idle=poll: every window reported with its culprit"; fi
# The premise: on the idle CPU the IPI function ran from the idle loop itself (the idle
# task, interrupts off, not in a hard interrupt); the sample's log line says where it ran.
ctx=$(dmesg | sed -n 's/.*irqoff_sample: ipi window cpu=1 ns=[0-9]* pid=[0-9]* context: *//p' | head -n1)
echo "# measured: idle cpu 1, the IPI function's context: $ctx"
check "idle=poll: the idle CPU's IPI function ran from the idle loop itself (idle task, interrupts off, not in hardirq: '$ctx')" \
	test "$ctx" = "idle-task irqs-off"
done_testing
