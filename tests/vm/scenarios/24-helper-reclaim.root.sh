#!/bin/sh
# The helper killed with SIGKILL: the sandbox stays limited (leaf and limits in place),
# and the user's next sandbox reclaims the leftovers.  The client killed with SIGKILL:
# the helper sees EOF and tears everything down.
# Runs as root to look at the 0700 parent; every probe runs as sctest.
# vm-timeout: 90
# vm-cost: 8
. "$VMLIB"
P="env SANDCAP_HELPER=$SANDCAP_HELPER vm-as-user sctest $TESTS/probe-client"
MB=1048576
wait_for() { i=0; while [ $i -lt 100 ] && ! grep -q "$1" "$2"; do sleep 0.1; i=$((i + 1)); done; }

# --- helper SIGKILLed
$P -m $((96 * MB)) -a child -s 20 > "$SCRATCH/a" 2>&1 &
a=$!
wait_for "spawn ok" "$SCRATCH/a"
hp=$(sed -n 's/^helper //p' "$SCRATCH/a")
id=$(sed -n 's/^id //p' "$SCRATCH/a")
ws=$(sed -n 's/^ws //p' "$SCRATCH/a")
check "the helper can be killed by its user" vm-as-user sctest kill -KILL "$hp"
sleep 0.5
check "the leaf survives the helper" test -d "/sys/fs/cgroup/sandcap/$SCTEST_UID/$id"
is "$(cat "/sys/fs/cgroup/sandcap/$SCTEST_UID/$id/memory.max" 2>&1)" "$((96 * MB))" "its memory limit still holds"
like "$(cat "/sys/fs/cgroup/sandcap/$SCTEST_UID/$id/cgroup.procs")" "[0-9]" "its process still runs inside"
check "its workspace is still mounted" grep -q " $ws " /proc/mounts
# cgroup.events, which reclaim waits on, is root's 0444: the user cannot make it unreadable
# to keep the leftover from being reclaimed (25-helper-protect).
is "$(stat -c '%U %a' "/sys/fs/cgroup/sandcap/$SCTEST_UID/$id/cgroup.events")" "root 444" \
	"the leftover's cgroup.events is root's 0444"
out=$($P -a none 2>&1); rc=$?
is "$rc" 0 "the next sandbox of the user succeeds"
check_fails "it reclaimed the dead helper's leaf" test -e "/sys/fs/cgroup/sandcap/$SCTEST_UID/$id"
check_fails "it reclaimed the dead helper's workspace" grep -q " $ws " /proc/mounts
kill -KILL $a 2>/dev/null       # the first client would sleep out its 20 s: nothing to see
wait $a 2>/dev/null

# --- client SIGKILLed
$P -a child -s 20 > "$SCRATCH/b" 2>&1 &
b=$!
wait_for "spawn ok" "$SCRATCH/b"
id=$(sed -n 's/^id //p' "$SCRATCH/b")
hp=$(sed -n 's/^helper //p' "$SCRATCH/b")
kill -KILL $b
wait $b 2>/dev/null
i=0; while [ $i -lt 50 ] && [ -e "/sys/fs/cgroup/sandcap/$SCTEST_UID/$id" ]; do sleep 0.1; i=$((i + 1)); done
check_fails "the helper tore the leaf down after the client died" test -e "/sys/fs/cgroup/sandcap/$SCTEST_UID/$id"
i=0; while [ $i -lt 50 ] && [ -e "/proc/$hp" ] && ! grep -q "^State:.*Z" "/proc/$hp/status"; do
	sleep 0.1; i=$((i + 1)); done
check_fails "the helper has exited" sh -c "[ -e /proc/$hp ] && ! grep -q '^State:.*Z' /proc/$hp/status"

# --- client exits without DESTROY (EOF on the socket)
out=$($P -a child -x 2>&1); rc=$?
is "$rc" 0 "a client may just exit"
id=$(printf '%s\n' "$out" | sed -n 's/^id //p')
i=0; while [ $i -lt 50 ] && [ -e "/sys/fs/cgroup/sandcap/$SCTEST_UID/$id" ]; do sleep 0.1; i=$((i + 1)); done
check_fails "EOF tears the sandbox down" test -e "/sys/fs/cgroup/sandcap/$SCTEST_UID/$id"

# --- SIGTERM to the helper
$P -a child -s 20 > "$SCRATCH/c" 2>&1 &
c=$!
wait_for "spawn ok" "$SCRATCH/c"
id=$(sed -n 's/^id //p' "$SCRATCH/c")
hp=$(sed -n 's/^helper //p' "$SCRATCH/c")
vm-as-user sctest kill -TERM "$hp"
i=0; while [ $i -lt 50 ] && [ -e "/sys/fs/cgroup/sandcap/$SCTEST_UID/$id" ]; do sleep 0.1; i=$((i + 1)); done
check_fails "SIGTERM to the helper tears the sandbox down" test -e "/sys/fs/cgroup/sandcap/$SCTEST_UID/$id"
kill -KILL $c 2>/dev/null
wait $c 2>/dev/null
done_testing
