#!/bin/sh
# Harness self-test: a deliberately broken guest check.
. /tests/lib.sh
check "this check is broken on purpose" test 1 = 2
done_testing
