# SPDX-License-Identifier: GPL-2.0
# description: windows opened in interrupt context (IPI, hard hrtimer, timer_list with interrupts off and on) are reported with their culprit on an idle and on a busy CPU
# Windows opened from interrupt context, the way drivers and timers do: an IPI function, a
# pinned hard hrtimer callback, a pinned timer_list callback with interrupts off, and one
# with interrupts on (a long softirq handler), each D = 120 ms on CPU 1, asked from CPU 0.
# Once with CPU 1 idle (the idle task is current in all four: no proof that the CPU
# slept) and once with CPU 1 busy in a user-space loop. Claims, for each: one event of the
# window's kind on CPU 1 with latency in [D - P, D + 2P] (P: the sampler that sees it,
# hrtimer or timer_list, as the module reports it), and `top` names the sample's callback
# as that kind's culprit, never the idle loop.
# On PREEMPT_RT the timer_list callbacks run in ktimers/1, a task: the interrupts-off one
# is still a hardirq-off event, the interrupts-on one a softirq-off event whose stack is
# ktimers' (bottom halves are held by ktimers while it serves them: cause bh-off).
# On arm64 no NMI can take a stack inside a hardirq window, and the end stack of one that
# an IPI function or a hard hrtimer callback held is not the culprit's (it had returned):
# `top` must then say the culprit was not seen, never name the idle loop or the busy
# task. A timer_list callback that re-enables interrupts itself is seen at its end, as
# the caller of the leaf that did it (lib.sh's HARD_FN): the callback, sample_timer_cb.
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
	ipi|hrtimer) if has arm64; then echo '? (handler returned, unsampled)'; else echo "irqoff_sample_$1_window"; fi ;;
	timerirq) if has arm64; then echo sample_timer_cb; else echo irqoff_sample_timer_irqoff_window; fi ;;
	*) echo "irqoff_sample_$1_window" ;;
	esac
}

busy=
for load in idle busy; do
	if [ $load = busy ]; then
		taskset -c 1 sh -c 'while :; do :; done' &
		busy=$!
		sleep 0.3
	fi
	for mode in ipi hrtimer timerirq timer; do
		if [ $mode = timer ]; then kind=soft p=$PS_NS; else kind=hard p=$P_NS; fi
		fn=$(callback $mode)
		taskset -c 0 sh -c 'echo 0 > /proc/trace_irqoff/trace_latency'
		before=$(events 1 $kind)
		taskset -c 0 sh -c "echo $mode 1 $D > /dev/irqoff_sample"
		# Let the samplers run after it (the timer_list ends a softirq window).
		sleep 0.3
		tru=$(true_ns $mode)
		after=$(events 1 $kind)
		rec=$(taskset -c 0 cat $TIO/records | grep "^record cpu=1 kind=$kind lower_bound=0 " | head -n1)
		lat=$(field latency_ns "$rec")
		echo "# measured: $load cpu 1, $mode window true_ns=$tru: $((after - before)) $kind event(s), record latency_ns=${lat:-none} end_shows_culprit=$(field end_shows_culprit "$rec") cause=$(field cause "$rec") comm=$(field comm "$rec")"
		# The record as a user reads it: its line and the first frames of both stacks.
		taskset -c 0 cat $TIO/records | awk -v l="$rec" '$0 == l { f = 1; print; n = 0; next }
			f && ($1 == "frame" || $1 == "window_frame") { if (n++ < 8) print; next } f { exit }' | sed 's/^/#   /'
		if [ -n "$lat" ] && [ -n "$tru" ] && within "$lat" $((tru - p)) $((tru + 2 * p)); then
			ok "$load cpu 1, $mode window of $D ms: a $kind record with latency in [D-P, D+2P] ($lat ns)"
		else
			not_ok "$load cpu 1, $mode window of $D ms: a $kind record with latency in [D-P, D+2P]" "true_ns=$tru record: $rec" "$(taskset -c 0 cat $TIO/records | head -n 30)"
		fi
		if has rt && [ $mode = timerirq -o $mode = timer ]; then
			check "PREEMPT_RT: the $mode window's record is ktimers/1's (timer callbacks run in it)" \
				test "$(field comm "$rec")" = ktimers/1
		fi
		row=$(taskset -c 0 trace-irqoff top | awk -v k="$kind" 'NR > 1 && $1 ~ "^" k { print; exit }')
		echo "# top: $row"
		if echo "$row" | grep -qF "$fn"; then
			ok "$load cpu 1, $mode window: top names $fn"
		else
			not_ok "$load cpu 1, $mode window: top names $fn" "top: $row" "$(taskset -c 0 trace-irqoff top)" "$(taskset -c 0 cat $TIO/records | head -n 40)"
		fi
	done
done
[ -n "$busy" ] && kill $busy
wait 2>/dev/null
echo 0 > $TIO/enable
rmmod irqoff_sample
rmmod trace_irqoff
