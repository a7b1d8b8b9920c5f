# SPDX-License-Identifier: GPL-2.0
# description: every bad write returns its documented errno and changes nothing
# kernels: sanitize debian-7.3 debian-7.3-rt debian-7.2 debian-7.3-cloud arm64
# proves: every bad write gets its documented errno and changes nothing (Errors); parameters out of range fail the load
# proves: `sampling_period` keeps threshold >= 2P -- "raising the period raises the threshold to 2P"
# Every bad write returns its errno and changes nothing.
tio_load
snapshot() { cat $TIO/enable $TIO/sampling_period; head -n1 $TIO/trace_latency; }
expect() {	# expect ERRNO FILE DATA DESCRIPTION
	before=$(snapshot)
	got=$(tio-write "$TIO/$2" "$3")
	after=$(snapshot)
	if [ "$got" = "$1" ] && [ "$before" = "$after" ]; then
		ok "$4: $1, nothing changed"
	else
		not_ok "$4: expected $1 and no change" "got: $got" "before: $before" "after: $after"
	fi
}
expect EINVAL sampling_period '0' "sampling_period 0 (the original's interrupt storm)"
expect EINVAL sampling_period '0\n' "sampling_period 0 with newline"
expect EINVAL sampling_period '1001' "sampling_period above 1000 ms"
expect EINVAL sampling_period '18446744073709551616' "sampling_period overflowing u64"
expect EINVAL sampling_period '18446744073709551' "sampling_period whose ns would overflow"
expect EINVAL sampling_period '10abc' "sampling_period with trailing garbage"
expect EINVAL sampling_period ' 10' "sampling_period with leading space"
expect EINVAL sampling_period '-5' "sampling_period negative"
expect EINVAL sampling_period '0x10' "sampling_period in hex"
expect EINVAL sampling_period '' "sampling_period empty write"
expect EINVAL sampling_period '10\n\n' "sampling_period with two newlines"
expect EINVAL sampling_period "$(printf '%070d' 1)" "sampling_period longer than 64 bytes"
expect EINVAL trace_latency '19' "threshold below 2P"
expect EINVAL trace_latency '10001' "threshold above 10 s"
expect EINVAL trace_latency '99999999999999999999' "threshold overflowing"
expect EINVAL trace_latency '' "threshold empty write"
expect EINVAL enable '2' "enable 2"
expect EINVAL enable 'yes' "enable yes"
expect EINVAL enable '' "enable empty write"
expect EPERM distribute "1" "write to read-only distribute (root bypasses the mode)"
expect EPERM records "1" "write to read-only records"
expect EPERM counters "1" "write to read-only counters"
check "sampling_period 5 is accepted" test "$(tio-write $TIO/sampling_period '5\n')" = ok
check "sampling_period reads 5ms" test "$(cat $TIO/sampling_period)" = 5ms
check "threshold 10 (= 2P) is accepted" test "$(tio-write $TIO/trace_latency 10)" = ok
check "raising the period raises the threshold to 2P" sh -c "tio-write $TIO/sampling_period 40 >/dev/null && head -n1 $TIO/trace_latency | grep -qx 'trace_irqoff_latency: 80ms'"
check "the period goes back to 10" test "$(tio-write $TIO/sampling_period 10)" = ok
echo 1 > $TIO/enable
expect EBUSY sampling_period '20' "changing the period while enabled"
check "the threshold may change while enabled" test "$(tio-write $TIO/trace_latency 60)" = ok
check "enable is idempotent" sh -c "echo 1 > $TIO/enable && test \$(cat $TIO/enable) = enabled"
echo 0 > $TIO/enable
check "echo works as users type it (echo 10 > sampling_period)" sh -c "echo 10 > $TIO/sampling_period"
check "the files are root-only: mode 0600" sh -c "ls -l $TIO/enable | grep -q '^-rw-------'"
check "distribute, records and counters are read-only: mode 0400" sh -c "ls -l $TIO/distribute $TIO/records $TIO/counters | grep -c '^-r--------' | grep -qx 3"
check "a non-root user gets EACCES" test "$(su -s /bin/sh nobody -c "tio-write $TIO/enable 1")" = EACCES
rmmod trace_irqoff
check "records_per_cpu=0 is refused at load" sh -c "! modprobe trace_irqoff records_per_cpu=0"
check "records_per_cpu=65 is refused at load" sh -c "! modprobe trace_irqoff records_per_cpu=65"
