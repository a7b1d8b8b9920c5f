#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# proves: the first seconds after enable are clean, and the module is never the culprit -- "50 enables, CPUs idle then busy: no window at the threshold in the first 2 s with nothing opened", "the samplers' start keeps interrupts off briefly (online_max_ns)"
# Right after `echo 1 > enable` nothing has opened a window: every window at the threshold
# in the first seconds would be either the module's own doing (its enable and CPU-online
# paths keep hard interrupts off while they start the samplers) or a first period that is
# not clean. 50 enables, the first 25 with both CPUs idle, the rest with both busy in user
# space; after each, 2 s of sampling at P = 10 ms, threshold 50 ms, then disable. Every
# window at the threshold is a failure and is printed with its stack. The longest stretch
# the samplers' start kept interrupts off on each CPU (the cpu line's online_max_ns) is
# measured and must stay under a period.
. /tests/lib.sh
N=50

tio_load
echo 10 > $TIO/sampling_period
echo 50 > $TIO/trace_latency
P_NS=$(config_field period_ns)
busy=
bad=0 events=0
i=1
while [ $i -le $N ]; do
	if [ $i = $((N / 2 + 1)) ]; then
		taskset -c 0 sh -c 'while :; do :; done' &
		b0=$!
		taskset -c 1 sh -c 'while :; do :; done' &
		b1=$!
		busy=" (CPUs busy)"
	fi
	echo 1 > $TIO/enable
	sleep 2
	taskset -c 0 cat $TIO/records > /tmp/first.rec
	echo 0 > $TIO/enable
	n=$(sed -n 's/^cpu .* hard_events=\([0-9]*\) soft_events=\([0-9]*\) .*/\1 \2/p' /tmp/first.rec |
		awk '{s += $1 + $2} END {print s + 0}')
	events=$((events + n))
	if grep -q '^record ' /tmp/first.rec; then
		bad=$((bad + 1))
		echo "# enable $i$busy: a window at the threshold with nothing opened:"
		grep -E '^(record|frame|window_frame) ' /tmp/first.rec | head -n 12 | sed 's/^/#   /'
	fi
	# A clear between enables: each enable's first seconds are judged alone.
	echo 0 > $TIO/trace_latency
	i=$((i + 1))
done
kill $b0 $b1
wait $b0 $b1 2>/dev/null
online=$(sed -n 's/^cpu .* online_max_ns=\([0-9]*\).*/\1/p' $TIO/counters | sort -n | tail -n1)
echo "# measured: $N enables: $events events below the threshold in their first 2 s, $bad with a window at the threshold; longest irq-off stretch of the samplers' start: ${online:-?} ns"
check "$N enables, CPUs idle then busy: no window at the threshold in the first 2 s with nothing opened ($bad of $N had one)" test $bad = 0
check "the samplers' start kept hard interrupts off for less than a period (${online:-?} ns, P = $P_NS ns)" \
	test "${online:-$P_NS}" -lt "$P_NS"
rmmod trace_irqoff
done_testing
