#!/bin/sh
# Reclaiming a leftover kills whatever it holds: a leftover leaf of sctest that holds a
# process of another uid (no helper moves a process into a leaf: root's doing here; a
# sandbox can also become another uid through a user namespace and the user's subuid
# range, and must not keep its leaf alive that way) is killed and removed when sctest's
# next sandbox reclaims, like one holding only sctest's processes.
# vm-timeout: 60
# vm-cost: 2
. "$VMLIB"
P=/sys/fs/cgroup/sandcap
stranger=$P/$SCTEST_UID/$SCTEST_UID-00000000deadbeef
mine=$P/$SCTEST_UID/$SCTEST_UID-00000000cafef00d

mkdir -p "$P/$SCTEST_UID"
mkdir "$stranger" "$mine"
sleep 300.2828 & rootpid=$!
echo "$rootpid" > "$stranger/cgroup.procs"
vm-as-user sctest sleep 300.2929 & userpid=$!
# Only once vm-as-user has moved itself to users/sctest and exec'd sleep (slow in UML).
i=0; while [ $i -lt 100 ] && [ "$(cat /proc/$userpid/comm 2>/dev/null)" != sleep ]; do sleep 0.1; i=$((i + 1)); done
echo "$userpid" > "$mine/cgroup.procs" 2>/dev/null || \
	echo "$(pgrep -f 'sleep 300.2929' | head -n 1)" > "$mine/cgroup.procs"

run_rc vm-as-user sctest env SANDCAP_HELPER="$SANDCAP_HELPER" "$SANDCAP" run -q -- true
is "$rc" 0 "sctest's next sandbox runs"
# Dead is a zombie here (our child, unreaped) or gone; bounded, so that a helper that left
# it alive fails the check instead of hanging the scenario.
dead() { s=$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null); [ -z "$s" ] || [ "$s" = Z ]; }
i=0; while [ $i -lt 50 ] && ! dead "$rootpid"; do sleep 0.1; i=$((i + 1)); done
check "the other uid's process in the leftover leaf was killed" dead "$rootpid"
kill "$rootpid" 2>/dev/null
wait "$rootpid" 2>/dev/null
check_fails "that leftover was removed" test -d "$stranger"
check_fails "the leftover holding only sctest's process was reclaimed" test -d "$mine"
check_fails "and its process killed" pgrep -f 'sleep 300.2929'

rmdir "$P/$SCTEST_UID" 2>/dev/null
done_testing
