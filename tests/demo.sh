#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `make demo`: a scripted incident. Something keeps interrupts off on CPU 1, then bottom
# halves; the on-call engineer finds out through the CLI.
. /tests/lib.sh
say() { printf '\n\033[1m### %s\033[0m\n' "$*"; }
say "Load trace_irqoff and enable it"
modprobe trace_irqoff
modprobe irqoff_sample
trace-irqoff status
echo 1 > /proc/trace_irqoff/enable
trace-irqoff status
say "The incident: a task keeps hard interrupts off for 120 ms on CPU 1, then bottom halves for 100 ms"
inject 1 hardirq 120
inject 1 softirq 100
sleep 0.3
say "cat /proc/trace_irqoff/trace_latency"
cat /proc/trace_irqoff/trace_latency
say "cat /proc/trace_irqoff/distribute"
cat /proc/trace_irqoff/distribute
echo 0 > /proc/trace_irqoff/enable
