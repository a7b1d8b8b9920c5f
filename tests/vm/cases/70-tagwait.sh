# SPDX-License-Identifier: GPL-2.0
# description: blk-mq tag starvation with null_blk is counted and traced through both sources
# kernels: sanitize debian-7.3 debian-7.3-rt debian-7.2 debian-7.3-cloud arm64
# proves: tag-wait counting with the upstream tracepoint or the kprobe source, under device churn
# blk-mq tag starvation with null_blk, through both sources.
T=/sys/kernel/tracing
NULLB="queue_mode=2 submit_queues=1 irqmode=2 completion_nsec=1000000"
waits() {	# waits POOL(hardware|scheduler): waits counted for nullb0 in that pool
	maj=$(cut -d: -f1 /sys/block/nullb0/dev); min=$(cut -d: -f2 /sys/block/nullb0/dev)
	sched=0; [ "$1" = scheduler ] && sched=1
	grep "^tagwait_count major=$maj minor=$min hctx=0 sched=$sched reserved=0 " $TIO/records | sed 's/.*waits=//' | awk '{s += $1} END {print s + 0}'
}
all_waits() {
	grep '^tagwait_count ' $TIO/records | sed 's/.*waits=//' | awk '{s += $1} END {print s + 0}'
}
run_load() {	# run_load PARAMS...: null_blk with PARAMS, tracking on, 8 readers for 1 s
	modprobe null_blk $NULLB "$@"
	if [ -n "$NR_REQUESTS" ]; then
		modprobe mq-deadline 2>/dev/null	# a module on Debian's cloud flavour
		echo mq-deadline > /sys/block/nullb0/queue/scheduler
		echo "$NR_REQUESTS" > /sys/block/nullb0/queue/nr_requests
	fi
	echo 0 > $TIO/trace_latency
	echo 1 > $TIO/tag_wait
	reads=$(tio-dread /dev/nullb0 8 1)
	echo 0 > $TIO/tag_wait
}

for source in tracepoint kprobe; do
	rmmod trace_irqoff 2>/dev/null
	if [ $source = kprobe ]; then modprobe trace_irqoff tag_wait_kprobe=1; else modprobe trace_irqoff; fi
	check "$source: the source is chosen at load and reported" sh -c "grep -q '^tag_wait: disabled (source: $source)' $TIO/tag_wait && dmesg | grep -q 'tag_wait: source is the $source'"
	echo 1 > $T/events/trace_irqoff/block_rq_tag_wait/enable
	echo > $T/trace

	# Driver tags: depth 2, no scheduler.
	NR_REQUESTS= run_load hw_queue_depth=2 no_sched=1
	hw=$(waits hardware); sc=$(waits scheduler)
	echo "# measured: $source, hw_queue_depth=2 no_sched: $hw hardware-pool waits, $sc scheduler-pool waits, $reads reads"
	check "$source: starved driver tags are counted on nullb0's hardware pool ($hw waits)" test "$hw" -gt 0 -a "$sc" = 0
	check "$source: trace_irqoff:block_rq_tag_wait fires in the upstream format" grep -qE 'block_rq_tag_wait: [0-9]+,0 hctx=0 starved on hardware tags \(depth=2\)' $T/trace
	check "$source: the human tag_wait file shows the pool" grep -qE '^ +[0-9]+,0 +0  hardware +[1-9]' $TIO/tag_wait
	check "$source: trace-irqoff tagwait shows the starved pool" sh -c "trace-irqoff tagwait | grep -qE '^ +[0-9]+,0 +0  hardware +[1-9]' && trace-irqoff tagwait --json | grep -q '\"pool\": \"hardware\"'"
	check "$source: wait durations are measured" sh -c "grep '^tagwait_hist_us' $TIO/records | awk '{for (i = 2; i <= NF; i++) s += \$i} END {exit !(s > 0)}'"
	rmmod null_blk

	# Scheduler tags: default scheduler kept, nr_requests 4.
	NR_REQUESTS=4 run_load hw_queue_depth=64
	hw=$(waits hardware); sc=$(waits scheduler)
	echo "# measured: $source, scheduler kept, nr_requests=4: $sc scheduler-pool waits, $hw hardware-pool waits, $reads reads"
	check "$source: scheduler-tag starvation is counted on the scheduler pool ($sc waits)" test "$sc" -gt 0
	rmmod null_blk

	# Control: a deep queue.
	NR_REQUESTS= run_load hw_queue_depth=256 no_sched=1
	n=$(all_waits)
	echo "# measured: $source, hw_queue_depth=256: $n waits, $reads reads"
	check "$source: a deep queue gives (close to) no waits ($n)" test "$n" -le 2
	rmmod null_blk
	echo 0 > $T/events/trace_irqoff/block_rq_tag_wait/enable
done

# Switching while readers run, and rmmod during the load, leave nothing behind.
modprobe null_blk $NULLB hw_queue_depth=2 no_sched=1
tio-dread /dev/nullb0 8 4 > /dev/null &
i=0
while [ $i -lt 20 ]; do echo 1 > $TIO/tag_wait; echo 0 > $TIO/tag_wait; i=$((i + 1)); done
check "trace-irqoff tagwait on" trace-irqoff tagwait on
sleep 0.5
check "rmmod with tracking on, during the load" rmmod trace_irqoff
wait
check "the readers finish after rmmod (no stale probe)" sh -c "tio-dread /dev/nullb0 8 1 > /dev/null"
rmmod null_blk
check "after reload, tag-wait tracking starts off" sh -c "modprobe trace_irqoff && grep -q '^tag_wait: disabled' $TIO/tag_wait && rmmod trace_irqoff"
