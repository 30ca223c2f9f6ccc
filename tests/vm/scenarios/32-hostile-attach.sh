#!/bin/sh
# ATTACH of fds that are not the caller's fresh child (socket, file, cgroup dir, /proc dirfd, reaped child, thread, the caller) is refused with the leaf left empty; a child that exits and is reaped during ATTACH, raced 40 times, is attached or refused and always torn down.
# Each line of hostile-client is one case with a fresh helper (tests/vm/hostile-client.c).
# vm-timeout: 150
# vm-cost: 5
. "$VMLIB"
run_hostile attach
done_testing
