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
# Every file, not a sample: the helper hands them over in one capability bracket (#19).
# Only files without a write handler stay the user's in a leaf (#19, cg_file_read_only()):
# none of them may have a write bit, on this kernel or any the suite runs.
is "$(find "$L" -maxdepth 1 \! -user root -perm /222 | wc -l)" "0" \
	"no writable file of the leaf is left to the user"
is "$(find "$L" -maxdepth 1 \! -user root | wc -l)" "13" \
	"the leaf's 13 read-only files on this kernel stay the user's (and only those)"
is "$(stat -c '%U %a' "$L/memory.events" "$L/cgroup.events" | sort -u)" "sctest 444" \
	"a read-only file left to the user is mode 0444"
is "$(find "/sys/fs/cgroup/sandcap/$SCTEST_UID" -maxdepth 1 \! -user root | wc -l)" "0" \
	"no file of the per-user level is left to the user"
# Through a descriptor of the leaf (what sandcap holds; the 0700 parent keeps everyone
# else out): sctest may chmod a read-only file it owns and even open it for writing (cgroupfs
# checks only the mode), but a write fails (EINVAL: the file has no write method,
# cgroup_file_write()); a limit it cannot even open.  Can fail: a kernel that gave one of
# these files a write method.
out=$(setpriv --reuid=sctest --regid=sctest --clear-groups python3 -c '
import os
for name in ("memory.events", "cgroup.events", "cpu.stat", "memory.max"):
    try:
        os.chmod(name, 0o666, dir_fd=3)
        what = "chmod"
    except OSError as e:
        what = "nochmod"
    try:
        fd = os.open(name, os.O_WRONLY, dir_fd=3)
        try:
            os.write(fd, b"1")
            print(name, what, "WRITTEN")
        except OSError as e:
            print(name, what, "opened, write:", e.strerror)
        os.close(fd)
    except OSError as e:
        print(name, what, e.strerror)
    try:
        os.chmod(name, 0o444, dir_fd=3)
    except OSError:
        pass
' 3< "$L" 2>&1)
is "$out" "memory.events chmod opened, write: Invalid argument
cgroup.events chmod opened, write: Invalid argument
cpu.stat chmod opened, write: Invalid argument
memory.max nochmod Permission denied" \
	"through the leaf's fd, sctest can chmod its read-only files but write none of them"
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
