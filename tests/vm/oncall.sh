#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# proves: the on-call views fit 80x24 and 120x40 and keep who did it (culprit, task, lock-wait mark) through a store overflow; top counts every window as record --last does; ring windows are named like stored ones -- "80x24: no line of watch, records, top or top --live is wider than 80 columns", "top counts the hardirq-off windows record --last saved", "no window of records names a mangled Rust symbol"
# The scripted incident of issue 44, read as an on-call engineer would on a small
# terminal: hardirq-off windows of 60-300 ms on both CPUs, a bh-off window, a 150 ms wait
# for a lock with interrupts off, 17 windows of 110-130 ms that overflow CPU 1's store of
# 16 records, and a softirq-off window still open while the views are read. Each view
# runs on a pseudo-terminal of 80x24 and of 120x40 (tio-pty --size), pinned to CPU 0.
. /tests/lib.sh
tio_load
modprobe irqoff_sample
trace-irqoff enable --period 10 --threshold 50 > /dev/null

inject 0 hardirq 60
inject 1 hardirq 300
inject 1 softirq 80
inject 1 spin 150
i=0
while [ $i -lt 17 ]; do
	inject 1 hardirq $((110 + i % 3 * 10))
	i=$((i + 1))
done
sleep 0.3
# A softirq-off window on CPU 1 still open while the views are read (hard interrupts on:
# the readers on CPU 0 need nothing from CPU 1).
inject 1 softirq 3000 &
inj=$!
sleep 0.6

esc=$(printf '\033')
plain() {	# plain FILE: the screen's text without escape sequences and carriage returns
	sed -e "s/${esc}\[[0-9;?]*[A-Za-z]//g" -e "s/${esc}[()][A-Z0-9]//g" -e 's/\r//g' "$1"
}
widest() {	# widest FILE: the widest line of the screen's text, in columns (busybox awk counts
	# bytes: each UTF-8 character of more than one byte counts once)
	plain "$1" | awk '{ gsub(/[\300-\367][\200-\277]*/, "."); if (length($0) > w) w = length($0) } END { print w + 0 }'
}
view() {	# view SIZE NAME CMD...: runs CMD on a pseudo-terminal of SIZE into /tmp/NAME-SIZE
	s=$1 n=$2
	shift 2
	taskset -c 0 tio-pty --size "$s" "$@" > "/tmp/$n-$s" 2>&1
}
for s in 80x24 120x40; do
	view $s watch trace-irqoff watch --count 1
	view $s records trace-irqoff records
	view $s top trace-irqoff top
	view $s live trace-irqoff top --live --count 1 --interval 200ms
done
wait $inj

for s in 80x24 120x40; do
	cols=${s%x*}
	for n in watch records top live; do
		echo "# --- trace-irqoff $n at $s"
		plain /tmp/$n-$s | head -n 30 | sed 's/^/# /'
	done
	check "$s: no line of watch, records, top or top --live is wider than $cols columns ($(widest /tmp/watch-$s), $(widest /tmp/records-$s), $(widest /tmp/top-$s), $(widest /tmp/live-$s))" \
		sh -c "test $(widest /tmp/watch-$s) -le $cols && test $(widest /tmp/records-$s) -le $cols && test $(widest /tmp/top-$s) -le $cols && test $(widest /tmp/live-$s) -le $cols"
	check "$s: records keeps the culprit's own name (…hardirq_window) and the task with its pid (sh[PID])" \
		sh -c "plain() { sed -e 's/${esc}\[[0-9;?]*[A-Za-z]//g' -e 's/\r//g' \"\$1\"; }; plain /tmp/records-$s | grep -E 'hardirq_window' | grep -qE ' sh\[[0-9]+\]'"
	# watch shows the newest windows the screen holds: at 24 rows the 17 later ones push
	# the lock wait off it, so watch is checked at 40.
	views="records top"
	[ $cols -ge 120 ] && views="records top watch"
	check "$s: the lock wait is marked (lock, …spin_window) in $views" \
		sh -c "for n in $views; do sed -e 's/${esc}\[[0-9;?]*[A-Za-z]//g' /tmp/\$n-$s | grep -E ' lock ' | grep -q 'spin_window' || exit 1; done"
done

# Every window counts: top and record --last give the same hardirq-off count for the
# incident (the store kept 16 of CPU 1's, the ring has the rest).
taskset -c 0 trace-irqoff record --last 10m -o /tmp/last.json > /dev/null 2>&1
hard_count() {	# hard_count: the hardirq-off windows of a `top --json` on stdin
	tr -d '\n' | tr '{' '\n' | grep '"kind": *"hard"' | sed -n 's/.*"count": *\([0-9]*\).*/\1/p' |
		awk '{ s += $1 } END { print s + 0 }'
}
top_n=$(taskset -c 0 trace-irqoff top --json 2>/dev/null | hard_count)
last_n=$(taskset -c 0 trace-irqoff top --json --from /tmp/last.json 2>/dev/null | hard_count)
echo "# measured: hardirq-off windows: top $top_n, top --from the record --last file $last_n"
check "top counts the hardirq-off windows record --last saved ($top_n = $last_n, at least 20: 1 on CPU 0, 1 + 1 + 17 on CPU 1)" \
	sh -c "test $top_n -ge 20 && test $top_n = $last_n"
# A window only the ring holds is named as a stored one is: demangled, no _RNv symbol.
check "no window of records names a mangled Rust symbol (the ring's windows are demangled like the store's)" \
	sh -c "! trace-irqoff records | grep -q '_RNv'"
check "... and records --json holds every hardirq-off window of the incident (at least 20)" \
	sh -c "test \$(trace-irqoff records --json | tr -d '\n' | tr '{' '\n' | grep -c '\"kind\": *\"hard\",.*\"lower_bound\"') -ge 20"

echo 0 > $TIO/enable
rmmod irqoff_sample
rmmod trace_irqoff
done_testing
