# SPDX-License-Identifier: GPL-2.0
# Helpers for guest test scripts (TAP). Sourced inside the VM.
T_N=0
T_FAILED=0
# Inside a subtest of the suite (tests/vm/suite.sh: one per case), its lines are indented
# as KTAP nests them.
T_INDENT=
ok() {	# ok DESCRIPTION: a passing check
	T_N=$((T_N + 1)); echo "${T_INDENT}ok $T_N - $*"
}
not_ok() {	# not_ok DESCRIPTION [DETAIL...]: a failing check
	T_N=$((T_N + 1)); T_FAILED=$((T_FAILED + 1)); echo "${T_INDENT}not ok $T_N - $1"
	shift; for l in "$@"; do echo "${T_INDENT}# $l"; done
}
check() {	# check DESCRIPTION CMD...: ok if CMD succeeds
	d=$1; shift
	if out=$("$@" 2>&1); then ok "$d"; else not_ok "$d" "command: $*" "output: $(echo "$out" | head -n 5)"; fi
}
check_fails() {	# check_fails DESCRIPTION CMD...: ok if CMD fails
	d=$1; shift
	if out=$("$@" 2>&1); then not_ok "$d" "command unexpectedly succeeded: $*"; else ok "$d"; fi
}
done_testing() {	# prints the plan and returns non-zero if anything failed
	echo "${T_INDENT}1..$T_N"
	[ "$T_FAILED" = 0 ]
}
tio_load() {	# tio_load [PARAMS]: (re)loads trace_irqoff
	rmmod trace_irqoff 2>/dev/null
	modprobe trace_irqoff "$@"
}

TIO=/proc/trace_irqoff

hold_start() {	# hold_start GOFILE OUT [ERR]: tio-hold on every file of $TIO, in the
	# background (its pid in $hold_pid), stderr to ERR or else OUT; returns once OUT says
	# "held N", or after 1000 polls. OUT is emptied here: the background child's own
	# redirection comes only once it runs, and until then a poll would see the last "held".
	rm -f "$1"
	: > "$2"
	if [ -n "${3:-}" ]; then tio-hold $TIO "$1" > "$2" 2> "$3" &
	else tio-hold $TIO "$1" > "$2" 2>&1 &
	fi
	hold_pid=$!
	hold_n=0
	while ! grep -q '^held' "$2" && [ $hold_n -lt 1000 ]; do sleep 0.01; hold_n=$((hold_n + 1)); done
}
# Frames that belong to the samplers or the interrupt/softirq machinery: none may stand
# above the culprit in a record.
SAMPLER_FRAMES='\[trace_irqoff( [0-9a-f]+)?\]|hrtimer|sysvec|asm_common_interrupt|el1h_64_irq|call_timer_fn|run_timer|handle_softirqs|__do_softirq|irq_exit'

snapshot_during() {	# snapshot_during CS DIR FILE...: a reader pinned to cpu 0 copies the
	# FILEs of $TIO, in that order, into DIR/trace_irqoff/ (a proc root for the CLI's
	# --proc-root) CS hundredths of a second after it is ready (reading every file takes
	# tens of ms under TCG: name the ones that matter first), with shell builtins only: a fork (a command substitution
	# too) or exec while another CPU has interrupts or bottom halves off can wait for that
	# CPU (an IPI for a TLB flush on x86_64; on arm64 in QEMU, cpu 0 is not run at all for
	# long stretches while cpu 1 spins with interrupts masked, so use it for windows with
	# interrupts on there). Returns once it is ready, before the window is opened;
	# snapshot_wait waits for the copy.
	local cs=$1 dir=$2
	shift 2
	rm -rf "$dir" /tmp/snap.fifo /tmp/snap.ready
	mkdir -p "$dir/trace_irqoff"
	mkfifo /tmp/snap.fifo
	taskset -c 0 sh -c 'slurp() { while IFS= read -r l; do echo "$l"; done < "$1"; }
		echo > /tmp/snap.ready
		read -t "$2" x <> /tmp/snap.fifo
		for f in $5; do slurp "$3/$f" > "$4/trace_irqoff/$f" 2>/dev/null; done' \
		_ - "$((cs / 100)).$((cs % 100 / 10))$((cs % 10))" "$TIO" "$dir" "$*" &
	snap_pid=$!
	until [ -e /tmp/snap.ready ]; do read -t 0.01 x <> /tmp/snap.fifo; done
}
snapshot_wait() {	# snapshot_wait: until snapshot_during's copy is done
	wait $snap_pid
}
opener() {	# opener CPU OUT CMD: a shell pinned to CPU, started now, before the load it measures, that waits on /tmp/open.fifo and then runs only builtins (one exec'd then may hold the CPU past a request): OUT.inflight gets nullb0's requests in flight, then CMD opens the window; its pid in $op, fired by `echo go > /tmp/open.fifo`
	rm -f /tmp/open.fifo
	mkfifo /tmp/open.fifo
	taskset -c "$1" sh -c 'read -t 10 x <> /tmp/open.fifo
		read -r r w < /sys/block/nullb0/inflight
		'"$3"'
		echo $((r + w)) > '"$2"'.inflight' &
	op=$!
}
inject() {	# inject CPU MODE MS: one window of the sample module, on CPU
	taskset -c "$1" sh -c "echo $2 $3 > /dev/irqoff_sample"
}
demo_windows() {	# demo_windows: the demo's incident (tests/demo.sh): two 120 ms hardirq-off windows on CPU 1, then a 100 ms softirq-off one
	inject 1 hardirq 120
	sleep 0.2
	inject 1 hardirq 120
	sleep 0.2
	inject 1 softirq 100
	sleep 0.3
}
flat() {	# flat FILE: FILE.flat, the text with its wrapped lines joined, one space between words
	tr '\n' ' ' < "$1" | tr -s ' ' > "$1.flat"
}
true_ns() {	# true_ns MODE: the sample's own measurement of its last MODE window
	dmesg | sed -n "s/.*irqoff_sample: $1 window cpu=[0-9]* ns=\([0-9]*\).*/\1/p" | tail -n1
}
record_block() {	# record_block CPU KIND LB [COMM]: the first such record (of task COMM) of the records file, with its frames
	awk -v c="cpu=$1" -v k="kind=$2" -v l="lower_bound=$3" -v t="${4:+ comm=$4 }" '
		$1 == "record" { if (found) exit; if ($2 == c && $3 == k && $4 == l && (t == "" || index($0, t))) { found = 1; print }; next }
		$1 == "frame" { if (found) print; next }
		{ if (found) exit }' $TIO/records
}
window_block() {	# window_block CPU KIND [COMM]: the in-window frames of the first such record (lower_bound=0)
	awk -v c="cpu=$1" -v k="kind=$2" -v t="${3:+ comm=$3 }" '
		$1 == "record" { if (found) exit; if ($2 == c && $3 == k && $4 == "lower_bound=0" && (t == "" || index($0, t))) found = 1; next }
		$1 == "frame" { next }
		$1 == "window_frame" { if (found) print; next }
		{ if (found) exit }' $TIO/records
}
first_record() {	# first_record CPU KIND: reads the records file from CPU 0 into $records and sets rec (CPU's first KIND record, lower_bound=0), stack (its frame and window_frame lines: where the window ended and inside it) and lat (its latency_ns)
	records=$(taskset -c 0 cat $TIO/records)
	rec=$(echo "$records" | grep "^record cpu=$1 kind=$2 lower_bound=0 " | head -n1)
	stack=$(echo "$records" | awk -v l="$rec" '$0 == l { f = 1; next }
		f && ($1 == "frame" || $1 == "window_frame") { print; next } f { exit }')
	lat=$(field latency_ns "$rec")
}
frame_at() {	# frame_at BLOCK FUNC: 1-based position of FUNC among the (window_)frame lines, 0 if absent
	echo "$1" | awk -v f="$2" '$1 ~ /frame$/ { n++; if (index($0, f)) { print n; found = 1; exit } } END { if (!found) print 0 }'
}
field() {	# field NAME LINE: value of NAME=... in a key=value line
	echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -n1
}
culprit_at() {	# culprit_at BLOCK FUNC: 1-based position of FUNC among the frames, 0 if absent
	echo "$1" | awk -v f="$2" '$1 == "frame" { n++; if (index($0, f)) { print n; found = 1; exit } } END { if (!found) print 0 }'
}
above_culprit() {	# above_culprit BLOCK FUNC: the frames above FUNC
	echo "$1" | awk -v f="$2" '$1 == "frame" { if (index($0, f)) exit; print }'
}
events() {	# events CPU KIND: events counted on CPU of KIND (hard|soft)
	sed -n "s/^cpu $1 .* $2_events=\([0-9]*\).*/\1/p" $TIO/records
}
has() {	# has FEATURE: the kernel has FEATURE (tests/vm/run: test-kernel, stock, rt, bh-lock, hz=N,
	# rcu-boost-delay=MS, x86_64 or arm64)
	case " $(cat /tests/features 2>/dev/null) " in *" $1 "*) return 0 ;; esac
	return 1
}
feature() {	# feature NAME: the value of the kernel's feature NAME=VALUE (has), empty if none
	echo " $(cat /tests/features 2>/dev/null) " | sed -n "s/.* $1=\([^ ]*\) .*/\1/p"
}
host_do() {	# host_do VERB ARGS...: asks the host to act on this VM (tests/vm/host-agent: stop
	# MS COUNT GAP_MS, nmi COUNT GAP_MS, wait MS) and waits for its answer, which it prints
	# as a comment; fails at once where the runner has no agent (not tests/vm/run --host).
	# The request goes through the kernel log (a whole line on the console, never cut by
	# a kernel line printed at the same time), where it can be written.
	has host || { echo "# host_do $*: no host agent (tests/vm/run --host)"; return 1; }
	if [ -w /dev/kmsg ]; then echo "<4>@@HOST $*" > /dev/kmsg; else echo "@@HOST $*"; fi
	local r
	while read -r r < /dev/console; do
		case "$r" in @@DONE*) echo "# host: ${r#@@DONE }"; return 0 ;; esac
	done
	return 1
}
# Where the sample's hardirq window ends, as its end stack names it (HARD_FN), and the
# culprit `top` shows for it (HARD_TOP). The window function re-enables interrupts in a C
# leaf function, sample_irq_enable, where the sampler's interrupt lands. x86_64's unwinder
# (ORC) goes on to its caller, the window function. arm64's reports the interrupted PC and
# then follows the frame records, which a leaf function does not make: its caller (the
# window function) is missing, the next frame is the window function's caller (the
# sample's write_iter), and that is what `top` names, sample_irq_enable being mechanism.
if has arm64; then
	HARD_FN=sample_irq_enable
	HARD_TOP='SampleDevice as kernel::miscdevice::MiscDevice>::write_iter'
else
	HARD_FN=irqoff_sample_hardirq_window
	HARD_TOP=irqoff_sample_hardirq_window
fi
up_ns() {	# up_ns: the time since boot in ns, to /proc/uptime's 10 ms (busybox date has no %N)
	read -r u _ < /proc/uptime; echo $((${u%.*} * 1000000000 + 1${u#*.} * 10000000 - 1000000000))
}
config_field() {	# config_field NAME: a value of the module's config line (period_ns, hz, soft_period_ns...)
	field "$1" "$(grep '^config ' $TIO/records)"
}
within() {	# within VALUE LO HI
	[ "$1" -ge "$2" ] && [ "$1" -le "$3" ]
}
debugfs() {	# debugfs: mounts debugfs if the kernel has it; fails if not
	[ -d /sys/kernel/debug ] || return 1
	grep -q ' /sys/kernel/debug debugfs ' /proc/mounts || mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
	grep -q ' /sys/kernel/debug debugfs ' /proc/mounts
}
KMEMLEAK=/sys/kernel/debug/kmemleak
kmemleak_on() {	# kmemleak_on: the kernel has kmemleak and it is still running
	debugfs && [ -e $KMEMLEAK ] || return 1
	# Kmemleak switches itself off (pool exhausted, internal error) and says so.
	! dmesg | grep -q 'kmemleak: Kernel memory leak detector disabled'
}
kmemleak_scan() {	# kmemleak_scan: two scans, so that objects found unreferenced are reported
	# An object is reported once it is older than 5 s and its contents did not change
	# between two scans (the first scan only takes its checksum).
	sleep 6
	echo scan > $KMEMLEAK && echo scan > $KMEMLEAK
}
kmemleak_baseline() {	# kmemleak_baseline: forgets what boot left unreferenced, before the first load
	if ! debugfs || [ ! -e $KMEMLEAK ]; then echo "# kmemleak: not in this kernel"; return 0; fi
	# Boot's own suspects are reported by these scans, then cleared: kmemleak_check
	# reports only what appeared afterwards.
	kmemleak_scan || { echo "# kmemleak: scan refused (kmemleak off?)"; return 0; }
	n=$(grep -c '^unreferenced object' $KMEMLEAK)
	echo clear > $KMEMLEAK
	echo "# kmemleak: baseline taken ($n suspects from boot cleared)"
}
kmemleak_check() {	# kmemleak_check: after every module is unloaded, no new unreferenced object
	if ! debugfs || [ ! -e $KMEMLEAK ]; then echo "# kmemleak: not in this kernel"; return 0; fi
	if ! kmemleak_on; then
		not_ok "kmemleak is still running at the end of the suite" "$(dmesg | grep kmemleak | tail -n 3)"
		return 0
	fi
	kmemleak_scan
	leaks=$(cat $KMEMLEAK)
	n=$(echo "$leaks" | grep -c '^unreferenced object')
	# After rmmod a module frame shows as a bare address: every new leak counts, and
	# their backtraces are printed for the analysis.
	if [ "$n" = 0 ]; then
		ok "kmemleak: no unreferenced object after the suite unloaded its modules"
	else
		not_ok "kmemleak: no unreferenced object after the suite unloaded its modules ($n found)" \
			"$(echo "$leaks" | head -n 60 | sed 's/^/# /')"
	fi
}
kunit_on() {	# kunit_on: the kernel has KUnit (the runner reads CONFIG_KUNIT; kunit's module
	# parameters are not in sysfs)
	has kunit
}
kunit_check() {	# kunit_check: loads trace_irqoff once; the KTAP results of its KUnit suites pass
	if ! kunit_on; then echo "# kunit: not in this kernel"; return 0; fi
	rmmod trace_irqoff 2>/dev/null
	mark="tio-kunit-mark-$$-$(date +%s)"
	echo "<6>$mark" > /dev/kmsg
	modprobe trace_irqoff
	# KUnit prints its KTAP at KERN_INFO, below the console's level: read it from the
	# kernel log, timestamps stripped.
	ktap=$(dmesg | sed -n "/$mark/,\$p" | sed 's/^\[[ 0-9.]*\] //')
	rmmod trace_irqoff
	suites=$(echo "$ktap" | grep -c '^    # Subtest: ')
	passed=$(echo "$ktap" | grep -E '^    ok [0-9]+ ' | grep -vc '# SKIP')
	skipped=$(echo "$ktap" | grep -E '^    ok [0-9]+ ' | grep -c '# SKIP')
	failed=$(echo "$ktap" | grep -cE '^    not ok [0-9]+ ')
	# A suite can fail without a failing case (its init failed).
	bad_suites=$(echo "$ktap" | grep -cE '^not ok [0-9]+ ')
	echo "# kunit: $suites suites in trace_irqoff, $passed tests passed, $failed failed, $skipped skipped"
	echo "$ktap" | grep -E '^ *(not ok|# Subtest:)' | sed 's/^ */# kunit: /'
	[ "$suites" != 0 ] || return 0
	if [ "$failed" = 0 ] && [ "$bad_suites" = 0 ] && [ "$passed" -gt 0 ]; then
		ok "kunit: the module's $passed KUnit tests pass ($suites suites, $skipped skipped)"
	else
		# As comments: a KTAP "not ok" at the start of a line would count as ours.
		not_ok "kunit: the module's KUnit tests pass ($failed cases and $bad_suites suites not ok, $passed ok)" \
			"$(echo "$ktap" | grep -B3 -E '^ *not ok ' | head -n 40 | sed 's/^/# /')"
	fi
}
kunit_check_log() {	# kunit_check_log: no KUnit test failed on any load during the suite
	kunit_on || return 0
	[ "$(dmesg | grep -c '# Subtest: ')" != 0 ] || return 0
	n=$(dmesg | sed 's/^\[[ 0-9.]*\] //' | grep -cE '^ *not ok [0-9]+ ')
	check "kunit: no \"not ok\" in the kernel log at the end of the suite ($n found)" test "$n" = 0
}
