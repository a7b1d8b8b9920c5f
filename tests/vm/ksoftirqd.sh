#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Booted with `threadirqs`: softirqs run in threads (ksoftirqd/N, ktimers/N). A task that keeps ksoftirqd from
# running (here: preemption off for 150 ms, interrupts and bottom halves on) starves
# softirqs. The timer_list record then only names ksoftirqd; the hrtimer's lower-bound
# record names the real culprit (the article's lxcfs/memcg case).
. /tests/lib.sh
check "booted with threadirqs" grep -qw threadirqs /proc/cmdline
tio_load
modprobe irqoff_sample
echo 1 > $TIO/enable
sleep 0.5
inject 1 preempt 150
sleep 0.3
lb=$(record_block 1 soft 1)
pos=$(culprit_at "$lb" irqoff_sample_preempt_window)
if [ -n "$lb" ] && [ "$pos" -ge 1 ] && [ "$pos" -le 6 ]; then
	ok "ksoftirqd starved: the lower-bound record names the culprit (frame $pos)"
else
	not_ok "ksoftirqd starved: the lower-bound record names the culprit" "$lb" "$(cat $TIO/records | grep -A3 ^record)"
fi
echo "$lb" | sed 's/^/#   /'
soft=$(record_block 1 soft 0)
# With threadirqs, 7.x runs the timer softirq in ktimers/N, other softirqs in ksoftirqd/N.
check "the timer_list record itself only shows the softirq thread" sh -c "echo '$soft' | head -n1 | grep -qE 'comm=(ksoftirqd|ktimers)/1'"
echo "$soft" | head -n 4 | sed 's/^/#   /'
echo 0 > $TIO/enable
rmmod irqoff_sample
rmmod trace_irqoff
done_testing
