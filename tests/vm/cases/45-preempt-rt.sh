# SPDX-License-Identifier: GPL-2.0
# description: on PREEMPT_RT a reader outranking the ktimers thread neither hangs nor reads a torn record, and windows are measured within tolerance
# needs: rt
# kernels: debian-7.3-rt
# proves: an idle CPU yields no event; a late wake-up from idle is not a window -- "RT idle 30 s"
# proves: a record is never half-written; a chunked read equals one read (what a reader sees of the records) -- "SCHED_FIFO 90 reader on cpu 1 finishes"
# PREEMPT_RT: the timer_list sampler runs in the preemptible ktimers/N thread. A reader
# that outranks it on its CPU (SCHED_FIFO 90 on CPU 1, reading the record files in a loop)
# must neither hang (a record writer preempted mid-record, its reader spinning on it) nor
# keep the windows injected meanwhile from being seen. And since the timer_list never runs
# in the idle task there, late wake-ups from idle must still not count as events.
# Softirq-side windows: bh-off where local_bh_disable() holds softirqs off (the BH lock);
# without it (Debian's RT kernel) preempt-off, which starves ktimers/1. Either way the
# timer_list writes its records from ktimers/1 while the reader runs.
MS=1000000
rt_soft=softirq
if has rt && ! has bh-lock; then rt_soft=preempt; fi
tio_load
modprobe irqoff_sample
echo 1 > $TIO/enable
sleep 1
rt_cfg=$(grep '^config ' $TIO/records)
rt_p=$(field period_ns "$rt_cfg")
rt_ps=$(field soft_period_ns "$rt_cfg")
rt_se=$(field soft_event_ns "$rt_cfg")
echo "# $rt_cfg"
echo 0 > $TIO/trace_latency

# The reader: bounded (a stop file, at most 20000 rounds), 200 µs asleep between rounds so
# that ktimers/1 gets the CPU. busybox chrt where it exists, else the static helper.
rt_stop=/tmp/rt-reader.stop
rm -f $rt_stop /tmp/rt-reader.n
if command -v chrt > /dev/null 2>&1; then rt_run="chrt -f 90 taskset -c 1"; else rt_run="tio-chrt 90 1"; fi
$rt_run sh -c "i=0
	while [ \$i -lt 20000 ] && [ ! -e $rt_stop ]; do
		cat $TIO/records > /dev/null; cat $TIO/trace_latency > /dev/null; usleep 200; i=\$((i + 1))
	done
	echo \$i > /tmp/rt-reader.n" &
rt_pid=$!
sleep 0.5
rt_n=4
i=0
while [ $i -lt $rt_n ]; do
	inject 1 hardirq 100; sleep 0.2
	inject 1 $rt_soft 100; sleep 0.2
	i=$((i + 1))
done
touch $rt_stop
# A reader stuck behind a preempted writer never ends; give it 30 s.
w=0
while kill -0 $rt_pid 2> /dev/null && [ $w -lt 300 ]; do sleep 0.1; w=$((w + 1)); done
if kill -0 $rt_pid 2> /dev/null; then
	not_ok "SCHED_FIFO 90 reader on cpu 1 finishes within 30 s (hung: a writer preempted mid-record?)" \
		"$(cat /proc/$rt_pid/stack 2> /dev/null | head -n 5)"
	kill -9 $rt_pid 2> /dev/null
else
	wait $rt_pid
	ok "SCHED_FIFO 90 reader on cpu 1 finishes ($(cat /tmp/rt-reader.n 2> /dev/null) rounds, $((w / 10)).$((w % 10)) s after the last window)"
fi

rt_true() {	# rt_true MODE: the true lengths of the last $rt_n MODE windows on cpu 1, sorted
	dmesg | sed -n "s/.*irqoff_sample: $1 window cpu=1 ns=\([0-9]*\).*/\1/p" | tail -n $rt_n | sort -n
}
rt_count() {	# rt_count KIND LO HI: cpu 1's KIND records (not lower bounds) with latency in [LO, HI]
	sed -n "s/^record cpu=1 kind=$1 lower_bound=0 latency_ns=\([0-9]*\) .*/\1/p" $TIO/records \
		| awk -v lo="$2" -v hi="$3" '$1 >= lo && $1 <= hi { n++ } END { print n + 0 }'
}
# Hard: latency in [D - P, D + 2P]. Soft: the timer_list may start a phase of up to one
# period before the window and fire up to soft_event_ns - 2 Ps after it (granule + jiffy),
# so latency (gap - Ps) is in [D - Ps, D + soft_event_ns]; the margin covers ktimers/1
# waiting for the reader's round to end. The probe counts a window where softirqs run in
# threads from the first look that found their work waiting: that work comes with the
# first timer due in the window (ours, within Ps of its start), the look within P of
# that, so its latency may be up to Ps + P short of D.
for kind in hard soft; do
	if [ $kind = hard ]; then mode=hardirq; else mode=$rt_soft; fi
	tru=$(rt_true $mode)
	lo=$(echo "$tru" | head -n1); hi=$(echo "$tru" | tail -n1)
	if [ $kind = hard ]; then lo=$((lo - rt_p)); hi=$((hi + 2 * rt_p)); else lo=$((lo - rt_ps - rt_p)); hi=$((hi + rt_se)); fi
	n=$(rt_count $kind $lo $hi)
	ev=$(events 1 $kind)
	echo "# measured: $mode windows true_ns=$(echo $tru) -> $n $kind records in [$lo, $hi], $ev $kind events on cpu 1"
	if [ "$n" -ge $rt_n ] && [ "$ev" -ge $rt_n ]; then
		ok "RT reader running: $rt_n $mode-off windows on cpu 1 give $kind records with latency in range"
	else
		not_ok "RT reader running: $rt_n $mode-off windows on cpu 1 give $kind records with latency in range" \
			"$n records in [$lo, $hi], $ev events" "$(grep '^record cpu=1 ' $TIO/records)"
	fi
done

# Idle, 30 s: no event on any CPU. The idle-late windows of the hrtimer (hard interrupt
# context also on RT) keep late wake-ups out of the timer_list's events.
echo 0 > $TIO/trace_latency
sleep 30
rt_h=$(sed -n 's/^cpu .* hard_events=\([0-9]*\).*/\1/p' $TIO/records | awk '{ s += $1 } END { print s + 0 }')
rt_s=$(sed -n 's/^cpu .* soft_events=\([0-9]*\).*/\1/p' $TIO/records | awk '{ s += $1 } END { print s + 0 }')
rt_i=$(sed -n 's/^cpu .*idle_gaps=\([0-9]*\).*/\1/p' $TIO/records | awk '{ s += $1 } END { print s + 0 }')
echo "# measured: RT idle 30 s: $rt_h hardirq events, $rt_s softirq events, $rt_i late wake-ups from idle (not events)"
check "RT idle 30 s: no hardirq event ($rt_h)" test "$rt_h" = 0
check "RT idle 30 s: no softirq event ($rt_s)" test "$rt_s" = 0
echo 0 > $TIO/enable
rmmod irqoff_sample
rmmod trace_irqoff
