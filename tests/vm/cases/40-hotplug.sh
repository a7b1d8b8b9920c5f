# SPDX-License-Identifier: GPL-2.0
# description: samplers follow CPUs going offline and online; records of offline CPUs stay readable; a CPU's state is made at its first online
# kernels: test debian-7.3 debian-7.3-rt debian-7.2 debian-7.3-cloud arm64
# proves: samplers follow CPU hotplug; records of an offline CPU stay readable
# proves: memory follows the CPUs that came online: none for a CPU offline at load, one CPU's state at its first online, kept after -- "loaded with cpu1 offline", "cpu1's first online made its state", "its state is kept"
# CPU hotplug: samplers follow CPUs going offline and online; records of offline CPUs stay.
ONLINE=/sys/devices/system/cpu/cpu1/online
tio_load
modprobe irqoff_sample
echo 1 > $TIO/enable
inject 1 hardirq 60
sleep 0.2
echo 0 > $ONLINE
check "cpu1 went offline" test "$(cat $ONLINE)" = 0
check "records of offline cpu1 stay readable" sh -c "grep -q '^record cpu=1 kind=hard' $TIO/records && grep -q '^cpu 1 online=0' $TIO/records"
echo 1 > $ONLINE
i=0
while [ $i -lt 20 ]; do echo 0 > $ONLINE; echo 1 > $ONLINE; i=$((i + 1)); done
check "20 offline/online cycles of cpu1 while enabled" test "$(cat $ONLINE)" = 1
echo 0 > $TIO/trace_latency
echo 0 > $ONLINE
sleep 0.5
echo 1 > $ONLINE
sleep 0.3
long=$(grep -E '^hist 1 (hard|soft) ' $TIO/records | awk '{for (i = 12; i <= NF; i++) s += $i} END {print s + 0}')
check "500 ms offline is not reported as an irq-off section ($long events >= 256 ms)" test "$long" = 0
inject 1 hardirq 100
sleep 0.2
check "after the cycles, injection on cpu1 is still detected" test "$(events 1 hard)" -ge 1
echo 0 > $ONLINE
echo 0 > $TIO/enable
echo 1 > $ONLINE
echo 0 > $TIO/trace_latency
inject 1 hardirq 60
sleep 0.2
check "a CPU onlined while disabled is not sampled" test "$(events 1 hard)" = 0
echo 0 > $ONLINE
echo 1 > $TIO/enable
echo 1 > $ONLINE
sleep 0.1
inject 1 hardirq 60
sleep 0.2
check "a CPU onlined while enabled is sampled" test "$(events 1 hard)" -ge 1
echo 0 > $TIO/enable
# Memory follows the CPUs that came online: loaded with cpu1 offline, the module holds no
# state for it (no cpu line, one CPU's bytes less); its first online while sampling
# makes it, and it is sampled from then on.
echo 0 > $ONLINE
tio_load
m1=$(grep '^memory ' $TIO/records)
echo "# measured with cpu1 offline at load: $m1"
check "loaded with cpu1 offline: no state for it (no cpu 1 line in records or counters)" \
	sh -c "! grep -q '^cpu 1 ' $TIO/records && ! grep -q '^cpu 1 ' $TIO/counters && grep -q '^cpu 0 ' $TIO/records"
echo 1 > $TIO/enable
echo 1 > $ONLINE
sleep 0.1
m2=$(grep '^memory ' $TIO/records)
echo "# measured after cpu1's first online: $m2"
grown=$(( $(field total_bytes "$m2") - $(field total_bytes "$m1") ))
check "cpu1's first online made its state: a cpu 1 line, and memory grew by one CPU's $(field per_cpu_bytes "$m2") bytes ($grown)" \
	sh -c "grep -q '^cpu 1 online=1 ' $TIO/records && test $grown = $(field per_cpu_bytes "$m2")"
inject 1 hardirq 60
sleep 0.2
check "the CPU whose state was made at its first online is sampled" test "$(events 1 hard)" -ge 1
echo 0 > $ONLINE
echo 1 > $ONLINE
check "its state is kept across offline and online (memory unchanged)" \
	test "$(grep '^memory ' $TIO/records)" = "$m2"
echo 0 > $TIO/enable
rmmod irqoff_sample
rmmod trace_irqoff
