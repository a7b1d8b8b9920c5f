#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# boot: nohz_full=1
# proves: the `cpus` control; nohz_full CPUs are not sampled by default; a chosen one whose tick stops is sampled every period and a half tick, with no window of its own -- "busy with its tick stopped: the hrtimer sampled at least every P + a tick", "... no hardirq-off or softirq-off event"; host test `rides_take_every_sample_before_the_backstop`
# Booted with `nohz_full=1`. Claim: by default the samplers leave a nohz_full CPU alone
# (no timer of ours, no NMI: the jitter such CPUs are isolated from), `records` and
# `trace-irqoff status` say so, and choosing it with `enable --cpus` samples it. There,
# busy with one task, its tick stops (also from the idle loop into the task, which the
# kernel's tick_stop event does not say): the hrtimer, which waits past the tick that
# takes the next sample while a tick runs, samples every P and half a tick; a hrtimer
# left further ahead would read as a window of the periods it waited.
. /tests/lib.sh
check "booted with nohz_full=1" grep -qw nohz_full=1 /proc/cmdline
tio_load
modprobe irqoff_sample
check "cpus is every CPU but the nohz_full one: 0" test "$(cat $TIO/cpus)" = 0
check "records says cpus=0 nohz_full=1" grep -qE '^config .* cpus=0 nohz_full=1( |$)' $TIO/records
echo 1 > $TIO/enable
sleep 0.3
check "trace-irqoff status says cpu 1 is nohz_full and not sampled" \
	sh -c "trace-irqoff status | grep -qx 'CPUs sampled: 0 (nohz_full, not sampled unless chosen: 1)'"
# Evidence that nothing of ours ran there: the hrtimer's and timer_list's run counts of
# cpu 1, and no NMI sent (cpu 0 watches no other sampled CPU). Measured beside it: cpu 1's
# local timer interrupts in 2 s with one busy task there (shell builtins only).
loc() { awk '/^ *LOC:/ { print $3 }' /proc/interrupts; }
busy() {	# busy: cpu 1's local timer interrupts in 2 s while a task spins there
	rm -f /tmp/stop
	taskset -c 1 sh -c 'while [ ! -e /tmp/stop ]; do :; done' &
	sleep 1
	a=$(loc); sleep 2; b=$(loc)
	touch /tmp/stop
	wait
	echo $((b - a))
}
left=$(busy)
echo "# measured: cpu 1 local timer interrupts in 2 s, busy, not sampled: $left"
runs=$(sed -n 's/^cost 1 \(hard\|soft\) runs=\([0-9]*\) .*/\2/p' $TIO/records | awk '{ s += $1 } END { print s + 0 }')
nmi=$(sed -n 's/^watcher .* nmi_sent=\([0-9]*\) .*/\1/p' $TIO/records)
check "no sampler ran on cpu 1 ($runs runs) and no NMI was sent (${nmi:-?})" sh -c "test '$runs' = 0 && test '${nmi:-x}' = 0"
inject 1 hardirq 100
sleep 0.2
check "a 100 ms window on the nohz_full cpu: no event (not sampled)" test "$(events 1 hard)" = 0
check "chosen with trace-irqoff enable --cpus 0-1" sh -c "trace-irqoff enable --cpus 0-1 > /dev/null && test \$(cat $TIO/cpus) = 0-1"
sleep 0.3
hz=$(config_field hz)
hard_runs() { sed -n 's/^cost 1 hard runs=\([0-9]*\) .*/\1/p' $TIO/records; }
r0=$(hard_runs) e0=$(( $(events 1 hard) + $(events 1 soft) ))
t0=$(up_ns)
chosen=$(busy)
t1=$(up_ns)
r1=$(hard_runs) e1=$(( $(events 1 hard) + $(events 1 soft) ))
echo "# measured: cpu 1 local timer interrupts in 2 s, busy, sampled at P = 10 ms: $chosen; hrtimer runs $((r1 - r0)) in $(( (t1 - t0) / 1000000 )) ms (hz=$hz)"
# At least one run per P + a tick over the busy time (P + half a tick apart, and the run
# count lags by fewer than 17 runs: cost.rs), less a second for the start and the end.
want=$(( ((t1 - t0) / 1000000 - 1000) / (10 + 1000 / ${hz:-1000}) ))
check "busy with its tick stopped: the hrtimer sampled at least every P + a tick ($((r1 - r0)) runs, at least $want)" \
	test $((r1 - r0)) -ge "$want"
check "busy with its tick stopped: no hardirq-off or softirq-off event on cpu 1 ($((e1 - e0)))" test "$e1" = "$e0"
runs=$(sed -n 's/^cost 1 \(hard\|soft\) runs=\([0-9]*\) .*/\2/p' $TIO/records | awk '{ s += $1 } END { print s + 0 }')
check "cpu 1's samplers run now ($runs runs)" test "$runs" -gt 0
inject 1 hardirq 100
sleep 0.2
check "then a 100 ms window on cpu 1 is an event" test "$(events 1 hard)" -ge 1
echo 0 > $TIO/enable
rmmod irqoff_sample
rmmod trace_irqoff
done_testing
