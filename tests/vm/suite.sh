#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The VM test suite: every file in cases/ runs in order; their TAP lines make one stream.
. /tests/lib.sh
for c in /tests/cases/*.sh; do
	echo "# case $(basename "$c")"
	. "$c"
done
done_testing
