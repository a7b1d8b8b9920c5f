# SPDX-License-Identifier: GPL-2.0
# description: the test kernel, our modules, the samples and the CLI work in the guest
# kernels: test sanitize debian-7.3 debian-7.3-rt debian-7.2 debian-7.3-cloud arm64
# proves: no NMI of ours is ever unclaimed (`unknown_nmi_panic=1`) -- "the guest panics on an unclaimed NMI"
# The foundation: the test kernel, our modules and the CLI work in the guest.
check "kernel has 2 CPUs online" test "$(cat /sys/devices/system/cpu/online)" = "0-1"
# As on fleets that want a crash dump for any NMI nobody claims: one of ours that arrived
# with no handler would panic this guest (and the splat scan fails on its line).
# (x86_64: arm64 has no such switch, and the module sends no NMIs there.)
if has x86_64; then
	check "the guest panics on an unclaimed NMI (unknown_nmi_panic=1)" test "$(cat /proc/sys/kernel/unknown_nmi_panic)" = 1
else
	check "arm64: the watcher says NMIs are not available on this architecture" sh -c \
		"modprobe trace_irqoff && grep -q '^watcher available=0 active=0 reason=arch ' /proc/trace_irqoff/records && rmmod trace_irqoff"
fi
check "trace_irqoff loads" modprobe trace_irqoff
check "/proc/trace_irqoff appears" test -d /proc/trace_irqoff
check "/proc/trace_irqoff/enable reads 'disabled'" test "$(cat /proc/trace_irqoff/enable)" = disabled
check "trace_irqoff unloads" rmmod trace_irqoff
check "/proc/trace_irqoff disappears" test ! -e /proc/trace_irqoff
check "the Rust sample module loads" modprobe irqoff_sample
check "the sample's device appears" test -c /dev/irqoff_sample
check "the sample rejects a bad command" sh -c '! echo bogus 1 > /dev/irqoff_sample'
check "the sample runs a 10 ms preempt-off window" sh -c 'echo preempt 10 > /dev/irqoff_sample && dmesg | grep -q "irqoff_sample: preempt window"'
# Windows in interrupt context on CPU 1, asked from CPU 0: each runs there, in the context
# its mode names, for at least its length (the ground truth of the interrupt-context cases).
irq_window_line() {	# irq_window_line MODE: the sample's log line of its last MODE window
	dmesg | grep "irqoff_sample: $1 window cpu=" | tail -n1
}
for spec in "ipi hardirq irqs-off" "hrtimer hardirq irqs-off" "timerirq softirq irqs-off" "timer softirq -irqs-off"; do
	set -- $spec
	taskset -c 0 sh -c "echo $1 1 30 > /dev/irqoff_sample"
	line=$(irq_window_line "$1")
	echo "# measured: $line"
	ns=$(echo "$line" | sed -n 's/.* ns=\([0-9]*\) .*/\1/p')
	case $3 in
	-*) want_off=no ;;
	*) want_off=yes ;;
	esac
	# An IPI function may also run without an IPI: when CPU 1's idle loop is polling,
	# smp_call_function_single() only sets need_resched and the idle loop runs the
	# function itself (flush_smp_call_function_queue, interrupts off), seen once on the
	# sanitize kernel as "context: idle-task irqs-off".
	ctx=$2
	[ "$1" = ipi ] && echo "$line" | grep -q 'context: idle-task irqs-off$' && ctx=idle-task
	check "the sample's $1 window (30 ms) ran on cpu 1 in $ctx context, interrupts $( [ $want_off = yes ] && echo off || echo on )" \
		sh -c "echo '$line' | grep -q 'cpu=1 ' && echo '$line' | grep -qw '$ctx' &&
			if [ $want_off = yes ]; then echo '$line' | grep -qw irqs-off; else ! echo '$line' | grep -qw irqs-off; fi &&
			[ '${ns:-0}' -ge 30000000 ]"
done
check "the sample refuses an interrupt-context window on a CPU that does not exist" sh -c '! echo ipi 4000000000 30 > /dev/irqoff_sample'
check "the sample unloads" rmmod irqoff_sample
check "null_blk (a kernel module of the test kernel) loads" modprobe null_blk
check "null_blk unloads" rmmod null_blk
check "the CLI runs in the guest" trace-irqoff --version
modprobe trace_irqoff
check "the CLI reads the module's state" sh -c 'trace-irqoff status | grep -q disabled'
rmmod trace_irqoff
check "the CLI says the module is not loaded (exit 2)" sh -c 'trace-irqoff status; test $? = 2'
