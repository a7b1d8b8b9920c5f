#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# proves: no leak, no memory error, no KUnit failure -- on the sanitize kernel: `kernel-after` (kmemleak, KUnit), the splat scan (`tests/vm/splats`)
# The VM test suite, as KTAP: every file in cases/ runs in order, each in a shell of its
# own (no case sees another's variables), as one subtest whose result line names the case;
# the kernel's own checks (kmemleak, KUnit) are a subtest before the cases and one after.
# A case whose "# needs:" line names a feature this kernel lacks is not run: its result
# line says "# SKIP" and why (features come from the runner: test-kernel or stock, rt,
# hz=N), and it counts neither as passed nor as failed.
. /tests/lib.sh
features=" $(cat /tests/features 2>/dev/null) "
# tests/vm/run --case NAME: only the cases whose file name starts with one of the names.
only=$(cat /tests/only 2>/dev/null)
chosen() {	# chosen FILE: whether --case picked it (every case without --case)
	[ -n "$only" ] || return 0
	for n in $only; do
		case "$(basename "$1")" in "$n"*) return 0 ;; esac
	done
	return 1
}
cases=
for c in /tests/cases/*.sh; do
	chosen "$c" && cases="$cases $c"
done

SUITE_N=0
SUITE_FAILED=0
subtest() {	# subtest NAME DESCRIPTION CMD...: CMD in a shell of its own, as one KTAP subtest
	name=$1 description=$2
	shift 2
	SUITE_N=$((SUITE_N + 1))
	echo "# case $name: $description"
	echo "    KTAP version 1"
	echo "    # Subtest: $name"
	case_start=$(cut -d' ' -f1 /proc/uptime)
	(
		T_INDENT="    " T_N=0 T_FAILED=0
		"$@"
		echo "    1..$T_N"
		[ "$T_FAILED" = 0 ]
	)
	rc=$?
	# Guest time counts instructions (tests/vm/run): what the case cost the host, whatever
	# the host's load; tests/vm/run collects these lines into LOG.times.
	echo "# time: $name $(awk -v a="$case_start" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.1f", b - a }') s"
	if [ $rc = 0 ]; then
		echo "ok $SUITE_N - $name"
	else
		SUITE_FAILED=$((SUITE_FAILED + 1))
		echo "not ok $SUITE_N - $name"
	fi
}
run_case() {	# run_case FILE: the case, sourced in the subtest's shell
	. "$1"
}
# Sanitizer kernels (tools/kernels/sanitize.fragment, kcsan.fragment): kmemleak's view
# before the first load, and the module's KUnit results; elsewhere both say "not in
# this kernel".
before() { kmemleak_baseline; kunit_check; }
# After the last case: every module the suite loads is unloaded, then nothing may leak.
after() {
	for m in trace_irqoff irqoff_sample splat_sample; do rmmod $m 2>/dev/null; done
	kmemleak_check
	kunit_check_log
}

echo "KTAP version 1"
echo "# kernel: $features"
echo "1..$(($(echo $cases | wc -w) + 2))"
subtest kernel-before "the kernel's own checks before the first case: kmemleak's baseline, the module's KUnit suites" before
for c in $cases; do
	missing=
	for n in $(sed -n 's/^# needs: *//p' "$c"); do
		case "$features" in *" $n "*) ;; *) missing="$missing $n" ;; esac
	done
	if [ -n "$missing" ]; then
		SUITE_N=$((SUITE_N + 1))
		echo "ok $SUITE_N - $(basename "$c") # SKIP not for this kernel (needs$missing)"
		continue
	fi
	subtest "$(basename "$c")" "$(sed -n 's/^# description: *//p' "$c")" run_case "$c"
done
subtest kernel-after "after every module is unloaded: no leak (kmemleak), no KUnit failure on any load" after
[ "$SUITE_FAILED" = 0 ]
