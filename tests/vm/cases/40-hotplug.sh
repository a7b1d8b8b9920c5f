# SPDX-License-Identifier: GPL-2.0
# description: samplers follow CPUs going offline and online; records of offline CPUs stay readable
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
rmmod irqoff_sample
rmmod trace_irqoff
