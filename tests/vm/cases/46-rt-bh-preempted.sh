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
#   the hog keeps ktimers off the CPU: the claim is that the hog's window is a
#   ksoftirqd-wait window named by the hog (what ran instead), and none is of the
#   section's length.
#   RCU priority boosting (CONFIG_RCU_BOOST): on PREEMPT_RT a bottom-half-disabled section
#   is an RCU read-side section. Once preempted in it (by the hog, or by ktimers itself),
#   the task holds up the grace periods that started since, and RCU raises it to
#   rcutree.kthread_prio (FIFO 1, ktimers' own priority) CONFIG_RCU_BOOST_DELAY ms (500 in
#   Debian's RT kernel) after a grace period it blocks began, which may be a few jiffies
#   before the section did, or at once for an expedited grace period. From then on ktimers
#   cannot preempt it, and the rest of the section is a bh-off window of its task, ended by
#   the timer_list running in its local_bh_enable. Measured without a hog: a 400 ms section
#   showed no window, an 800 ms one a 305 ms bh-off window at its end. The claim: any
#   other window of 50 ms or more is that tail: bh-off, sampled in and ended by the
#   section's task, begun after the hog's window ended and no longer than what is left of
#   the section after it.
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
	hog_rec=$(echo "$recs" | grep -E ' window_comm=cat( |$)' | head -n1)
	hog_lat=$(field latency_ns "$hog_rec")
	check "no BH lock: the window while the hog ran is named by the hog (cat) and lasted 50 ms .. its $hog_ms ms measured (${hog_lat:-none} ns)" \
		sh -c "[ -n '$hog_rec' ] && [ '$hog_lat' -ge 50000000 ] && [ '$hog_lat' -le $hog_max_ns ]"
	check "... its cause is ksoftirqd-wait: the softirq threads waited behind the hog" \
		sh -c "echo '$hog_rec' | grep -q ' cause=ksoftirqd-wait '"
	check "... and no window is as long as the $SECTION_MS ms section (the worst: ${worst:-none} ns)" \
		sh -c "[ '${worst:-0}' -lt $((SECTION_MS * 1000000 - PS_NS)) ]"
	# Every other window of 50 ms or more: the tail after the RCU boost (above).
	boost=$(feature rcu-boost-delay)
	others=$(echo "$recs" | grep -vE ' window_comm=cat( |$)' |
		awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^latency_ns=/ && substr($i, 12) + 0 >= 50000000) print }')
	echo "# measured: other windows of 50 ms or more (RCU boost delay ${boost:-none} ms):"
	echo "$others" | awk 'NF { o = ""; for (i = 1; i <= NF; i++)
		if ($i ~ /^(latency_ns|timestamp_ns|pid|window_pid|cause|comm|window_comm)=/) o = o " " $i
		print "#  " o }'
	if [ -n "$boost" ]; then
		# The hog's window ended at its timestamp; the section held at most the rest.
		hog_end=$(field timestamp_ns "$hog_rec")
		rest_ns=$(( $(true_ns softirq) - ${hog_lat:-0} + PS_NS ))
		# Those that are not the tail: not bh-off, not in the section's task (pid $inj)
		# both sampled and ending it, begun before the hog's window ended, or longer.
		bad=$(echo "$others" | awk -v p="$inj" -v e="${hog_end:-0}" -v m="$rest_ns" -v ps="$PS_NS" '
			NF == 0 { next }
			{ lat = 0; ts = 0
			  for (i = 1; i <= NF; i++) {
				if ($i ~ /^latency_ns=/) lat = substr($i, 12) + 0
				if ($i ~ /^timestamp_ns=/) ts = substr($i, 14) + 0
			  }
			  if (!(index($0, " pid=" p " ") && index($0, " window_pid=" p " ") &&
			        index($0, " cause=bh-off ") && ts - lat >= e - ps && lat <= m)) n++ }
			END { print n + 0 }')
		check "RCU boost: any other window of 50 ms or more is the section's tail, bh-off in its task, which ran the timer_list at its end, after the hog's window, at most the $((rest_ns / 1000000)) ms left of the section ($bad not)" \
			test "$bad" -eq 0
	else
		check "no RCU boost: no other window of 50 ms or more" \
			sh -c "! echo '$others' | grep -q ."
	fi
fi
echo 0 > $TIO/enable
rmmod irqoff_sample
rmmod trace_irqoff
