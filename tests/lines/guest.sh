#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The guest half of tests/lines/run: the demo's windows (tests/demo.sh) with the sample
# module, saved with `record --last` while the sample is loaded and again after it was
# unloaded, each file printed base64 between @@LINES-BEGIN NAME and @@LINES-END NAME
# (the console is the only way out of the guest). Exits non-zero if a step failed.
. /tests/lib.sh
set -e
modprobe trace_irqoff
modprobe irqoff_sample
trace-irqoff enable > /dev/null
demo_windows
trace-irqoff record --last 10m -o /tmp/before.json > /dev/null
rmmod irqoff_sample
trace-irqoff record --last 10m -o /tmp/after.json > /dev/null
# The records file as the module prints it: module frames with the sample's build id.
grep -m1 '^frame irqoff_sample_hardirq_window' $TIO/records
for f in before after; do
	echo "@@LINES-BEGIN $f"
	base64 /tmp/$f.json
	echo "@@LINES-END $f"
done
