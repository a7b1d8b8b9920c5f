#!/bin/sh
# Harness self-test (sanitizer kernel): a module that leaks must fail the kmemleak check.
. /tests/lib.sh
kmemleak_baseline
modprobe leak_sample
rmmod leak_sample
kmemleak_check
done_testing
