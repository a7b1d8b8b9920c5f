# SPDX-License-Identifier: GPL-2.0
# Helpers for guest test scripts (TAP). Sourced inside the VM.
T_N=0
T_FAILED=0
ok() {	# ok DESCRIPTION: a passing check
	T_N=$((T_N + 1)); echo "ok $T_N - $*"
}
not_ok() {	# not_ok DESCRIPTION [DETAIL...]: a failing check
	T_N=$((T_N + 1)); T_FAILED=$((T_FAILED + 1)); echo "not ok $T_N - $1"
	shift; for l in "$@"; do echo "# $l"; done
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
	echo "1..$T_N"
	[ "$T_FAILED" = 0 ]
}
tio_load() {	# tio_load [PARAMS]: (re)loads trace_irqoff
	rmmod trace_irqoff 2>/dev/null
	modprobe trace_irqoff "$@"
}

TIO=/proc/trace_irqoff
# Frames that belong to the samplers or the interrupt/softirq machinery: none may stand
# above the culprit in a record.
SAMPLER_FRAMES='\[trace_irqoff\]|hrtimer|sysvec|asm_common_interrupt|call_timer_fn|run_timer|handle_softirqs|__do_softirq|irq_exit'

inject() {	# inject CPU MODE MS: one window of the sample module, on CPU
	taskset -c "$1" sh -c "echo $2 $3 > /dev/irqoff_sample"
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
has() {	# has FEATURE: the kernel has FEATURE (tests/vm/run: test-kernel, stock, rt, bh-lock, hz=N)
	case " $(cat /tests/features 2>/dev/null) " in *" $1 "*) return 0 ;; esac
	return 1
}
config_field() {	# config_field NAME: a value of the module's config line (period_ns, hz, soft_period_ns...)
	field "$1" "$(grep '^config ' $TIO/records)"
}
within() {	# within VALUE LO HI
	[ "$1" -ge "$2" ] && [ "$1" -le "$3" ]
}
