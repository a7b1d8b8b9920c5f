# SPDX-License-Identifier: GPL-2.0
# description: a window on CPU 1 with CPU 0 briefly off inside it (so no CPU's hrtimer runs for a while) keeps its whole length: no CPU came back with the machine, so that silence is no stall of CPU 1
# kernels: test debian-7.3
# proves: a silence is taken out of a CPU's gap only if the CPU came back with the machine (design.rst: stalls); the proxy "no hrtimer ran anywhere, so the machine stood still" breaks when every CPU has interrupts off at once -- "CPU 1's 150 ms hardirq-off window with a 16 ms one of CPU 0 inside it: reported at its length"; host test `stall::window_past_another_cpus_spin_keeps_its_length`
# Traced on Linux 7.3 in this VM (idle=poll, tracefs on CPU 0): while CPU 1 runs with hard
# interrupts off, the clocksource watchdog's inter-CPU skew check on CPU 0 waits for CPU 1
# with interrupts off for 6.6 ms (its timeout). Then neither CPU's hrtimer runs and the
# pulse posts a silence inside CPU 1's window; taken out of that window, it made a 120 ms
# window read 106 ms. Here the same, on purpose and longer: CPU 1 opens a D = 150 ms
# hardirq-off window, and once the watcher shows it open CPU 0 opens one of 16 ms (more
# than the period and a half that a silence needs, whatever the phase of CPU 0's
# hrtimer). The old rule took that silence out of CPU 1's window (127-134 ms for 150 ms,
# 3 rounds of 5 traced). Claims: the silence
# is posted (the stall line's count grows: what the pulse cannot tell from a stop, for CPU
# 0, which ended it); CPU 1's record has latency in [D - P, D + 2P], none of it taken out.
# Five rounds.
D=150
tio_load
modprobe irqoff_sample
echo 10 > $TIO/sampling_period
echo 50 > $TIO/trace_latency
echo 1 > $TIO/enable
P_NS=$(config_field period_ns)
echo "# measured: HZ $(config_field hz), P = $P_NS ns"
sleep 1
stalls() { sed -n 's/^stall count=\([0-9]*\) .*/\1/p' $TIO/counters; }
for round in 1 2 3 4 5; do
	taskset -c 0 sh -c 'echo 0 > /proc/trace_irqoff/trace_latency'
	s0=$(stalls)
	# CPU 0's window must lie inside CPU 1's. Its opener starts first, pinned to CPU 0,
	# and forks nothing once CPU 1's window is open (a fork there may need a TLB-flush
	# IPI from CPU 1, which waits for the window's end): with shell builtins only, it
	# reads the records file until the watcher shows the sample's window open on CPU 1
	# (its ongoing record, from a quarter of the threshold on, with the sample's function
	# in its in-window stack), then opens its own. Not any open window: under TCG, CPU 1,
	# idle or exec'ing the sample's opener, may show a gap of 55-65 ms of its own before
	# the window while this loop keeps CPU 0 busy.
	taskset -c 0 sh -c 'n=0 seen=
		while [ -z "$seen" ] && [ $n -lt 5000 ]; do
			n=$((n + 1))
			open=
			while read -r a b c rest; do
				case "$a $b $c" in
				"record cpu=1 kind=hard") case "$rest" in *ongoing=1*) open=1 ;; *) open= ;; esac ;;
				record\ *) open= ;;
				esac
				[ -n "$open" ] && [ "$a" = window_frame ] &&
					case "$b" in irqoff_sample_hardirq_window*) seen=1 ;; esac
			done < /proc/trace_irqoff/records
		done
		[ -n "$seen" ] && echo hardirq 16 > /dev/irqoff_sample' &
	opener=$!
	sleep 0.1
	inject 1 hardirq $D &
	win=$!
	wait $opener
	wait $win
	sleep 0.3
	# The sample's window's record: the first of CPU 1 with the sample's function in its
	# stacks (the gaps above, if any, are records of their own).
	taskset -c 0 cat $TIO/records > /tmp/records.43
	rec=$(awk '$1 == "record" { if (hit) exit; r = ""; if ($2 == "cpu=1" && $3 == "kind=hard" && $4 == "lower_bound=0") r = $0; next }
		r != "" && /irqoff_sample_hardirq_window/ { hit = 1 }
		END { if (hit) print r }' /tmp/records.43)
	others=$(grep '^record cpu=1 kind=hard lower_bound=0 ' /tmp/records.43 | grep -vF "$rec" | sed 's/.* latency_ns=\([0-9]*\) .* comm=\([^ ]*\) .*/\1 (\2)/' | tr '\n' ' ')
	[ -n "$others" ] && echo "# measured: round $round: other hardirq records of CPU 1: $others"
	lat=$(field latency_ns "$rec")
	tru=$(dmesg | sed -n 's/.*irqoff_sample: hardirq window cpu=1 ns=\([0-9]*\).*/\1/p' | tail -n1)
	echo "# measured: round $round: true_ns=$tru latency_ns=${lat:-none} stalls $s0 -> $(stalls): $(grep '^stall ' $TIO/counters)"
	check "round $round: the silence inside CPU 1's window was posted (the stall count grew)" test "$(stalls)" -gt "$s0"
	check "round $round: CPU 1's ${D} ms hardirq-off window with a 16 ms one of CPU 0 inside it: latency in [D-P, D+2P] (${lat:-none} ns)" \
		within "${lat:-0}" $((${tru:-0} - P_NS)) $((${tru:-0} + 2 * P_NS))
done
echo 0 > $TIO/enable
rmmod irqoff_sample
rmmod trace_irqoff
