# SPDX-License-Identifier: GPL-2.0
# description: the CLI against the real module: records, top, hist, status, metrics, top --live, record, errors as sentences, and lengths within their stated bounds
# kernels: test debian-7.3 debian-7.3-rt debian-7.2 debian-7.3-cloud arm64
# proves: a length's true value lies within the stated bounds (trace-irqoff-cli.rst: lengths) -- "lengths within their stated bounds" checks
# The real CLI against the real module.
tio_load
modprobe irqoff_sample
# Since when: the load (or a clear) starts the counts, enabling starts sampling; both on
# the config line in the records' clock, and status says them.
loaded=$(config_field counts_since_ns)
check "config: counts_since_ns is set at load (${loaded:-none}) and enabled_since_ns is 0 while disabled" \
	test "${loaded:-0}" -gt 0 -a "$(config_field enabled_since_ns)" = 0
t0=$(up_ns)
check "trace-irqoff enable --threshold 60 enables" sh -c "trace-irqoff enable --threshold 60 && test \$(cat $TIO/enable) = enabled && head -n1 $TIO/trace_latency | grep -qx 'trace_irqoff_latency: 60ms'"
on=$(config_field enabled_since_ns)
check "config: enabled_since_ns is the enable's time (${on:-none} ns, uptime before it ${t0} ns), after the load" \
	test "${on:-0}" -ge $((t0 - 20000000)) -a "${on:-0}" -gt "${loaded:-0}"
check "status says since when it counts and samples" sh -c "trace-irqoff status | grep -qE '^counts and records since [0-9T:.-]+Z \(load or last clear\); sampling on since [0-9T:.-]+Z$'"
sleep 0.2
inject 1 hardirq 100
sleep 0.2
inject 1 hardirq 100
sleep 0.2
# A softirq delay: bottom halves off, or on PREEMPT_RT without the BH lock (where bh-off
# delays nothing) preemption off, which starves the softirq threads.
if has bh-lock; then soft_mode=softirq; else soft_mode=preempt; fi
inject 1 $soft_mode 100
sleep 0.2
# Lengths come with their resolution: the window's true length (the sample's own
# measurement) lies within the bounds the CLI gives the record it made.
bounds_of() {	# bounds_of KIND MODE: "TRUE LO HI LATENCY" in ns for cpu 1's newest KIND record
	j=$(trace-irqoff records --json --kind $1 --cpu 1 --sort newest --limit 1)
	echo "$(true_ns $2) $(echo "$j" | sed -n 's/.*"true_latency_min_ns": \([0-9]*\).*/\1/p') $(echo "$j" | sed -n 's/.*"true_latency_max_ns": \([0-9]*\).*/\1/p') $(echo "$j" | sed -n 's/^    "latency_ns": \([0-9]*\).*/\1/p')"
}
for kind_mode in hard:hardirq soft:$soft_mode; do
	bounds_of ${kind_mode%:*} ${kind_mode#*:} > /tmp/bounds
	read -r b_true b_lo b_hi b_lat < /tmp/bounds
	echo "# measured: ${kind_mode#*:} window of ${b_true:-?} ns reported as ${b_lat:-?} ns, the CLI's bounds [${b_lo:-?}, ${b_hi:-?}] ns"
	check "records --json: the ${kind_mode#*:} window's true length lies within its ${kind_mode%:*} record's bounds" \
		sh -c "test -n '$b_true' && test -n '$b_lo' && test -n '$b_hi' && test '$b_lo' -le '$b_true' && test '$b_true' -le '$b_hi'"
done
p_ms=$(( $(config_field period_ns) / 1000000 ))
check "records says what its lengths mean: hardirq-off +0..$p_ms ms (one period)" sh -c "trace-irqoff records | grep -q '^true length = LENGTH +0..$p_ms ms (hardirq-off)'"
json=$(trace-irqoff records --json --kind hard --limit 1)
check "records --json names the sample's function on the right CPU" sh -c "echo '$json' | grep -q '\"cpu\": 1,' && echo '$json' | grep -A2 '\"stack\"' | grep -q $HARD_FN"
check "records demangles the sample's Rust frames" sh -c "trace-irqoff records --kind hard | grep -qF '<irqoff_sample_main::SampleDevice as kernel::miscdevice::MiscDevice>::write_iter+0x' && ! trace-irqoff records --kind hard | grep -q '_RNv'"
check "records --raw-symbols shows them as the kernel printed them" sh -c "trace-irqoff records --kind hard --raw-symbols | grep -qE '_RNv.*18irqoff_sample_main.*write_iter.*\+0x'"
check "records shows both kinds, human readable" sh -c "trace-irqoff records | grep -q '^hardirq-off cpu 1' && trace-irqoff records | grep -qE '^softirq-off( \([^)]*\))? cpu 1'"
# Counted on cpu 1, where they were injected: under TCG another CPU's timer can come late
# while cpu 1 spins with interrupts off (seen on arm64: the other vCPU is not run), a
# window on a CPU that was not idle as far as the guest can tell.
row=$(trace-irqoff hist --kind hard --per-cpu | awk '/^hardirq-off cpu 1:/ { f = 1; next } /^[^ ]/ { f = 0 } f && /^ +64 -> 127 /')
check "hist --per-cpu counts the 2 hardirq injections on cpu 1" sh -c "echo '$row' | grep -qE ': 2 +\|'"
check "hist --per-cpu shows cpu 1" sh -c "trace-irqoff hist --per-cpu | grep -q '^hardirq-off cpu 1:'"
top1=$(trace-irqoff top | sed -n 2p)
echo "# top: $top1"
check "top ranks the sample first" sh -c "echo '$top1' | grep -q '$HARD_TOP'"
check "status shows per-CPU events" sh -c "trace-irqoff status | grep -qE '^ +1  yes +[1-9]'"
check "metrics expose the events of cpu 1" sh -c "trace-irqoff metrics | grep -qE '^trace_irqoff_events_total\{cpu=\"1\",kind=\"hard\",cause=\"\"\} [1-9]'"
check "metrics --per-cpu: the latency histogram of cpu 1 counts the 100 ms windows below le=0.128" sh -c "trace-irqoff metrics --per-cpu | grep -qE '^trace_irqoff_latency_seconds_bucket\{cpu=\"1\",kind=\"hard\",cause=\"\",le=\"0.128\"\} [2-9]'"
check "metrics: the machine's histogram (cpu empty) counts them too, and no CPU has one of its own" sh -c "trace-irqoff metrics > /tmp/node.prom && grep -qE '^trace_irqoff_latency_seconds_bucket\{cpu=\"\",kind=\"hard\",cause=\"\",le=\"0.128\"\} [2-9]' /tmp/node.prom && ! grep -qE '^trace_irqoff_latency_seconds_bucket\{cpu=\"[0-9]' /tmp/node.prom"
# top --live on a terminal (tio-pty: busybox has no script): redrawn in place, with the
# row of the CPU the windows were injected on (events, then recorded windows).
live_row() { grep -qE ' 1 +hardirq-off +[1-9][0-9]* +[1-9]' /tmp/live.out; }
live_redraws() { test "$(grep -o "$(printf '\033')\[H" /tmp/live.out | wc -l)" = 2; }
taskset -c 0 tio-pty trace-irqoff top --live --interval 200ms --count 2 > /tmp/live.out 2>&1; rc=$?
check "top --live on a terminal runs (exit 0)" test $rc = 0
check "top --live on a terminal shows cpu 1's hardirq-off row with its windows" live_row
check "top --live on a terminal redraws in place" live_redraws
grep 'hardirq-off' /tmp/live.out | grep -v 'true length' | tr -d '\033\r' | head -n 2 | sed 's/^/# live: /'
# The on-call views on 80x24 and 120x40 pseudo-terminals (tio-pty --size): with a lock
# wait among the windows (cpu 1 spins with interrupts off on a lock cpu 0 holds), no line
# is wider than the terminal, and the culprit's own name, TASK[PID] and the lock-wait
# mark (WAIT column "lock") are on the lock wait's line in records, watch and top.
inject 1 spin 150
sleep 0.3
esc=$(printf '\033')
pty_view() {	# pty_view COLSxROWS OUT ARGS...: the CLI on a pseudo-terminal of that size, escapes gone, "…" one column
	size=$1; out=$2; shift 2
	tio-pty --size $size trace-irqoff --color never "$@" 2>&1 | tr -d '\r' | sed -e "s/${esc}\[[0-9;]*[A-Za-z]//g" -e 's/…/./g' > $out
}
fits() { awk -v w=$2 'length($0) > w { print "# too wide: " $0; bad = 1 } END { exit bad }' $1; }
for size in 80x24 120x40; do
	cols=${size%x*}
	pty_view $size /tmp/pty-records.out records
	pty_view $size /tmp/pty-watch.out watch --interval 200ms --count 1
	pty_view $size /tmp/pty-top.out top
	for v in records watch top; do
		sed "s/^/# $v $size: /" /tmp/pty-$v.out | grep -E 'CULPRIT|spin_window' | head -n 3
		check "$v on a $size terminal: no line wider than $cols columns" fits /tmp/pty-$v.out $cols
	done
	# The mark and the culprit come from the in-window samples (the watcher's NMIs):
	# without them (arm64) the one-line views name the leaf that re-enabled interrupts,
	# and a lock wait cannot be told from the culprit's own loop; nothing is checked
	# there.
	if grep -q '^watcher available=1 ' $TIO/records; then
		check "records and watch on $size: the lock wait's line has the mark, the culprit's own name and TASK[PID]" \
			sh -c "grep -qE ' lock +[^ ]*spin_window sh\[[0-9]+\]' /tmp/pty-records.out && grep -qE ' lock +[^ ]*spin_window sh\[[0-9]+\]' /tmp/pty-watch.out"
		check "top on $size: the lock wait's row has the mark, the culprit's own name and the task" \
			grep -qE ' lock +[^ ]*spin_window \(([^)]*,)?sh' /tmp/pty-top.out
	else
		echo "# $size: the lock wait's line is not checked: no in-window samples here"
	fi
done
check "top --live on a pipe prints one table" sh -c "trace-irqoff top --live | grep -c '^trace-irqoff top --live:' | grep -qx 1"
out=$(trace-irqoff set period 20 2>&1); rc=$?
check "EBUSY becomes a sentence with a hint" sh -c "test $rc = 1 && echo '$out' | grep -q 'cannot change while tracing is enabled' && echo '$out' | grep -q '^hint: disable first'"
out=$(su -s /bin/sh nobody -c "trace-irqoff status" 2>&1); rc=$?
check "a non-root user gets a plain sentence (EACCES)" sh -c "test $rc = 1 && echo '$out' | grep -q 'permission denied' && echo '$out' | grep -q 'run as root'"
# record: remembers the state, enables, saves, restores.
trace-irqoff disable > /dev/null
trace-irqoff set threshold 80 > /dev/null
( sleep 1; inject 1 hardirq 120 ) &
check "record --duration 3s runs" trace-irqoff record --duration 3s --threshold 60 -o /tmp/rec.json --folded /tmp/rec.folded
wait
check "record restored the prior state (disabled, threshold 80)" sh -c "test \$(cat $TIO/enable) = disabled && head -n1 $TIO/trace_latency | grep -qx 'trace_irqoff_latency: 80ms'"
check "record saved the window it saw" sh -c "grep -q $HARD_FN /tmp/rec.json && grep -q '\"interrupted\": false' /tmp/rec.json"
# The clock anchor: the config line's realtime_offset_ns plus now's uptime is now's wall
# clock (whole seconds: busybox date has no %N), so a saved copy reads right anywhere.
anchor_right() {
	off=$(config_field realtime_offset_ns); up=$(up_ns); wall=$(date +%s)
	echo "# realtime_offset_ns=$off uptime_ns=$up date=$wall"
	s=$(( (off + up) / 1000000000 ))
	within "$s" $((wall - 2)) $((wall + 2))
}
check "config: realtime_offset_ns + uptime is the wall clock (within 2 s)" anchor_right
# Read back with --from after the module is gone (below): the same window, the same times.
trace-irqoff records --json --kind hard --limit 1 --from /tmp/rec.json > /tmp/rec-from.json
check "records --from reads the recording back with the wall time it was saved with" sh -c "grep -q $HARD_FN /tmp/rec-from.json && w=\$(grep -o '\"wall_time\": \"[^\"]*\"' /tmp/rec-from.json) && test -n \"\$w\" && grep -qF \"\$w\" /tmp/rec.json"
check "record wrote folded stacks" grep -qE "^hardirq-off;sh;.*;$HARD_FN(;[^ ]*)? [0-9]+\$" /tmp/rec.folded
trace-irqoff enable > /dev/null
( sleep 0.5; kill -INT $(pidof trace-irqoff) ) &
trace-irqoff record --duration 30s --threshold 70 -o /tmp/rec2.json > /dev/null; rc=$?
wait
check "record interrupted by SIGINT exits 130 and restores (enabled, threshold 80)" sh -c "test $rc = 130 && test \$(cat $TIO/enable) = enabled && head -n1 $TIO/trace_latency | grep -qx 'trace_irqoff_latency: 80ms'"
check "watch on a pipe prints its header once and quits" sh -c "trace-irqoff watch --interval 100ms --count 2 | grep -c 'trace-irqoff watch:' | grep -qx 1"
# A second record is refused while one runs (an flock on /proc/trace_irqoff).
trace-irqoff record --duration 10s -o /tmp/first.json > /dev/null 2>&1 &
first=$!
sleep 1
out=$(trace-irqoff record --duration 1s -o /tmp/second.json 2>&1); rc=$?
# /proc/locks exists only where the kernel has file locking (the test kernel has none,
# every distribution kernel has it).
if [ -e /proc/locks ]; then
	# The message has an apostrophe ("each other's"): compared from a file, not quoted.
	echo "$out" > /tmp/second.out
	check "a second record is refused while one runs (exit 1, a sentence)" sh -c "test $rc = 1 && grep -q 'another trace-irqoff record is running on this module' /tmp/second.out && test ! -e /tmp/second.json"
else
	echo "$out" > /tmp/second.out
	check "without file locking (CONFIG_FILE_LOCKING off) a second record runs and says it cannot tell" sh -c "test $rc = 0 && grep -q 'this kernel has no file locking' /tmp/second.out"
fi
kill -INT $first; wait $first
# record --until: catch the next window of 50 ms or more, save, restore, exit 3.
trace-irqoff disable > /dev/null
trace-irqoff set threshold 80 > /dev/null
( sleep 1; inject 1 hardirq 100 ) &
start=$(date +%s)
taskset -c 0 trace-irqoff record --until 50 --duration 60s -o /tmp/until.json > /tmp/until.out 2>&1; rc=$?
end=$(date +%s)
wait
sed 's/^/# until: /' /tmp/until.out | head -n 3
check "record --until 50 ends at the 100 ms window: exit 3, long before --duration" sh -c "test $rc = 3 && test $((end - start)) -lt 30"
until_names_it() {
	grep -q '"until_ms": 50,' /tmp/until.json || return 1
	caught=$(sed -n '/"caught": {/,/^  "cpus"/p' /tmp/until.json)
	echo "$caught" | grep -q $HARD_FN && echo "$caught" | grep -q '"cpu": 1,'
}
record_says_where() {
	grep -q "\"host\": \"$(uname -n)\"" /tmp/until.json && grep -q "\"kernel\": \"$(uname -r)\"" /tmp/until.json &&
		grep -qE '"start_time": "20[0-9-]+T[0-9:.]+Z"' /tmp/until.json
}
check "record --until names the window in its file" until_names_it
check "record --until's summary names it" grep -q '^caught a window of at least 50 ms: hardirq-off on CPU 1, ' /tmp/until.out
check "record --until restored the prior state (disabled, threshold 80)" sh -c "test \$(cat $TIO/enable) = disabled && head -n1 $TIO/trace_latency | grep -qx 'trace_irqoff_latency: 80ms'"
check "a record file says when, where and on which kernel" record_says_where
trace-irqoff disable > /dev/null
rmmod irqoff_sample
rmmod trace_irqoff
check "without the module, records/top/hist --from still read a recording" sh -c "trace-irqoff records --from /tmp/rec.json --oneline | grep -q 'hardirq-off' && trace-irqoff top --from /tmp/rec.json | grep -q '$HARD_TOP' && trace-irqoff hist --from /tmp/rec.json --kind hard | grep -qE ': [1-9]'"
check "status without the module: exit 2 and the insmod hint" sh -c "trace-irqoff status 2>&1 | grep -q 'hint: load it first'; trace-irqoff status 2>/dev/null; test \$? = 2"
check "metrics without the module: trace_irqoff_loaded 0, exit 0" sh -c "trace-irqoff metrics > /tmp/unloaded.prom && grep -qx 'trace_irqoff_loaded 0' /tmp/unloaded.prom"
mkdir -p /tmp/textfile
check "metrics --textfile without the module writes the file" sh -c "trace-irqoff metrics --textfile /tmp/textfile && grep -qx 'trace_irqoff_loaded 0' /tmp/textfile/trace_irqoff.prom"
