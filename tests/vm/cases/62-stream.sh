# SPDX-License-Identifier: GPL-2.0
# The event stream (trace_irqoff:hardirq_off/softirq_off read in a tracefs instance of the
# CLI's own): record --until and watch --until catch the next window with its task and
# stack even when the module's record store is full of worse ones, which is normal on a
# machine that has run a while. Everything runs pinned on CPU 0, the windows on CPU 1.
tio_load
modprobe irqoff_sample
trace-irqoff enable --period 10 --threshold 50 > /dev/null
T=/sys/kernel/tracing
check "the window events carry end_ns, seq and frames" sh -c "grep -q 'end_ns=%llu seq=%llu end_shows_culprit=%d frames=' $T/events/trace_irqoff/hardirq_off/format"
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
check "... and its tracefs instance is gone" sh -c "! ls $T/instances | grep -q '^trace-irqoff-'"

( sleep 1; inject 1 hardirq 70 ) &
taskset -c 0 timeout 40 trace-irqoff watch --until 55 > /tmp/watch-full.out 2>&1; rc=$?
wait
check "watch --until 55 with a full store: exit 3, the 70 ms window printed with its stack" \
	sh -c "test $rc = 3 && grep -q 'irqoff_sample_hardirq_window' /tmp/watch-full.out && grep -qE '^caught .*hardirq-off' /tmp/watch-full.out"
grep -E '^(hardirq|caught)' /tmp/watch-full.out | tail -n 2 | sed 's/^/# watch: /'
# A reader killed before it cleans up leaves its instance; the next one removes it.
taskset -c 0 trace-irqoff watch --interval 5s > /dev/null 2>&1 &
w=$!
sleep 1
kill -9 $w; wait $w 2>/dev/null
left=$(ls $T/instances | grep -c '^trace-irqoff-')
taskset -c 0 trace-irqoff watch --count 1 > /dev/null 2>&1
check "an instance left by a killed reader ($left) is removed by the next one" sh -c "test $left = 1 && ! ls $T/instances | grep -q '^trace-irqoff-'"
trace-irqoff disable > /dev/null
rmmod irqoff_sample
rmmod trace_irqoff
