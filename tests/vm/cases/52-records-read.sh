# SPDX-License-Identifier: GPL-2.0
# description: the records files at their largest read the same in small chunks as in one read, and a reader holds one CPU's part at a time
# kernels: sanitize debian-7.3-rt
# proves: a record is never half-written; a chunked read equals one read (what a reader sees of the records) -- "read in 4096-byte chunks it equals one large read", "... 333-byte chunks"
# proves: files held open across `rmmod` answer EIO -- "... fails with EIO"
# Where: the sanitize kernel, and debian-7.3-rt where the writers are preemptible threads;
# not debian-7.3 (65 s of host time there).
# The records file (and trace_latency, counters) at its largest: records_per_cpu=64 on every CPU, full of hardirq and
# softirq records. Read in small chunks it gives exactly what one large read gives, and a
# reader holds one element (one CPU's part) in the kernel, not the whole file.
rmmod trace_irqoff 2>/dev/null
modprobe trace_irqoff records_per_cpu=64
modprobe irqoff_sample
echo 20 > $TIO/trace_latency	# ms: the lowest threshold at the default 10 ms period
echo 1 > $TIO/enable
ncpu=$(grep -c '^processor' /proc/cpuinfo)
# A softirq window is counted only if it outlasts 2P + a timer-wheel granule + a jiffy
# (Documentation/benchmarks.rst): 22 ms at HZ 1000, 28 ms at HZ 250, where 30 ms windows
# filled only the hardirq stores. Windows of 2P + 4 jiffies + 10 ms: 34 ms / 46 ms.
hz=$(config_field hz)
win=$((20 + 4 * 1000 / ${hz:-1000} + 10))
kinds="hardirq"
has bh-lock && kinds="hardirq softirq"
# 66 windows of each kind on each CPU, one after another, by one shell pinned there that
# runs builtins only (two processes per window cost more host time than the windows).
for cpu in $(seq 0 $((ncpu - 1))); do
	for mode in $kinds; do
		taskset -c $cpu sh -c 'i=0; while [ $i -lt 66 ]; do echo "$1 $2" > /dev/irqoff_sample; i=$((i + 1)); done' _ $mode $win
	done
done
sleep 0.5
# Nothing changes while sampling is off: the reads below must agree byte for byte.
echo 0 > $TIO/enable
cat $TIO/records > /tmp/rec-cat
dd if=$TIO/records of=/tmp/rec-dd bs=4096 2>/dev/null
dd if=$TIO/records of=/tmp/rec-odd bs=333 2>/dev/null
size=$(wc -c < /tmp/rec-cat)
full=0
for cpu in $(seq 0 $((ncpu - 1))); do
	for k in hard soft; do
		case "$kinds" in *${k}irq*) ;; *) continue ;; esac
		n=$(grep -c "^record cpu=$cpu kind=$k lower_bound=0 " /tmp/rec-cat)
		[ "$n" = 64 ] && full=$((full + 1))
	done
done
nk=$(echo $kinds | wc -w)
# The largest element: one CPU's records (from its first record line to the next CPU's).
elem=$(awk '$1 == "record" || $1 == "frame" || $1 == "window_frame" || $1 ~ /^profile/ {
		if ($1 == "record") { split($2, c, "="); cur = c[2] }
		b[cur] += length($0) + 1 }
	END { m = 0; for (c in b) if (b[c] > m) m = b[c]; print m }' /tmp/rec-cat)
echo "# measured: $ncpu CPUs x 64 records x $nk kinds: records file $size bytes, largest per-CPU element $elem bytes"
check "records: every CPU keeps 64 records of each kind ($full of $((ncpu * nk)) stores full)" test "$full" = $((ncpu * nk))
check "records: read in 4096-byte chunks it equals one large read" cmp /tmp/rec-cat /tmp/rec-dd
check "records: read in 333-byte chunks it equals one large read" cmp /tmp/rec-cat /tmp/rec-odd
check "records: it ends in 'end' and the CLI parses it" sh -c "tail -n1 /tmp/rec-dd | grep -qx end && trace-irqoff records --json > /dev/null"
# Six readers each stopped after the first line: each holds only the buffer of the
# elements read so far (header and counters), not the whole file; readers that pinned the
# whole file would pin six copies in every try. Free memory also moves with whatever else
# the guest does meanwhile, so nothing here starts a process (a dd per reader made it
# fall by 204-604 kB in every try on debian-7.3-rt, where exited tasks are freed later,
# more than six copies of an 85 kB trace_latency): the reads and the sums are shell
# builtins, the pages on the per-CPU free lists count as free (/proc/zoneinfo's
# pagesets; MemFree leaves them out), and the smallest fall of three tries counts.
free_kb() {	# sets kb: MemFree and the per-CPU lists' pages (4 kB each), builtins only
	local k v rest f=0 c=0
	while read -r k v rest; do [ "$k" = MemFree: ] && f=$v; done < /proc/meminfo
	while read -r k v rest; do [ "$k" = count: ] && c=$((c + v)); done < /proc/zoneinfo
	kb=$((f + 4 * c))
}
half_read() {	# half_read FILE: sets $held (the smallest fall) and $falls (each try's)
	held= falls=
	for try in 1 2 3; do
		sync; echo 3 > /proc/sys/vm/drop_caches 2>/dev/null
		free_kb; before=$kb
		exec 3< $1 4< $1 5< $1 6< $1 7< $1 8< $1
		for fd in 3 4 5 6 7 8; do read -r line <&$fd; done
		free_kb; after=$kb
		exec 3<&- 4<&- 5<&- 6<&- 7<&- 8<&-
		fall=$((before - after))
		falls="$falls $fall"
		[ -n "$held" ] && [ "$held" -le "$fall" ] || held=$fall
	done
}
half_read $TIO/records
echo "# measured: 6 readers holding records open after one line each: free memory fell by$falls kB in three tries (file: $((size / 1024)) kB)"
check "records: 6 files read in part pin less than one copy of the file ($held kB < $((size / 1024)) kB)" test "$held" -lt $((size / 1024))

# trace_latency, the original tool's format, from the same full stores: one element per
# CPU and kind too, so chunked reads agree with one read, half-read files pin only their
# buffer, and the CLI's parser of the original format reads every record of it.
cat $TIO/trace_latency > /tmp/tl-cat
dd if=$TIO/trace_latency of=/tmp/tl-dd bs=4096 2>/dev/null
dd if=$TIO/trace_latency of=/tmp/tl-odd bs=333 2>/dev/null
tl_size=$(wc -c < /tmp/tl-cat)
cat $TIO/counters > /tmp/cn-cat
tio-time $TIO/trace_latency $TIO/records $TIO/counters $TIO/distribute |
	sed "s|^$TIO/\([^ ]*\) \([0-9]*\) \([0-9]*\) \([0-9]*\)|# measured: \1 read whole: \2 bytes in \3 us (\4 reads)|"
check "trace_latency: read in 4096-byte chunks it equals one large read" cmp /tmp/tl-cat /tmp/tl-dd
check "trace_latency: read in 333-byte chunks it equals one large read" cmp /tmp/tl-cat /tmp/tl-odd
nrec=$(grep -c '^record .* lower_bound=0 ' /tmp/rec-cat)
ncmd=$(grep -c '^     COMMAND: .* LATENCY: [0-9]*ms ' /tmp/tl-cat)
check "trace_latency: one COMMAND line per record of records ($ncmd, $nrec)" test "$ncmd" = "$nrec"
# One cpu: line per CPU and kind that has records: the injected kinds, and on PREEMPT_RT
# without the BH lock also softirq-off, where a hardirq window kept ktimers/N waiting.
pairs=$(sed -n 's/^record cpu=\([0-9]*\) kind=\([a-z]*\) .*/\1 \2/p' /tmp/rec-cat | sort -u | wc -l)
check "trace_latency: the original's layout (heading, hardirq:, softirq:, one cpu: line per CPU and kind with records: $pairs)" sh -c "
	head -n3 /tmp/tl-cat | tr '\n' '|' | grep -qx 'trace_irqoff_latency: 20ms|| hardirq:|' &&
	grep -qx ' softirq:' /tmp/tl-cat &&
	test \$(grep -c '^ cpu: ' /tmp/tl-cat) = $pairs && test $pairs -ge $((ncpu * nk))"
mkdir -p /tmp/orig/trace_irqoff
# (Not our distribute: its histograms by cause are not in the original's format.)
for f in enable sampling_period trace_latency; do cat $TIO/$f > /tmp/orig/trace_irqoff/$f; done
: > /tmp/orig/trace_irqoff/distribute
parsed=$(trace-irqoff --proc-root /tmp/orig records --json --limit 100000 2>&1 | grep -c '"latency_ns"')
nall=$(grep -c '^     COMMAND: ' /tmp/tl-cat)
check "trace_latency: the CLI's parser of the original format reads all $nall records ($parsed)" test "$parsed" = "$nall"
rm -rf /tmp/orig
half_read $TIO/trace_latency
echo "# measured: 6 readers holding trace_latency open after one line each: free memory fell by$falls kB in three tries (file: $((tl_size / 1024)) kB)"
check "trace_latency: 6 files read in part pin less than one copy of the file ($held kB < $((tl_size / 1024)) kB)" test "$held" -lt $((tl_size / 1024))

# counters: the counters of records without a record, and per CPU the longest window of
# each kind that records shows: what a metrics scrape reads, whatever the records hold.
check "counters: its cpu and hist lines are those of records" sh -c "
	grep -E '^(cpu|hist) ' /tmp/rec-cat > /tmp/rc-lines; grep -E '^(cpu|hist) ' /tmp/cn-cat > /tmp/cn-lines; cmp /tmp/rc-lines /tmp/cn-lines"
check "counters: no record or frame line, one worst line per CPU, and end" sh -c "
	! grep -qE '^(record|frame|window_frame|profile)' /tmp/cn-cat && test \$(grep -c '^worst ' /tmp/cn-cat) = $ncpu && tail -n1 /tmp/cn-cat | grep -qx end"
bad=
for cpu in $(seq 0 $((ncpu - 1))); do
	want=$(sed -n "s/^record cpu=$cpu kind=hard .* latency_ns=\([0-9]*\) .*/\1/p" /tmp/rec-cat | sort -n | tail -n1)
	got=$(sed -n "s/^worst $cpu hard_ns=\([0-9]*\) .*/\1/p" /tmp/cn-cat)
	[ "${want:-0}" = "$got" ] || bad="$bad cpu $cpu: worst $got, records ${want:-0};"
done
check "counters: each CPU's worst hardirq-off window is the longest of its records${bad:+ ($bad)}" test -z "$bad"
check "counters: trace-irqoff metrics reads it and gives the same worst windows" sh -c "
	trace-irqoff metrics > /tmp/m-cn && grep -q '^trace_irqoff_worst_latency_seconds{cpu=\"0\",kind=\"hard\",cause=\"\"} ' /tmp/m-cn"
rm -f /tmp/rec-cat /tmp/rec-dd /tmp/rec-odd /tmp/tl-cat /tmp/tl-dd /tmp/tl-odd /tmp/cn-cat /tmp/rc-lines /tmp/cn-lines /tmp/m-cn

# Files held open across rmmod: proc_remove waited for running operations; later ones
# fail with EIO (fs/proc/inode.c), and closing them is fine.
exec 3< $TIO/records 4> $TIO/trace_latency
dd bs=4096 count=1 <&3 > /dev/null 2>&1
rmmod irqoff_sample
check "records: rmmod with files held open" rmmod trace_irqoff
rd=$(dd bs=4096 count=1 <&3 2>&1 >/dev/null)
wr=$( (echo 0 >&4) 2>&1)
exec 3<&- 4>&-
echo "# measured: after rmmod, a held-open records read says '$rd', a held-open trace_latency write says '$wr'"
check "records: a read of a file held open across rmmod fails with EIO" sh -c "echo '$rd' | grep -q 'Input/output error'"
check "records: a write to a file held open across rmmod fails with EIO" sh -c "echo '$wr' | grep -q 'Input/output error'"
tio_load
