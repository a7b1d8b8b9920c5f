#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `make demo`: a scripted incident. A task keeps interrupts off on CPU 1, then bottom
# halves; the on-call engineer finds out with trace-irqoff.
. /tests/lib.sh
say() { printf '\n\033[1m### %s\033[0m\n' "$*"; }
run() { printf '\033[36m# %s\033[0m\n' "$*"; "$@"; }
hostname demo-vm	# the guest has no name of its own; the report shows it
say "Load trace_irqoff and enable it"
modprobe trace_irqoff
modprobe irqoff_sample
run trace-irqoff enable
run trace-irqoff status
say "The incident: something keeps hard interrupts off for 120 ms on CPU 1 (twice), then bottom halves for 100 ms"
demo_windows
say "What happened, where, how often"
run trace-irqoff status
run trace-irqoff records
run trace-irqoff records --stacks --depth 4 --limit 2
run trace-irqoff hist
run trace-irqoff top
say "The original interface is still there"
run cat /proc/trace_irqoff/distribute
run trace-irqoff disable
say "The incident report: one HTML page for the ticket (timeline, culprits, flame graph)"
run trace-irqoff report -o /tmp/incident.html
# The guest has no way out but its console: the page follows, gzipped and base64-encoded,
# and make demo cuts it out of the log (tests/report/extract).
echo "@@REPORT-BEGIN incident.html"
gzip -c /tmp/incident.html | base64
echo "@@REPORT-END"
