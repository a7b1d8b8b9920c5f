#!/bin/sh
# Harness self-test: a guest whose checks all pass but whose kernel log holds a WARNING.
modprobe splat_sample
echo "ok 1 - nothing wrong, as far as this script can tell"
