#!/bin/sh
# Run as root, acting as sctest through sandcap run (issue 5): everything of a sandbox goes
# away — on timeout with a TERM-ignoring process and a double-forked setsid'd grandchild,
# when sandcap itself is SIGKILLed mid-run (leaving no report file or temporary), and after 20 sandboxes at once; the sandboxed user
# cannot raise its leaf's limits or move a process out of the leaf.
# vm-timeout: 240
# vm-cost: 23
# shellcheck source=tests/vm/lib.sh
. "$VMLIB"
R=$SCRATCH
P=/sys/fs/cgroup/sandcap
W=/run/sandcap/$SCTEST_UID
chmod 0777 "$R"
as() { u=$1; shift; env SANDCAP_HELPER="$SANDCAP_HELPER" TMPDIR=/tmp vm-as-user "$u" "$@"; }
# wait_gone PATH: up to 5 s for PATH to disappear
wait_gone() { i=0; while [ $i -lt 50 ] && [ -e "$1" ]; do sleep 0.1; i=$((i + 1)); done; ! [ -e "$1" ]; }
wait_file() { i=0; while [ $i -lt 100 ] && ! [ -s "$1" ]; do sleep 0.1; i=$((i + 1)); done; [ -s "$1" ]; }
no_proc() { i=0; while [ $i -lt 50 ] && pgrep -f "$1" > /dev/null; do sleep 0.1; i=$((i + 1)); done
	! pgrep -f "$1" > /dev/null; }
leaves() { find "$P" -mindepth 2 -maxdepth 2 -type d | wc -l; }

# ---- timeout: a TERM-ignoring main process and a double-forked, setsid'd grandchild ----
as sctest "$SANDCAP" run -q --timeout 1 --grace 1 --report "$R/to.json" -- sh -c '
	echo "$TMPDIR" > '"$R"'/to.ws
	(setsid sh -c "trap \"\" TERM; exec sleep 100.361" > /dev/null 2>&1 < /dev/null &)
	trap "" TERM; sleep 50; sleep 50'
is "$?" 124 "timeout, TERM ignored, grandchild escaped with setsid: exit 124"
id=$(json_get "$R/to.json" .id)
like "$id" "^$SCTEST_UID-" "timeout: the report names the sandbox"
is "$(cat "$R/to.ws")" "$W/$id" "timeout: the workspace was $W/<id>"
check "timeout: the setsid'd grandchild is dead" no_proc "sleep 100.361"
check_fails "timeout: no sctest process left" pgrep -u sctest
check_fails "timeout: the leaf $P/<id> is gone" test -e "$P/$SCTEST_UID/$id"
check_fails "timeout: the workspace $W/<id> is gone" test -e "$W/$id"
check_fails "timeout: nothing mounted there" grep -q " $W/$id " /proc/mounts

# ---- sandcap killed with SIGKILL mid-run: the helper tears everything down ----
rm -f "$R/k.ws"
mkdir -m 0777 "$R/krep"
# not through the function "as": backgrounding a function forks a subshell, and $! would be it
env SANDCAP_HELPER="$SANDCAP_HELPER" TMPDIR=/tmp vm-as-user sctest "$SANDCAP" run -q --timeout 60 \
	--report "$R/krep/k.json" -- sh -c '
	(setsid sleep 100.362 > /dev/null 2>&1 < /dev/null &)
	echo "$TMPDIR" > '"$R"'/k.ws; exec sleep 100.363' &
sandcap_pid=$!             # env, vm-as-user and setpriv exec: this is sandcap itself
check "SIGKILL: the sandbox started" wait_file "$R/k.ws"
ws=$(cat "$R/k.ws")
id=${ws##*/}
check "SIGKILL: its leaf exists while it runs" test -d "$P/$SCTEST_UID/$id"
like "$(tr '\0' ' ' < "/proc/$sandcap_pid/cmdline")" "^$SANDCAP run" "SIGKILL: the pid we kill is sandcap"
kill -KILL "$sandcap_pid"
wait "$sandcap_pid" 2> /dev/null
check "SIGKILL: the leaf is gone within 5 s" wait_gone "$P/$SCTEST_UID/$id"
check "SIGKILL: the workspace is gone within 5 s" wait_gone "$ws"
check "SIGKILL: the sandboxed processes are gone" no_proc "sleep 100.36[23]"
check_fails "SIGKILL: no sctest process left (helper included)" pgrep -u sctest
is "$(ls -A "$R/krep")" "" "SIGKILL: no report, and no temporary beside it (O_TMPFILE)"

# ---- 20 sandboxes at once ----
i=0
while [ $i -lt 20 ]; do
	i=$((i + 1))
	( as sctest "$SANDCAP" run -q --report "$R/many$i.json" -- sh -c 'sleep 1; echo done'\
		> "$R/many$i.out" 2> "$R/many$i.err"; echo $? > "$R/many$i.rc" ) &
done
wait
okn=0 ids=""
i=0
while [ $i -lt 20 ]; do
	i=$((i + 1))
	if [ "$(cat "$R/many$i.rc")" = 0 ] && [ "$(cat "$R/many$i.out")" = "done" ]; then
		okn=$((okn + 1))
	else
		diag "run $i: exit $(cat "$R/many$i.rc"): $(cat "$R/many$i.err")"
	fi
	ids="$ids $(json_get "$R/many$i.json" .id)"
done
is "$okn" 20 "20 sandcap runs at once: all exit 0"
is "$(echo "$ids" | tr ' ' '\n' | grep -c "^$SCTEST_UID-")" 20 "20 sandcap runs at once: 20 reports in cgroup mode"
is "$(echo "$ids" | tr ' ' '\n' | grep . | sort -u | wc -l)" 20 "20 sandcap runs at once: 20 distinct ids"
sleep 0.5
is "$(leaves)" 0 "20 sandcap runs at once: no leaf left under $P"
is "$(find "$W" -mindepth 1 -maxdepth 1 | wc -l)" 0 "20 sandcap runs at once: no workspace left in $W"
check_fails "20 sandcap runs at once: nothing mounted under /run/sandcap" grep -q " /run/sandcap/" /proc/mounts

# ---- from inside a sandbox: the leaf's limits and membership cannot be changed ----
rm -f "$R/esc.out" "$R/esc.done"
as sctest "$SANDCAP" run -q --memory 40M --timeout 30 -- sh -c '
	L=/sys/fs/cgroup$(cut -d: -f3 /proc/self/cgroup)
	o='"$R"'/esc.out
	echo "leaf $L" > $o.tmp
	echo max > $L/memory.max 2> /dev/null && echo "WROTE memory.max" >> $o.tmp
	echo 1 > $L/cgroup.kill 2> /dev/null && echo "WROTE cgroup.kill" >> $o.tmp
	echo $$ > /sys/fs/cgroup/cgroup.procs 2> /dev/null && echo "MOVED to root" >> $o.tmp
	echo $$ > /sys/fs/cgroup/users/sctest/cgroup.procs 2> /dev/null &&
		echo "MOVED to users/sctest" >> $o.tmp
	echo $$ > /sys/fs/cgroup/sandcap/cgroup.procs 2> /dev/null && echo "MOVED to sandcap" >> $o.tmp
	mkdir $L/sub 2> /dev/null && echo "MADE sub" >> $o.tmp
	echo "after $(cut -d: -f3 /proc/self/cgroup)" >> $o.tmp
	mv $o.tmp $o
	i=0; while [ ! -e '"$R"'/esc.done ] && [ $i -lt 250 ]; do sleep 0.1; i=$((i + 1)); done' &
spid=$!
check "escape: the sandbox ran its attempts" wait_file "$R/esc.out"
L=$(sed -n 's/^leaf //p' "$R/esc.out")
id=${L##*/}
check_fails "escape: no write or move succeeded" grep -E '^(WROTE|MOVED|MADE)' "$R/esc.out"
is "$(sed -n 's/^after //p' "$R/esc.out")" "/sandcap/$SCTEST_UID/$id" "escape: the shell is still in its leaf"
is "$(cat "$L/memory.max" 2>&1)" $((40 * 1048576)) "escape: memory.max is still 40M"
touch "$R/esc.done"     # the sandbox waits for this (bounded): no race with the checks above
wait "$spid"
is "$?" 0 "escape: the sandbox ends normally"
check_fails "escape: its leaf is gone" test -e "$L"

# ---- evidence the user cannot hide: a leaf's read-only files are root's 0444 (no chmod
# for the user, 25-helper-protect), and sandcap finds the OOM kill in memory.events.
rm -f "$R/ev.ws" "$R/ev.go"
as sctest "$SANDCAP" run -q --memory 16M --timeout 60 --report "$R/ev.json" -- sh -c '
	echo "$TMPDIR" > '"$R"'/ev.ws
	while ! [ -e '"$R"'/ev.go ]; do sleep 0.1; done
	exec python3 -c "a = bytearray(256 << 20)"' &
spid=$!
check "evidence: the sandbox started" wait_file "$R/ev.ws"
L=$P/$SCTEST_UID/$(basename "$(cat "$R/ev.ws")")
is "$(stat -c '%U %a' "$L/memory.events")" "root 444" "evidence: memory.events is root's 0444"
touch "$R/ev.go"
wait "$spid"
is "$?" 137 "evidence: the sandbox was OOM-killed (exit 137)"
is "$(json_get "$R/ev.json" .verdict)" "memory" "evidence: sandcap read memory.events anyway"

done_testing
