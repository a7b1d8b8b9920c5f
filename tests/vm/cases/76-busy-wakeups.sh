#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: a busy CPU takes no interrupt of the sampler's own where its expiries meet the tick: with sampling on at P = 10 ms, at P = one tick and at 1 ms, CPU 1 busy in a loop takes its tick's local timer interrupts plus one for each expiry off the tick grid, none where P is a multiple of the tick
# kernels: test debian-7.3
# proves: the hrtimer's expiries are phased onto the tick, so a busy CPU takes one interrupt for both wherever they meet (design.rst: One interrupt with the tick) -- "none of the sampler's own beside the tick"
# CPU 1 runs a shell loop (interrupts on, no idle) for 3 s of guest time, with the module
# not loaded, then with sampling on at each period; its LOC row of /proc/interrupts counts
# its local timer interrupts. The tick's rate is the kernel's HZ (read from the module's
# config line), not our test config. The expiries are P apart in a phase that meets the
# tick grid, so of every tick/g of them (g = gcd(P, tick)) one is on a tick: expected per
# second, HZ + (1/P)(1 - g/tick). P a multiple of the tick: HZ alone; HZ 250 and
# P = 10 ms: 250 + 50 (every other expiry on a tick; 350 with an interrupt of its own for
# each); HZ 250 and P = 1 ms: 1000. The tolerance, 3% of the expected rate plus 5 a
# second, covers the shell's own timers and the start and end of the count.
loc1() {	# loc1: CPU 1's local timer interrupts so far
	awk '$1 == "LOC:" { print $3 }' /proc/interrupts
}
busy_rate() {	# busy_rate: CPU 1's local timer interrupts per second while it runs a loop for 3 s
	taskset -c 1 sh -c 'while :; do :; done' &
	b=$!
	sleep 0.5
	l0=$(loc1)
	t0=$(cut -d' ' -f1 /proc/uptime)
	sleep 3
	l1=$(loc1)
	t1=$(cut -d' ' -f1 /proc/uptime)
	kill $b
	wait $b 2>/dev/null
	awk -v l0=$l0 -v l1=$l1 -v t0=$t0 -v t1=$t1 'BEGIN { printf "%d\n", (l1 - l0) / (t1 - t0) + 0.5 }'
}

base=$(busy_rate)
tio_load
HZ=$(config_field hz)
echo "# measured: HZ $HZ; CPU 1 busy, module not loaded: $base local timer interrupts a second"
check "without the module a busy CPU takes its tick, HZ ($HZ) a second ($base)" within "$base" $((HZ * 97 / 100 - 5)) $((HZ * 103 / 100 + 5))
periods=10
for p in $((1000 / HZ)) 1; do
	case " $periods " in *" $p "*) ;; *) periods="$periods $p" ;; esac
done
for p in $periods; do
	trace-irqoff disable > /dev/null 2>&1
	echo $p > $TIO/sampling_period
	trace-irqoff enable > /dev/null
	P_NS=$(config_field period_ns)
	r=$(busy_rate)
	per_p=$((1000000000 / P_NS))
	tick_ns=$((1000000000 / HZ))
	a=$P_NS b=$tick_ns
	while [ $b -ne 0 ]; do t=$((a % b)); a=$b; b=$t; done
	exp=$((HZ + per_p - per_p * a / tick_ns))
	echo "# measured: P = $P_NS ns: CPU 1 busy, sampling on: $r local timer interrupts a second (expected $exp; with its own interrupt it would be $((HZ + per_p)))"
	check "P = $P_NS ns: a busy CPU takes $exp local timer interrupts a second ($r), none of the sampler's own where its expiry is on a tick" \
		within "$r" $((exp * 97 / 100 - 5)) $((exp * 103 / 100 + 5))
done
trace-irqoff disable > /dev/null
rmmod trace_irqoff
done_testing
