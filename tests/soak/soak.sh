#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The soak, in the guest (tests/soak/run prepends SOAK_SECS and SOAK_SEED): random
# operations until the budget is spent, with readers (cat of every file, the CLI) running
# all along on every CPU. Operations: fuzz bursts (tio-fuzz), rmmod with every file held
# open and reload, CPU hotplug off/on, clear, enable/disable, windows injected with the
# sample module (each checked against the module's counters and records), tag starvation
# with tracking on. Reports operations per kind, windows detected vs injected, errors, and
# memory at start and end (the module's own figure, /proc/meminfo Slab/SUnreclaim/Percpu,
# kmemleak where the kernel has it); no growth beyond a stated margin.
#
# The budget is seconds of guest time (date +%s). On the default icount clock guest time
# only passes while the guest executes (a busy guest second is a few host seconds); with
# SOAK_CLOCK=host it is host wall-clock time (see tests/soak/run).
. /tests/lib.sh
SOAK_SECS=${SOAK_SECS:-1800}
SOAK_SEED=${SOAK_SEED:-1}
SOAK_CLOCK=${SOAK_CLOCK:-icount}
SD=/tmp/soak
rm -rf $SD
mkdir -p $SD
clock=$SOAK_CLOCK
now() { date +%s; }
CPUS=$(ls -d /sys/devices/system/cpu/cpu[0-9]* | sed 's/.*cpu//' | sort -n)
LAST_CPU=$(echo "$CPUS" | tail -n1)
# A small LCG, so a soak replays its sequence of operations with the same SOAK_SEED.
rng=$SOAK_SEED
rand() {	# rand N: sets R to a number in [0, N)
	rng=$(( (rng * 1103515245 + 12345) % 2147483648 ))
	R=$(( (rng / 65536) % $1 ))
}
errors=0
err() { errors=$((errors + 1)); echo "# soak error: $*"; }
bump() { eval "n_$1=\$((\${n_$1:-0} + 1))"; }

meminfo() { awk '/^(Slab|SUnreclaim|Percpu):/ {printf "%s=%s ", $1, $2}' /proc/meminfo | tr -d ':'; }
kb() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
settle() {	# lets deferred frees (RCU, per-CPU caches) finish before memory is read
	sync; echo 3 > /proc/sys/vm/drop_caches; sleep 1; echo 3 > /proc/sys/vm/drop_caches; sleep 1
}
KMEMLEAK=/sys/kernel/debug/kmemleak
mount -t debugfs none /sys/kernel/debug 2>/dev/null

loaded() { [ -e $TIO ]; }
load() { loaded || modprobe trace_irqoff || err "modprobe trace_irqoff failed"; }
defaults() {	# the settings the injections are checked under
	load
	echo 0 > $TIO/enable && echo 10 > $TIO/sampling_period && echo 50 > $TIO/trace_latency && echo 1 > $TIO/enable ||
		err "setting the defaults failed"
}

modprobe irqoff_sample
modprobe null_blk queue_mode=2 submit_queues=1 irqmode=2 completion_nsec=1000000 hw_queue_depth=2 no_sched=1
# One load/unload first, so caches the module's load fills once are not counted as growth.
load; rmmod trace_irqoff
load
mem0_module=$(grep '^memory ' $TIO/records)
settle
mem0=$(meminfo)
echo "# soak: start: $mem0_module; $mem0 (KB); budget ${SOAK_SECS}s of $clock time, seed $SOAK_SEED"

# Readers on every CPU for the whole soak. A failure is an error unless the module may
# have been absent meanwhile: the rmmod operation makes $SD/epoch odd while it removes and
# reloads, and a reader ignores a failure if the epoch was odd or changed around it.
rm -f $SD/stop
echo 0 > $SD/epoch
for c in 0 $LAST_CPU; do
	taskset -c $c sh -c "
		n=0
		failed() {
			e1=\$(cat $SD/epoch)
			[ \$e0 = \$e1 ] && [ \$((e0 % 2)) = 0 ] && echo \"cpu $c: \$1\" >> $SD/errs
		}
		while [ ! -e $SD/stop ]; do
			e0=\$(cat $SD/epoch)
			for f in $TIO/*; do cat \$f > /dev/null 2>&1 || failed \"cat \$f\"; done
			trace-irqoff records --json > /dev/null 2>&1 || failed 'records --json'
			trace-irqoff watch --interval 20ms --count 2 > /dev/null 2>&1 || failed watch
			n=\$((n + 1)); echo \$n > $SD/reads.$c
		done" &
done
epoch() { echo $(( $(cat $SD/epoch) + 1 )) > $SD/epoch.new && mv $SD/epoch.new $SD/epoch; }

# Operations.
op_fuzz() {
	load
	rand 1000000
	out=$(tio-fuzz --seed $((R + 1)) --count 300 --workers 2 2>&1) || err "tio-fuzz failed: $(echo "$out" | grep -E 'FAIL|seed=' | head -n 5 | tr '\n' ';')"
	w=$(echo "$out" | sed -n 's/^tio-fuzz: file=.* writes=\([0-9]*\).*/\1/p' | awk '{s += $1} END {print s + 0}')
	n_fuzz_writes=$(( ${n_fuzz_writes:-0} + w ))
}
op_rmmod() {
	load
	echo 1 > $TIO/enable
	hold_start $SD/go $SD/hold
	hp=$hold_pid
	epoch
	out=$(rmmod trace_irqoff 2>&1)
	rc=$?
	touch $SD/go
	wait $hp
	if [ $rc = 0 ]; then
		loaded && err "rmmod: $TIO still there"
		[ "$(grep -c ' read=EIO' $SD/hold)" = "$(sed -n 's/^held //p' $SD/hold)" ] || err "rmmod: held files: $(tr '\n' ';' < $SD/hold)"
	else
		case "$out" in *[Bb]usy*|*"in use"*) bump rmmod_busy ;; *) err "rmmod: $out" ;; esac
	fi
	load
	epoch
}
op_hotplug() {
	for c in $CPUS; do
		[ -e /sys/devices/system/cpu/cpu$c/online ] || continue
		echo 0 > /sys/devices/system/cpu/cpu$c/online || err "cpu$c offline failed"
		echo 1 > /sys/devices/system/cpu/cpu$c/online || err "cpu$c online failed"
	done
}
op_clear() {
	load
	echo 0 > $TIO/trace_latency || err "clear failed"
}
op_toggle() {
	load
	rand 2
	echo $R > $TIO/enable || err "enable $R failed"
}
op_inject() {	# a window of 60..160 ms on a random CPU; the module must count and record it
	defaults
	rand 2; if [ $R = 0 ]; then mode=hardirq kind=hard; else mode=softirq kind=soft; fi
	rand 2; if [ $R = 0 ]; then cpu=0; else cpu=$LAST_CPU; fi
	rand 101; ms=$((60 + R))
	before=$(events $cpu $kind)
	nrec=$(grep -c "^record cpu=$cpu kind=$kind lower_bound=0" $TIO/records)
	inject $cpu $mode $ms
	sleep 0.1
	eval "n_injected_$kind=\$((\${n_injected_$kind:-0} + 1))"
	after=$(events $cpu $kind)
	# The record: latency within [ms - 2P, ms + 30] (P = 10 ms; see Accuracy in the docs);
	# on the host clock the host may stretch a window (a vCPU thread not run), not shorten it.
	slack=30; [ $clock = host ] && slack=200
	rec=$(awk -v c="cpu=$cpu" -v k="kind=$kind" -v lo=$(((ms - 20) * 1000000)) -v hi=$(((ms + slack) * 1000000)) '
		$1 == "record" && $2 == c && $3 == k && $4 == "lower_bound=0" {
			for (i = 5; i <= NF; i++) if ($i ~ /^latency_ns=/) { v = substr($i, 12) + 0; if (v >= lo && v <= hi) n++ } }
		END { print n + 0 }' $TIO/records)
	if [ "${after:-0}" -gt "${before:-0}" ] && [ "$rec" -ge 1 ]; then
		eval "n_detected_$kind=\$((\${n_detected_$kind:-0} + 1))"
	else
		err "injected $mode $ms ms on cpu $cpu: events $before -> $after, $rec records of that latency ($nrec before)"
		grep -E "^cpu $cpu |^hist $cpu $kind |^record cpu=$cpu kind=$kind " $TIO/records | cut -c1-300 | sed 's/^/# /'
	fi
}
op_tagwait() {	# starvation with tracking on: waits must be counted
	load
	echo 1 > $TIO/tag_wait || { err "tag_wait on failed"; return; }
	b=$(grep '^tagwait_count ' $TIO/records | sed 's/.*waits=//' | awk '{s += $1} END {print s + 0}')
	# Starvation needs more submitters than tags at once; on a loaded host a short run may
	# not get there, so up to three runs of 1 s.
	a=$b tries=0 reads=
	while [ "$a" = "$b" ] && [ $tries -lt 3 ]; do
		reads="$reads $(tio-dread /dev/nullb0 8 1)" || err "tio-dread failed"
		a=$(grep '^tagwait_count ' $TIO/records | sed 's/.*waits=//' | awk '{s += $1} END {print s + 0}')
		tries=$((tries + 1))
	done
	head=$(head -n1 $TIO/tag_wait)
	echo 0 > $TIO/tag_wait || err "tag_wait off failed"
	if [ "$a" -gt "$b" ]; then bump tagwait_detected; else err "tag starvation: waits $b -> $a in $tries runs (reads:$reads; $head)"; fi
}

start=$(now)
while [ $(( $(now) - start )) -lt $SOAK_SECS ]; do
	rand 16
	case $R in
	0 | 1) op=fuzz ;;
	2 | 3) op=rmmod ;;
	4 | 5) op=hotplug ;;
	6 | 7) op=clear ;;
	8) op=toggle ;;
	9 | 10 | 11 | 12 | 13) op=inject ;;
	*) op=tagwait ;;
	esac
	op_$op
	bump $op
	if [ -s $SD/errs ]; then
		err "reader: $(sort $SD/errs | uniq -c | head -n 5 | tr '\n' ';')"
		: > $SD/errs
	fi
done
elapsed=$(( $(now) - start ))
touch $SD/stop
wait
reads=$(cat $SD/reads.* 2>/dev/null | awk '{s += $1} END {print s + 0}')

load
mem1_module=$(grep '^memory ' $TIO/records)
settle
mem1=$(meminfo)
leaks=-
if [ -w $KMEMLEAK ]; then
	echo scan > $KMEMLEAK; sleep 5; echo scan > $KMEMLEAK
	leaks=$(grep -c '^unreferenced object' $KMEMLEAK)
	[ "$leaks" = 0 ] || { err "kmemleak: $leaks unreferenced objects"; head -n 40 $KMEMLEAK | sed 's/^/# /'; }
fi
rmmod trace_irqoff || err "final rmmod failed"
loaded && err "$TIO still there after the final rmmod"

echo "# soak: ran ${elapsed}s of $clock time (budget ${SOAK_SECS}s), seed $SOAK_SEED"
echo "# soak: operations: fuzz=${n_fuzz:-0} (${n_fuzz_writes:-0} writes) rmmod=${n_rmmod:-0} (EBUSY ${n_rmmod_busy:-0}) hotplug=${n_hotplug:-0} clear=${n_clear:-0} toggle=${n_toggle:-0} inject=${n_inject:-0} tagwait=${n_tagwait:-0}; reader loops=$reads"
echo "# soak: windows injected/detected: hardirq ${n_injected_hard:-0}/${n_detected_hard:-0}, softirq ${n_injected_soft:-0}/${n_detected_soft:-0}; tag starvation runs with waits counted: ${n_tagwait_detected:-0}/${n_tagwait:-0}"
echo "# soak: memory start: $mem0_module; $mem0(KB)"
echo "# soak: memory end:   $mem1_module; $mem1(KB); kmemleak unreferenced objects: $leaks"
echo "# soak: errors: $errors"
check "soak: no errors in ${elapsed}s ($errors)" test $errors = 0
check "soak: every injected window detected and recorded" test "${n_injected_hard:-0}" = "${n_detected_hard:-0}" -a "${n_injected_soft:-0}" = "${n_detected_soft:-0}"
check "soak: the module's own memory is unchanged" test "$mem0_module" = "$mem1_module"
# Margins: slab and per-CPU figures move with the kernel's own caches; a leak of one
# module state per reload (hundreds of rmmod) would exceed them many times over. With
# KASAN, freed slab objects wait in its quarantine (up to 1/32 of RAM) and still count
# as SUnreclaim (a 330 s soak: 28 -> 43 MB with 0 kmemleak suspects), so there the
# margin grows by that bound and kmemleak, which sees every unreferenced object, is the
# judge of leaks.
quarantine=0
has kasan && quarantine=$(( $(awk '/^MemTotal:/ {print $2}' /proc/meminfo) / 32 ))
for k in SUnreclaim Percpu; do
	a=$(kb $k "$mem0") b=$(kb $k "$mem1") margin=512
	[ $k = SUnreclaim ] && margin=$((512 + quarantine))
	check "soak: $k did not grow beyond $margin KB ($a -> $b KB)" test $((b - a)) -le $margin
done
if has debug-kmemleak; then
	check "soak: kmemleak found no unreferenced object ($leaks)" test "$leaks" = 0
fi
rmmod null_blk
rmmod irqoff_sample
done_testing
