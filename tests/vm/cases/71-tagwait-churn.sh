# SPDX-License-Identifier: GPL-2.0
# description: the tag-wait kprobe source survives null_blk device churn under starved readers
# kernels: sanitize debian-7.3
# proves: tag-wait counting with the upstream tracepoint or the kprobe source, under device churn
# Tag-wait kprobe source under device churn: null_blk devices are created and torn down
# (configfs) under starved readers, with depths and queue counts varied, so that queues die
# while submitters wait on them and the same tasks go on waiting on another device. Each
# wait must be attributed to a device alive then: after a teardown the counters are
# cleared and only the surviving device may appear.
# Without KASAN a dereferenced stale hctx shows as a count for a dead device, a garbage
# dev_t or a splat (tests/vm/run fails on any); with KASAN as a use-after-free report.
CFS=/sys/kernel/config
NB=$CFS/nullb
rmmod trace_irqoff 2>/dev/null
modprobe null_blk nr_devices=0
grep -q " $CFS configfs" /proc/mounts || mount -t configfs none $CFS
modprobe trace_irqoff tag_wait_kprobe=1
check "churn: the kprobe source is forced" grep -q '^tag_wait: disabled (source: kprobe)' $TIO/tag_wait
echo 1 > $TIO/tag_wait

mkdev() {	# mkdev NAME DEPTH QUEUES: a powered null_blk device /dev/NAME (configfs names the
	# disk after its directory); prints its MAJ:MIN
	mkdir $NB/$1
	echo 2 > $NB/$1/queue_mode
	echo 64 > $NB/$1/size	# MB
	echo "$2" > $NB/$1/hw_queue_depth
	echo "$3" > $NB/$1/submit_queues
	echo 1 > $NB/$1/no_sched
	echo 2 > $NB/$1/irqmode
	echo 1000000 > $NB/$1/completion_nsec
	echo 1 > $NB/$1/power
	cat /sys/block/$1/dev
}
rmdev() {	# rmdev NAME
	echo 0 > $NB/$1/power
	rmdir $NB/$1
}
counted_devs() {	# MAJ:MIN of every device with waits counted, one a line
	sed -n 's/^tagwait_count major=\([0-9]*\) minor=\([0-9]*\) .*/\1:\2/p' $TIO/records | sort -u
}
field_of() {	# field_of NAME: NAME=value of the tagwait line
	sed -n "s/^tagwait .*$1=\([0-9]*\).*/\1/p" $TIO/records
}

prev=d0
prev_dev=$(mkdev d0 2 1)
bad=0 alone=0 cycles=0 torn=0 lost=0
for i in 1 2 3 4; do
	# Depths 2..4 on one queue, 2 on two: always fewer tags than the 8 readers.
	case $((i % 4)) in 0) depth=2 queues=2 ;; *) depth=$((1 + i % 4)) queues=1 ;; esac
	cur=d$i
	cur_dev=$(mkdev $cur $depth $queues)
	pdisk=/dev/$prev cdisk=/dev/$cur
	# The same reader threads take both devices in turn, so each has kicked queues of
	# both; the previous device is torn down under them, and they go on with the other.
	# del_gendisk waits for every submitter inside the dead queue, so once rmdev returns
	# a wait counted for it would be a stale kick.
	tio-dread $pdisk,$cdisk 8 2 > /tmp/churn-reads 2>&1 &
	rd=$!
	sleep 1
	rmdev $prev && torn=$((torn + 1))
	echo 0 > $TIO/trace_latency
	wait $rd
	reads=$(cat /tmp/churn-reads)
	devs=$(counted_devs)
	held=$(field_of kicks_held)
	echo "# measured: cycle $i ($cur: depth $depth, $queues queues, $cur_dev; torn down $prev $prev_dev): $reads reads, counted [$(echo $devs)] unattributed=$(field_of unattributed) kicks_held=$held"
	for d in $devs; do [ "$d" = "$cur_dev" ] || bad=$((bad + 1)); done
	[ -n "$cur_dev" ] && echo "$devs" | grep -qx "$cur_dev" && alone=$((alone + 1))
	[ "$held" = 0 ] || bad=$((bad + 1))
	lost=$((lost + $(field_of unattributed)))
	cycles=$((cycles + 1))
	prev=$cur prev_dev=$cur_dev
done
check "churn: $torn devices torn down under starved readers" test "$torn" = 4
check "churn: after each teardown only the live device is counted, no entry left held ($bad wrong)" test "$bad" = 0
check "churn: the live device's waits are attributed to it in each cycle ($alone of $cycles)" test "$alone" = "$cycles"
# Keyed by task, a wait is attributed wherever the task ran its kick: only a full table
# (256 waiting tasks) leaves one unattributed. (The per-CPU pair lost the waits of tasks
# preempted or moved between the kick and the prepare: 21 in the six cycles of one run.)
check "churn: every wait is attributed, also of tasks preempted or moved after the kick ($lost not)" test "$lost" = 0
echo 0 > $TIO/tag_wait
rmdev $prev
check "churn: rmmod after the churn" rmmod trace_irqoff
rmmod null_blk
rm -f /tmp/churn-reads
