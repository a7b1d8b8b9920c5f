# SPDX-License-Identifier: GPL-2.0
# description: on PREEMPT_RT both writers of a CPU's softirq record store (the timer_list and the probe) keep it exact: every event kept, dropped or replaced once, the worst kept
# needs: rt
# kernels: debian-7.3-rt
# proves: one writer at a time on a record store, also on PREEMPT_RT where the softirq store's two writers run in threads that preempt each other (design.rst: PREEMPT_RT) -- "records + dropped + replaced = events offered", "the ... records kept are the ... largest"
# PREEMPT_RT: the softirq record store of a CPU has two writers, the timer_list sampler
# (in ktimers/N) and the softirq probe (a BH work item, in whichever task runs the HI
# softirq). On RT softirq handlers are preemptible, so `RecordStore::offer` keeps
# preemption off from the choice of a slot to the end of its fill: one writer at a time.
# A writer preempted in between would let the other choose the same slot: one of the two
# events would be lost, and the store would count it neither kept, dropped nor replaced.
# Here both writers are kept busy on CPU 1 for 80 windows of 12 ms (a timer_list
# callback, a BH work item, a tasklet, a soft hrtimer callback; P = 4 ms, threshold 2P),
# and every event the store was offered is read from the module's own softirq_off
# tracepoint (filtered to CPU 1, at or above the threshold: exactly the ones offered;
# the probe's have close_probe in their stack). Claims:
# - both writers offered events in the run. The measured lines name the threads they ran
#   in, and a stack of each: on debian-7.3-rt (2026-11-28, four runs) both always in
#   ktimers/1, and in two of the runs also the probe in ksoftirqd/1 (2 and 6 events) and
#   the timer_list in rcuc/1 (10 and 4: rcuc runs the pending softirqs when it enables
#   bottom halves again). ksoftirqd/1 is SCHED_OTHER; ktimers/1 and rcuc/1, SCHED_FIFO,
#   preempt it at will: the case the one-writer rule is for (the threads vary from run to
#   run, so they are shown, not checked);
# - records + dropped + replaced = events offered (each accounted exactly once);
# - the kept latencies are exactly the largest offered ones, as many as were kept (no
#   event's slot taken by another's).
D=12
N=20
tio_load
modprobe irqoff_sample
echo 4 > $TIO/sampling_period
echo 8 > $TIO/trace_latency
echo 1 > $TIO/enable
THR=$(config_field threshold_ns)
echo "# measured: HZ $(config_field hz), P = $(config_field period_ns) ns, threshold $THR ns"
# A tracefs instance of its own (its own buffer and events): the global trace's state,
# which later cases use, stays as it was.
T=/sys/kernel/tracing/instances/tio-case47
mkdir -p $T
echo 0 > $T/tracing_on
echo 'cpu == 1' > $T/events/trace_irqoff/softirq_off/filter
echo > $T/trace
echo 1 > $T/events/trace_irqoff/softirq_off/enable
sleep 0.5
taskset -c 0 sh -c 'echo 0 > /proc/trace_irqoff/trace_latency'
echo 1 > $T/tracing_on
i=0
while [ $i -lt $N ]; do
	i=$((i + 1))
	for mode in timer bhwork tasklet softhrtimer; do
		taskset -c 0 sh -c "echo $mode 1 $D > /dev/irqoff_sample"
		taskset -c 0 sleep 0.05
	done
done
sleep 0.3
echo 0 > $T/tracing_on
echo 0 > $T/events/trace_irqoff/softirq_off/enable
records=$(taskset -c 0 cat $TIO/records)
# The events offered: at or above the threshold, not an open window's lower bound.
offered=$(grep -v '^#' $T/trace | sed 's/.*softirq_off: //' | awk -v t=$THR '
	{ lat = ""; lb = ""; comm = ""
	  for (i = 1; i <= NF; i++) {
		if ($i ~ /^latency_ns=/) lat = substr($i, 12)
		if ($i ~ /^lower_bound=/) lb = substr($i, 13)
		if ($i ~ /^comm=/) comm = substr($i, 6)
	  }
	  if (lat + 0 >= t && lb == "0") print lat, (/close_probe/ ? "probe" : "timer_list"), comm }')
# One event of each writer and thread, with the first frames of its stack.
grep -v '^#' $T/trace | sed 's/.*softirq_off: //' | awk '
	{ w = (/close_probe/ ? "probe" : "timer_list"); c = ""
	  for (i = 1; i <= NF; i++) if ($i ~ /^comm=/) c = $i
	  if (!((w, c) in seen)) { seen[w, c] = 1; f = $0; sub(/.*frames=/, "", f); n = split(f, fr, ";")
		s = fr[1]; for (i = 2; i <= 4 && i <= n; i++) s = s ";" fr[i]; print "#   " w, c, s } }'
rmdir $T
n_offered=$(echo "$offered" | grep -c .)
n_probe=$(echo "$offered" | grep -c ' probe ')
n_timer=$(echo "$offered" | grep -c ' timer_list ')
echo "# measured: offered $n_offered events: $n_timer by the timer_list, $n_probe by the probe; writer and thread:"
echo "$offered" | awk 'NF { print $2, "in", $3 }' | sort | uniq -c | sed 's/^/#   /'
cpu1=$(echo "$records" | grep '^cpu 1 ')
dropped=$(echo "$cpu1" | sed -n 's/.* soft_dropped=\([0-9]*\) .*/\1/p')
replaced=$(echo "$cpu1" | sed -n 's/.* soft_replaced=\([0-9]*\) .*/\1/p')
kept=$(echo "$records" | sed -n 's/^record cpu=1 kind=soft lower_bound=0 latency_ns=\([0-9]*\) .*/\1/p' | sort -n)
n_kept=$(echo "$kept" | grep -c .)
echo "# measured: kept $n_kept, dropped ${dropped:-?}, replaced ${replaced:-?}"
check "both writers offered CPU 1's softirq store events (timer_list $n_timer, probe $n_probe)" \
	test "$n_timer" -gt 0 -a "$n_probe" -gt 0
check "records + dropped + replaced = events offered ($n_kept + ${dropped:-?} + ${replaced:-?} = $n_offered)" \
	test "$((n_kept + ${dropped:-0} + ${replaced:-0}))" -eq "$n_offered" -a -n "$dropped" -a -n "$replaced"
largest=$(echo "$offered" | awk 'NF { print $1 }' | sort -n | tail -n "$n_kept")
if [ "$n_kept" -gt 0 ] && [ "$kept" = "$largest" ]; then
	ok "the $n_kept records kept are the $n_kept largest of the $n_offered offered"
else
	not_ok "the records kept are the largest offered" "kept: $(echo $kept)" "largest offered: $(echo $largest)"
fi
echo 0 > $TIO/enable
rmmod irqoff_sample
rmmod trace_irqoff
