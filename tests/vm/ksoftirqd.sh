#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# boot: threadirqs
# proves: the cause of a softirq-off window: bh-off or ksoftirqd-wait, also on PREEMPT_RT
# Booted with `threadirqs`: softirqs run in threads (ksoftirqd/N, ktimers/N). A task that keeps ksoftirqd from
# running (here: preemption off for 150 ms, interrupts and bottom halves on) starves
# softirqs: cause ksoftirqd-wait. The timer_list ends the window in the softirq thread; the
# stack the hrtimer took inside the window names the real culprit (the article's
# lxcfs/memcg case).
. /tests/lib.sh
check "booted with threadirqs" grep -qw threadirqs /proc/cmdline
tio_load
modprobe irqoff_sample
echo 1 > $TIO/enable
sleep 0.5
inject 1 preempt 150
sleep 0.3
# One record for the window: ended by the softirq thread, with the culprit in the stack
# the hrtimer took inside it.
n=$(grep -c '^record cpu=1 kind=soft ' $TIO/records)
rec=$(grep '^record cpu=1 kind=soft ' $TIO/records | head -n1)
echo "# $rec"
check "ksoftirqd starved: one softirq record for the window" test "$n" = 1
check "... its cause is ksoftirqd-wait" sh -c "echo '$rec' | grep -q ' lower_bound=0 .* cause=ksoftirqd-wait '"
# With threadirqs, 7.x runs the timer softirq in ktimers/N, other softirqs in ksoftirqd/N.
check "... it ended in the softirq thread" sh -c "echo '$rec' | grep -qE ' comm=(ksoftirqd|ktimers)/1 '"
win=$(window_block 1 soft)
pos=$(frame_at "$win" irqoff_sample_preempt_window)
if [ "$pos" -ge 1 ] && [ "$pos" -le 6 ]; then
	ok "... and its in-window stack names the culprit (frame $pos) and task (sh)"
else
	not_ok "... and its in-window stack names the culprit" "$win"
fi
check "... ran instead: the injecting shell" sh -c "echo '$rec' | grep -qE ' window_comm=sh( |$)'"
echo "$win" | head -n 4 | sed 's/^/#   /'
# Other, shorter softirq delays may be counted too (threadirqs defers every softirq), so
# the window's bucket is looked up in its cause's section, not at a fixed line.
bucket_count() {	# bucket_count SECTION-HEADER LOW: the count of that bucket in that section
	awk -v h="$1" -v lo="$2" '$0 == h { f = 1; next } /^[a-z]/ { f = 0 }
		f && $1 == lo && $2 == "->" { print $5 }' $TIO/distribute
}
kw=$(bucket_count "softirq-off, ksoftirqd-wait:" 128)
bh=$(bucket_count "softirq-off, bh-off:" 128)
cpu_kw=$(sed -n 's/^cpu 1 .* soft_ksoftirqd_wait_events=\([0-9]*\) .*/\1/p' $TIO/records)
check "distribute counts it under ksoftirqd-wait (128-255 ms: ${kw:-none}; under bh-off: ${bh:-none}), as the cpu line does (${cpu_kw:-none})" \
	sh -c "[ '${kw:-0}' -ge 1 ] && [ -z '$bh' ] && [ '${cpu_kw:-0}' -ge 1 ] || { cat $TIO/distribute; grep '^cpu ' $TIO/records; false; }"
top=$(trace-irqoff top)
echo "$top" | sed 's/^/#   /'
check "top names the culprit, not the thread" sh -c "echo '$top' | sed -n 2p | grep -q 'ksoftirqd-wait.*irqoff_sample_preempt_window'"
echo 0 > $TIO/enable
rmmod irqoff_sample
rmmod trace_irqoff
done_testing
