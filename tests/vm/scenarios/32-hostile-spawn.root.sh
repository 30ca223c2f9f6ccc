#!/bin/sh
# SPAWN (the helper creates the sandbox's first process in the leaf): fds that are not a unix socket are refused with the leaf left empty; 0 or 2 fds and a second SPAWN break the protocol (teardown, the process killed); the process is sctest's child, in the leaf, without capabilities and (checked by root) with one fd, a socket; a missing or malformed stage ends it with 125, EOF on the session kills it, a valid stage runs its command with no capability and no_new_privs; signals sent before its stage wait until the stage.
# hostile-client spawn runs as sctest (tests/vm/hostile-client.c); root only reads /proc/PID/fd of the spawned process, which the helper's capabilities leave non-dumpable.
# vm-timeout: 150
# vm-cost: 5
# shellcheck source=tests/vm/lib.sh
. "$VMLIB"
S=/tmp/hostile-spawn  # sctest writes here too: $SCRATCH is root's
rm -rf "$S"; mkdir -p "$S"; chmod 0777 "$S"
wait_file() { i=0; while [ $i -lt 300 ] && [ ! -e "$1" ]; do sleep 0.1; i=$((i + 1)); done; [ -e "$1" ]; }

env SANDCAP_HELPER="$SANDCAP_HELPER" HOSTILE_SYNC="$S" vm-as-user sctest \
	"$TESTS/hostile-client" spawn > "$S/out" 2> "$S/err" &
client=$!
if wait_file "$S/spawned"; then
	P=$(cat "$S/spawned")
	# The process closes the helper's fds right after its capability drop: give it time.
	# It keeps fds 0-2, which sandcap gave the helper, for the stage to replace.
	above2() { find /proc/"$P"/fd -mindepth 1 ! -name 0 ! -name 1 ! -name 2 2>/dev/null | wc -l; }
	i=0
	while [ $i -lt 50 ] && [ "$(above2)" -ne 1 ]; do
		sleep 0.1; i=$((i + 1))
	done
	fds=$(for f in /proc/"$P"/fd/*; do printf '%s->%s ' "${f##*/}" "$(readlink "$f")"; done)
	is "$(above2)" 1 "SPAWN: beyond fds 0-2 the process holds one fd (root reads /proc/$P/fd: $fds)"
	like "$fds" '(^| )([3-9]|[1-9][0-9]+)->socket:\[[0-9]+\]' "SPAWN: that fd is a socket"
	check_fails "SPAWN: none of its fds is the helper's cgroup, lock, workspace or policy" \
		sh -c "printf '%s' '$fds' | grep -Eq '(/sys/fs/cgroup|/run/sandcap|/etc/sandcap)'"
	is "$(awk '/^Uid:/ { print $2, $3, $4, $5 }' /proc/"$P"/status)" \
		"$SCTEST_UID $SCTEST_UID $SCTEST_UID $SCTEST_UID" \
		"SPAWN: the process runs as sctest (all four uids)"
	touch "$S/fdchecked"
else
	fail "the client spawned a process for root to look at" "$(cat "$S/err")"
fi
wait "$client"
hrc=$?
hostile_tap "$S/out"
if [ "$hrc" -gt 1 ]; then
	fail "hostile-client spawn ran to the end" "exit $hrc"
	sed 's/^/# /' "$S/err"
fi
done_testing
