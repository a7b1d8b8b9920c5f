# SPDX-License-Identifier: GPL-2.0
# description: readers never wait for a CPU: while CPU 1 has interrupts off for 3 s and a disable waits, every file and read-only CLI command answers at once
# kernels: debian-7.3 debian-7.3-rt
# proves: readers never wait for another CPU, also while a writer waits (Guarantees: what a reader sees during a write) -- "during a 3 s hardirq-off window ... each answered within 100 ms", "enable said 'disabling' meanwhile"
# Where: debian-7.3 and its RT flavour (timing only); on the sanitize kernel 52, 80 and
# 85 take the readers' paths it takes.
# Claim: readers never wait for a CPU. While CPU 1 has hard interrupts off for 3 s and a
# disable on CPU 0 waits for it (the hotplug teardown runs on every CPU), every file of
# /proc/trace_irqoff and every read-only CLI command answers within 100 ms of guest time
# more than the same read took before the window, with no CPU stuck (waiting for the CPU
# would take seconds; the margin over the baseline, not a fixed time, keeps KASAN's slower
# reads within it), and `enable` and `status` say that the writer is waiting. The readers and the writer run
# in tio-readers, started on CPU 0 before the window (a process created during it may
# need CPU 1 for a TLB-flush IPI). A tag_wait toggle is in 33-readers-three-cpus.sh: the
# kernel's text patching spins on the writer's CPU until every CPU answered, and with two
# CPUs that is the readers' CPU too.
tio_load
modprobe irqoff_sample
echo 1 > $TIO/enable
sleep 0.3
rm -f /tmp/readers.out /tmp/readers.ready
taskset -c 0 tio-readers $TIO 2 --ready /tmp/readers.ready --write enable=0 "trace-irqoff status" "trace-irqoff records --depth 1" "trace-irqoff top" "trace-irqoff metrics" > /tmp/readers.out 2>&1 &
readers=$!
# Its exec is over before the window opens (the old memory may have been on cpu 1).
n=0
until [ -e /tmp/readers.ready ] || [ $n -ge 3000 ]; do sleep 0.01; n=$((n + 1)); done
inject 1 hardirq 3000
wait $readers
sed 's/^/# /' /tmp/readers.out
slow=$(awk '/^(read|run) / { m = b = -1; for (i = 1; i <= NF; i++) { if ($i ~ /^max_ms=/) m = substr($i, 8); if ($i ~ /^base_ms=/) b = substr($i, 9) } if (m < 0 || b < 0 || m + 0 >= b + 100) print }' /tmp/readers.out)
nreads=$(grep -c '^read ' /tmp/readers.out)
nruns=$(awk '/^run / && / n=[1-9]/' /tmp/readers.out | wc -l)
if [ "$nreads" -ge 6 ] && [ "$nruns" = 4 ] && [ -z "$slow" ]; then
	ok "during a 3 s hardirq-off window on cpu 1 with a writer waiting: $nreads files and 4 CLI commands each answered within 100 ms of the same read with no CPU stuck"
else
	not_ok "during a 3 s hardirq-off window on cpu 1 with a writer waiting: every read within 100 ms of the same read with no CPU stuck" "reads=$nreads runs=$nruns slow: $slow"
fi
w=$(grep '^write enable=0 ' /tmp/readers.out)
check "the disable waited for cpu 1 (>= 1 s) and then succeeded: $w" \
	sh -c "echo '$w' | grep -q 'result=ok' && test \$(echo '$w' | sed -n 's/.* ms=\([0-9]*\).*/\1/p') -ge 1000"
check "enable said 'disabling' meanwhile" grep -qE '^seen enable=.*disabling' /tmp/readers.out
check "trace-irqoff status said so too" grep -qE '^run trace-irqoff status .* busy=1' /tmp/readers.out
check "enable reads 'disabled' once the writer is done" test "$(cat $TIO/enable)" = disabled
rmmod irqoff_sample
rmmod trace_irqoff
