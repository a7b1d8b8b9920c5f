# SPDX-License-Identifier: GPL-2.0
# description: load, enable, inject and rmmod in cycles, and rmmod while enabled under injected load, leave no splat and detect every window
# kernels: sanitize debian-7.3 debian-7.3-rt debian-7.2 debian-7.3-cloud arm64
# proves: load/unload under load leaves nothing behind -- "nothing left" checks
# 20 load/enable/inject/rmmod cycles, and rmmod while enabled during injected load.
modprobe irqoff_sample
rmmod trace_irqoff 2>/dev/null
i=0 detected=0
while [ $i -lt 20 ]; do
	modprobe trace_irqoff
	echo 1 > $TIO/enable
	sleep 0.05
	inject $((i % 2)) hardirq 40
	sleep 0.05
	if [ "$(events $((i % 2)) hard)" -ge 1 ]; then detected=$((detected + 1)); else echo "# cycle $i: not detected on cpu $((i % 2)): $(grep '^cpu' $TIO/records | tr '\n' ' ')"; fi
	rmmod trace_irqoff
	i=$((i + 1))
done
check "20 load/enable/inject/rmmod cycles, each detected ($detected/20)" test $detected = 20
modprobe trace_irqoff
echo 1 > $TIO/enable
inject 1 softirq 300 &
inject 0 hardirq 300 &
sleep 0.1
check "rmmod while enabled during injected load" rmmod trace_irqoff
wait
check "nothing left: /proc/trace_irqoff is gone" test ! -e $TIO
check "nothing left: the tracepoint system is gone" test ! -e /sys/kernel/tracing/events/trace_irqoff
rmmod irqoff_sample
