#!/bin/sh
# Run as root, acting as the two test users: sctest cannot raise its leaf's limits or
# move processes out of it; scother cannot kill or destroy sctest's sandbox
# (requests name no objects and carry no pid, so the only way would be the files).
# vm-timeout: 120
# vm-cost: 4
. "$VMLIB"
P=$TESTS/probe-client
as() { u=$1; shift; env SANDCAP_HELPER="$SANDCAP_HELPER" vm-as-user "$u" "$@"; }
wait_for() { i=0; while [ $i -lt 300 ] && ! grep -q "$1" "$2"; do sleep 0.1; i=$((i + 1)); done; }

# The sandbox lives until every check ran (SIGUSR1 ends probe-client's sleep): with a fixed
# few seconds a busy machine ended it first, and the refusals then passed on a leaf that
# was already gone.
as sctest "$P" -a child -s 100 > "$SCRATCH/a" 2>&1 &
a=$!
wait_for "spawn ok" "$SCRATCH/a"
id=$(sed -n 's/^id //p' "$SCRATCH/a")
L=/sys/fs/cgroup/sandcap/$SCTEST_UID/$id
is "$(stat -c %U "$L") $(stat -c %U "$L/memory.max") $(stat -c %U "$L/cgroup.procs")" \
	"root root root" "the leaf and its files are owned by root"
# Every file, not a sample: the helper hands them over in one capability bracket.
is "$(find "$L" -maxdepth 1 \! -user root | wc -l)" "0" "no file of the leaf is left to the user"
is "$(stat -c '%U %a' "$L/memory.events" "$L/cgroup.events" | sort -u)" "root 444" \
	"a read-only file of the leaf is root's 0444"
is "$(find "/sys/fs/cgroup/sandcap/$SCTEST_UID" -maxdepth 1 \! -user root | wc -l)" "0" \
	"no file of the per-user level is left to the user"
# Through a descriptor of the leaf (what sandcap holds; the 0700 parent keeps everyone
# else out): sctest reads the read-only files and can chmod none of its files.
out=$(setpriv --reuid=sctest --regid=sctest --clear-groups python3 -c '
import os
for name in ("memory.events", "cgroup.events", "cpu.stat", "memory.max"):
    try:
        os.chmod(name, 0o666, dir_fd=3)
        what = "CHMOD"
    except OSError as e:
        what = "chmod: " + e.strerror
    try:
        os.close(os.open(name, os.O_RDONLY, dir_fd=3))
        print(name, what, "read")
    except OSError as e:
        print(name, what, "read:", e.strerror)
' 3< "$L" 2>&1)
is "$out" "memory.events chmod: Operation not permitted read
cgroup.events chmod: Operation not permitted read
cpu.stat chmod: Operation not permitted read
memory.max chmod: Operation not permitted read" \
	"through the leaf's fd, sctest reads its files and can chmod none"
pid=$(head -n 1 "$L/cgroup.procs")
like "$pid" '^[0-9]+$' "the sandboxed process is in the leaf"
check_fails "sctest cannot write memory.max" as sctest sh -c "echo max > $L/memory.max"
check_fails "sctest cannot write pids.max" as sctest sh -c "echo max > $L/pids.max"
check_fails "sctest cannot make sub-cgroups" as sctest mkdir "$L/sub"
check_fails "sctest cannot move its process out" \
	as sctest sh -c "echo $pid > /sys/fs/cgroup/users/sctest/cgroup.procs"
check_fails "sctest cannot write cgroup.kill" as sctest sh -c "echo 1 > $L/cgroup.kill"
check_fails "scother cannot write cgroup.kill" as scother sh -c "echo 1 > $L/cgroup.kill"
check_fails "scother cannot rmdir the leaf" as scother rmdir "$L"
check "sctest's process is still alive in its leaf" grep -qx "$pid" "$L/cgroup.procs"
# $a is the subshell running as(); the signal goes to probe-client itself.
pkill -USR1 -u sctest -x probe-client
wait $a
is "$?" 0 "sctest's sandbox ends cleanly"
done_testing
