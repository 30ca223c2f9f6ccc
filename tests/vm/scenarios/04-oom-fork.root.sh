#!/bin/sh
# A fork that runs out of memory half-way: a process with many mappings forks in a cgroup
# at its memory limit, the fork's own copy of the mappings pushes the cgroup over, the memcg
# OOM killer kills the forking process, and the kernel tears down the half-copied child.  A
# sandbox at its limit that forks does this; the guest kernel must survive it, on both
# kernels (the 6.12 user-mode kernel only with tests/vm/kernel-6.12-um-fork-oom.patch).
# vm-kernel: both
# vm-timeout: 120
# vm-cost: 4
# shellcheck source=tests/vm/lib.sh
. "$VMLIB"
L=/sys/fs/cgroup/sandcap/vm-04-oom-fork
ROUNDS=3

r=1
while [ $r -le $ROUNDS ]; do
	mkdir $L
	echo 0 > $L/memory.swap.max 2>/dev/null
	sh -c 'echo $$ > '$L'/cgroup.procs && exec "$1" '$L -- "$TESTS/probe-forkoom" \
		> "$SCRATCH/out.$r" 2>&1
	rc=$?
	kills=$(awk '$1 == "oom_kill" { print $2 }' $L/memory.events)
	diag "round $r: exit $rc, oom_kill $kills: $(tr '\n' ';' < "$SCRATCH/out.$r")"
	is "$rc" 137 "round $r: the forker at its limit is killed by SIGKILL (exit 137)"
	ge "$kills" 1 "round $r: memory.events oom_kill >= 1"
	is "$(awk '$1 == "populated" { print $2 }' $L/cgroup.events)" 0 "round $r: the leaf is empty"
	rmdir $L
	r=$((r + 1))
done
# Still here, and still forking: the teardown of the half-copied children broke nothing.
is "$(sh -c 'echo alive')" alive "the guest kernel survived the forks killed at the limit"
done_testing
