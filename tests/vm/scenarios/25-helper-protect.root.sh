#!/bin/sh
# Run as root, acting as the two test users: sbxtest cannot raise its leaf's limits or
# move processes out of it; sbxother cannot attach to, kill or destroy sbxtest's sandbox
# (requests name no objects, so the only ways are ATTACH of a foreign pid and the files).
# vm-timeout: 60
. "$VMLIB"
P=$TESTS/probe-client
as() { u=$1; shift; env SBX_HELPER="$SBX_HELPER" vm-as-user "$u" "$@"; }
wait_for() { i=0; while [ $i -lt 100 ] && ! grep -q "$1" "$2"; do sleep 0.1; i=$((i + 1)); done; }

as sbxtest "$P" -a child -s 6 > "$SCRATCH/a" 2>&1 &
a=$!
wait_for "attach ok" "$SCRATCH/a"
id=$(sed -n 's/^id //p' "$SCRATCH/a")
L=/sys/fs/cgroup/sbx/$id
is "$(stat -c %U "$L") $(stat -c %U "$L/memory.max") $(stat -c %U "$L/cgroup.procs")" \
	"root root root" "the leaf and its files are owned by root"
pid=$(head -n 1 "$L/cgroup.procs")
like "$pid" '^[0-9]+$' "the sandboxed process is in the leaf"
check_fails "sbxtest cannot write memory.max" as sbxtest sh -c "echo max > $L/memory.max"
check_fails "sbxtest cannot write pids.max" as sbxtest sh -c "echo max > $L/pids.max"
check_fails "sbxtest cannot make sub-cgroups" as sbxtest mkdir "$L/sub"
check_fails "sbxtest cannot move its process out" \
	as sbxtest sh -c "echo $pid > /sys/fs/cgroup/users/sbxtest/cgroup.procs"
check_fails "sbxtest cannot write cgroup.kill" as sbxtest sh -c "echo 1 > $L/cgroup.kill"
check_fails "sbxother cannot write cgroup.kill" as sbxother sh -c "echo 1 > $L/cgroup.kill"
check_fails "sbxother cannot rmdir the leaf" as sbxother rmdir "$L"
out=$(as sbxother "$P" -a "pid:$pid" 2>&1)
like "$out" "^error attach 1 " "sbxother cannot ATTACH sbxtest's process to its own sandbox"
check "sbxtest's process is still alive in its leaf" grep -qx "$pid" "$L/cgroup.procs"
wait $a
is "$?" 0 "sbxtest's sandbox ends cleanly"
done_testing
