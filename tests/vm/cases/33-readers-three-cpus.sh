# SPDX-License-Identifier: GPL-2.0
# description: readers never wait for a CPU, also while a tag_wait toggle waits (three CPUs)
# kernels: none
# proves: readers never wait for another CPU, also while a writer waits (Guarantees: what a reader sees during a write)
# Where: not in make test: tests/vm/takeover.sh, which boots three CPUs, leaves it out
# (there the first CLI command spawned on cpu 0 once waited 2.9 s for the stuck cpu).
# Claim: readers never wait for a CPU, also while a tag_wait toggle waits. With three CPUs:
# cpu 1 has hard interrupts off for 3 s, a disable and a tag_wait toggle on cpu 2 wait for
# it (the toggle's text patching spins on cpu 2 until every CPU answered), and every file
# and read-only CLI command on cpu 0 answers within 100 ms of guest time more than the same
# read took before the window (tio-readers' baseline); `enable` and
# `tag_wait` say meanwhile which way they are switching. Needs three CPUs (run by
# tests/vm/takeover.sh with --cpus 3).
if [ "$(grep -c '^processor' /proc/cpuinfo)" -lt 3 ]; then
	echo "# 33-readers-three-cpus: needs 3 CPUs (run with --cpus 3 on a kernel with NR_CPUS >= 3)"
else
	tio_load
	modprobe irqoff_sample
	echo 0 > $TIO/tag_wait 2>/dev/null
	echo 1 > $TIO/enable
	sleep 0.3
	rm -f /tmp/readers3.out /tmp/readers3.ready
	taskset -c 0 tio-readers $TIO 2 --ready /tmp/readers3.ready --writer-cpu 2 --write enable=0 --write tag_wait=1 \
		"trace-irqoff status" "trace-irqoff records --depth 1" "trace-irqoff tagwait" "trace-irqoff metrics" > /tmp/readers3.out 2>&1 &
	readers=$!
	n=0
	until [ -e /tmp/readers3.ready ] || [ $n -ge 3000 ]; do sleep 0.01; n=$((n + 1)); done
	inject 1 hardirq 3000
	wait $readers
	sed 's/^/# /' /tmp/readers3.out
	slow=$(awk '/^(read|run) / { m = b = -1; for (i = 1; i <= NF; i++) { if ($i ~ /^max_ms=/) m = substr($i, 8); if ($i ~ /^base_ms=/) b = substr($i, 9) } if (m < 0 || b < 0 || m + 0 >= b + 100) print }' /tmp/readers3.out)
	nreads=$(grep -c '^read ' /tmp/readers3.out)
	nruns=$(awk '/^run / && / n=[1-9]/' /tmp/readers3.out | wc -l)
	if [ "$nreads" -ge 6 ] && [ "$nruns" = 4 ] && [ -z "$slow" ]; then
		ok "3 CPUs, cpu 1 stuck 3 s, a disable and a tag_wait toggle waiting on cpu 2: $nreads files and 4 CLI commands on cpu 0 each answered within 100 ms of the same read with no CPU stuck"
	else
		not_ok "3 CPUs, cpu 1 stuck 3 s, writers waiting on cpu 2: every read within 100 ms of the same read with no CPU stuck" "reads=$nreads runs=$nruns slow: $slow"
	fi
	w=$(grep '^write enable=0 ' /tmp/readers3.out)
	check "the disable waited for cpu 1 (>= 1 s) and then succeeded: $w" \
		sh -c "echo '$w' | grep -q 'result=ok' && test \$(echo '$w' | sed -n 's/.* ms=\([0-9]*\).*/\1/p') -ge 1000"
	check "enable said 'disabling' meanwhile" grep -qE '^seen enable=.*disabling' /tmp/readers3.out
	t=$(grep '^write tag_wait=1 ' /tmp/readers3.out)
	check "the tag_wait toggle returned (enabled, or refused where there is no source): $t" \
		sh -c "echo '$t' | grep -qE 'result=(ok|EOPNOTSUPP)'"
	if echo "$t" | grep -q 'result=ok'; then
		check "... it waited for cpu 1 (>= 1 s), and tag_wait said 'enabling' meanwhile" \
			sh -c "test \$(echo '$t' | sed -n 's/.* ms=\([0-9]*\).*/\1/p') -ge 1000 && grep -qE '^seen tag_wait=.*enabling' /tmp/readers3.out"
	else
		check "... tag_wait kept 'disabled' (no source on this kernel)" grep -qE '^seen tag_wait=disabled$' /tmp/readers3.out
	fi
	echo 0 > $TIO/tag_wait 2>/dev/null
	rmmod irqoff_sample
	rmmod trace_irqoff
fi
