#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Booted with many CPUs (tests/run: --cpus 16 on debian-7.3). Claim: the module loads and
# samples every CPU, a window on the highest CPU is a record with its in-window stack,
# every file reads in well under a second, and the memory line grows by the per-CPU
# figure Documentation gives.
. /tests/lib.sh
n=$(grep -c '^processor' /proc/cpuinfo)
last=$((n - 1))
echo "# $n CPUs online, possible $(cat /sys/devices/system/cpu/possible)"
tio_load
modprobe irqoff_sample
check "cpus lists every possible CPU" test "$(cat $TIO/cpus)" = "$(cat /sys/devices/system/cpu/possible)"
echo 1 > $TIO/enable
sleep 0.5
inject $last hardirq 100
sleep 0.3
blk=$(window_block $last hard sh)
h=$(events $last hard)
check "a 100 ms window on cpu $last: an event ($h), its record naming the sample in its in-window stack" \
	sh -c "test '$h' -ge 1 && echo '$blk' | grep -q irqoff_sample_hardirq_window"
for f in $(ls $TIO); do
	t0=$(cut -d' ' -f1 /proc/uptime)
	bytes=$(cat $TIO/$f | wc -c)
	t1=$(cut -d' ' -f1 /proc/uptime)
	echo "# measured: $f: $bytes bytes in $(echo "$t0 $t1" | awk '{ printf "%d", ($2 - $1) * 1000 }') ms"
done
slow=$(for f in $(ls $TIO); do t0=$(cut -d' ' -f1 /proc/uptime); cat $TIO/$f > /dev/null; t1=$(cut -d' ' -f1 /proc/uptime); echo "$f $t0 $t1"; done | awk '($3 - $2) >= 1 { print $1 }')
check "every file reads in under a second at $n CPUs" test -z "$slow"
grep '^memory ' $TIO/records | sed "s/^/# measured at $n CPUs: /"
check "records has a cpu line for each possible CPU" test "$(grep -c '^cpu ' $TIO/records)" = "$n"
echo 0 > $TIO/enable
rmmod irqoff_sample
rmmod trace_irqoff
done_testing
