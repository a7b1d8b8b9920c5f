# SPDX-License-Identifier: GPL-2.0
# description: on PREEMPT_RT a bottom-half-disabled section whose task was preempted is one bh-off window of its whole length
# needs: rt
# kernels: debian-7.3-rt
# proves: the cause of a softirq-off window: bh-off or ksoftirqd-wait, also on PREEMPT_RT
# PREEMPT_RT: a task in a bottom-half-disabled section can be preempted. Here the sample
# holds bottom halves off for 600 ms on CPU 1 (a normal task), and 50 ms in a SCHED_FIFO 50
# hog (cat /dev/zero, above ktimers' FIFO 1) takes CPU 1 for about 100 ms (under TCG up to
# 250 ms were seen: the bound below is the hog's measured time, the section is longer).
# - With the per-CPU BH lock (CONFIG_PREEMPT_RT_NEEDS_BH_LOCK, upstream's old behaviour,
#   kept for testing) the preempted section holds every softirq of CPU 1 off: the claim is
#   one bh-off window of the whole section.
# - Without it (Debian's RT kernel, upstream's default) the section holds no lock: ktimers/1
#   runs beside it and, in its run, every softirq pending on CPU 1 (those raised during the
#   section are not handed to ksoftirqd, but ktimers takes them). Softirqs wait only while
#   the hog keeps ktimers off the CPU: the claim is that the worst window is the hog's, a
#   ksoftirqd-wait window named by the hog (what ran instead), none of the section's length.
tio_load
modprobe irqoff_sample
echo 1 > $TIO/enable
P_NS=$(config_field period_ns)
PS_NS=$(config_field soft_period_ns)
sleep 0.5
taskset -c 0 sh -c 'echo 0 > /proc/trace_irqoff/trace_latency'
SECTION_MS=600
taskset -c 1 sh -c "echo softirq $SECTION_MS > /dev/irqoff_sample" &
inj=$!
taskset -c 0 sleep 0.05
t0=$(sed 's/ .*//' /proc/uptime)
if command -v chrt > /dev/null 2>&1; then
	chrt -f 50 taskset -c 1 cat /dev/zero > /dev/null &
else
	tio-chrt 50 1 cat /dev/zero > /dev/null &
fi
hog=$!
taskset -c 0 sleep 0.1
kill $hog
t1=$(sed 's/ .*//' /proc/uptime)
wait $hog 2>/dev/null
wait $inj
sleep 0.2
hog_ms=$(echo "$t0 $t1" | awk '{ printf "%d", ($2 - $1) * 1000 }')
recs=$(taskset -c 0 cat $TIO/records | grep '^record cpu=1 kind=soft lower_bound=0 ')
echo "$recs" | sed 's/^/# /'
echo "# measured: section $(true_ns softirq) ns, hog ran about $hog_ms ms (uptime, 10 ms steps)"
worst=$(echo "$recs" | sed -n 's/.* latency_ns=\([0-9]*\) .*/\1/p' | sort -n | tail -n1)
worst_rec=$(echo "$recs" | grep " latency_ns=${worst:-x} ")
if has bh-lock; then
	check "BH lock: one bh-off window of the whole $SECTION_MS ms section, though its task was preempted" \
		sh -c "[ '${worst:-0}' -ge $((SECTION_MS * 1000000 - PS_NS)) ] && echo '$worst_rec' | grep -q ' cause=bh-off '"
else
	# The hog's time by uptime is good to 10 ms at each end; a window is seen a softirq
	# sampling period late at most.
	hog_max_ns=$(( (hog_ms + 20) * 1000000 + PS_NS ))
	check "no BH lock: the worst softirq-off window is the hog's (50 ms .. its $hog_ms ms measured), shorter than the $SECTION_MS ms section" \
		sh -c "[ '${worst:-0}' -ge 50000000 ] && [ '${worst:-0}' -le $hog_max_ns ] && [ '${worst:-0}' -lt $((SECTION_MS * 1000000 - PS_NS)) ]"
	check "... its cause is ksoftirqd-wait: the softirq threads waited behind the hog" \
		sh -c "echo '$worst_rec' | grep -q ' cause=ksoftirqd-wait '"
	check "... and the task that ran instead is the hog (cat)" \
		sh -c "echo '$worst_rec' | grep -qE ' window_comm=cat( |$)'"
fi
echo 0 > $TIO/enable
rmmod irqoff_sample
rmmod trace_irqoff
