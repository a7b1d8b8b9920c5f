# SPDX-License-Identifier: GPL-2.0
# description: four writers toggling enable 500 times each leave a consistent state
# kernels: test debian-7.3
# proves: writes are serialised: concurrent writers leave a consistent state
# Four writers toggling enable 500 times each leave a consistent state.
tio_load
modprobe irqoff_sample
for w in 1 2 3 4; do
	( i=0; while [ $i -lt 500 ]; do echo 1 > $TIO/enable; echo 0 > $TIO/enable; i=$((i + 1)); done ) &
done
# A reader runs alongside.
( i=0; while [ $i -lt 200 ]; do cat $TIO/records $TIO/trace_latency > /dev/null; i=$((i + 1)); done ) &
wait
state=$(cat $TIO/enable)
check "after 4 x 500 concurrent toggles enable reads a valid state ($state)" sh -c "test '$state' = enabled || test '$state' = disabled"
echo 0 > $TIO/enable
echo 0 > $TIO/trace_latency
inject 1 hardirq 60
sleep 0.2
check "disabled after the storm: no sampler left running (no event)" test "$(events 1 hard)" = 0
echo 1 > $TIO/enable
sleep 0.1
inject 1 hardirq 60
sleep 0.2
check "enabled again: detects" test "$(events 1 hard)" -ge 1
echo 0 > $TIO/enable
rmmod irqoff_sample
rmmod trace_irqoff
