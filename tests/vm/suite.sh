#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The VM test suite: every file in cases/ runs in order; their TAP lines make one stream.
# A case whose "# needs:" line names a feature this kernel lacks is not run, and says so
# (features come from the runner: test-kernel or stock, rt, hz=N).
. /tests/lib.sh
features=" $(cat /tests/features 2>/dev/null) "
echo "# kernel: $features"
for c in /tests/cases/*.sh; do
	missing=
	for n in $(sed -n 's/^# needs: *//p' "$c"); do
		case "$features" in *" $n "*) ;; *) missing="$missing $n" ;; esac
	done
	if [ -n "$missing" ]; then
		echo "# case $(basename "$c"): not for this kernel (needs$missing)"
		continue
	fi
	echo "# case $(basename "$c")"
	. "$c"
done
done_testing
