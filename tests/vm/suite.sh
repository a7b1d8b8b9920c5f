#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The VM test suite: every file in cases/ runs in order; their TAP lines make one stream.
# A case whose "# needs:" line names a feature this kernel lacks is not run, and says so
# (features come from the runner: test-kernel or stock, rt, hz=N).
. /tests/lib.sh
features=" $(cat /tests/features 2>/dev/null) "
echo "# kernel: $features"
# Sanitizer kernels (tests/kernel/sanitize.fragment, kcsan.fragment): kmemleak's view
# before the first load, and the module's KUnit results; elsewhere both say "not in
# this kernel".
kmemleak_baseline
kunit_check
# tests/vm/run --case NAME: only the cases whose file name starts with one of the names.
only=$(cat /tests/only 2>/dev/null)
for c in /tests/cases/*.sh; do
	if [ -n "$only" ]; then
		chosen=
		for n in $only; do
			case "$(basename "$c")" in "$n"*) chosen=1 ;; esac
		done
		[ -n "$chosen" ] || continue
	fi
	missing=
	for n in $(sed -n 's/^# needs: *//p' "$c"); do
		case "$features" in *" $n "*) ;; *) missing="$missing $n" ;; esac
	done
	if [ -n "$missing" ]; then
		echo "# case $(basename "$c"): not for this kernel (needs$missing)"
		continue
	fi
	echo "# case $(basename "$c"): $(sed -n 's/^# description: *//p' "$c")"
	case_start=$(cut -d' ' -f1 /proc/uptime)
	. "$c"
	# Guest time counts instructions (tests/vm/run): what the case cost the host, whatever
	# the host's load; tests/vm/run collects these lines into LOG.times.
	echo "# time: $(basename "$c") $(awk -v a="$case_start" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.1f", b - a }') s"
done
# After the last case: every module the suite loads is unloaded, then nothing may leak.
for m in trace_irqoff irqoff_sample splat_sample; do rmmod $m 2>/dev/null; done
kmemleak_check
kunit_check_log
done_testing
