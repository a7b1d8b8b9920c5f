# SPDX-License-Identifier: GPL-2.0
# description: readers and writers racing rmmod, reload, hotplug and the fuzzer leave no splat, hang or leak
# needs: test-kernel
# kernels: sanitize
# proves: every bad write gets its documented errno and changes nothing (Errors); parameters out of range fail the load -- "tio-fuzz ... every write accepted or refused as documented"
# proves: a clear empties every record at once, under readers and writers -- "clear under injected windows ...", "after the clears, counters are zero"
# proves: files held open across `rmmod` answer EIO -- "rmmod under readers and writers ... held files answer EIO"
# Races with the end of life: readers (cat of every file, the CLI's records --json and
# watch) and a writer run in loops, pinned one per CPU, while (a) the module is removed
# and reloaded with every file held open, (b) every non-boot CPU goes off and on,
# (c) records are cleared under injected windows, (d) tag-wait tracking is switched
# under tag starvation. Then the control files are fuzzed (tio-fuzz) and the module must
# still work and unload cleanly.
# Round counts are parameters: RMMOD_ROUNDS for (a), RACE_ROUNDS for (b)-(d), FUZZ_COUNT
# writes per file. Under TCG on a shared host 100 rmmod rounds under the readers took
# about 41 s of guest time (minutes of host time), so the suite runs 20; make soak runs
# these operations for as long as its budget lasts. It needs the test kernel's debug
# options or the sanitizers to judge a race: make test runs it on the sanitize kernel
# (the test kernel plus KASAN, kmemleak and UBSAN), make test-sanitize on the sanitize
# and KCSAN kernels; on the stock kernels it would add about a quarter hour.
# On the KASAN kernel every syscall and module load costs several times more: there 20
# rmmod rounds took 104 s and 10000 fuzzed writes 102 s of guest time, nearly half of that
# suite, and at 10 rounds, 50 race rounds and 2000 writes the case still took 149 s of
# guest time, 7.5 minutes of host time in a whole make test, its most costly case; at 6
# rounds, 25 and 1000, 90 s of guest time and 4 minutes of host time (6 rmmod rounds 32 s,
# the fuzzer 17 s). It runs 4 rmmod rounds, 25 race rounds and 500 writes per file there
# (the fuzzer's grammar is the same; tests/vm/run --case 85 on the test kernel runs the
# full counts, make soak for as long as its budget lasts).
if has kasan; then
	RMMOD_ROUNDS=${RMMOD_ROUNDS:-4}
	RACE_ROUNDS=${RACE_ROUNDS:-25}
	FUZZ_COUNT=${FUZZ_COUNT:-500}
fi
RMMOD_ROUNDS=${RMMOD_ROUNDS:-20}
RACE_ROUNDS=${RACE_ROUNDS:-50}
FUZZ_COUNT=${FUZZ_COUNT:-10000}
FUZZ_SEED=${FUZZ_SEED:-$(($(date +%s) % 100000 + 1))}
RD=/tmp/races
rm -rf $RD
mkdir -p $RD
CPUS=$(ls -d /sys/devices/system/cpu/cpu[0-9]* | sed 's/.*cpu//' | sort -n)
LAST_CPU=$(echo "$CPUS" | tail -n1)

races_start() {	# readers on the first and last CPU, a writer, the CLI; failures go to $RD/errs
	rm -f $RD/stop
	: > $RD/errs
	for c in 0 $LAST_CPU; do
		taskset -c $c sh -c "
			while [ ! -e $RD/stop ]; do
				for f in $TIO/*; do cat \$f > /dev/null 2>&1 || echo \"cpu $c: cat \$f failed\" >> $RD/errs; done
				[ \"\$(tail -n1 $TIO/records 2>/dev/null)\" = end ] || echo \"cpu $c: records incomplete\" >> $RD/errs
				trace-irqoff records --json > /dev/null 2>&1 || echo \"cpu $c: records --json failed\" >> $RD/errs
			done" &
	done
	taskset -c 0 sh -c "
		while [ ! -e $RD/stop ]; do
			trace-irqoff watch --interval 50ms --count 3 > /dev/null 2>&1 || echo 'watch failed' >> $RD/errs
		done" &
	taskset -c $LAST_CPU sh -c "
		while [ ! -e $RD/stop ]; do
			for w in 'enable 1' 'trace_latency 60' 'enable 0' 'sampling_period 10' 'trace_latency 50' 'enable 1'; do
				set -- \$w
				{ echo \$2 > $TIO/\$1; } 2> /dev/null || echo \"write \$w failed\" >> $RD/errs
			done
		done" &
}
races_stop() {	# stops the loops started by races_start and waits for them
	touch $RD/stop
	wait
}
errs() {	# the loops' failures, counted by kind
	sort $RD/errs | uniq -c | head -n 8 | tr '\n' ';'
}

# (a) rmmod with readers, writers and every file held open. rmmod either fails with
# EBUSY or succeeds, and then every descriptor opened before answers EIO.
modprobe irqoff_sample
tio_load
nfiles=$(ls $TIO | wc -l)
races_start
i=0 removed=0 busy=0 bad=
t0=$(date +%s)
while [ $i -lt $RMMOD_ROUNDS ]; do
	[ -e $TIO ] || modprobe trace_irqoff
	echo 1 > $TIO/enable 2>/dev/null
	hold_start $RD/go $RD/hold $RD/hold.err
	hp=$hold_pid
	held=$(sed -n 's/^held //p' $RD/hold)
	[ "$held" = "$nfiles" ] || bad="$bad round $i: held '$held' files ($(cat $RD/hold.err));"
	out=$(rmmod trace_irqoff 2>&1)
	rc=$?
	touch $RD/go
	wait $hp
	if [ $rc = 0 ]; then
		removed=$((removed + 1))
		[ -e $TIO ] && bad="$bad round $i: $TIO still there after rmmod;"
		wrong=$(grep -v '^held' $RD/hold | grep -v ' read=EIO write=EIO$' | grep -v ' read=EIO write=-$')
		[ -n "$wrong" ] && bad="$bad round $i: $(echo $wrong);"
		[ "$(grep -c ' read=EIO' $RD/hold)" = "$nfiles" ] || bad="$bad round $i: $(grep -c ' read=EIO' $RD/hold) files answered EIO;"
	else
		case "$out" in
		*[Bb]usy*|*"in use"*) busy=$((busy + 1)) ;;
		*) bad="$bad round $i: rmmod: $out;" ;;
		esac
	fi
	i=$((i + 1))
done
t1=$(date +%s)
races_stop
echo "# measured: rmmod races: $RMMOD_ROUNDS rounds, $removed removed, $busy EBUSY, $((t1 - t0)) s guest time; loop errors (module absent part of the time): $(errs)"
check "rmmod under readers and writers with every file held open: $RMMOD_ROUNDS rounds, removed or EBUSY, held files answer EIO" test -z "$bad" -a $((removed + busy)) = $RMMOD_ROUNDS
[ -n "$bad" ] && echo "# $bad" | cut -c1-2000
[ -e $TIO ] || modprobe trace_irqoff

# (b) CPU hotplug of every non-boot CPU, while enabled and read.
echo 1 > $TIO/enable
races_start
i=0 bad=
t0=$(date +%s)
while [ $i -lt $RACE_ROUNDS ]; do
	for c in $CPUS; do
		[ -e /sys/devices/system/cpu/cpu$c/online ] || continue
		echo 0 > /sys/devices/system/cpu/cpu$c/online || bad="$bad round $i: cpu$c offline failed;"
		echo 1 > /sys/devices/system/cpu/cpu$c/online || bad="$bad round $i: cpu$c online failed;"
	done
	i=$((i + 1))
done
t1=$(date +%s)
races_stop
echo "# measured: hotplug races: $RACE_ROUNDS rounds of cpu $(echo $CPUS | cut -d' ' -f2-) off/on, $((t1 - t0)) s guest time; loop errors: $(errs)"
check "hotplug of every non-boot CPU under readers and writers: $RACE_ROUNDS rounds, no failed read or write" test -z "$bad" -a ! -s $RD/errs
echo 1 > $TIO/enable
echo 0 > $TIO/trace_latency
inject $LAST_CPU hardirq 80
sleep 0.1
check "after the hotplug rounds, a window on cpu $LAST_CPU is still detected" test "$(events $LAST_CPU hard)" -ge 1

# (c) clear under injected windows.
races_start
taskset -c 0 sh -c "while [ ! -e $RD/stop ]; do echo hardirq 60 > /dev/irqoff_sample; sleep 0.1; echo softirq 60 > /dev/irqoff_sample; sleep 0.1; done" &
i=0 bad=
t0=$(date +%s)
while [ $i -lt $RACE_ROUNDS ]; do
	echo 0 > $TIO/trace_latency || bad="$bad round $i: clear failed;"
	sleep 0.02
	i=$((i + 1))
done
t1=$(date +%s)
races_stop
echo "# measured: clear races: $RACE_ROUNDS rounds, $((t1 - t0)) s guest time; loop errors: $(errs)"
check "clear under injected windows, readers and writers: $RACE_ROUNDS rounds, every read complete" test -z "$bad" -a ! -s $RD/errs
echo 0 > $TIO/trace_latency
check "after the clears, counters are zero" sh -c "! grep -q '^cpu .* hard_events=[1-9]' $TIO/records"

# (d) tag-wait switched on and off under tag starvation.
modprobe null_blk queue_mode=2 submit_queues=1 irqmode=2 completion_nsec=1000000 hw_queue_depth=2 no_sched=1
tio-dread /dev/nullb0 8 3600 > /dev/null &
dp=$!
races_start
i=0 bad=
t0=$(date +%s)
while [ $i -lt $RACE_ROUNDS ]; do
	echo 1 > $TIO/tag_wait || bad="$bad round $i: on failed;"
	sleep 0.02
	echo 0 > $TIO/tag_wait || bad="$bad round $i: off failed;"
	i=$((i + 1))
done
t1=$(date +%s)
echo 1 > $TIO/tag_wait
sleep 0.5
waits=$(grep '^tagwait_count ' $TIO/records | sed 's/.*waits=//' | awk '{s += $1} END {print s + 0}')
echo 0 > $TIO/tag_wait
races_stop_dread() { kill $dp; }
races_stop_dread
races_stop
rmmod null_blk
echo "# measured: tag-wait races: $RACE_ROUNDS on/off rounds, $waits waits counted, $((t1 - t0)) s guest time; loop errors: $(errs)"
check "tag-wait on/off under starvation: $RACE_ROUNDS rounds, no failed read or write, waits still counted ($waits)" test -z "$bad" -a ! -s $RD/errs -a "$waits" -gt 0

# The fuzzer: every writable file, FUZZ_COUNT writes each.
t0=$(date +%s)
tio-fuzz --seed $FUZZ_SEED --count $FUZZ_COUNT > $RD/fuzz 2>&1
frc=$?
t1=$(date +%s)
sed 's/^/# /' $RD/fuzz | head -n 40
echo "# measured: tio-fuzz --seed $FUZZ_SEED --count $FUZZ_COUNT: $((t1 - t0)) s guest time"
check "tio-fuzz --seed $FUZZ_SEED --count $FUZZ_COUNT: every write accepted or refused as documented, settings read back" test $frc = 0
echo 0 > $TIO/enable
cat /sys/devices/system/cpu/possible > $TIO/cpus
echo 10 > $TIO/sampling_period
echo 50 > $TIO/trace_latency
echo 0 > $TIO/tag_wait
echo 1 > $TIO/enable
inject $LAST_CPU hardirq 80
sleep 0.1
check "after the fuzzer, the module still detects a window" test "$(events $LAST_CPU hard)" -ge 1
check "after the fuzzer, rmmod succeeds" rmmod trace_irqoff
check "after the fuzzer, /proc/trace_irqoff is gone" test ! -e $TIO
rmmod irqoff_sample
