#!/bin/sh
# sandcap-helper driven directly by probe-client: CREATE writes every limit before SPAWN,
# the leaf and its files belong to root, SPAWN makes our process in the leaf, KILL and
# DESTROY leave nothing behind (the harness checks leftovers after the scenario too).
# vm-timeout: 60
# vm-cost: 4
. "$VMLIB"
P=$TESTS/probe-client
MB=1048576

out=$("$P" -m $((100 * MB)) -c 50 -p 20 -d $((8 * MB)) -P -a child -k 2>&1); rc=$?
printf '%s\n' "$out" | sed 's/^/# /'
is "$rc" 0 "create/spawn/kill/destroy succeeds"
id=$(printf '%s\n' "$out" | sed -n 's/^id //p')
like "$id" "^$SCTEST_UID-[0-9a-f]{16}\$" "the helper names the leaf <uid>-<16 hex>"
like "$out" "memory.max $((100 * MB))" "memory.max has the requested value"
like "$out" "memory.swap.max (0|<No such file or directory>)" "memory.swap.max is 0 (or not accounted)"
like "$out" "memory.oom.group 1" "memory.oom.group is 1"
like "$out" "cpu.max 50000 100000" "cpu.max is 50% of one CPU"
like "$out" "pids.max 20" "pids.max has the requested value"
like "$out" "spawn ok" "SPAWN makes the sandbox's process"
like "$out" "pids_peak [1-9]" "the child ran inside the leaf (pids.peak >= 1)"
like "$out" "destroy ok" "DESTROY reports a complete teardown"

# Defaults from [defaults] when nothing is asked.
out=$("$P" -a none 2>&1); rc=$?
is "$rc" 0 "a request without limits succeeds"
like "$out" "memory $((128 * MB))" "memory defaults to [defaults] memory"
like "$out" "pids 64" "pids defaults to [defaults] pids"
like "$out" "disk $((16 * MB))" "disk defaults to [defaults] disk"

# The workspace: a tmpfs owned by the caller, mode 0700, nosuid,nodev, size-limited.
# The sandbox lives until we are done looking (SIGUSR1 ends probe-client's sleep), not for
# a fixed time a busy machine could outlast.
"$P" -d $((4 * MB)) -a child -s 40 > "$SCRATCH/ws.out" 2>&1 &
bg=$!
i=0
while [ $i -lt 300 ] && ! grep -q "spawn ok" "$SCRATCH/ws.out"; do sleep 0.1; i=$((i + 1)); done
ws=$(sed -n 's/^ws //p' "$SCRATCH/ws.out")
id=$(sed -n 's/^id //p' "$SCRATCH/ws.out")
like "$ws" "^/run/sandcap/$SCTEST_UID/$SCTEST_UID-" "workspace path is workspace_root/<uid>/<id>"
is "$(stat -c '%U %a' "$ws")" "sctest 700" "workspace root is owned by the caller, mode 0700"
is "$(stat -f -c %T "$ws")" "tmpfs" "workspace is a tmpfs"
like "$(awk -v m="$ws" '$2 == m { print $4 }' /proc/mounts)" "nosuid.*nodev|nodev.*nosuid" \
	"workspace is mounted nosuid,nodev"
run_rc dd if=/dev/zero of="$ws/big" bs=1M count=8 status=none
check_fails "writing past the disk limit fails" [ "$rc" -eq 0 ]
is "$(stat -c '%U %a' "/run/sandcap/$SCTEST_UID")" "root 755" "workspace_root/<uid> is root-owned 0755"
is "$(stat -c '%U %a' /sys/fs/cgroup/sandcap 2>/dev/null || echo denied)" "root 700" \
	"the delegated parent stays root 0700"
kill -USR1 $bg
wait $bg
is "$?" 0 "the second sandbox tears down cleanly"
check_fails "its workspace is gone" test -e "$ws"
# (the harness checks, as root, that no leaf, mount or workspace dir is left)
done_testing
