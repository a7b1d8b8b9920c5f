#!/bin/sh
# Harness self-test: a guest that never finishes.
while :; do sleep 1; done
