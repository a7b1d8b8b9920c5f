#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: explain on a device with a hardware queue per CPU, the same sector read from both CPUs at once: each request paired with its own completion, the one issued on CPU 1 held by a hardirq-off window there (in process context, then in an IPI function) explained by it with its real path, none issued on CPU 0 blamed on it; the one-line view says the IPI window's task was interrupted
# kernels: debian-7.3
# proves: explain pairs every request, even of one sector in flight from two CPUs, and follows each along its own queue (trace-irqoff-cli.rst: explain) -- "two requests of the same sector, two delays", "issued on CPU 1 (hardware queue", "in an IPI function ... interrupting"
# null_blk with two hardware queues (one per CPU) completes each request by an hrtimer
# (irqmode=2) 20 ms after it was issued, on the CPU that issued it. Two readers pinned to
# CPU 0 and two to CPU 1 all read the same 4 KiB at offset 0 (O_DIRECT: never merged), so
# requests of one sector are in flight from both CPUs whenever a window opens. A 100 ms
# hardirq-off window on CPU 1 holds back CPU 1's completions only: the requests issued
# there take ~100 ms and are explained by it; those of CPU 0 are not held, and none of
# them is laid to the window on CPU 1.
NULLB="queue_mode=2 submit_queues=2 irqmode=2 completion_nsec=20000000 hw_queue_depth=64 no_sched=1"
# explain_same OUT CPU OPEN: explain --for 5s --min 50 --device nullb0 to OUT, while two
# readers on each CPU read offset 0 of nullb0, and OPEN (a shell command, run by lib.sh's
# opener pinned to CPU before the readers start) opens the window.
# OUT.inflight: the requests in flight on nullb0 just before it opened. OUT.slow1: the
# ground truth for the count, from a block trace of our own (an instance apart from
# explain's): the requests issued on CPU 1 that took 50 ms or more, each paired with the
# next completion on CPU 1 (its completion runs there, in issue order: one delay each).
# Not "two readers, two delays": a reader on CPU 1 may be woken and waiting to run,
# no request in flight, when the window opens from another CPU.
explain_same() {
	opener "$2" "$1" "$3"
	trace-irqoff explain --for 5s --device nullb0 --min 50 > "$1" 2> "$1.err" &
	ex=$!
	B=/sys/kernel/tracing/instances/tio-case74
	mkdir $B
	echo "dev == $(awk -F: '{ print ($1 * 1048576) + $2 }' /sys/block/nullb0/dev)" > $B/events/block/block_rq_issue/filter
	echo "dev == $(awk -F: '{ print ($1 * 1048576) + $2 }' /sys/block/nullb0/dev)" > $B/events/block/block_rq_complete/filter
	echo 1 > $B/events/block/block_rq_issue/enable
	echo 1 > $B/events/block/block_rq_complete/enable
	sleep 1.5
	taskset -c 0 tio-dread /dev/nullb0 2 2.5 0 > "$1.reads0" &
	r0=$!
	taskset -c 1 tio-dread /dev/nullb0 2 2.5 0 > "$1.reads1" &
	r1=$!
	sleep 1
	echo go > /tmp/open.fifo
	wait $op
	wait $r0
	wait $r1
	echo 0 > $B/tracing_on
	awk '{
		if (!match($0, / \[[0-9]+\] /)) next
		cpu = substr($0, RSTART + 2, RLENGTH - 4) + 0
		for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) break
		if (cpu != 1 || i > NF) next
		t = substr($i, 1, length($i) - 1) + 0
		if ($(i + 1) == "block_rq_issue:") q[tail++] = t
		else if ($(i + 1) == "block_rq_complete:" && head < tail && (t - q[head++]) * 1000 >= 50) n++
	} END { print n + 0 }' $B/trace > "$1.slow1"
	rmdir $B
	wait $ex
	echo $? > "$1.rc"
	flat "$1"
	echo "# measured: reads CPU 0 $(cat "$1.reads0"), CPU 1 $(cat "$1.reads1"); requests in flight as the window opened: $(cat "$1.inflight"); issued on CPU 1 and 50 ms or more in our own block trace: $(cat "$1.slow1")"
	echo "# measured: $(head -c 900 "$1.flat")"
}

tio_load
modprobe irqoff_sample
modprobe null_blk $NULLB
check "null_blk takes this kernel's parameters ($NULLB)" test -b /dev/nullb0
check "nullb0 has a hardware queue of CPU 0 alone and one of CPU 1 alone" sh -c 'cat /sys/block/nullb0/mq/*/cpu_list | grep -qx 0 && cat /sys/block/nullb0/mq/*/cpu_list | grep -qx 1'
echo "# measured: hardware queues: $(for q in /sys/block/nullb0/mq/*; do printf '%s: CPUs %s; ' "${q##*/}" "$(cat $q/cpu_list)"; done)"
check "trace-irqoff enable starts sampling and the event ring" trace-irqoff enable

for how in process ipi; do
	if [ $how = process ]; then
		explain_same /tmp/same-$how.txt 1 'echo hardirq 100 > /dev/irqoff_sample'
		words='by sh\[[0-9]+\] in irqoff_sample_hardirq_window'
	else
		explain_same /tmp/same-$how.txt 0 'echo ipi 1 100 > /dev/irqoff_sample'
		words='in an IPI function \(irqoff_sample_ipi_window\) on CPU 1, interrupting [^ ]+\[[0-9]+\]'
	fi
	f=/tmp/same-$how.txt.flat
	check "$how: explain ends without an error" test ! -s /tmp/same-$how.txt.err
	check "$how: readers on both CPUs read (CPU 0: $(cat /tmp/same-$how.txt.reads0), CPU 1: $(cat /tmp/same-$how.txt.reads1))" \
		sh -c "test \$(cat /tmp/same-$how.txt.reads0) -gt 0 && test \$(cat /tmp/same-$how.txt.reads1) -gt 0"
	check "$how: requests of both CPUs were in flight as the window opened ($(cat /tmp/same-$how.txt.inflight))" \
		test "$(cat /tmp/same-$how.txt.inflight)" -ge 2
	check "$how: the verdict comes first: yes, a request held by an irq-off window (exit status 0)" \
		sh -c "head -n 1 /tmp/same-$how.txt | grep -q '^Verdict: yes: ' && test \$(cat /tmp/same-$how.txt.rc) = 0"
	check "$how: a request of sector 0 issued on CPU 1 and completed there, along its own hardware queue, is explained by the window on CPU 1" \
		grep -qE "I/O on [0-9]+:[0-9]+ by tio-dread[^ ]* took [0-9.]+ ms from [0-9.]+ s; issued on CPU 1 \(hardware queue [0-9]+ of CPUs 1[,)][^;]*, completed on CPU 1(; [^;]*)* explained by a hardirq-off window of [0-9.]+ ms (on CPU 1 )?$words" $f
	check_fails "$how: no request issued on CPU 0 is laid to the window on CPU 1" \
		grep -qE "issued on CPU 0 [^;]*(; [^;]*)* explained by a hardirq-off window of [0-9.]+ ms" $f
	check "$how: the requests held back on CPU 1 are all there, one delay each ($(cat /tmp/same-$how.txt.slow1) of 50 ms or more in our own block trace, at least 1)" \
		sh -c "test \$(cat /tmp/same-$how.txt.slow1) -ge 1 && test \$(grep -oE 'issued on CPU 1 \\(hardware queue' $f | wc -l) -eq \$(cat /tmp/same-$how.txt.slow1)"
done
# The one-line view says it too: the task of a window in an IPI function was interrupted.
trace-irqoff records --cpu 1 --since 10s --oneline > /tmp/same-lines.txt
echo "# measured: records --oneline: $(grep irqoff_sample_ipi_window /tmp/same-lines.txt | head -n 1)"
check "records --oneline: the IPI function's window says so, and names its task as interrupted" \
	grep -qE 'irqoff_sample_ipi_window in an IPI function, interrupting [^ ]+\[[0-9]+\]' /tmp/same-lines.txt

trace-irqoff disable > /dev/null
rmmod null_blk
rmmod irqoff_sample
rmmod trace_irqoff
done_testing
