#!/bin/sh
# Reclaiming leftovers never kills a stranger: a leftover leaf of sctest that holds a
# process of another uid (root's doing: no helper moves a process into a leaf) is left in
# place, not killed, when sctest's next sandbox reclaims; one holding only sctest's
# processes is reclaimed.
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
check "the root process in the leftover leaf was not killed" kill -0 "$rootpid"
check "that leaf is left in place for the admin" test -d "$stranger"
check_fails "the leftover holding only sctest's process was reclaimed" test -d "$mine"
check_fails "and its process killed" pgrep -f 'sleep 300.2929'

kill "$rootpid"; wait "$rootpid" 2>/dev/null
rmdir "$stranger" "$P/$SCTEST_UID"
done_testing
