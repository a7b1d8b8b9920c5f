# SPDX-License-Identifier: GPL-2.0
# description: the event ring: record --until and watch --until catch the next window with its stack while the record store is full; top --live counts every window; record --last
# kernels: sanitize debian-7.3
# proves: readers never wait for another CPU, also while a writer waits (Guarantees: what a reader sees during a write) -- "watch reads the ring without waiting"
# proves: the event ring catches every window while the record store is full
# The event stream (trace_irqoff:hardirq_off/softirq_off in the tracefs instance
# trace_irqoff, made by enable): record --until and watch --until catch the next window with
# its task and stack even when the module's record store is full of worse ones, which is
# normal on a machine that has run a while; top --live counts every window; record --last
# looks back; reading the ring does not wait for a CPU with interrupts off. Everything runs
# pinned on CPU 0, the windows on CPU 1.
tio_load
modprobe irqoff_sample
trace-irqoff enable --period 10 --threshold 50 > /dev/null
T=/sys/kernel/tracing
kb=$(cat $T/instances/trace_irqoff/buffer_size_kb)
check "enable made the event ring: instances/trace_irqoff, both window events on, 16 KB per CPU asked ($kb KB in whole pages)" \
	sh -c "test \$(cat $T/instances/trace_irqoff/events/trace_irqoff/hardirq_off/enable) = 1 && test \$(cat $T/instances/trace_irqoff/events/trace_irqoff/softirq_off/enable) = 1 && test $kb -ge 16 -a $kb -le 32"
check "the window events carry end_ns, seq, together_ns and frames" sh -c "grep -q 'end_ns=%llu seq=%llu end_shows_culprit=%d together_ns=%llu frames=' $T/events/trace_irqoff/hardirq_off/format"
# Fill CPU 1's hardirq store with windows of 120 ms: worse than any below.
per_cpu=$(config_field records_per_cpu)
i=0
while [ $i -lt "${per_cpu:-16}" ]; do inject 1 hardirq 120; sleep 0.05; i=$((i + 1)); done
sleep 0.2
kept_min() {	# kept_min: the shortest hardirq record of CPU 1 in the store, in ms
	sed -n 's/^record cpu=1 kind=hard .* latency_ns=\([0-9]*\) .*/\1/p' $TIO/records | sort -n | head -n1 | awk '{ print int($1 / 1000000) }'
}
full=$(grep -c '^record cpu=1 kind=hard ' $TIO/records)
check "CPU 1's hardirq store is full of 100+ ms windows ($full of $per_cpu, shortest $(kept_min) ms)" \
	sh -c "test '$full' = '$per_cpu' && test $(kept_min) -ge 100"

( sleep 1; inject 1 hardirq 65 ) &
taskset -c 0 trace-irqoff record --until 55 --duration 40s -o /tmp/full.json > /tmp/full.out 2>&1; rc=$?
wait
sed 's/^/# record: /' /tmp/full.out | head -n 4
check "record --until 55 with a full store ends at the 65 ms window (exit 3)" test $rc = 3
streamed_hard() {	# the recording's only hardirq window on CPU 1: 55..99 ms, with its stack
	trace-irqoff records --from /tmp/full.json --json --kind hard --cpu 1 > /tmp/full-hard.json || return 1
	test "$(grep -c '"latency_ns":' /tmp/full-hard.json)" = 1 &&
		grep -qE '"latency_ns": [5-9][0-9]{7},' /tmp/full-hard.json && grep -q irqoff_sample_hardirq_window /tmp/full-hard.json
}
check "... it saved that window with its task and stack, which the store did not keep" streamed_hard
check "... and says it came from the event stream, which lost nothing" sh -c "grep -q 'came from the module.s event stream' /tmp/full.out && grep -q '\"lost\": 0' /tmp/full.json"
check "... the caught window has its stack" sh -c "sed -n '/\"caught\": {/,/^  }/p' /tmp/full.json | grep -q '\"stack\": \[\$' && ! sed -n '/\"caught\": {/,/^  }/p' /tmp/full.json | grep -q '\"record\": null'"
check "... the store still holds only the worse windows (shortest $(kept_min) ms)" test "$(kept_min)" -ge 100
check "... and the ring stays for the next reader" test -d $T/instances/trace_irqoff

( sleep 1; inject 1 hardirq 70 ) &
taskset -c 0 timeout 40 trace-irqoff watch --until 55 > /tmp/watch-full.out 2>&1; rc=$?
wait
check "watch --until 55 with a full store: exit 3, the 70 ms window printed with its stack" \
	sh -c "test $rc = 3 && grep -q 'irqoff_sample_hardirq_window' /tmp/watch-full.out && grep -qE '^caught .*hardirq-off' /tmp/watch-full.out"
grep -E '^(hardirq|caught)' /tmp/watch-full.out | tail -n 2 | sed 's/^/# watch: /'
# top --live counts from its start: LAST, MIN and MAX of every window since then (from the
# stream), not of the kept records (which are all older and worse here).
# The windows are opened once top has printed its first interval (so they fall after its
# start however slowly the guest runs), and top runs 8 intervals so they end inside it.
taskset -c 0 trace-irqoff top --live --count 8 --interval 1s --json > /tmp/live.json 2>/tmp/live.err &
live=$!
for _ in $(seq 50); do test -s /tmp/live.json && break; sleep 0.2; done
inject 1 hardirq 90; sleep 0.3; inject 1 hardirq 60
wait $live
last_row() { tail -n1 /tmp/live.json | tr '{' '\n' | grep '"cpu":1,"kind":"hard"'; }
echo "# top --live: $(last_row)"
live_right() {
	r=$(last_row)
	l=$(echo "$r" | sed -n 's/.*"last_ns":\([0-9]*\).*/\1/p'); x=$(echo "$r" | sed -n 's/.*"max_ns":\([0-9]*\).*/\1/p')
	e=$(echo "$r" | sed -n 's/.*"events":\([0-9]*\).*/\1/p')
	test "$e" = 2 && within "${l:-0}" 45000000 70000000 && within "${x:-0}" 75000000 100000000
}
check "top --live: 2 events since its start, LAST the 60 ms window and MAX the 90 ms one (none kept by the full store)" live_right
# Hindsight: the windows of the last minute, from the ring (the store kept none of them).
taskset -c 0 trace-irqoff record --last 1m -o /tmp/last.json > /tmp/last.out 2>&1; rc=$?
sed 's/^/# record --last: /' /tmp/last.out | head -n 3
last_has() {	# the 65, 70, 90 and 60 ms windows of this case, each with its stack
	trace-irqoff records --from /tmp/last.json --json --kind hard --cpu 1 --min 45 > /tmp/last-hard.json || return 1
	n=$(grep -cE '"latency_ns": [4-9][0-9]{7},' /tmp/last-hard.json)
	echo "# record --last: $n hardirq-off windows of 45..99 ms on CPU 1"
	test "$n" -ge 4 && test "$(grep -c irqoff_sample_hardirq_window /tmp/last-hard.json)" -ge 4
}
last_rc=$rc
last_ok() { test "$last_rc" = 0 && last_has; }
check "record --last 1m (exit 0) saved the windows of the last minute that the store did not keep, with their stacks" last_ok
# Reading the ring while CPU 1 has interrupts off for 2 s: nothing waits for CPU 1.
taskset -c 1 sh -c 'echo hardirq 2000 > /dev/irqoff_sample' &
sleep 0.3
t0=$(up_ns)
taskset -c 0 trace-irqoff watch --count 1 > /dev/null 2>&1; rc=$?
t1=$(up_ns)
wait
echo "# watch --count 1 during the window: $(( (t1 - t0) / 1000000 )) ms"
check "watch reads the ring without waiting for the CPU with interrupts off (exit 0, under 1 s)" sh -c "test $rc = 0 && test $(( (t1 - t0) / 1000000 )) -lt 1000"
trace-irqoff disable > /dev/null
# After a load the events are off again; a pure reader does not turn them on (that waits
# for every CPU): it says so and reads the records file alone.
rmmod trace_irqoff
tio_load
echo 1 > $TIO/enable
taskset -c 0 trace-irqoff watch --count 1 > /dev/null 2> /tmp/watch-off.err; rc=$?
check "after a reload, watch reads without the ring and says how to start it (exit 0, events still off)" \
	sh -c "test $rc = 0 && grep -q 'the event ring is off (trace-irqoff enable starts it)' /tmp/watch-off.err && test \$(cat $T/instances/trace_irqoff/events/trace_irqoff/hardirq_off/enable) = 0"
echo 0 > $TIO/enable
rmmod irqoff_sample
rmmod trace_irqoff
