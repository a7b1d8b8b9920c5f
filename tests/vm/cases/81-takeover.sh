# SPDX-License-Identifier: GPL-2.0
# description: a watcher that goes dark itself is replaced by another one
# needs: x86_64
# kernels: none
# proves: a watcher that goes dark is replaced -- (three CPUs)
# A watcher that goes dark itself: cpu 2's window is claimed by one of its two watchers
# (cpu 0 and cpu 1); when that one's interrupts go off too, the other takes the claim
# over after three periods, and cpu 2's profile keeps covering its window. Needs three
# CPUs (tests/vm/run --cpus 3 on a kernel built for them, e.g. --kernel debian-7.3).
if [ "$(grep -c '^processor' /proc/cpuinfo)" -lt 3 ]; then
	echo "# 81-takeover: needs 3 CPUs (run with --cpus 3 on a kernel with NR_CPUS >= 3)"
else
	tio_load
	modprobe irqoff_sample
	echo 1 > $TIO/enable
	sleep 0.3
	echo 0 > $TIO/trace_latency
	rm -f /tmp/f.fifo /tmp/o1 /tmp/o2 /tmp/ready0 /tmp/ready1; mkfifo /tmp/f.fifo
	# Reader on cpu 1, builtins only while windows are open.
	taskset -c 1 sh -c 'slurp() { while IFS= read -r l; do case "$l" in ongoing*|watcher*) echo "$l";; esac; done < "$1"; }
		echo > /tmp/ready1
		read -t 0.45 x <> /tmp/f.fifo; slurp /proc/trace_irqoff/records > /tmp/o1
		read -t 0.55 x <> /tmp/f.fifo; slurp /proc/trace_irqoff/records > /tmp/o2' &
	r=$!
	# cpu 2's window; cpu 0 (its usual first claimer) goes dark for 700 ms in the middle.
	# Started before cpu 2's window: no fork needed once it is open.
	taskset -c 0 sh -c 'echo > /tmp/ready0; read -t 0.5 x <> /tmp/f.fifo; echo hardirq 700 > /dev/irqoff_sample' &
	d=$!
	until [ -e /tmp/ready0 ] && [ -e /tmp/ready1 ]; do read -t 0.01 x <> /tmp/f.fifo; done
	sleep 0.2
	taskset -c 2 sh -c 'echo hardirq 1600 > /dev/irqoff_sample' &
	w=$!
	wait $w
	wait $d
	wait $r
	sed 's/^/# at 0.45 s (cpu 2 open): /' /tmp/o1
	sed 's/^/# at 1.0 s (cpu 2 open, cpu 0 dark since 0.5 s): /' /tmp/o2
	sleep 0.2
	grep -E '^watcher ' $TIO/records | sed 's/^/# /'
	grep -E '^record cpu=[02] kind=hard lower_bound=0' $TIO/records | cut -c1-110 | sed 's/^/# /'
	rec=$(grep '^record cpu=2 kind=hard lower_bound=0' $TIO/records | head -n1)
	prof=$(sed -n '/^record cpu=2 kind=hard lower_bound=0/,/^record/p' $TIO/records | grep '^profile ' | head -n1)
	echo "# $rec" | cut -c1-140
	echo "# $prof"
	lat=$(field latency_ns "$rec"); weight=$(field weight "$prof")
	exp=$(( (lat - 50000000) / 10000000 ))
	echo "# window ${lat} ns: ${exp} periods past the threshold, profile weight ${weight}"
	test -n "$lat" -a -n "$weight" || { weight=0; exp=1; }
	check "cpu 2's profile covers its window although one watcher went dark (weight $weight of $exp periods)" test "$(( weight * 100 ))" -ge "$(( exp * 85 ))"
	first=$(sed -n 's/^ongoing cpu=2 .* watcher_cpu=\([0-9-]*\).*/\1/p' /tmp/o1)
	if [ "$first" = 0 ]; then
		check "the claim moved from the dark watcher to the other one" grep -q '^ongoing cpu=2 .* watcher_cpu=1' /tmp/o2
	else
		echo "# cpu 2 was first claimed by cpu ${first:-none}, not cpu 0: the takeover was not exercised"
	fi
	check "cpu 0's own window was watched too" sh -c "sed -n '/^record cpu=0 kind=hard lower_bound=0/,/^record/p' $TIO/records | grep -qE '^profile samples=[1-9]'"
	# Hotplug of a watching CPU during a window: cpu 1 (one of cpu 2's watchers) is taken
	# offline while cpu 2 has interrupts off (the offline waits for the window: stop_machine
	# needs cpu 2), then brought back; cpu 2 stays watched and nothing splats.
	echo 0 > $TIO/trace_latency
	taskset -c 2 sh -c 'echo hardirq 600 > /dev/irqoff_sample' &
	w=$!
	sleep 0.2
	echo 0 > /sys/devices/system/cpu/cpu1/online
	wait $w
	check "cpu 1 (a watcher) went offline during cpu 2's window" grep -qx 0 /sys/devices/system/cpu/cpu1/online
	echo 1 > /sys/devices/system/cpu/cpu1/online
	check "... and came back" grep -qx 1 /sys/devices/system/cpu/cpu1/online
	check "... cpu 2's window was still watched (a profile)" sh -c "sed -n '/^record cpu=2 kind=hard lower_bound=0/,/^record/p' $TIO/records | grep -qE '^profile samples=[1-9]'"
	echo 0 > $TIO/trace_latency
	taskset -c 2 sh -c 'echo hardirq 300 > /dev/irqoff_sample'
	check "... and after the hotplug the watchers still sample cpu 2" sh -c "sed -n '/^record cpu=2 kind=hard lower_bound=0/,/^record/p' $TIO/records | grep -qE '^profile samples=[1-9]'"
	echo 0 > $TIO/enable
	rmmod trace_irqoff
	rmmod irqoff_sample
fi
