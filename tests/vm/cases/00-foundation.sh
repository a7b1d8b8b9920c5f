# SPDX-License-Identifier: GPL-2.0
# The foundation: the test kernel, our modules and the CLI work in the guest.
check "kernel has 2 CPUs online" test "$(cat /sys/devices/system/cpu/online)" = "0-1"
check "trace_irqoff loads" modprobe trace_irqoff
check "/proc/trace_irqoff appears" test -d /proc/trace_irqoff
check "/proc/trace_irqoff/enable reads 'disabled'" test "$(cat /proc/trace_irqoff/enable)" = disabled
check "trace_irqoff unloads" rmmod trace_irqoff
check "/proc/trace_irqoff disappears" test ! -e /proc/trace_irqoff
check "the Rust sample module loads" modprobe irqoff_sample
check "the sample's device appears" test -c /dev/irqoff_sample
check "the sample rejects a bad command" sh -c '! echo bogus 1 > /dev/irqoff_sample'
check "the sample runs a 10 ms preempt-off window" sh -c 'echo preempt 10 > /dev/irqoff_sample && dmesg | grep -q "irqoff_sample: preempt window"'
check "the sample unloads" rmmod irqoff_sample
check "null_blk (a kernel module of the test kernel) loads" modprobe null_blk
check "null_blk unloads" rmmod null_blk
check "the CLI runs in the guest" trace-irqoff --version
modprobe trace_irqoff
check "the CLI reads the module's state" sh -c 'trace-irqoff status | grep -q disabled'
rmmod trace_irqoff
check "the CLI says the module is not loaded (exit 2)" sh -c 'trace-irqoff status; test $? = 2'
