#!/bin/sh
# The delegated parent the helper relies on: root-owned 0700, cpu memory pids io in its
# subtree_control, and a leaf created in it has every interface file the helper and the
# report use (memory.peak and pids.peak need 5.19 / 6.1, cgroup.kill 5.14).
# vm-timeout: 30
# vm-cost: 3
# shellcheck source=tests/vm/lib.sh
. "$VMLIB"
P=/sys/fs/cgroup/sandcap

is "$(stat -f -c %T /sys/fs/cgroup)" cgroup2fs "/sys/fs/cgroup is cgroup2"
is "$(stat -c '%U:%G %a' $P)" "root:root 700" "delegated parent is root:root 0700"
for c in cpu memory pids io; do
	check "controller $c available in the parent" grep -qw $c $P/cgroup.controllers
	check "controller $c enabled for the parent's children" grep -qw $c $P/cgroup.subtree_control
done
is "$(cat $P/cgroup.procs)" "" "the parent holds no process"
is "$(cat /proc/self/cgroup)" "0::/scenario" "a root scenario runs in its own leaf"

L=$P/vm-01-leaf
check "root can create a leaf" mkdir $L
for f in memory.max memory.swap.max memory.peak memory.events memory.oom.group \
	pids.max pids.peak pids.events cpu.max cpu.stat io.max cgroup.kill cgroup.events; do
	check "leaf has $f" test -e $L/$f
done
check "memory.max accepts 32M" sh -c "echo 33554432 > $L/memory.max"
is "$(cat $L/memory.max)" 33554432 "memory.max reads back"
check "cpu.max accepts 50%" sh -c "echo '50000 100000' > $L/cpu.max"
is "$(cat $L/cpu.max)" "50000 100000" "cpu.max reads back"
check "leaf removed" rmdir $L
done_testing
