# SPDX-License-Identifier: GPL-2.0
# description: windows opened in interrupt context (IPI, hard hrtimer, hard irq_work, timer_list with interrupts off and on, soft hrtimer, tasklet, BH work item) are reported with their culprit on an idle and on a busy CPU
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
# loop or the busy task. A timer_list callback that re-enables interrupts itself is seen
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
	timerirq) if has arm64; then echo sample_timer_cb; else echo irqoff_sample_timer_irqoff_window; fi ;;
	*) echo "irqoff_sample_$1_window" ;;
	esac
}

modes="ipi hrtimer irqwork timerirq timer softhrtimer tasklet bhwork"
# Not yet on PREEMPT_RT without the BH lock (Debian's 7.3-rt) for the softirq kinds that
# run in ksoftirqd/N there while ktimers/N runs the other softirqs: a BH work item's 120 ms
# were reported as one to three short softirq-off events (17-59 ms in all), and a tasklet's
# on a busy CPU once as 107 ms, below D-P (seen 2026-11-27). Known misses, left open in
# issue 41; not checked here until they are fixed.
if has rt && ! has bh-lock; then
	modes="ipi hrtimer irqwork timerirq timer"
	echo "# tasklet, bhwork, softhrtimer: not checked on PREEMPT_RT without the BH lock (known misses, see the case)"
fi
busy=
for load in idle busy; do
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
		irqwork) what="a hard irq_work" ;;
		timerirq) what="a timer_list callback with interrupts off" ;;
		timer) what="a timer_list callback" ;;
		softhrtimer) what="a soft hrtimer callback" ;;
		tasklet) what="a tasklet" ;;
		bhwork) what="a BH work item" ;;
		esac
		fn=$(callback $mode)
		taskset -c 0 sh -c 'echo 0 > /proc/trace_irqoff/trace_latency'
		before=$(events 1 $kind)
		taskset -c 0 sh -c "echo $mode 1 $D > /dev/irqoff_sample"
		# Let the samplers run after it (the timer_list ends a softirq window).
		sleep 0.3
		tru=$(true_ns $mode)
		# Where it ran, as the sample saw it: the context, and the task that was current
		# (pid 0: the idle task).
		line=$(dmesg | grep "irqoff_sample: $mode window cpu=" | tail -n1)
		ctx=${line##*context: }
		pid=$(echo "$line" | sed -n 's/.* pid=\([0-9]*\) .*/\1/p')
		if [ "$pid" = 0 ]; then thread=idle; else thread=$(cat /proc/$pid/comm 2>/dev/null); fi
		after=$(events 1 $kind)
		records=$(taskset -c 0 cat $TIO/records)
		rec=$(echo "$records" | grep "^record cpu=1 kind=$kind lower_bound=0 " | head -n1)
		# Its stacks: where the window ended (frame) and inside it (window_frame).
		stack=$(echo "$records" | awk -v l="$rec" '$0 == l { f = 1; next }
			f && ($1 == "frame" || $1 == "window_frame") { print; next } f { exit }')
		lat=$(field latency_ns "$rec")
		echo "# measured: $load cpu 1, $mode window true_ns=$tru ran in ${thread:-?} (pid $pid) context: $ctx: $((after - before)) $kind event(s), record latency_ns=${lat:-none} end_shows_culprit=$(field end_shows_culprit "$rec") cause=$(field cause "$rec") comm=$(field comm "$rec")"
		# The record as a user reads it: its line and the first frames of both stacks.
		{ echo "$rec"; echo "$stack" | head -n 8; } | sed 's/^/#   /'
		if [ -n "$lat" ] && [ -n "$tru" ] && within "$lat" $((tru - p)) $((tru + 2 * p)); then
			ok "$load cpu 1, $D ms in $what ($mode): a ${kind}irq-off record with latency in [D-P, D+2P] ($lat ns)"
		else
			not_ok "$load cpu 1, $D ms in $what ($mode): a ${kind}irq-off record with latency in [D-P, D+2P]" "true_ns=$tru record: $rec" "$(taskset -c 0 cat $TIO/records | head -n 30)"
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
