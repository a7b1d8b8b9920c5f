# SPDX-License-Identifier: GPL-2.0
# description: trace-irqoff service start/stop (what trace-irqoff.service runs) loads the module with its file's settings, refuses a bad file changing nothing, restores the prior state; serve answers scrapes with the windows
# kernels: test debian-7.3
# proves: the service refuses a bad file changing nothing; serve counts a window
# The unit's ExecStart/ExecStop and the exporter, run by hand: this guest has no systemd.
rmmod trace_irqoff 2>/dev/null
modprobe irqoff_sample
conf=/tmp/trace-irqoff.conf
state=/tmp/trace-irqoff-state/prior.json
svc() { trace-irqoff service "$1" --config $conf --state $state; }
settings() { echo "$(cat $TIO/enable) $(cat $TIO/sampling_period) $(head -n1 $TIO/trace_latency)"; }

# Not loaded: start loads it with the file's module parameter and applies the rest.
printf 'period_ms = 5\nthreshold_ms = 30\nrecords_per_cpu = 4\ntag_wait = false\n' > $conf
check "service start (module not loaded) succeeds" svc start
check "it loaded the module: sampling, period 5 ms, threshold 30 ms ($(settings))" \
	test "$(settings)" = "enabled 5ms trace_irqoff_latency: 30ms"
check "records_per_cpu = 4 was the load's parameter" grep -q '^config .* records_per_cpu=4 ' $TIO/records

# The exporter: where the kernel has TCP/IP (Debian's kernels; our test kernels are built
# without networking).
if [ -d /proc/sys/net/ipv4 ]; then
	# A 100 ms window on cpu 1 is in the next scrape. The scraper is pinned
	# to cpu 0 and started before the window (a CPU with interrupts off holds every process
	# that needs an IPI from it).
	port=9809
	# The guest's loopback starts down.
	ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
	taskset -c 0 trace-irqoff serve --listen 127.0.0.1:$port 2> /tmp/serve.err &
	serve_pid=$!
	n=0
	while ! taskset -c 0 wget -q -O /tmp/scrape0.prom http://127.0.0.1:$port/metrics 2>/dev/null && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
	check "serve answers /metrics: loaded, enabled, threshold 0.03 s" sh -c \
		"grep -qx 'trace_irqoff_loaded 1' /tmp/scrape0.prom && grep -qx 'trace_irqoff_enabled 1' /tmp/scrape0.prom && grep -qx 'trace_irqoff_threshold_seconds 0.03' /tmp/scrape0.prom"
	inject 1 hardirq 100
	sleep 0.3
	taskset -c 0 wget -q -O /tmp/scrape1.prom http://127.0.0.1:$port/metrics
	# The exposition's hardirq histogram (summed over CPUs): the window, measured within a
	# period (5 ms) of its 100 ms, is one more in the 64..128 ms bucket. Other windows of
	# the emulated guest may come and go, but not of that length.
	bucket_le() { awk -F' ' -v le="$2" '$1 == "trace_irqoff_latency_seconds_bucket{cpu=\"\",kind=\"hard\",cause=\"\",le=\"" le "\"}" { print $2 }' "$1"; }
	in_bucket() { echo $(( $(bucket_le "$1" 0.128) - $(bucket_le "$1" 0.064) )); }
	check "the scrape after a 100 ms hardirq window on cpu 1 counts one more of 64..128 ms ($(in_bucket /tmp/scrape0.prom) -> $(in_bucket /tmp/scrape1.prom))" \
		test "$(in_bucket /tmp/scrape1.prom)" = $(($(in_bucket /tmp/scrape0.prom) + 1))
	check "serve answers 404 elsewhere" sh -c "! wget -q -O /dev/null http://127.0.0.1:$port/nothing"
	kill $serve_pid
	wait $serve_pid
	rc=$?
	sed 's/^/# serve: /' /tmp/serve.err
	check "serve ends on SIGTERM with exit status 0 (systemd's clean stop; $rc)" test $rc = 0
	check "serve said nothing but where it listens" sh -c "test \$(grep -vc 'serving /metrics' /tmp/serve.err) = 0"
else
	echo "# serve: not on this kernel (no TCP/IP: $(uname -r)); the suite runs it on Debian's"
fi

# Stop: the module was not loaded before start, so stop unloads it.
check "service stop succeeds" svc stop
check "... and unloads the module it loaded" test ! -d $TIO
check "stop forgets the saved state" test ! -e $state

# Loaded with settings of its own: start changes them, stop puts them back exactly.
tio_load
echo 20 > $TIO/sampling_period
echo 100 > $TIO/trace_latency
before=$(settings)
printf 'period_ms = 10\nthreshold_ms = 50\n' > $conf
check "service start on a loaded module" svc start
check "applied: $(settings)" test "$(settings)" = "enabled 10ms trace_irqoff_latency: 50ms"
check "service stop restores '$before'" sh -c "trace-irqoff service stop --config $conf --state $state && test \"\$(echo \$(cat $TIO/enable) \$(cat $TIO/sampling_period) \$(head -n1 $TIO/trace_latency))\" = '$before'"

# A bad file: exit status 2, one sentence naming the line, nothing changed, nothing saved.
printf 'period_ms = 10\nthreshhold_ms = 50\n' > $conf
svc start > /tmp/bad.out 2>&1; rc=$?
sed 's/^/# bad file: /' /tmp/bad.out
check "a misspelt key fails start with exit status 2" test $rc = 2
check "... saying which line, and that nothing changed" grep -q "^trace-irqoff: $conf line 2: unknown field \`threshhold_ms\`.*nothing was changed" /tmp/bad.out
check "... and nothing did: '$(settings)'" test "$(settings)" = "$before"
check "... no state saved" test ! -e $state
printf 'period_ms = 100\nthreshold_ms = 150\n' > $conf
check_fails "a threshold below twice the file's period fails start" svc start
check "... and changes nothing" test "$(settings)" = "$before"
rmmod trace_irqoff
rmmod irqoff_sample
