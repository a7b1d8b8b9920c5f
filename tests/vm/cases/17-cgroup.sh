# SPDX-License-Identifier: GPL-2.0
# description: a record carries its culprit task's cgroup v2 id; the CLI resolves it to the path of nested cgroups (a systemd service, a Kubernetes pod's container) and groups by it
# needs: cgroups
# kernels: debian-7.3 debian-7.3-rt
# proves: a record names its culprit's cgroup (systemd service, Kubernetes pod)
# The culprit's container: a shell moved into a nested cgroup opens a 100 ms hardirq-off
# window from there; its record's cgroup= is that cgroup's id (the inode number of its
# directory on the cgroup2 mount), and the CLI shows the path, what it is (a service; a pod
# and container, with the pod UID and container id in JSON), and top groups by it.
CG=/sys/fs/cgroup
grep -q "^[^ ]* $CG cgroup2 " /proc/mounts || mount -t cgroup2 none $CG
CID=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
UID_=1234abcd-0000-4000-8000-000000000001
SVC=/system.slice/demo.service
POD=/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1234abcd_0000_4000_8000_000000000001.slice/cri-containerd-$CID.scope
mkdir -p $CG$SVC $CG$POD
tio_load
modprobe irqoff_sample
echo 1 > $TIO/enable
sleep 0.5
echo 0 > $TIO/trace_latency
# The window events too (trace_irqoff:hardirq_off carries cgroup=).
T=/sys/kernel/tracing
echo 1 > $T/events/trace_irqoff/enable
echo > $T/trace
# The writer is the shell itself (echo is a builtin), after it moved into the cgroup.
for cg in $SVC $POD; do
	taskset -c 1 sh -c "echo \$\$ > $CG$cg/cgroup.procs && echo hardirq 100 > /dev/irqoff_sample"
	sleep 0.3
done
svc_id=$(stat -c %i $CG$SVC)
pod_id=$(stat -c %i $CG$POD)
echo "# ids: $SVC $svc_id, pod container $pod_id"
grep '^record cpu=1 kind=hard ' $TIO/records | sed 's/^/#   /'
recs=$(grep '^record cpu=1 kind=hard lower_bound=0 ' $TIO/records | grep ' comm=sh ')
check "a 100 ms record of the shell in $SVC has cgroup=$svc_id (its directory's inode)" \
	sh -c "echo '$recs' | grep -qE ' cgroup=$svc_id( |\$)'"
check "... and one of the shell in the pod's container has cgroup=$pod_id" \
	sh -c "echo '$recs' | grep -qE ' cgroup=$pod_id( |\$)'"
check "the two ids differ, and neither is the root's" sh -c "test $svc_id != $pod_id && test $svc_id != 1 && test $pod_id != 1"
echo 0 > $T/events/trace_irqoff/enable
grep -E 'hardirq_off: cpu=1 ' $T/trace | sed 's/^/#   /'
check "the hardirq_off events carry the same ids (cgroup= after cause=)" sh -c "
	grep -qE 'hardirq_off: cpu=1 .* comm=sh cause=- cgroup=$svc_id end_ns=' $T/trace &&
	grep -qE 'hardirq_off: cpu=1 .* comm=sh cause=- cgroup=$pod_id end_ns=' $T/trace"

view=$(trace-irqoff records --kind hard --cpu 1 --oneline)
echo "$view" | sed 's/^/#   /'
check "records --oneline: the service's window says 'in demo.service'" sh -c "echo '$view' | grep -q 'sh\[[0-9]*\] in demo.service\$'"
check "... the pod's window names the pod and the container" sh -c "echo '$view' | grep -q 'sh\[[0-9]*\] in pod $UID_ container 0123456789ab\$'"
view=$(trace-irqoff records --kind hard --cpu 1)
check "records (stacked): the path and what it is" sh -c "echo '$view' | grep -qF 'cgroup of sh: $SVC (demo.service)' && echo '$view' | grep -qF 'cgroup of sh: $POD (pod $UID_ container 0123456789ab)'"
json=$(trace-irqoff records --json --kind hard --cpu 1)
check "records --json: cgroup_id, cgroup path, and the pod's UID, QoS and container id" sh -c "
	echo '$json' | grep -qE '\"cgroup_id\": $pod_id,' &&
	echo '$json' | grep -qF '\"cgroup\": \"$POD\"' &&
	echo '$json' | grep -qF '\"pod_uid\": \"$UID_\"' &&
	echo '$json' | grep -qF '\"qos\": \"burstable\"' &&
	echo '$json' | grep -qF '\"container_id\": \"$CID\"' &&
	echo '$json' | grep -qF '\"kind\": \"service\"'"
top=$(trace-irqoff top --by cgroup)
echo "$top" | sed 's/^/#   /'
check "top --by cgroup: a row per cgroup, the service's and the pod container's" sh -c "
	echo '$top' | head -n 1 | grep -q ' cgroup\$' &&
	echo '$top' | grep -q 'hardirq-off .* sh *$SVC (demo.service)\$' &&
	echo '$top' | grep -qF '$POD (pod $UID_'"
tj=$(trace-irqoff top --by cgroup --json)
check "top --by cgroup --json: the groups are the paths" sh -c "echo '$tj' | grep -qF '\"culprit\": \"$SVC\"' && echo '$tj' | grep -qF '\"culprit\": \"$POD\"'"
check "top --stack still works (as --by stack)" sh -c "trace-irqoff top --stack | grep -q irqoff_sample_hardirq_window"
# Gone: the service's shell has exited; its cgroup is removed, its records stay.
rmdir $CG$SVC
view=$(trace-irqoff records --kind hard --cpu 1 --oneline)
check "a removed cgroup shows as 'cgroup ID (gone)'" sh -c "echo '$view' | grep -q 'sh\[[0-9]*\] in cgroup $svc_id (gone)\$'"
rmmod irqoff_sample
echo 0 > $TIO/enable
rmmod trace_irqoff
rmdir $CG$POD $CG/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1234abcd_0000_4000_8000_000000000001.slice $CG/kubepods.slice/kubepods-burstable.slice $CG/kubepods.slice $CG/system.slice 2>/dev/null
true
