# SPDX-License-Identifier: GPL-2.0
# The records file at its largest: records_per_cpu=64 on every CPU, full of hardirq and
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
for cpu in $(seq 0 $((ncpu - 1))); do
	for mode in $kinds; do
		i=0
		while [ $i -lt 66 ]; do inject $cpu $mode $win; i=$((i + 1)); done
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
# Six readers each stopped after 4 KiB: each holds only the buffer of the elements read
# so far (header and counters), not the whole file. MemFree also moves with whatever
# else the guest allocates meanwhile (per-CPU page lists, kernel threads; once 436 kB on
# debian-7.3-rt), so the smallest fall of three tries counts: readers that pinned the
# whole file would pin six copies in every try.
free_kb() { sed -n 's/^MemFree: *\([0-9]*\) kB/\1/p' /proc/meminfo; }
held= falls=
for try in 1 2 3; do
	sync; echo 3 > /proc/sys/vm/drop_caches 2>/dev/null
	before=$(free_kb)
	exec 3< $TIO/records 4< $TIO/records 5< $TIO/records 6< $TIO/records 7< $TIO/records 8< $TIO/records
	for fd in 3 4 5 6 7 8; do dd bs=4096 count=1 <&$fd > /dev/null 2>&1; done
	after=$(free_kb)
	exec 3<&- 4<&- 5<&- 6<&- 7<&- 8<&-
	fall=$((before - after))
	falls="$falls $fall"
	[ -n "$held" ] && [ "$held" -le "$fall" ] || held=$fall
done
echo "# measured: 6 readers holding records open after 4 KiB each: MemFree fell by$falls kB in three tries (file: $((size / 1024)) kB)"
check "records: 6 half-read files pin less than one copy of the file ($held kB < $((size / 1024)) kB)" test "$held" -lt $((size / 1024))
rm -f /tmp/rec-cat /tmp/rec-dd /tmp/rec-odd

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
