#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# cpus: 2
# The incident of tests/report/run, in the guest: `trace-irqoff record` for 5 s while the
# sample keeps hard interrupts off on CPUs 1 and 0 and bottom halves off on both; the
# recording then goes out on the console, gzipped and base64-encoded between
# @@REPORT-BEGIN and @@REPORT-END (the guest has no other way out; tests/report/extract
# cuts it out of the log).
. /tests/lib.sh
hostname incident-vm	# the guest has no name of its own; the report shows it
modprobe trace_irqoff
modprobe irqoff_sample
trace-irqoff record --duration 5s -o /tmp/incident.json > /tmp/record.out 2>&1 &
rec=$!
# record enables sampling and waits for every CPU before it counts.
sleep 1
inject 1 hardirq 120
sleep 0.2
inject 0 hardirq 80
sleep 0.2
inject 1 softirq 100
sleep 0.2
inject 0 softirq 70
sleep 0.2
inject 1 hardirq 60
wait $rec
check "trace-irqoff record ran for 5 s and saved the incident" test -s /tmp/incident.json
check "the guest's trace-irqoff report writes the page too" \
	trace-irqoff report /tmp/incident.json -o /tmp/incident.html
echo "@@REPORT-BEGIN incident.json"
gzip -c /tmp/incident.json | base64
echo "@@REPORT-END"
done_testing
