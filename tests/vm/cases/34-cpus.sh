# SPDX-License-Identifier: GPL-2.0
# description: the cpus control chooses the CPUs sampled; bad lists are refused and change nothing
# kernels: test debian-7.3
# proves: every bad write gets its documented errno and changes nothing (Errors); parameters out of range fail the load
# proves: the `cpus` control; nohz_full CPUs are not sampled by default
# Claim: the `cpus` control chooses the CPUs sampled. A window on a CPU left out is not
# seen (no event, no record, also after that CPU went offline and came back); one on a
# chosen CPU is. A bad list is refused with EINVAL and changes nothing; a change while
# enabled is refused with EBUSY; `records` and `trace-irqoff status` say which CPUs are
# sampled, and `trace-irqoff enable --cpus` changes them. (The default without nohz_full
# CPUs is every CPU; with them: tests/vm/nohz-full.sh.)
tio_load
modprobe irqoff_sample
all=$(cat /sys/devices/system/cpu/possible)
check "cpus lists every possible CPU by default ($all)" test "$(cat $TIO/cpus)" = "$all"
for bad in '\n' '2' '1-0' 'a' '0,' ',0' '0 1' '0x1' '99999999999' '0-1-2'; do
	check_fails "cpus refuses '$bad' with EINVAL" sh -c "printf '$bad' > $TIO/cpus"
done
check "... and keeps its list" test "$(cat $TIO/cpus)" = "$all"
echo 0 > $TIO/cpus
check "cpus takes a list: '0'" test "$(cat $TIO/cpus)" = 0
check "records says cpus=0 nohz_full=-" grep -qE '^config .* cpus=0 nohz_full=-( |$)' $TIO/records
echo 1 > $TIO/enable
check_fails "cpus refuses a change while enabled (EBUSY)" sh -c "echo 0-1 > $TIO/cpus"
check "trace-irqoff status names the CPUs sampled" sh -c "trace-irqoff status | grep -qx 'CPUs sampled: 0'"
echo 0 > $TIO/trace_latency
inject 1 hardirq 100
sleep 0.2
check "a 100 ms window on cpu 1, not chosen: no event, no record" sh -c "test $(events 1 hard) = 0 && ! grep -q '^record cpu=1 ' $TIO/records"
echo 0 > /sys/devices/system/cpu/cpu1/online
echo 1 > /sys/devices/system/cpu/cpu1/online
sleep 0.2
inject 1 hardirq 100
sleep 0.2
check "... nor after cpu 1 went offline and came back" sh -c "test $(events 1 hard) = 0 && ! grep -q '^record cpu=1 ' $TIO/records"
inject 0 hardirq 100
sleep 0.2
check "a 100 ms window on cpu 0, chosen: an event" test "$(events 0 hard)" -ge 1
check "trace-irqoff enable --cpus 1 chooses cpu 1 (disabling and enabling again)" \
	sh -c "trace-irqoff enable --cpus 1 > /dev/null && test \$(cat $TIO/cpus) = 1 && test \$(cat $TIO/enable) = enabled"
check_fails "trace-irqoff enable --cpus 7 is refused" trace-irqoff enable --cpus 7
check "... and changed nothing (cpus 1, enabled)" sh -c "test \$(cat $TIO/cpus) = 1 && test \$(cat $TIO/enable) = enabled"
sleep 0.2
inject 1 hardirq 100
sleep 0.2
check "then a 100 ms window on cpu 1 is an event" test "$(events 1 hard)" -ge 1
echo 0 > $TIO/enable
echo "$all" > $TIO/cpus
rmmod irqoff_sample
rmmod trace_irqoff
