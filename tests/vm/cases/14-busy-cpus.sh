# SPDX-License-Identifier: GPL-2.0
# description: a busy CPU takes no interrupt of the sampler's own where the period is at least a tick (x86): the tick's interrupt takes the samples
# kernels: test debian-7.3 arm64
# proves: the tick takes the hrtimer's samples at its interrupt's entry where P is at least a tick, on x86 (design.rst: how it detects; CpuSampler::ticked, Rules::ride_due) -- "busy CPU 1 with sampling on at P = 10 ms (at least a tick): at most 2% more local timer interrupts a second than without the module", "busy CPU 1 at P = 1 ms: ...", "busy CPU 1 at P = 1 ms, below a tick: the hrtimer's own interrupt, at least 800 more a second", "... on arm64: the hrtimer keeps its own interrupt there"
# CPU 1 busy in a shell loop (user space, no system call), CPU 0 measuring: CPU 1's local
# timer interrupts a second (x86's LOC row, arm64's arch_timer row of /proc/interrupts)
# over 5 s of guest time, without the module, and with sampling on at P = 10 ms
# (threshold 50 ms) and at P = 1 ms (threshold 50 ms). A busy CPU takes its tick, HZ
# interrupts a second, whatever runs; a sampler whose hrtimer has an interrupt of its own
# adds about 1/P a second (100 at P = 10 ms, 1000 at P = 1 ms), as the original does.
# Claims: where P is a tick or more (the tick's length from the module's config line,
# 1 s / hz), sampling adds at most 2% and 5 a second (the tick's own count moves by a
# few a second between runs); where P is below a tick (P = 1 ms at HZ 250), the hrtimer
# keeps its own interrupt: at least 800 a second more (4/5 of 1/P, a bound that samples
# taken by the tick cannot reach); on arm64, where the tick takes none (its timer
# interrupt is not probed), the same at every P (at least 80 more at P = 10 ms). The first
# check's premise: the module reports the hz the bound is derived from.
. /tests/lib.sh

# loc_rate SECONDS: CPU 1's local timer interrupts a second over SECONDS of guest time.
loc_rate() {
	taskset -c 0 sh -c '
		. /tests/lib.sh
		snap() { awk "NR > 1 && (\$1 == \"LOC:\" || /arch_timer/) { l += \$3 } END { print l + 0 }" /proc/interrupts; }
		set -- $(snap) $(up_ns); la=$1 t0=$2
		sleep '"$1"'
		set -- $(snap) $(up_ns); lb=$1 t1=$2
		echo $(( (lb - la) * 1000000000 / (t1 - t0) ))'
}
rmmod trace_irqoff 2>/dev/null
taskset -c 1 sh -c 'while :; do :; done' &
spin=$!
sleep 1
l_none=$(loc_rate 5)
tio_load
hz=$(config_field hz)
check "the module reports the kernel's tick rate (hz=$hz)" test "${hz:-0}" -gt 0
tick_ns=$((1000000000 / ${hz:-1}))
rate_at() {	# rate_at P_MS: CPU 1's local timer interrupts a second with sampling on at P_MS
	echo 0 > $TIO/enable
	echo "$1" > $TIO/sampling_period
	echo 50 > $TIO/trace_latency
	echo 1 > $TIO/enable
	sleep 1
	loc_rate 5
}
l_p10=$(rate_at 10)
l_p1=$(rate_at 1)
echo 0 > $TIO/enable
echo 10 > $TIO/sampling_period
kill $spin
wait $spin 2>/dev/null
echo "# measured: CPU 1 busy, local timer interrupts a second: not loaded $l_none, sampling at P = 10 ms $l_p10, at P = 1 ms $l_p1 (hz=$hz)"
echo "# $(grep '^cost ' $TIO/records | tr '\n' ' ')"
for p in 10 1; do
	eval "l=\$l_p$p"
	if has arm64; then
		floor=$((l_none + 800 / p))
		check "busy CPU 1 at P = $p ms on arm64: the hrtimer keeps its own interrupt there (the tick takes no sample), at least $((800 / p)) more a second ($l against $l_none)" test "$l" -ge "$floor"
	elif [ $((p * 1000000)) -ge "$tick_ns" ]; then
		bound=$((l_none + l_none / 50 + 5))
		check "busy CPU 1 with sampling on at P = $p ms (at least a tick): at most 2% more local timer interrupts a second than without the module ($l against $l_none, bound $bound)" test "$l" -le "$bound"
	else
		floor=$((l_none + 800 / p))
		check "busy CPU 1 at P = $p ms, below a tick ($tick_ns ns): the hrtimer's own interrupt, at least 800 more a second ($l against $l_none)" test "$l" -ge "$floor"
	fi
done
rmmod trace_irqoff
