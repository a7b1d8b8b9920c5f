# SPDX-License-Identifier: GPL-2.0
# description: explain attributes a null_blk request and a tag wait held back by a hardirq-off window, a loopback NET_RX held back by a bh-off one and a task's span (--pid) to that window and its culprit, says "not explained" when the window was on another CPU, and report --explain draws it
# kernels: debian-7.3
# proves: explain joins a delay with the windows on the CPUs that serve it, or says none does (trace-irqoff-cli.rst: explain) -- "explained by the window on CPU 1", "not explained ... on the CPUs that serve this device (1)"
# null_blk completes each request by an hrtimer (irqmode=2) 20 ms after it was issued,
# on the CPU that issued it (no_sched: the reader itself issues it): readers pinned to
# CPU 1 have their requests completed on CPU 1. A 100 ms hardirq-off window on CPU 1 holds
# the timer back, so the request in flight then takes ~100 ms; one on CPU 0 only holds
# back nothing of CPU 1.
NULLB="queue_mode=2 submit_queues=1 irqmode=2 completion_nsec=20000000 hw_queue_depth=64 no_sched=1"
# explain_during CPU OUT MIN [FLAG]: explain --for 5s [FLAG] of nullb0 (delays of MIN ms
# or more) to OUT, while four readers pinned to CPU 1 read nullb0 (so that requests are in
# flight whenever the window opens) and the sample opens a 100 ms hardirq-off window on CPU.
# The window's opener (lib.sh's opener) is a shell pinned to CPU before the readers start,
# woken through a fifo, that runs only builtins: one exec'd at that moment (inject) may
# hold CPU 1 for longer than a request's 20 ms, so that no request is left in flight when
# the window opens.
# OUT.inflight: the requests in flight on nullb0 just before it opened.
explain_during() {
	opener "$1" "$2" 'echo hardirq 100 > /dev/irqoff_sample'
	trace-irqoff explain --for 5s --device nullb0 --min "$3" $4 > "$2" 2> "$2.err" &
	ex=$!
	sleep 1.5
	taskset -c 1 tio-dread /dev/nullb0 4 2.5 > /dev/null &
	rd=$!
	sleep 1
	echo go > /tmp/open.fifo
	wait $op
	wait $rd
	wait $ex
	echo $? > "$2.rc"
	echo "# measured: requests in flight on nullb0 as the window on CPU $1 opened: $(cat "$2.inflight")"
}

tio_load
modprobe irqoff_sample
modprobe null_blk $NULLB
check "null_blk takes this kernel's parameters ($NULLB)" test -b /dev/nullb0
check "trace-irqoff enable starts sampling and the event ring" trace-irqoff enable

explain_during 1 /tmp/explain-1.txt 50
flat /tmp/explain-1.txt
echo "# measured: window on CPU 1: $(head -c 600 /tmp/explain-1.txt.flat)"
check "explain ends without an error (window on CPU 1)" test ! -s /tmp/explain-1.txt.err
check "requests of CPU 1's readers were in flight as the window opened" test "$(cat /tmp/explain-1.txt.inflight)" -ge 1
check "explain's answer begins with its verdict: yes, a request held by an irq-off window (exit status 0)" sh -c "head -n 1 /tmp/explain-1.txt | grep -q '^Verdict: yes: ' && test \$(cat /tmp/explain-1.txt.rc) = 0"
check "the request issued and completed on CPU 1 during the window is explained by the window on CPU 1 and its culprit" grep -qE 'I/O on [0-9]+:[0-9]+ by [^ ]+ took [0-9.]+ ms from [0-9.]+ s; issued on CPU 1[^;]*, completed on CPU 1(; [^;]*)* explained by a hardirq-off window of [0-9.]+ ms on CPU 1 by sh\[[0-9]+\] in irqoff_sample_hardirq_window, overlapping it [0-9.]+ ms' /tmp/explain-1.txt.flat
check_fails "the ring overwrote nothing: no delay is said to begin before the windows held" grep -q 'began before the oldest window held' /tmp/explain-1.txt.flat

explain_during 0 /tmp/explain-0.txt 10
flat /tmp/explain-0.txt
echo "# measured: window on CPU 0: $(head -c 600 /tmp/explain-0.txt.flat)"
check "explain ends without an error (window on CPU 0)" test ! -s /tmp/explain-0.txt.err
check "the window on CPU 0 was recorded" sh -c "trace-irqoff records --cpu 0 --kind hard --since 10s --oneline | grep -q irqoff_sample_hardirq_window"
check "a request completed on CPU 1 is not explained by an irq-off window on the CPUs that serve this device (1)" grep -qE 'completed on CPU 1(; [^;]*)* not explained by an irq-off window on the CPUs that serve this device \(1\)' /tmp/explain-0.txt.flat
check_fails "no request of CPU 1 is explained by the window on CPU 0" grep -qE 'completed on CPU 1(; [^;]*)*[^t] explained by a hardirq-off window of [0-9.]+ ms on CPU 0' /tmp/explain-0.txt.flat
check "explain removed its tracefs instance (trace_irqoff_explain_PID)" sh -c '! ls -d /sys/kernel/tracing/instances/trace_irqoff_explain* 2>/dev/null'

# Stopped by a signal (SIGTERM, as systemd or timeout send it; SIGINT, Ctrl-C): the
# trace ends there, the answer covers what was traced, the instance is removed.
for sig in TERM INT; do
	trace-irqoff explain --for 30s > /tmp/explain-sig.txt 2>&1 &
	ex=$!
	sleep 2
	check "explain --for 30s traces in an instance of its own (trace_irqoff_explain_PID)" test -d /sys/kernel/tracing/instances/trace_irqoff_explain_$ex
	kill -$sig $ex
	wait $ex
	rc=$?
	check "SIG$sig: explain answers for what it traced, says it was interrupted (exit status 130: $rc)" sh -c "test $rc = 130 && tr '\n' ' ' < /tmp/explain-sig.txt | tr -s ' ' | grep -q 'interrupted after'"
	check "SIG$sig: its instance is removed" test ! -d /sys/kernel/tracing/instances/trace_irqoff_explain_$ex
done

# Tag waits: with two tags, two of the four readers sleep for one at any time; tags come
# back as requests complete on CPU 1, which the window on CPU 1 holds back.
rmmod null_blk
modprobe null_blk queue_mode=2 submit_queues=1 irqmode=2 completion_nsec=20000000 hw_queue_depth=2 no_sched=1
check "trace-irqoff tagwait on" trace-irqoff tagwait on
explain_during 1 /tmp/explain-tw.txt 50
trace-irqoff tagwait off > /dev/null
flat /tmp/explain-tw.txt
echo "# measured: tag waits, window on CPU 1: $(head -c 600 /tmp/explain-tw.txt.flat)"
check "explain ends without an error (tag waits)" test ! -s /tmp/explain-tw.txt.err
check "a tag wait held back with the completions of CPU 1 is explained by the window on CPU 1 and its culprit" grep -qE 'tag wait on [0-9]+:[0-9]+ by [^ ]+ waited [0-9.]+ ms from [0-9.]+ s; tags were freed by completions on CPU 1 explained by a hardirq-off window of [0-9.]+ ms on CPU 1 by sh\[[0-9]+\] in irqoff_sample_hardirq_window' /tmp/explain-tw.txt.flat

# NET_RX on loopback: with RPS, lo's packets sent from CPU 0 are received on CPU 1, whose
# NET_RX softirq an IPI raises; a 100 ms bh-off window on CPU 1 holds it back.
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
check "loopback's receive side is steered to CPU 1 (RPS)" sh -c "echo 2 > /sys/class/net/lo/queues/rx-0/rps_cpus"
trace-irqoff explain --for 5s --min 50 > /tmp/explain-net.txt 2> /tmp/explain-net.txt.err &
ex=$!
sleep 1.5
taskset -c 0 ping -q -i 0.01 -w 3 127.0.0.1 > /dev/null 2>&1 &
pg=$!
sleep 1
inject 1 softirq 100
wait $pg
wait $ex
flat /tmp/explain-net.txt
echo "# measured: bh-off window on CPU 1, ping on lo: $(head -c 600 /tmp/explain-net.txt.flat)"
check "explain ends without an error (loopback)" test ! -s /tmp/explain-net.txt.err
check "NET_RX held back on CPU 1 is attributed to the bh-off window and its culprit" grep -qE 'softirq NET_RX on CPU 1 waited [0-9.]+ ms from [0-9.]+ s; raised and run on CPU 1 explained by a softirq-off \(bh-off\) window of [0-9.]+ ms on CPU 1 by sh\[[0-9]+\] in irqoff_sample_softirq_window' /tmp/explain-net.txt.flat
echo 0 > /sys/class/net/lo/queues/rx-0/rps_cpus

# --pid: a task pinned to CPU 1 is joined with the windows on the CPU it ran on. Its
# delay is the span it ran in; the window on CPU 1 held it off.
taskset -c 1 sh -c 'while :; do :; done' &
busy=$!
trace-irqoff explain --for 4s --pid $busy > /tmp/explain-pid.txt 2> /tmp/explain-pid.txt.err &
ex=$!
sleep 1.5
inject 1 hardirq 100
wait $ex
kill $busy
wait $busy 2>/dev/null
# The task's paragraphs only (a blank line before each delay).
awk -v RS= -v t="task sh[$busy] " 'index($0, t) { print }' /tmp/explain-pid.txt | tr '\n' ' ' | tr -s ' ' > /tmp/explain-pid.txt.flat
echo "# measured: --pid $busy: $(head -c 600 /tmp/explain-pid.txt.flat)"
[ -s /tmp/explain-pid.txt.flat ] || head -n 12 /tmp/explain-pid.txt | sed 's/^/# measured: --pid, no paragraph of the task: /'
check "explain ends without an error (--pid)" test ! -s /tmp/explain-pid.txt.err
check "--pid: the task pinned to CPU 1 is joined on CPU 1, with the window there and its culprit" grep -qE "task sh\[$busy\] ran for [0-9.]+ ms from [0-9.]+ s; .*CPUs? 1[^0-9].* explained by a hardirq-off window of [0-9.]+ ms on CPU 1 by sh\[[0-9]+\] in irqoff_sample_hardirq_window" /tmp/explain-pid.txt.flat

# The report's section: explain's JSON answer drawn beside the windows of the page.
explain_during 1 /tmp/explain-1.json 50 --json
check "explain --json ends without an error" test ! -s /tmp/explain-1.json.err
check "report --explain writes the page" sh -c 'trace-irqoff report -o /tmp/report.html --explain /tmp/explain-1.json > /dev/null'
flat /tmp/report.html
echo "# measured: report section: $(grep -o 'Delays and the windows that explain them.\{0,300\}' /tmp/report.html.flat | head -c 400)"
check "the report draws the delays section" grep -q 'Delays and the windows that explain them' /tmp/report.html.flat
check "... with the request completed on CPU 1 explained by the window on CPU 1 and its culprit" grep -qE 'completed on CPU 1[^<]*explained by a hardirq-off window of [0-9.]+ ms on CPU 1 by sh\[[0-9]+\] in irqoff_sample_hardirq_window' /tmp/report.html.flat

trace-irqoff disable > /dev/null
rmmod null_blk
rmmod irqoff_sample
rmmod trace_irqoff
