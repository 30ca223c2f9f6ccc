#!/bin/sh
# The test user, without the helper, cannot touch the delegated parent: no listing, no
# mkdir, no write to its files, no escape from its own cgroup into another one.
# vm-timeout: 30
# vm-cost: 3
# shellcheck source=tests/vm/lib.sh
. "$VMLIB"
P=/sys/fs/cgroup/sandcap

is "$(id -u)" "$SCTEST_UID" "runs as sctest"
like "$(id -Gn)" '(^| )scdev( |$)' "sctest is in scdev"
is "$(awk '/^CapEff/ { print $2 }' /proc/self/status)" 0000000000000000 "no effective capability"
is "$(cat /proc/self/cgroup)" "0::/users/sctest" "the user's shell runs in users/sctest"
check_fails "cannot list the 0700 parent" ls $P
check_fails "cannot mkdir under the parent" mkdir $P/mine
check_fails "cannot write the parent's subtree_control" sh -c "echo -pids > $P/cgroup.subtree_control"
check_fails "cannot write the parent's cgroup.procs" sh -c "echo \$\$ > $P/cgroup.procs"
check_fails "cannot move itself into the root cgroup" sh -c 'echo $$ > /sys/fs/cgroup/cgroup.procs'
check_fails "cannot move itself into the harness leaf" \
	sh -c 'echo $$ > /sys/fs/cgroup/harness/cgroup.procs'
check_fails "cannot create a cgroup next to the parent" mkdir /sys/fs/cgroup/mine
check_fails "cannot change the root's subtree_control" \
	sh -c 'echo -memory > /sys/fs/cgroup/cgroup.subtree_control'
check_fails "cannot kill the harness through cgroup.kill" \
	sh -c 'echo 1 > /sys/fs/cgroup/harness/cgroup.kill'
out=$("$TESTS/probe-capcg" --no-raise 2>&1)
like "$out" 'mkdir leaf: EACCES' "a helper-like binary that does not raise its caps gets EACCES"
check_fails "cannot write the host's root (read-only)" sh -c ': > /usr/sandcap-vm-user-probe'
done_testing
