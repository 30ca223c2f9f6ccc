#!/bin/sh
# A sandboxed process tries to leave its leaf (every reachable cgroup.procs), to raise its limits, to make sub-cgroups, and to remount cgroup2 in a user namespace; the user tries to plant symlinks in the workspace root.  Nothing succeeds.
# Each line of hostile-client is one case with a fresh helper (tests/vm/hostile-client.c).
# vm-timeout: 90
# vm-cost: 2
. "$VMLIB"
run_hostile escape
# The workspace root and the per-user dir are root-owned: no symlink or dir can be planted
# where the helper creates and removes things (ids are made by the helper, never sent).
check_fails "cannot plant a symlink in /run/sandcap" ln -s / /run/sandcap/$SCTEST_UID-0000000000000000
check_fails "cannot plant .locks in /run/sandcap" ln -s /etc /run/sandcap/.locks-x
check_fails "cannot create entries in the cgroup parent" mkdir /sys/fs/cgroup/sandcap/$SCTEST_UID-0000000000000000
check_fails "cannot read the cgroup parent (root 0700)" ls /sys/fs/cgroup/sandcap
done_testing
