#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: explain --netdev on a veth pair whose other end is in a network namespace, receive steered to CPU 1 (RPS): the NIC's path said (no interrupt, RPS to CPU 1), its NET_RX held back by a bh-off window on CPU 1 explained by it and its culprit, none laid to a window on CPU 0
# kernels: debian-7.3 debian-7.3-rt
# proves: explain --netdev joins a NIC's NET_RX delays with the windows on the CPUs that receive for it, and no other (trace-irqoff-cli.rst: explain) -- "has no interrupt ... RPS ... CPU 1", "NET_RX on CPU 1 ... explained by a softirq-off (bh-off) window", "nothing laid to CPU 0"
# v0 (this namespace) and veth0 (a namespace of its own, held by a sleeping shell) are a
# veth pair: a ping from the namespace, pinned to CPU 0, sends every 10 ms. A veth has no
# interrupt: v0 receives as NET_RX on the sending CPU, or where RPS steers it; its rx-0
# rps_cpus is CPU 1, so the receive is an IPI to CPU 1 raising NET_RX there. A 100 ms
# bh-off window on CPU 1 holds that softirq back. Under PREEMPT_RT bottom halves off is a
# per-CPU lock in a preemptible section and softirqs run in threads: there the window held
# no NET_RX delay of 50 ms back in our runs, and the bh-off window on CPU 0 was not
# recorded (nothing waited for it); the case prints what it saw, and checks the path and
# that CPU 0's window explains nothing.
# net_during CPU OUT: explain --netdev v0 --for 5s --min 50 to OUT (its exit status in
# OUT.rc) while the namespace pings v0 from CPU 0 and the sample opens a 100 ms bh-off
# window on CPU.
net_during() {
	trace-irqoff explain --netdev v0 --for 5s --min 50 > "$2" 2> "$2.err" &
	ex=$!
	sleep 1.5
	taskset -c 0 nsenter -t $ns -n ping -q -i 0.01 -w 3 10.9.0.1 > "$2.ping" 2>&1 &
	pg=$!
	sleep 1
	inject "$1" softirq 100
	wait $pg
	wait $ex
	echo $? > "$2.rc"
	flat "$2"
	echo "# measured: bh-off window on CPU $1: $(grep -o '[0-9]* packets received' "$2.ping"); $(head -c 900 "$2.flat")"
}

tio_load
modprobe irqoff_sample
check "veth loads" modprobe veth
check "a veth pair: v0 and veth0" ip link add v0 type veth
unshare -n sh -c 'sleep 60' &
ns=$!
sleep 0.5
check "veth0 moves to a network namespace of its own" ip link set veth0 netns $ns
ip addr add 10.9.0.1/24 dev v0
ip link set v0 up
nsenter -t $ns -n sh -c 'ip link set lo up; ip addr add 10.9.0.2/24 dev veth0; ip link set veth0 up'
check "the namespace reaches v0" sh -c "taskset -c 0 nsenter -t $ns -n ping -c 2 -w 5 10.9.0.1 > /dev/null"
check "v0's receive is steered to CPU 1 (RPS)" sh -c "echo 2 > /sys/class/net/v0/queues/rx-0/rps_cpus"
check "trace-irqoff enable starts sampling and the event ring" trace-irqoff enable

net_during 1 /tmp/net-1.txt
f=/tmp/net-1.txt.flat
check "explain --netdev ends without an error (window on CPU 1)" test ! -s /tmp/net-1.txt.err
check "the answer says v0's path: no interrupt, received where RPS steers it, CPU 1" \
	grep -qE 'v0 \(--netdev\) has no interrupt [^.]*RPS steers them: rx queue 0 to CPU 1\.' $f
if has rt; then
	echo "# not checked under PREEMPT_RT: the bh-off window's hold on NET_RX (softirqs run in threads there: $(grep -c 'softirq NET_RX on CPU 1' $f) NET_RX delays of 50 ms or more on CPU 1, verdict: $(head -n 1 /tmp/net-1.txt | cut -c1-60))"
else
	check "the verdict comes first: yes, exit status 0" sh -c "head -n 1 /tmp/net-1.txt | grep -q '^Verdict: yes: ' && test \$(cat /tmp/net-1.txt.rc) = 0"
	check "v0's NET_RX held back on CPU 1 is explained by the bh-off window there and its culprit" \
		grep -qE 'softirq NET_RX on CPU 1 waited [0-9.]+ ms from [0-9.]+ s;[^;]*(; [^;]*)* explained by a softirq-off \(bh-off\) window of [0-9.]+ ms on CPU 1 by sh\[[0-9]+\] in irqoff_sample_softirq_window' $f
fi

net_during 0 /tmp/net-0.txt
f=/tmp/net-0.txt.flat
check "explain --netdev ends without an error (window on CPU 0)" test ! -s /tmp/net-0.txt.err
if has rt; then
	echo "# not checked under PREEMPT_RT: a record of the bh-off window on CPU 0 (there bottom halves off hold nothing back unless a softirq is pending: $(trace-irqoff records --cpu 0 --since 10s --oneline | grep -c irqoff_sample_softirq_window) recorded)"
else
	check "the window on CPU 0 was recorded" sh -c "trace-irqoff records --cpu 0 --since 10s --oneline | grep -q irqoff_sample_softirq_window"
fi
check_fails "no NET_RX delay of v0 is laid to the window on CPU 0" grep -qE 'explained by a [a-z()-]+ window of [0-9.]+ ms on CPU 0' $f
check_fails "... and the verdict is not yes" sh -c "head -n 1 /tmp/net-0.txt | grep -q '^Verdict: yes'"

trace-irqoff disable > /dev/null
kill $ns
wait $ns 2>/dev/null
ip link del v0
rmmod irqoff_sample
rmmod trace_irqoff
