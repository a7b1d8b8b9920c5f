# SPDX-License-Identifier: GPL-2.0
# description: without NMIs (arm64), a hardirq-off window that has not ended is still seen by another CPU, with its length and why it has no in-window stack
# needs: arm64
# Where the module cannot send NMIs (arm64: no pseudo-NMI for modules), the watcher is
# unavailable and says why, but a window still open is seen all the same: another CPU's
# hrtimer finds cpu 1's overdue. Read while a 3 s window is open, from CPU 0, by a reader
# started there before the window that uses shell builtins only (a fork then waits for
# cpu 1: see 10-detection): the records file shows the window as ongoing and counting,
# the kernel log says it has gone on past the stuck length with no in-window stack, and
# the CLI's status, run afterwards on the files as read then (--proc-root), says the
# same in its words. When the window ends, it is one final record of its full length.
tio_load
modprobe irqoff_sample
echo 1 > $TIO/enable
sleep 0.3
w=$(grep '^watcher ' $TIO/records)
echo "# $w"
check "the watcher is unavailable on this architecture (reason=arch)" sh -c "echo '$w' | grep -q '^watcher available=0 active=0 reason=arch '"

echo 0 > $TIO/trace_latency
dmesg -c > /dev/null
rm -rf /tmp/nn-* /tmp/nn.fifo /tmp/snap
mkdir -p /tmp/snap/trace_irqoff
mkfifo /tmp/nn.fifo
taskset -c 0 sh -c 'slurp() { while IFS= read -r l; do echo "$l"; done < "$1"; }
	echo > /tmp/nn-ready
	read -t 1.8 x <> /tmp/nn.fifo
	for f in '"$TIO"'/*; do slurp "$f" > /tmp/snap/trace_irqoff/${f##*/} 2>/dev/null; done' &
reader=$!
until [ -e /tmp/nn-ready ]; do read -t 0.01 x <> /tmp/nn.fifo; done
inject 1 hardirq 3000
wait $reader
tru=$(true_ns hardirq)
on=$(grep '^ongoing cpu=1 kind=hard ' /tmp/snap/trace_irqoff/records)
echo "# while open: $on"
lat=$(field latency_ns "$on")
check "records, read while it was open: cpu 1's hardirq-off window is ongoing, >= 1 s so far (${lat:-none} ns)" test "${lat:-0}" -ge 1000000000
check "... with no in-window sample (no NMI), watched by cpu 0" sh -c "echo '$on' | grep -q ' samples=0 watcher_cpu=0'"
dmesg | grep 'has had hard interrupts off' | sed 's/^/# /'
check "the kernel log says cpu 1 has had interrupts off past the stuck length, with no in-window stack" \
	sh -c "dmesg | grep -qE 'trace_irqoff: cpu 1 has had hard interrupts off for [0-9]+ ms \(no in-window stack\)'"
trace-irqoff --proc-root /tmp/snap status > /tmp/nn-status 2>&1
sed 's/^/#   /' /tmp/nn-status
check "status on the files read while it was open: cpu 1's window counting, without a sample" \
	grep -qE '^CPU 1: hard interrupts off for [0-9.]+ s and counting .*no in-window sample yet' /tmp/nn-status
check "... and why: the watcher cannot send NMIs on this architecture" \
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
