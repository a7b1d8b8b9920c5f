# SPDX-License-Identifier: GPL-2.0
# The step scheduler of tests/run, and the kinds of step it runs. Sourced, not run.
#
# A step is a command with dependencies. run_steps starts every step whose dependencies
# succeeded, TEST_JOBS at a time, PRIORITY first; a step whose dependency failed is not
# run and counts as one failure. Each step writes its whole output to $LOGS/NAME.log and
# its summary (what CI shows) to $LOGS/NAME.sum, whose last line "@@ PASSED FAILED" gives
# its counts. The summary is printed once every step has ended, in the order the steps
# were declared, each with its wall time, then a table of the times and the totals.

STEPS=()
declare -A S_DEPS=() S_TITLE=() S_CMD=() S_STATE=() S_START=() S_END=()
PRIORITY=()

step() {	# step NAME "DEPS" TITLE CMD...
	local n=$1 d=$2 t=$3
	shift 3
	STEPS+=("$n")
	S_DEPS[$n]=$d S_TITLE[$n]=$t S_STATE[$n]=pending
	# A command that is not one of the kinds below is a build: counted only if it fails.
	declare -F "$1" >/dev/null || set -- plain "$@"
	S_CMD[$n]=$(printf '%q ' "$@")
}

only_steps() {	# only_steps NAME...: keep these steps and what they need, drop the rest
	local keep=() n d seen=" "
	for n in "$@"; do
		[ -n "${S_TITLE[$n]:-}" ] || { echo "tests/run: no step '$n' (see --list)" >&2; return 1; }
	done
	local todo=("$@")
	while [ ${#todo[@]} -gt 0 ]; do
		n=${todo[0]}; todo=("${todo[@]:1}")
		case "$seen" in *" $n "*) continue ;; esac
		seen="$seen$n "
		for d in ${S_DEPS[$n]}; do todo+=("$d"); done
	done
	for n in "${STEPS[@]}"; do
		case "$seen" in *" $n "*) keep+=("$n") ;; *) unset "S_STATE[$n]" ;; esac
	done
	STEPS=("${keep[@]}")
}

list_steps() {
	local n
	printf '%-22s %-40s %s\n' STEP "AFTER" TITLE
	for n in "${STEPS[@]}"; do
		printf '%-22s %-40s %s\n' "$n" "${S_DEPS[$n]:--}" "${S_TITLE[$n]}"
	done
	echo "priority: ${PRIORITY[*]}"
}

# --- kinds of step: each prints its summary on stdout, ending with "@@ PASSED FAILED", and
# fails if anything in it failed. $STEP_LOG is the step's log.

counts_of_tap() {	# counts_of_tap FILE: "PASSED FAILED" of its TAP (or KTAP) checks
	# The VM suite is KTAP (tests/vm/suite.sh): a case's checks are indented lines of its
	# subtest, and the unindented line after them is the case's own result, which counts
	# only as a failure that none of its checks showed (the case's shell failed). A line
	# that says "# SKIP" (a case not for this kernel) is neither passed nor failed.
	awk '/^    # Subtest:/ { sub_open = 1; sub_failed = 0; next }
		/^    (ok|not ok) [0-9]+/ { if ($1 == "not") { f++; sub_failed++ } else p++; next }
		/^(ok|not ok) [0-9]+/ {
			if (sub_open) { sub_open = 0; if ($1 == "not" && sub_failed == 0) f++; next }
			if (/# SKIP/) next
			if ($1 == "not") f++; else p++
		}
		END { print p + 0, f + 0 }' "$1"
}

plain() {	# plain CMD...: a build or set-up command; counted only if it fails
	if "$@" >> "$STEP_LOG" 2>&1; then
		echo "@@ 0 0"
	else
		local rc=$?
		echo "  FAILED: '$*' exited $rc; the end of $STEP_LOG:"
		tail -n 30 "$STEP_LOG" | sed 's/^/  | /'
		echo "@@ 0 1"
		return 1
	fi
}

tap_step() {	# tap_step CMD...: a host command printing TAP
	local rc=0 p f
	"$@" > "$STEP_LOG" 2>&1 || rc=$?
	sed 's/^/  /' "$STEP_LOG"
	read -r p f < <(counts_of_tap "$STEP_LOG")
	if [ $((p + f)) = 0 ]; then
		echo "  FAILED: $1 ran no test (exit $rc)"; f=1
	elif [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		echo "  FAILED: $1 exited $rc with every check passed"; f=1
	fi
	echo "@@ $p $f"
	[ "$f" = 0 ]
}

# The debug builds of the host crates' tests and clippy keep their target directories in the
# cache (one each: cargo locks a target directory, and the two steps may run side by side),
# so that a new checkout rebuilds only its own crates, not every dependency: 47 s against
# 15 s for the tests' build, 31 against 4 for clippy, on an idle 2-core machine. The
# release builds (the CLI, the packages, the guests' tools) stay in target/, where the
# other steps look for them; their fat LTO link is most of their time anyway.
cargo_cache() {	# cargo_cache NAME: a target directory in the cache for NAME's builds
	echo "$TRACE_IRQOFF_CACHE/cargo-target/$1"
}

style_check() {	# tests/style-check, clippy's builds in the cache
	CARGO_TARGET_DIR=$(cargo_cache clippy) tests/style-check
}

host_tests() {	# cargo test of the workspace
	CARGO_TARGET_DIR=$(cargo_cache test) cargo test --quiet --locked --workspace > "$STEP_LOG" 2>&1
	grep -E '^test result|panicked|FAILED|^error' "$STEP_LOG" | sed 's/^/  /'
	local p f
	p=$(sed -n 's/^test result: .* \([0-9]*\) passed; \([0-9]*\) failed.*/\1/p' "$STEP_LOG" | awk '{s += $1} END {print s + 0}')
	f=$(sed -n 's/^test result: .* \([0-9]*\) passed; \([0-9]*\) failed.*/\2/p' "$STEP_LOG" | awk '{s += $1} END {print s + 0}')
	if ! grep -q '^test result' "$STEP_LOG"; then
		echo "  FAILED: cargo test did not run:"; tail -n 20 "$STEP_LOG" | sed 's/^/  | /'; f=$((f + 1))
	fi
	echo "@@ $p $f"
	[ "$f" = 0 ]
}

# vm_suite RUNNER-ARGS...: one VM boot, counted by its TAP lines; the guest console goes to
# $STEP_LOG, the runner's own messages to $STEP_LOG.runner.
vm_suite() {
	local log=$STEP_LOG rc p f
	: > "$log"	# a runner that fails before booting leaves no log of its own
	if tests/vm/run --quiet --log "$log" "$@" >> "$log.runner" 2>&1; then rc=0; else rc=$?; fi
	# Results, measurements, and a failed check's TAP diagnostics (the "# " lines after
	# it, which say why: CI shows only this summary, not the log).
	awk '/^ *(ok|not ok) [0-9]+/ { diag = /^ *not ok/ ? 10 : 0; print "  " $0; next }
		/^# (measured|case)/ { print "  " $0; next }
		diag > 0 && /^ *# / { diag--; print "  " substr($0, 1, 1000) }' "$log"
	read -r p f < <(counts_of_tap "$log")
	# Where the step's wall time went (tests/vm/run's $log.wall): the boot and the slowest
	# cases.
	[ -s "$log.wall" ] && echo "  # host wall time: $(head -n 5 "$log.wall" | awk '{ printf "%s%s %s s", (NR > 1 ? ", " : ""), $3, $1 }')"
	if [ $((p + f)) = 0 ]; then
		echo "  FAILED: the VM run ran no test (exit $rc); see $log"
		tail -n 20 "$log.runner" | sed 's/^/  | /'
		f=1
	elif [ "$f" = 0 ] && [ "$rc" != 0 ]; then
		# Every check passed, yet the run failed: a splat, a hang, or no result.
		echo "  FAILED: the VM run failed (exit $rc); see $log"
		tail -n 40 "$log" | sed 's/^/  | /'
		tail -n 5 "$log.runner" | sed 's/^/  | /'
		f=1
	fi
	echo "@@ $p $f"
	[ "$f" = 0 ]
}

stock_kernel() {	# stock_kernel NAME: prepare it, and build our modules against it once for
	# every boot of it, into $LOGS/mods-NAME
	plain tools/kernels/stock-kernel "$1" && plain tools/kernels/stock-kernel --modules "$1" "$LOGS/mods-$1"
}

dkms_step() {	# the DKMS install in the trixie chroot (tests/packaging/dkms-install)
	local pk="$LOGS/dkms" p f rc=0
	mkdir -p "$pk"
	tests/packaging/dkms-install debian-7.3 "$pk" > "$LOGS/dkms-install.log" 2>&1 || rc=$?
	grep -E '^(ok|not ok) [0-9]+|^# DKMS' "$LOGS/dkms-install.log" | sed 's/^/  /'
	read -r p f < <(counts_of_tap "$LOGS/dkms-install.log")
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		echo "  FAILED: dkms install (exit $rc); see $LOGS/dkms-install.log"
		tail -n 30 "$LOGS/dkms-install.log" | sed 's/^/  | /'
		f=$((f + 1))
	fi
	echo "@@ $p $f"
	[ "$f" = 0 ]
}

bench_smoke() {	# tio-bench with tiny counts on the test kernel, its JSON and the report
	local smoke="$LOGS/bench-smoke" n=0
	rm -rf "$smoke" && mkdir -p "$smoke"
	printf 'tio-bench --reps 1 --false-secs 1 --runs 1 --loops 2 --spin-ms 20 --precheck 5 --idle-secs 1 --idle-rounds 1\n' > "$smoke/script.sh"
	tests/vm/run --quiet --log "$STEP_LOG" --script "$smoke/script.sh" > "$smoke/runner.log" 2>&1
	sed -n '/^TIO_BENCH_JSON_BEGIN/,/^TIO_BENCH_JSON_END/p' "$STEP_LOG" | sed '1d;$d' > "$smoke/results.json"
	smoke_check() {	# smoke_check DESCRIPTION CMD...
		local d=$1; shift
		n=$((n + 1))
		if "$@" >/dev/null 2>&1; then echo "ok $n - $d"; else echo "not ok $n - $d"; fi
	}
	{
	smoke_check "tio-bench ran every step in the VM" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert not [k for k in d if k.endswith("_error")], d
for k in ("guest", "precheck", "accuracy", "timer_floor", "false_events", "overhead", "idle_wakeups", "cost_p10", "cost_p1", "kernel"):
    assert k in d, k
assert d["guest"]["clocksource"] and "hz=1000" in d["guest"]["config_p10"], d["guest"]' "$smoke/results.json"
	smoke_check "tio-bench: the irqsoff tracer reads a 100 ms preemptirq_delay_test window within 1% (floor method)" python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))["precheck"]
read = [r for r in p["readings_us"] if r is not None]
assert p["passed"] and read and all(abs(r - 100000) <= 1000 for r in read), p' "$smoke/results.json"
	smoke_check "tio-bench: false-event runs split softirq events by cause" python3 -c '
import json, sys
fe = [r for r in json.load(open(sys.argv[1]))["false_events"] if r["tool"] == "ours"]
assert len(fe) == 4 and all(r["soft_events"] == r["soft_bh_off_events"] + r["soft_ksoftirqd_wait_events"] for r in fe), fe' "$smoke/results.json"
	smoke_check "tio-bench: the kernel's own trace judged each false-event run of ours (softirq and hrtimer events read, every traced event of ours confirmed, refuted or older than the trace)" python3 -c '
import json, sys
fe = [r for r in json.load(open(sys.argv[1]))["false_events"] if r["tool"] == "ours"]
w = [r["witness"] for r in fe]
# An idle second of the test kernel traces about 50 lines now that idle CPUs sleep with
# their samplers parked (design.rst: sleeping CPUs); a busy one thousands.
assert len(w) == 4 and all("error" not in x and x["lines"] > 20 and x["hz"] == 1000 for x in w), w
assert all(x["confirmed"] + x["unconfirmed"] + x["unjudged"] == x["events"] and len(x["unconfirmed_events"]) == x["unconfirmed"] for x in w), w' "$smoke/results.json"
	smoke_check "tio-bench: every overhead configuration ran the CPU-bound loop" python3 -c '
import json, sys
o = json.load(open(sys.argv[1]))["overhead"]
names = [c["config"] for c in o["configs"]]
assert {"not_loaded", "ours_p10", "ours_p1", "irqsoff_tracer"} <= set(names), names
assert all(len(c["spin_iterations"]) == o["runs"] and min(c["spin_iterations"]) > 0 for c in o["configs"]), o' "$smoke/results.json"
	smoke_check "tio-bench: a 100 ms hardirq window at P = 10 ms is detected within P and read by the irqsoff tracer within 1 ms" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
w = [w for w in d["accuracy"] if w["tool"] == "ours" and w["period_ms"] == 10 and w["kind"] == "hard" and w["d_us"] == 100000]
assert w and all(x["detected"] and abs(x["reported_ns"] - x["true_ns"]) <= 10_000_000 for x in w), w
# A reading that is not the window (another CPU passed the floor first) says so.
assert all(abs(x["irqsoff_ns"] - x["true_ns"]) <= 1_000_000 if x["irqsoff_ns"] is not None else x["irqsoff_not"] for x in w), w' "$smoke/results.json"
	smoke_check "tio-bench: idle CPU 1's wake-ups are counted in every configuration, a rate per round" python3 -c '
import json, sys
iw = json.load(open(sys.argv[1]))["idle_wakeups"]
by = {c["config"]: c["loc_per_s"] for c in iw["configs"]}
assert {"not_loaded", "loaded_disabled", "ours_p10", "ours_p1"} <= set(by), by
assert all(len(v) == iw["rounds"] and min(v) >= 0 for v in by.values()), by' "$smoke/results.json"
	smoke_check "tio-bench: handler cost and memory are reported" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["cost_p10"]["hard"]["runs"] > 0 and d["cost_p10"]["memory"].startswith("memory per_cpu_bytes=")' "$smoke/results.json"
	smoke_check "bench-report writes the report and both plots" sh -c "cargo run --quiet --locked -p bench-report -- '$smoke/results.json' '$smoke' smoke && grep -q '^Accuracy' '$smoke/benchmarks.rst' && grep -q '^Idle wake-ups' '$smoke/benchmarks.rst' && grep -q '<svg' '$smoke/bench-accuracy.svg' && grep -q '<svg' '$smoke/bench-overhead.svg'"
	} > "$smoke/tap"
	sed 's/^/  /' "$smoke/tap"
	read -r p f < <(counts_of_tap "$smoke/tap")
	echo "@@ $p $f"
	[ "$f" = 0 ]
}

# --- the scheduler ------------------------------------------------------------------------

fmt_secs() { printf '%d:%02d' $(($1 / 60)) $(($1 % 60)); }
progress() { printf '[%s] %s\n' "$(fmt_secs $(( $(date +%s) - T0 )))" "$*"; }

launch() {	# launch NAME: run its command in the background
	local n=$1
	S_STATE[$n]=running S_START[$n]=$(date +%s)
	progress "start $n"
	(
		export STEP_LOG=$LOGS/$n.log
		: > "$STEP_LOG"
		eval "${S_CMD[$n]}" > "$LOGS/$n.sum" 2>> "$STEP_LOG" < /dev/null
		echo $? > "$LOGS/$n.rc"
	) &
}

dep_state() {	# dep_state NAME: ready, wait or the name of a failed dependency
	local d
	for d in ${S_DEPS[$1]}; do
		case "${S_STATE[$d]}" in
		ok) ;;
		failed|blocked) echo "$d"; return ;;
		*) echo wait; return ;;
		esac
	done
	echo ready
}

cache_report() {	# what the cache holds for this run, and what a missing part costs
	local c=$TRACE_IRQOFF_CACHE have=() miss=() v d add=0
	for v in test sanitize; do
		d=$(tools/kernels/build-kernel --print "$v" 2>/dev/null)
		if [ -f "$d/.built" ]; then have+=("$v kernel"); else miss+=("$v kernel"); add=$((add + 7)); fi
	done
	if ls -d "$c"/trixie-*/var/cache >/dev/null 2>&1; then
		have+=("trixie chroot")
		for d in "$c"/trixie-*/var/cache/trace-irqoff-stock/*/; do
			[ -f "$d/.ready" ] && have+=("stock $(basename "$d")")
		done
	else
		miss+=("trixie chroot and Debian's stock kernels"); add=$((add + 8))
	fi
	ls -d "$c"/boot-*/.ready >/dev/null 2>&1 && have+=("boot image") || { miss+=("boot image"); add=$((add + 2)); }
	# Beside other steps: the download and the unpacking of the debug package's vmlinux.
	ls -d "$c"/debug/*/.ready >/dev/null 2>&1 && have+=("Debian's debug vmlinux") || { miss+=("Debian's debug vmlinux"); add=$((add + 1)); }
	[ -d "$(cargo_cache test)" ] && have+=("the host tests' cargo builds") || { miss+=("the host tests' cargo builds"); add=$((add + 1)); }
	progress "cache $c: $( (IFS=,; echo "${have[*]:-nothing}") | sed 's/,/, /g')"
	[ ${#miss[@]} = 0 ] || progress "not cached: $(IFS=,; echo "${miss[*]}" | sed 's/,/, /g')"
	# Measured on a 2-core machine, alone (2026-11-28): warm 27:23 (the sanitize kernel's
	# suite the longest step, beside every other step); cold, on a new machine with nothing
	# of ours: 50:15 with set-up (48:37 in tests/run). What each missing part adds to the
	# wall time: the two debug kernels, built side by side, about 14 minutes together; the
	# chroot and the five stock kernels (the Rust build files of each, beside other steps)
	# about 8; the boot image 2.
	progress "estimate for this run on 2 cores: ~28 min warm, up to ~$add min more for what is not cached"
}

run_steps() {
	export LOGS
	rm -rf "$LOGS" && mkdir -p "$LOGS"
	# Interrupted: stop every step (their VMs and builds) with us.
	trap 'trap - INT TERM; kill 0; exit 130' INT TERM
	local jobs=${TEST_JOBS:-$(nproc)} running=0 n d changed
	T0=$(date +%s)
	progress "$(( ${#STEPS[@]} )) steps, $jobs at a time; logs in $LOGS"
	cache_report
	local order=("${PRIORITY[@]}" "${STEPS[@]}")
	while :; do
		changed=1
		while [ $changed = 1 ]; do
			changed=0
			for n in "${order[@]}"; do
				[ "${S_STATE[$n]:-}" = pending ] || continue
				d=$(dep_state "$n")
				case "$d" in
				wait) ;;
				ready)
					[ "$running" -lt "$jobs" ] || continue
					launch "$n"; running=$((running + 1)) ;;
				*)
					S_STATE[$n]=blocked S_START[$n]=$(date +%s) S_END[$n]=$(date +%s)
					printf '  FAILED: not run, as %s failed\n@@ 0 1\n' "$d" > "$LOGS/$n.sum"
					progress "skip $n ($d failed)"
					changed=1 ;;
				esac
			done
		done
		[ "$running" -gt 0 ] || break
		wait -n 2>/dev/null || true
		for n in "${STEPS[@]}"; do
			[ "${S_STATE[$n]}" = running ] && [ -s "$LOGS/$n.rc" ] || continue
			S_END[$n]=$(date +%s)
			if [ "$(cat "$LOGS/$n.rc")" = 0 ]; then S_STATE[$n]=ok; else S_STATE[$n]=failed; fi
			running=$((running - 1))
			progress "end $n (${S_STATE[$n]}, $(fmt_secs $(( S_END[$n] - S_START[$n] ))))"
		done
	done
	summary
}

summary() {
	local n p f sum line passed=0 failed=0 end
	end=$(date +%s)
	echo
	for n in "${STEPS[@]}"; do
		sum=$LOGS/$n.sum
		echo "== ${S_TITLE[$n]} [$(fmt_secs $(( S_END[$n] - S_START[$n] )))]"
		line=$(grep '^@@ ' "$sum" 2>/dev/null | tail -n1)
		if [ -z "$line" ]; then
			echo "  FAILED: the step ended without a result; see $LOGS/$n.log"
			tail -n 20 "$LOGS/$n.log" 2>/dev/null | sed 's/^/  | /'
			p=0 f=1
		else
			grep -v '^@@ ' "$sum"
			read -r _ p f <<<"$line"
		fi
		passed=$((passed + p)) failed=$((failed + f))
	done
	echo "== wall time per step (start and end from the start of the run, m:ss)"
	printf '  %-22s %7s %7s %7s  %s\n' step start end time result
	for n in "${STEPS[@]}"; do
		printf '  %-22s %7s %7s %7s  %s\n' "$n" "$(fmt_secs $(( S_START[$n] - T0 )))" \
			"$(fmt_secs $(( S_END[$n] - T0 )))" "$(fmt_secs $(( S_END[$n] - S_START[$n] )))" "${S_STATE[$n]}"
	done
	echo "== done in $(( end - T0 ))s ($(fmt_secs $(( end - T0 ))))"
	echo "$passed passed, $failed failed"
	[ "$failed" = 0 ]
}
