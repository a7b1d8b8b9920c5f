#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# cpus: 16
# Booted with many CPUs (tests/run: --cpus 16 on debian-7.3), or with few online and many
# possible (--cpus 2 --possible-cpus M, which it checks the guest counts). Claim: the module loads with a sampler for
# every possible CPU and samples every online one, a window on the highest online CPU is
# a record with its in-window stack, every file reads whole in well under a second, and
# the memory line grows by the per-CPU figure Documentation gives.
. /tests/lib.sh
n=$(grep -c '^processor' /proc/cpuinfo)
last=$((n - 1))
possible=$(cat /sys/devices/system/cpu/possible)
np=$(echo "$possible" | awk -F- '{ print ($2 == "" ? 1 : $2 + 1) }')
echo "# $n CPUs online, possible $possible ($np): nr_cpu_ids $np"
# With --possible-cpus M the runner asked QEMU for M: the guest must count them.
if [ -f /tests/possible-cpus ]; then
	check "the guest counts the $(cat /tests/possible-cpus) possible CPUs QEMU was given ($np)" test "$np" = "$(cat /tests/possible-cpus)"
fi
tio_load
modprobe irqoff_sample
check "cpus lists every possible CPU" test "$(cat $TIO/cpus)" = "$possible"
echo 1 > $TIO/enable
sleep 0.5
inject $last hardirq 100
sleep 0.3
blk=$(window_block $last hard sh)
h=$(events $last hard)
check "a 100 ms window on cpu $last (the highest online): an event ($h), its record naming the sample in its in-window stack" \
	sh -c "test '$h' -ge 1 && echo '$blk' | grep -q irqoff_sample_hardirq_window"
# Each file read whole twice; the second read's time counts (the first one may fault in
# the reader).
tio-time $(ls -d $TIO/*) > /dev/null
tio-time $(ls -d $TIO/*) > /tmp/times
sed "s|^$TIO/\([^ ]*\) \([0-9]*\) \([0-9]*\) \([0-9]*\)|# measured at $np possible CPUs: \1: \2 bytes in \3 us (\4 reads)|" /tmp/times
slow=$(awk '$3 >= 1000000 { print $1 }' /tmp/times)
check "every file reads whole in under a second at $np possible CPUs${slow:+ (slow: $slow)}" test -z "$slow" -a "$(wc -l < /tmp/times)" = "$(ls $TIO | wc -l)"
grep '^memory ' $TIO/records | sed "s/^/# measured at $np possible CPUs: /"
check "records has a cpu line for each possible CPU" test "$(grep -c '^cpu ' $TIO/records)" = "$np"
check "counters has a cpu and a worst line for each possible CPU" \
	test "$(grep -c '^cpu ' $TIO/counters) $(grep -c '^worst ' $TIO/counters)" = "$np $np"
check "records says $n CPUs online" test "$(grep -c '^cpu .* online=1 ' $TIO/records)" = "$n"
echo 0 > $TIO/enable
rmmod irqoff_sample
rmmod trace_irqoff
done_testing
