# SPDX-License-Identifier: GPL-2.0
# description: without NMIs (arm64), a hardirq-off window that has not ended is still seen by another CPU, with its length and why it has no in-window stack
# needs: arm64
# kernels: arm64
# proves: without NMIs (arm64) a window still open is seen by another CPU, with its length and why it has no in-window stack; a stuck one is logged (`stuck_ms`)
# Where the module cannot send NMIs (arm64: no pseudo-NMI for modules), the watcher is
# unavailable and says why, but a window still open is seen all the same: another CPU's
# hrtimer finds cpu 1's overdue. What it did while the 3 s window was open is read
# afterwards, from what it left: the irqoff_ongoing events (fired only while a window is
# open: at the threshold and at the stuck length, with no task, as no NMI took one) and
# the kernel log's stuck line "(no in-window stack)". No reader runs during the window:
# in QEMU's arm64 guest cpu 0 is not run for long stretches while cpu 1 spins with
# interrupts masked, so what a reader there saw would be chance. How the CLI shows such a
# window while open is host-tested (status_says_why_the_watcher_is_unavailable). When the
# window ends, it is one final record of its full length, and status says why it has no
# in-window stack.
T=/sys/kernel/tracing
tio_load
modprobe irqoff_sample
echo 1 > $TIO/enable
sleep 0.3
w=$(grep '^watcher ' $TIO/records)
echo "# $w"
check "the watcher is unavailable on this architecture (reason=arch)" sh -c "echo '$w' | grep -q '^watcher available=0 active=0 reason=arch '"

echo 0 > $TIO/trace_latency
echo > $T/trace
echo 1 > $T/events/trace_irqoff/irqoff_ongoing/enable
dmesg -c > /dev/null
inject 1 hardirq 3000
echo 0 > $T/events/trace_irqoff/irqoff_ongoing/enable
tru=$(true_ns hardirq)
grep 'irqoff_ongoing' $T/trace | sed 's/^/#   /'
check "while it was open, irqoff_ongoing fired for cpu 1 at the threshold (stuck=0), with no task (no NMI)" \
	grep -qE 'irqoff_ongoing: cpu=1 length_ns=[0-9]+ pid=0 comm= stuck=0' $T/trace
check "... and at the stuck length, >= 1 s (stuck=1)" \
	grep -qE 'irqoff_ongoing: cpu=1 length_ns=[0-9]{10} pid=0 comm= stuck=1' $T/trace
dmesg | grep 'has had hard interrupts off' | sed 's/^/# /'
check "the kernel log says cpu 1 has had interrupts off past the stuck length, with no in-window stack" \
	sh -c "dmesg | grep -qE 'trace_irqoff: cpu 1 has had hard interrupts off for [0-9]+ ms \(no in-window stack\)'"
trace-irqoff status > /tmp/nn-status 2>&1
sed 's/^/#   /' /tmp/nn-status
check "status says why there is no in-window stack: the watcher cannot send NMIs on this architecture" \
	grep -q '^watcher: not available on this architecture: .*hardirq-off windows still open show their length only' /tmp/nn-status
rec=$(grep '^record cpu=1 kind=hard lower_bound=0 ' $TIO/records | head -n1)
lat=$(field latency_ns "$rec")
p=$(config_field period_ns)
echo "# measured: window true_ns=$tru, final record latency_ns=${lat:-none}"
check "after it ended: one final record of its length, in [D-P, D+2P] ($lat ns)" \
	sh -c "[ -n '$lat' ] && [ -n '$tru' ] && [ $lat -ge $((tru - p)) ] && [ $lat -le $((tru + 2 * p)) ]"
echo 0 > $TIO/enable
rmmod irqoff_sample
rmmod trace_irqoff
