# SPDX-License-Identifier: GPL-2.0
# description: windows opened in interrupt context (IPI, hard hrtimer, hard hrtimer come into a tasklet, hard irq_work, timer_list with interrupts off and on, soft hrtimer, tasklet, BH work item) are reported with their culprit on an idle and on a busy CPU
# kernels: test debian-7.3 debian-7.3-rt debian-7.2 debian-7.3-cloud arm64
# proves: windows opened in interrupt context (IPI, hard hrtimer, hard hrtimer come into a tasklet, hard irq_work, timer_list, soft hrtimer, tasklet, BH work item) are events with their culprit, idle CPU or busy, also with `idle=poll` (design.rst: idle gaps)
# Windows opened from interrupt context, the way drivers and timers do, each D = 120 ms on
# CPU 1, asked from CPU 0: with hard interrupts off, an IPI function, a pinned hard hrtimer
# callback, a hard irq_work raised on CPU 1 and a pinned timer_list callback that turns
# interrupts off (hardirq-off windows); with interrupts on, in softirq context, a pinned
# timer_list callback, a pinned soft hrtimer callback, a tasklet scheduled on CPU 1 and a
# work item of the BH workqueue queued there (softirq-off windows: every other softirq on
# CPU 1 waits). Once with CPU 1 idle (the idle task is current in all of them: no proof
# that the CPU slept) and once with CPU 1 busy in a user-space loop. Claims, for each: one
# event of the window's kind on CPU 1 with latency in [D - P, D + 2P] (P: the sampler that
# sees it, hrtimer or timer_list, as the module reports it), the record's stack (where
# the window ended, or inside it) holds the sample's callback, and `top` names it as that
# kind's culprit, never the idle loop.
# tests/vm/idle-poll.sh runs this case again with `idle=poll`, where an idle CPU polls
# with interrupts on and an IPI function runs from the idle loop itself.
# On PREEMPT_RT the timer_list callbacks run in ktimers/1, a task: the interrupts-off one
# is still a hardirq-off event, the interrupts-on one a softirq-off event whose stack is
# ktimers' (bottom halves are held by ktimers while it serves them: cause bh-off). The
# soft hrtimer callback runs in ktimers/1 too, the tasklet and the BH work item in
# whichever of ktimers/1 and ksoftirqd/1 takes them (the measured line names it; whose
# task the record names is not checked for those).
# On arm64 no NMI can take a stack inside a hardirq window, and the end stack of one that
# an IPI function, a hard hrtimer callback or a hard irq_work held is not the culprit's
# (it had returned): `top` must then say the culprit was not seen, never name the idle
# loop or the busy task. The same where the hard hrtimer's interrupt came into a tasklet
# that runs with interrupts on (hrtimerbh): the sampler's hrtimer, expired in the window,
# runs in that same interrupt, and its end stack is the tasklet's spin
# (sample_tasklet_spin), which did not turn interrupts on and must never be named (seen
# in make test with the scheduler's softirq where the tasklet is here: `top` named
# cpu_util). A timer_list callback that re-enables interrupts itself is seen
# at its end, as the caller of the leaf that did it (lib.sh's HARD_FN): the callback,
# sample_timer_cb.
D=120
tio_load
modprobe irqoff_sample
echo 1 > $TIO/enable
P_NS=$(config_field period_ns)
PS_NS=$(config_field soft_period_ns)
echo "# measured: HZ $(config_field hz), P = $P_NS ns, Ps = $PS_NS ns$(has rt && echo ', PREEMPT_RT')"
sleep 1

callback() {	# callback MODE: the culprit `top` must name for a MODE window
	case $1 in
	ipi|hrtimer|irqwork) if has arm64; then echo '? (handler returned, unsampled)'; else echo "irqoff_sample_$1_window"; fi ;;
	hrtimerbh) if has arm64; then echo '? (handler returned, unsampled)'; else echo irqoff_sample_hrtimer_window; fi ;;
	timerirq) if has arm64; then echo sample_timer_cb; else echo irqoff_sample_timer_irqoff_window; fi ;;
	*) echo "irqoff_sample_$1_window" ;;
	esac
}

modes="ipi hrtimer hrtimerbh irqwork timerirq timer softhrtimer tasklet bhwork"
# PREEMPT_RT without the BH lock (Debian's 7.3-rt, upstream's default): a softirq handler
# in one softirq thread does not hold the others off. The soft hrtimer callback runs in
# ktimers/1; the tasklet and the BH work item in whichever of ksoftirqd/1 and ktimers/1
# takes them (ktimers runs every softirq pending when it runs): in ktimers/1 they hold
# every softirq off, a window of D as elsewhere. In ksoftirqd/1, ktimers/1 serves the
# other softirqs pending on CPU 1 beside them. Traced (2026-11-28, debian-7.3-rt, idle CPU
# 1, tracefs softirq and sched_switch events), in ksoftirqd/1:
# - tasklet: ktimers/1 ran the TIMER softirq beside it until the next HI softirq (the
#   sampler's probe, a BH work item of the high-priority pool, queued by the hrtimer) was
#   taken by a real-time task: ktimers/1, or rcuc/1, which runs the softirqs pending when
#   it enables bottom halves again. That task blocked (state D) on the per-CPU tasklet
#   callback lock that ksoftirqd/1 held for the rest of the tasklet, 110 of its 120 ms;
#   ksoftirqd/1 ran boosted to its priority, so ktimers/1 (the same priority) could not
#   run either, and every softirq waited. The window is that wait, W: latency in
#   [W-P, W+2P]. It starts when the HI softirq is next taken, which varies (W of 95-117
#   ms for 120 ms tasklets; in 3 of 8 windows traced, ktimers/1's own wait was only
#   microseconds).
# - bhwork: ktimers/1 ran HI and TIMER every 4-8 ms all through the 120 ms item (the BH
#   workqueue takes no lock ktimers needs): no softirq-off window of D, and none is
#   reported (15 ms in all, in short events). Claimed: no softirq-off record of D-P or more.
#   The item may instead run in a task that runs the pending softirqs as it enables bottom
#   halves again (rcu_preempt, once in make test: a record of 89.6 ms for the 120 ms item):
#   ktimers/1 then waits for that task. There the window is W, the kernel's longest gap
#   between TIMER softirqs on CPU 1 (its softirq_entry events): latency in [W-P, W+2P], or
#   no record with W under the threshold.
# W is measured from the kernel's sched_switch events on CPU 1: a real-time task switched
# out in state D while ksoftirqd/1 then ran boosted (priority below its own 120), until
# that task switched in again; the longest such wait.
# A tracefs instance of its own (its own buffer, CPU mask and events), so that nothing of
# the global trace's state, which other cases use, changes.
rt_trace_start() {
	TR=/sys/kernel/tracing
	TI=$TR/instances/tio-case12
	mkdir -p $TI
	echo 0 > $TI/tracing_on
	echo 2 > $TI/tracing_cpumask
	echo > $TI/trace
	echo 1 > $TI/events/sched/sched_switch/enable
	echo 1 > $TI/events/irq/softirq_entry/enable
	echo 1 > $TI/tracing_on
}
rt_trace_stop() {	# sets blocked_ns: the longest wait for the tasklet's lock, 0 if none; timer_gap_ns: the longest gap between TIMER softirqs on CPU 1
	echo 0 > $TI/tracing_on
	# One pass over the trace, two figures. A wait for ksoftirqd/1's lock: a real-time
	# task (priority below 120) switched out in state D, then ksoftirqd/1 switched in
	# boosted (its priority below 120) before that task switched in again; the wait runs
	# from its switch out to its switch in. And the longest gap between two TIMER
	# softirqs on CPU 1 (vec=1; ktimers/1 runs them, the module's timer_list among them):
	# how long the timer softirq was held back. An event's timestamp is the field before
	# its name (a task's name may hold a colon).
	set -- $(awk '
		function ts(ev,  i, l) { for (i = 1; i < NF; i++) if ($(i + 1) == ev) { l = $i; sub(/:$/, "", l); return l } }
		function val(k,  i) { for (i = 1; i <= NF; i++) if (index($i, k "=") == 1) return substr($i, length(k) + 2); return "" }
		/ softirq_entry: vec=1 / { t = ts("softirq_entry:"); if (last != "" && (t - last) * 1e9 > gap) gap = (t - last) * 1e9; last = t; next }
		$0 !~ / sched_switch: / { next }
		{ t = ts("sched_switch:"); np = val("next_pid") }
		np in since { if (boosted[np]) { w = (t - since[np]) * 1e9; if (w > max) max = w }; delete since[np]; delete boosted[np] }
		val("prev_state") == "D" && val("prev_prio") + 0 < 120 { since[val("prev_pid")] = t; boosted[val("prev_pid")] = 0 }
		val("next_comm") == "ksoftirqd/1" && val("next_prio") + 0 < 120 { for (p in since) boosted[p] = 1 }
		END { printf "%d %d\n", max, gap }' $TI/trace)
	blocked_ns=$1 timer_gap_ns=$2
	# The trace, shown if the check fails.
	rt_switches=$(grep -v '^#' $TI/trace | head -n 80)
	echo 0 > $TI/events/sched/sched_switch/enable
	echo 0 > $TI/events/irq/softirq_entry/enable
	rmdir $TI
	echo "# measured: the longest wait for the tasklet's lock, with ksoftirqd/1 boosted: $blocked_ns ns (sched_switch); the longest gap between TIMER softirqs on CPU 1: $timer_gap_ns ns (softirq_entry)"
}
rt_split=
if has rt && ! has bh-lock; then
	rt_split=1
	echo "# PREEMPT_RT without the BH lock: in ksoftirqd/1, a tasklet's window is the wait for its lock, a BH work item's none (see the case)"
fi
busy=
# CASE12_LOADS: the loads to run (tests/vm/idle-poll.sh runs only the idle one).
for load in ${CASE12_LOADS:-idle busy}; do
	if [ $load = busy ]; then
		taskset -c 1 sh -c 'while :; do :; done' &
		busy=$!
		sleep 0.3
	fi
	for mode in $modes; do
		case $mode in
		timer|softhrtimer|tasklet|bhwork) kind=soft p=$PS_NS ;;
		*) kind=hard p=$P_NS ;;
		esac
		case $mode in	# what the window ran in, for the checks' descriptions
		ipi) what="an IPI function" ;;
		hrtimer) what="a hard hrtimer callback" ;;
		hrtimerbh) what="a hard hrtimer callback whose interrupt came into a tasklet" ;;
		irqwork) what="a hard irq_work" ;;
		timerirq) what="a timer_list callback with interrupts off" ;;
		timer) what="a timer_list callback" ;;
		softhrtimer) what="a soft hrtimer callback" ;;
		tasklet) what="a tasklet" ;;
		bhwork) what="a BH work item" ;;
		esac
		fn=$(callback $mode) rt_switches=
		taskset -c 0 sh -c 'echo 0 > /proc/trace_irqoff/trace_latency'
		before=$(events 1 $kind)
		[ -n "$rt_split" ] && { [ $mode = tasklet ] || [ $mode = bhwork ]; } && rt_trace_start
		taskset -c 0 sh -c "echo $mode 1 $D > /dev/irqoff_sample"
		# Let the samplers run after it (the timer_list ends a softirq window).
		sleep 0.3
		[ -n "$rt_split" ] && { [ $mode = tasklet ] || [ $mode = bhwork ]; } && rt_trace_stop
		tru=$(true_ns $mode)
		# Where it ran, as the sample saw it: the context, and the task that was current
		# (pid 0: the idle task).
		line=$(dmesg | grep "irqoff_sample: $mode window cpu=" | tail -n1)
		ctx=${line##*context: }
		pid=$(echo "$line" | sed -n 's/.* pid=\([0-9]*\) .*/\1/p')
		if [ "$pid" = 0 ]; then thread=idle; else thread=$(cat /proc/$pid/comm 2>/dev/null); fi
		after=$(events 1 $kind)
		# Its record, and its stacks: where the window ended and inside it.
		first_record 1 $kind
		echo "# measured: $load cpu 1, $mode window true_ns=$tru ran in ${thread:-?} (pid $pid) context: $ctx: $((after - before)) $kind event(s), record latency_ns=${lat:-none} end_shows_culprit=$(field end_shows_culprit "$rec") cause=$(field cause "$rec") comm=$(field comm "$rec")"
		# The record as a user reads it: its line and the first frames of both stacks.
		{ echo "$rec"; echo "$stack" | head -n 8; } | sed 's/^/#   /'
		if [ -n "$rt_split" ] && [ $mode = bhwork ] && [ "$thread" = ksoftirqd/1 ]; then
			# Every softirq-off record of CPU 1 (the worst first) is shorter than D-P.
			worst=$(echo "$records" | sed -n 's/^record cpu=1 kind=soft lower_bound=0 latency_ns=\([0-9]*\) .*/\1/p' | sort -n | tail -n1)
			if [ -n "$tru" ] && [ "${worst:-0}" -lt $((tru - p)) ]; then
				ok "$load cpu 1, $D ms in $what ($mode) in ksoftirqd/1, PREEMPT_RT without the BH lock: ktimers/1 serves the other softirqs beside it, no softirq-off record of D-P or more (worst ${worst:-none} ns)"
			else
				not_ok "$load cpu 1, $D ms in $what ($mode) in ksoftirqd/1, PREEMPT_RT without the BH lock: no softirq-off record of D-P or more" "true_ns=$tru worst=$worst" "$(echo "$records" | grep -E '^(cpu 1|record cpu=1)')"
			fi
			continue
		fi
		if [ -n "$rt_split" ] && [ $mode = bhwork ] && [ "$thread" != ktimers/1 ]; then
			# Run by a task that ran the pending softirqs as it enabled bottom halves again
			# (rcu_preempt, say): ktimers/1 waits for that task as long as the kernel lets it
			# (a real-time task of its priority is not preempted), so the window is that
			# wait, W, the kernel's longest gap between TIMER softirqs on CPU 1.
			tru=$timer_gap_ns lo=$((timer_gap_ns - p))
			range="[W-P, W+2P] (W: the longest gap between TIMER softirqs on CPU 1, in $thread)"
			thr=$(config_field threshold_ns)
			if [ -z "$lat" ] && [ "$tru" -lt "$thr" ]; then
				ok "$load cpu 1, $D ms in $what ($mode): no softirq-off record, and the kernel's longest gap between TIMER softirqs on CPU 1 was under the threshold (W=$tru ns, in $thread)"
			elif [ -n "$lat" ] && within "$lat" $lo $((tru + 2 * p)); then
				ok "$load cpu 1, $D ms in $what ($mode): a softirq-off record with latency in $range ($lat ns)"
			else
				not_ok "$load cpu 1, $D ms in $what ($mode): a softirq-off record with latency in $range" "W=$tru record: $rec" "$rt_switches"
			fi
			continue
		fi
		lo=$((tru - p)) range="[D-P, D+2P]"
		if [ -n "$rt_split" ] && [ $mode = tasklet ] && [ "$thread" = ksoftirqd/1 ]; then
			tru=$blocked_ns lo=$((blocked_ns - p)) range="[W-P, W+2P] (W: the wait for the tasklet's lock)"
		fi
		if [ -n "$lat" ] && [ -n "$tru" ] && within "$lat" $lo $((tru + 2 * p)); then
			ok "$load cpu 1, $D ms in $what ($mode): a ${kind}irq-off record with latency in $range ($lat ns)"
		else
			not_ok "$load cpu 1, $D ms in $what ($mode): a ${kind}irq-off record with latency in $range" "true_ns=$tru record: $rec" "$(taskset -c 0 cat $TIO/records | head -n 30)" "${rt_switches:+the trace of CPU 1:
$rt_switches}"
		fi
		# The culprit in the record itself, where a stack can show it (on arm64 none of
		# an IPI function's, hard hrtimer's or irq_work's does: see above).
		case $fn in
		\?*) ;;
		*) if echo "$stack" | grep -qF "$fn"; then
			ok "$load cpu 1, $D ms in $what ($mode): the ${kind}irq-off record's stack names $fn"
		else
			not_ok "$load cpu 1, $D ms in $what ($mode): the ${kind}irq-off record's stack names $fn" "$rec" "$stack"
		fi ;;
		esac
		if has rt && [ $mode = timerirq -o $mode = timer ]; then
			check "PREEMPT_RT: the $mode window's record is ktimers/1's (timer callbacks run in it)" \
				test "$(field comm "$rec")" = ktimers/1
		fi
		row=$(taskset -c 0 trace-irqoff top | awk -v k="$kind" 'NR > 1 && $1 ~ "^" k { print; exit }')
		echo "# top: $row"
		if echo "$row" | grep -qF "$fn"; then
			ok "$load cpu 1, $D ms in $what ($mode): top names $fn as the ${kind}irq-off culprit"
		else
			not_ok "$load cpu 1, $D ms in $what ($mode): top names $fn as the ${kind}irq-off culprit" "top: $row" "$(taskset -c 0 trace-irqoff top)" "$(taskset -c 0 cat $TIO/records | head -n 40)"
		fi
	done
done
[ -n "$busy" ] && kill $busy
wait 2>/dev/null
echo 0 > $TIO/enable
rmmod irqoff_sample
rmmod trace_irqoff
