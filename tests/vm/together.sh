#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# proves: windows that every CPU has at once are reported at their length, on a VM and on bare metal (no hypervisor flag) -- "stop_machine(): each CPU's window in [D-P, D+2P]", "the culprit on the CPU that ran the call's function is that function, multi_cpu_stop on the other", "a lock convoy: the holder's and the spinner's windows at their length", "a 40 ms window inside another CPU's 150 ms one: both reported", "preemptirq_delay_test loaded from CPU 0: 20 of 20 windows on CPU 1 in [D-P, D+2P]", "a silence kept in a window is said (together_ns, TOGETHER in trace_latency, the status line)"; host tests `stall::a_stall_needs_evidence`, `verdict::silence_without_evidence_keeps_the_window`
# Every CPU with hard interrupts off over the same span leaves the same silence as a host
# that paused the machine: no CPU's hrtimer runs. A silence is taken out of a CPU's gap only
# on a machine a host can stop (the CPU reports a hypervisor) and only if that CPU came back
# asleep or in user space (logic/stall.rs); the windows here all end in kernel code, so each
# is reported at its whole length, and says how much of it every CPU was late together.
# Booted twice by tests/run: as a VM, and with -cpu max,-hypervisor (tests/vm/run
# --no-hypervisor), where no silence is ever a stall. P = 10 ms, threshold 20 ms; each
# record is checked against the sample's own measurement of its window (D): [D-P, D+2P].
. /tests/lib.sh
hv=$(cat /tests/hypervisor)
echo "# hypervisor flag: $hv (1: a VM, 0: as bare metal); clocksource: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"

tio_load
modprobe irqoff_sample
echo 10 > $TIO/sampling_period
echo 20 > $TIO/trace_latency
echo 1 > $TIO/enable
P_NS=$(config_field period_ns)
echo "# measured: HZ $(config_field hz), P = $P_NS ns"
sleep 1
check "the module read the CPU's hypervisor flag (stall line hypervisor=$hv)" grep -q "^stall .* hypervisor=$hv\$" $TIO/counters

rec_with() {	# rec_with CPU FUNC: the first hardirq-off record of CPU (not open) with FUNC in its stacks
	taskset -c 0 cat $TIO/records > /tmp/together.rec
	awk -v c="cpu=$1" -v f="$2" '$1 == "record" { if (hit) exit; r = ""; if ($2 == c && $3 == "kind=hard" && $4 == "lower_bound=0") r = $0; next }
		r != "" && index($0, f) { hit = 1 }
		END { if (hit) print r }' /tmp/together.rec
}
window_of() {	# window_of CPU FUNC: the first window_frame of the record rec_with CPU FUNC gives
	awk -v c="cpu=$1" -v f="$2" '$1 == "record" { if (hit) exit; in_r = ($2 == c && $3 == "kind=hard" && $4 == "lower_bound=0"); next }
		in_r && index($0, f) { hit = 1 }
		in_r && hit && $1 == "window_frame" { print $2; exit }' /tmp/together.rec
}
log_ns() {	# log_ns MODE KEY: KEY= of the sample's last "MODE window" log line
	dmesg | grep "irqoff_sample: $1 window" | tail -n1 | sed -n "s/.* $2=\([0-9]*\).*/\1/p"
}
at_length() {	# at_length DESC RECORD TRUE_NS: the record's latency in [D-P, D+2P]
	lat=$(field latency_ns "$2")
	echo "# measured: $1: latency_ns=${lat:-none} true_ns=${3:-none} together_ns=$(field together_ns "$2")"
	check "$1: reported, ${lat:-no record} ns for ${3:-?} ns, in [D-P, D+2P]" \
		within "${lat:-0}" $((${3:-0} - P_NS)) $((${3:-0} + 2 * P_NS))
}
clear_records() { taskset -c 0 sh -c "echo 0 > $TIO/trace_latency"; sleep 0.2; }

# stop_machine(): its function spins 150 ms on CPU 1, CPU 0 waits in multi_cpu_stop, both
# with interrupts off; both end in multi_cpu_stop's local_irq_restore. Three rounds.
for round in 1 2 3; do
	clear_records
	taskset -c 0 sh -c 'echo stopmachine 1 150 > /dev/irqoff_sample'
	sleep 0.3
	tru=$(log_ns stopmachine ns)
	r1=$(rec_with 1 multi_cpu_stop)
	r0=$(rec_with 0 multi_cpu_stop)
	at_length "stop_machine round $round: CPU 1 (its function's CPU), ended in multi_cpu_stop" "$r1" "$tru"
	at_length "stop_machine round $round: CPU 0 (multi_cpu_stop)" "$r0" "$tru"
	check "stop_machine round $round: both say every CPU was late together (together_ns > 0)" \
		test "$(field together_ns "$r1")" -gt 0 -a "$(field together_ns "$r0")" -gt 0
	w1=$(window_of 1 multi_cpu_stop)
	echo "# measured: stop_machine round $round: CPU 1 stop_callback=$(field stop_callback "$r1") window_frame=$w1; CPU 0 stop_callback=$(field stop_callback "$r0")"
	check "stop_machine round $round: CPU 1's record names the function the call ran there (stop_callback=1, in-window frame sample_stop_cb)" \
		test "$(field stop_callback "$r1")" = 1 -a "${w1%%+*}" = sample_stop_cb
	check "stop_machine round $round: CPU 0's names none (stop_callback=0): the call ran no function there" \
		test "$(field stop_callback "$r0")" = 0
done
COLUMNS=100 trace-irqoff records --kind hard --oneline > /tmp/together.oneline 2>&1
sed 's/^/# records --oneline: /' /tmp/together.oneline
check "records: the culprit on CPU 1 is the call's function (sample_stop_cb), on CPU 0 multi_cpu_stop" \
	sh -c "grep -Eq '^ *[0-9:.]+ +[0-9:.]+ +1 hardirq-off +[0-9.]+ m?s +sample_stop_cb ' /tmp/together.oneline &&
		grep -Eq '^ *[0-9:.]+ +[0-9:.]+ +0 hardirq-off +[0-9.]+ m?s +multi_cpu_stop ' /tmp/together.oneline"
sed -n '/ hardirq:/,/ softirq:/p' $TIO/trace_latency | grep -E 'cpu:|COMMAND' | sed 's/^/# trace_latency: /'
if [ "$hv" = 1 ]; then host="a host pause, "; else host=; fi
check "trace_latency says it of the stop_machine windows (TOGETHER: ... ${host}stop_machine or a lock convoy: no host pause on bare metal)" \
	grep -q "TOGETHER: [0-9]*ms (every CPU was late together: ${host}stop_machine or a lock convoy)" $TIO/trace_latency
COLUMNS=80 trace-irqoff status > /tmp/together.status 2>&1
sed 's/^/# status: /' /tmp/together.status
if [ "$hv" = 1 ]; then
	check "status: the silences were kept in the windows where no CPU came back asleep or in user space" \
		grep -q '^stalls: .*kept in its window elsewhere' /tmp/together.status
else
	check "status on bare metal: no stall, the silences kept in the windows" \
		grep -q '^silences: .*bare metal, no host can pause it: kept in the windows' /tmp/together.status
fi
check "records say it too (trace-irqoff records: every CPU was late together for ... of it: ${host}stop_machine or a lock convoy)" \
	sh -c "trace-irqoff records --kind hard | grep -q 'every CPU was late together for [0-9.]* m\?s of it: ${host}stop_machine or a lock convoy'"
check "the counters count them (together_events > 0)" \
	test "$(sed -n 's/^cpu 1 .* together_events=\([0-9]*\).*/\1/p' $TIO/counters)" -gt 0

# Two windows at once, opened by the sample from CPU 0 (pair MODE ARGS FUNC LABEL): a work
# item on CPU 1 with interrupts off in sample_hold_fn, and CPU 0's window in FUNC; each
# record at the length the sample measured (ns= for CPU 0, other_ns= for CPU 1).
pair() {
	clear_records
	taskset -c 0 sh -c "echo $1 $2 > /dev/irqoff_sample"
	sleep 0.3
	at_length "$4: CPU 1's window (sample_hold_fn)" "$(rec_with 1 sample_hold_fn)" "$(log_ns "$1" other_ns)"
	at_length "$4: CPU 0's window ($3)" "$(rec_with 0 "$3")" "$(log_ns "$1" ns)"
}

# A lock convoy: a work item on CPU 1 holds a raw spinlock with interrupts off for 150 ms;
# from 10 ms on CPU 0 spins for it with spin_lock_irqsave.
for round in 1 2 3; do
	pair convoy "1 150 10" irqoff_sample_convoy_window "convoy round $round"
done
sed -n '/ hardirq:/,/ softirq:/p' $TIO/trace_latency | grep -E 'cpu:|COMMAND' | sed 's/^/# convoy trace_latency: /'
COLUMNS=80 trace-irqoff status 2>&1 | grep -E '^(stalls|silences):' | sed 's/^/# convoy status: /'

# A 40 ms window on CPU 0 inside CPU 1's 150 ms one: in the middle, and ending 10 ms
# before it.
for at in 55 100 55 100; do
	pair inside "1 150 $at 40" irqoff_sample_hardirq_window "inside at $at ms"
done

# A module not ours (the kernel's own injector; Debian's kernels do not build it): loaded
# from CPU 0, its 100 ms window on CPU 1; 20 loads, every fifth after a hotplug cycle of
# CPU 1.
if find /lib/modules/$(uname -r) -name "preemptirq_delay_test.ko*" | grep -q .; then
	good=0
	for i in $(seq 1 20); do
		if [ $((i % 5)) = 0 ]; then
			echo 0 > /sys/devices/system/cpu/cpu1/online
			echo 1 > /sys/devices/system/cpu/cpu1/online
			sleep 0.5
		fi
		clear_records
		taskset -c 0 modprobe preemptirq_delay_test test_mode=irq delay=100000 cpu_affinity=1
		sleep 0.3
		rmmod preemptirq_delay_test
		lat=$(field latency_ns "$(rec_with 1 preemptirq_delay)")
		echo "# measured: preemptirq_delay_test load $i: latency_ns=${lat:-none}"
		within "${lat:-0}" $((100000000 - P_NS)) $((100000000 + 2 * P_NS)) && good=$((good + 1))
	done
	check "preemptirq_delay_test loaded from CPU 0, 20 times (4 after hotplug): $good of 20 windows on CPU 1 in [D-P, D+2P]" test $good = 20
else
	echo "# preemptirq_delay_test: not built by this kernel (Debian's); its loads are checked on the test kernel"
fi

grep '^stall ' $TIO/counters | sed 's/^/# /'
grep '^cpu ' $TIO/counters | sed 's/^/# /'
echo 0 > $TIO/enable
rmmod irqoff_sample
rmmod trace_irqoff
done_testing
