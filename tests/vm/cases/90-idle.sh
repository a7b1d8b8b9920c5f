# SPDX-License-Identifier: GPL-2.0
# An idle minute at the defaults yields no event. The suite's guest clock counts
# instructions (tests/vm/run --clock icount), so host scheduling cannot fake a gap.
tio_load
echo 1 > $TIO/enable
sleep 60
total=$(sed -n 's/^cpu [0-9]* .*hard_events=\([0-9]*\) soft_events=\([0-9]*\).*/\1 \2/p' $TIO/records | tr ' ' '\n' | awk '{s += $1} END {print s + 0}')
recs=$(grep -c '^record ' $TIO/records)
idle=$(sed -n 's/^cpu .*idle_gaps=\([0-9]*\).*/\1/p' $TIO/records | awk '{s += $1} END {print s + 0}')
echo "# measured: idle 60 s: $total events, $recs records, $idle late wake-ups from idle (not events)"
check "idle 60 s at P=10 ms, threshold 50 ms: no event ($total events, $recs records)" test "$total" = 0 -a "$recs" = 0
echo 0 > $TIO/enable
rmmod trace_irqoff
