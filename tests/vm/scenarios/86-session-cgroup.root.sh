#!/bin/sh
# Sessions in cgroup mode (the guest's helper): the session is a cgroup level of its own
# (cgroup_root/<uid>/<level>) with its limits and workspace, each call a leaf in it.  A CPU
# budget is spent across calls; a call asking more than the session has is refused; the
# session counts as one sandbox (86-session-cgroup.ini: sandboxes = 2) and its calls not
# again; a call cannot write the level's limits; another user naming the level is refused;
# a call that rewrites the session's state or cgroup record cannot move the next call out;
# nothing is left after end, after the keeper is SIGKILLed (its helper then tears down),
# after keeper and helper are both SIGKILLed (the reaper at the TTL) and after the TTL.
# Runs as root to look at cgroups, mounts and records, and to run the reaper; the sessions
# are sctest's.
# vm-timeout: 400
# vm-cost: 40
# shellcheck source=tests/vm/lib.sh
. "$VMLIB"
R=$SCRATCH
chmod 0777 "$R"
X=$R/xdg
mkdir -m 0700 "$X"
chown sctest:sctest "$X"
CG=/sys/fs/cgroup/sandcap/$SCTEST_UID
WS=/run/sandcap/$SCTEST_UID
DL=/run/sandcap-deadlines
REAPER=$(dirname "$SANDCAP_HELPER")/sandcap-reaper
U() { vm-as-user sctest env XDG_RUNTIME_DIR="$X" "$@"; }
level_of() { sed -n 's/^level=//p' "$X/sandcap/sessions/$1/cgroup" 2>/dev/null; }
# Whatever of level L is left: its cgroup, workspace mount and dir, lock, deadline record.
leftovers() {
	for p in "$CG/$1" "$WS/$1" "/run/sandcap/.locks/$1.lock" "$DL/$1"; do
		[ -e "$p" ] && echo "$p"
	done
	grep " $WS/$1 " /proc/mounts | cut -d' ' -f2
}
# wait_gone L SECONDS: until nothing of L is left (what tears it down runs in the background).
wait_gone() {
	i=0
	while [ -n "$(leftovers "$1")" ] && [ $i -lt $(($2 * 5)) ]; do
		sleep 0.2
		i=$((i + 1))
	done
}

run_rc U "$SANDCAP" run -q --report "$R/probe.json" -- true
if [ "$(json_get "$R/probe.json" .mode)" != cgroup ]; then
	skip "cgroup-mode sessions" "sandcap run does not use cgroup mode here"
	done_testing
	exit 0
fi

# ---- A session over the policy's ceiling. ---------------------------------------------------
U "$SANDCAP" session start --memory 1G > /dev/null 2> "$R/over.err"
is "$?" 125 "session start --memory 1G over the 192M ceiling: refused (125)"
like "$(cat "$R/over.err")" "ceiling" "... naming the ceiling"
check_fails "... and no session is left" test -n "$(ls "$X/sandcap/sessions" 2>/dev/null)"
check_fails "... nor a cgroup" test -n "$(ls -d "$CG"/"$SCTEST_UID"-* 2>/dev/null)"

# ---- A session level runs no process of its own. ----------------------------------------
vm-as-user sctest env SANDCAP_HELPER="$SANDCAP_HELPER" "$TESTS/hostile-client" level > "$R/level.out" 2>&1
hostile_tap "$R/level.out"

# ---- A session: its level, a call, the workspace. ----------------------------------------
id=$(U "$SANDCAP" session start --memory 96M --pids 32 --cpu-time 4s --disk 32M --ttl 10m \
	2> "$R/start.err")
is "$?" 0 "session start in cgroup mode"
L=$(level_of "$id")
like "$L" "^$SCTEST_UID-[0-9a-f]{16}$" "... the keeper's helper made a level"
is "$(cat "$CG/$L/memory.max")" 100663296 "... with the session's memory.max"
is "$(cat "$CG/$L/pids.max")" 32 "... and pids.max"
like "$(cat "$CG/$L/cgroup.subtree_control")" "memory" "... and controllers for its calls"
check "... its workspace is a tmpfs mount" grep -q " $WS/$L tmpfs " /proc/mounts
check "... its TTL is a deadline record" test -f "$DL/$L"

run_rc U "$SANDCAP" run -q --session "$id" --report "$R/c1.json" -- sh -c 'echo 42 > answer'
is "$rc" 0 "a call runs"
is "$(json_get "$R/c1.json" .mode)" cgroup "... in cgroup mode"
like "$(U "$SANDCAP" run -q --session "$id" -- cat /proc/self/cgroup)" "/$L/$SCTEST_UID-" \
	"... in a leaf of the session's level"
is "$(U "$SANDCAP" run -q --session "$id" -- cat answer)" 42 \
	"the workspace persists across calls and is each call's working directory"

# ---- A call asking more than the session has. --------------------------------------------
run_rc U "$SANDCAP" run -q --session "$id" --memory 128M -- true 2> "$R/more.err"
is "$rc" 125 "a call asking --memory 128M of a 96M session: refused (125)"
like "$(cat "$R/more.err")" "more than session $L has" "... with the reason"
run_rc U "$SANDCAP" run -q --session "$id" --pids 64 -- true 2> "$R/more.err"
is "$rc" 125 "a call asking --pids 64 of a 32-pid session: refused"
run_rc U "$SANDCAP" run -q --session "$id" --disk 1M -- true 2> "$R/more.err"
is "$rc" 125 "a call asking its own --disk: refused (the session's workspace is shared)"

# ---- A call writing the level's limits. ------------------------------------------------------
run_rc U "$SANDCAP" run -q --session "$id" -- sh -c \
	'c=/sys/fs/cgroup$(cut -d: -f3 /proc/self/cgroup); echo max > "$c/../memory.max" ||
	 echo max > "$c/memory.max" || exit 7' 2> /dev/null
is "$rc" 7 "a call cannot write its session level's (or its own) memory.max"
is "$(cat "$CG/$L/memory.max")" 100663296 "... which is unchanged"

# ---- Another user naming the level. ------------------------------------------------------
out=$(vm-as-user scother env SANDCAP_HELPER="$SANDCAP_HELPER" "$TESTS/hostile-client" join "$L")
like "$out" "^refused 2 no live session $L of uid $SCOTHER_UID" \
	"another user naming the session's level: refused (looked up under their own uid only)"
out=$(U env SANDCAP_HELPER="$SANDCAP_HELPER" "$TESTS/hostile-client" join "$SCTEST_UID-0123456789abcdef")
like "$out" "^refused 2 " "a level name of the user's that is no session: refused"
out=$(U env SANDCAP_HELPER="$SANDCAP_HELPER" "$TESTS/hostile-client" join "../$SCTEST_UID")
like "$out" "^refused 2 " "a path for a name: refused"

# ---- The session counts as one sandbox; its calls not again. -------------------------------
U "$SANDCAP" run -q -- sleep 60 > /dev/null 2>&1 &
bg=$!
i=0
while [ "$(find "$CG" -maxdepth 1 -name "$SCTEST_UID-*" | wc -l)" -lt 2 ] && [ $i -lt 100 ]; do
	sleep 0.2
	i=$((i + 1))
done
run_rc U "$SANDCAP" run -q -- true 2> "$R/third.err"
is "$rc" 125 "session + one sandbox = sandboxes (2): a third sandbox is refused"
like "$(cat "$R/third.err")" "too many sandboxes: 2 already running" "... counting the session as one"
run_rc U "$SANDCAP" run -q --session "$id" -- true
is "$rc" 0 "... while a call of the session still runs (not counted again)"
kill "$bg" 2> /dev/null
wait "$bg" 2> /dev/null

# ---- The CPU-time budget across calls (4 s). --------------------------------------------------
run_rc U "$SANDCAP" run -q --session "$id" --cpu-time 2s --report "$R/burn1.json" -- sh -c 'while :; do :; done'
is "$(json_get "$R/burn1.json" .verdict)" cpu-time "call 1 burns its own 2s of CPU"
run_rc U "$SANDCAP" run -q --session "$id" --timeout 60s --report "$R/burn2.json" -- \
	sh -c 'while :; do :; done' 2> "$R/burn2.err"
v=$(json_get "$R/burn2.json" .verdict)
diag "call 2: exit $rc, $(cat "$R/burn2.err")"
# Its own --cpu-time (what the ledger left) or the keeper's kill at the level's cpu.stat:
# whichever comes first.
check "call 2 is stopped near the rest of the session's 4s (verdict $v)" \
	test "$v" != ok -a "$v" != timeout -a -n "$v"
run_rc U "$SANDCAP" run -q --session "$id" -- true 2> "$R/spent.err"
is "$rc" 125 "call 3: the budget is spent, refused"
like "$(cat "$R/spent.err")" "CPU-time budget of 4s is spent" "... with the reason"
U "$SANDCAP" session show "$id" --json > "$R/show.json"
ge "$(json_get "$R/show.json" .cgroup.cpu_ms)" 4000 "session show: the level's own CPU time (cpu.stat) is past the budget"
ge "$(json_get "$R/show.json" '.calls | length')" 7 "... and the calls that ran are in the report"

# ---- end: nothing left. ----------------------------------------------------------------------
U "$SANDCAP" session end "$id" --json > "$R/end.json"
is "$?" 0 "session end"
[ -e "$X/sandcap/sessions/$id" ] && diag "left: $(ls -laR "$X/sandcap/sessions/$id" 2>&1 | tr '\n' ' ')"
is "$(json_get "$R/end.json" .ended)" end "... reports the session"
is "$(json_get "$R/end.json" .cgroup.level)" "$L" "... with its level's totals"
is "$(leftovers "$L")" "" "after end: no cgroup, workspace, lock or deadline record is left"
check_fails "... nor the session's directory" test -e "$X/sandcap/sessions/$id"

# ---- The memory budget across calls: the workspace's pages count with the next call's. ------
id=$(U "$SANDCAP" session start --memory 64M --disk 48M --ttl 5m)
L=$(level_of "$id")
run_rc U "$SANDCAP" run -q --session "$id" -- sh -c 'TMPDIR=$PWD exec "$0" -w 40' \
	"$TESTS/probe-workload"
is "$rc" 0 "memory 64M: call 1 keeps 40 MiB in the workspace"
run_rc U "$SANDCAP" run -q --session "$id" --report "$R/mem2.json" -- "$TESTS/probe-workload" -m 40 \
	2> "$R/mem2.err"
is "$(json_get "$R/mem2.json" .verdict)" session-memory \
	"call 2 allocating 40 MiB more: ended at the session's memory.max (verdict session-memory)"
is "$(json_get "$R/mem2.json" '.limits_hit | join(",")')" session-memory \
	"... limits_hit says session-memory, not memory nor total-memory"
like "$(json_get "$R/mem2.json" .message)" "the session's memory was reached \(64 ?Mi?B?.*$L" \
	"... its message names the session, not the user's total"
is "$rc" "$(json_get "$R/mem2.json" .sandcap_exit)" "... sandcap exits with the report's sandcap_exit ($rc)"
is "$(json_get "$R/mem2.json" .signal)" 9 "... the call's own end: SIGKILL (128+9, as memory and total-memory)"
is "$(json_get "$R/mem2.json" .oom_at.limit)" session-memory "... its evidence: oom_at names the limit"
like "$(json_get "$R/mem2.json" .oom_at.cgroup)" "/$L\$" "... and the session's level, whose memory.events counted the OOM"
is "$(json_get "$R/mem2.json" .oom_at.memory_max)" $((64 * 1048576)) "... with its memory.max"
ge "$(json_get "$R/mem2.json" .oom_at.oom)" 1 "... and its memory.events.local oom that grew during the call"
ge "$(json_get "$R/mem2.json" .oom_at.oom_kill)" 1 "... and its memory.events oom_kill"
like "$(json_get "$R/mem2.json" .oom_at.read_by)" "root-owned" "... read by sandcap from the helper's root-owned level"
run_rc U "$SANDCAP" run -q --session "$id" -- rm probe-workload.dat
run_rc U "$SANDCAP" run -q --session "$id" -- "$TESTS/probe-workload" -m 40
is "$rc" 0 "... and with the workspace's file removed the same call runs"
U "$SANDCAP" session end "$id" > /dev/null
is "$(leftovers "$L")" "" "... nothing of that session left after end"

# ---- A call rewrites its session's state to rlimit: the next call still runs in the level. ---
# The mode is the session id's (c: cgroup), the id is the level's: no file of the session's,
# which a call without --fs can rewrite, moves a later call out of the level.
id=$(U "$SANDCAP" session start --memory 64M --pids 16 --ttl 5m)
L=$(level_of "$id")
H=${L#*-}
is "$id" "c$(printf %s "$H" | cut -c1-11)" "a cgroup-mode session is named after its level"
run_rc U "$SANDCAP" run -q --session "$id" -- sh -c \
	"sed -i 's/^mode=.*/mode=rlimit/' $X/sandcap/sessions/$id/state"
is "$(sed -n 's/^mode=//p' "$X/sandcap/sessions/$id/state")" rlimit \
	"a call without --fs rewrote the session's state to mode=rlimit"
run_rc U "$SANDCAP" run -q --session "$id" --report "$R/rw1.json" -- cat /proc/self/cgroup \
	> "$R/rw1.out"
is "$(json_get "$R/rw1.json" .mode)" cgroup "... the next call still runs in cgroup mode"
like "$(cat "$R/rw1.out")" "/$L/$SCTEST_UID-" "... in a leaf of the session's level"
run_rc U "$SANDCAP" run -q --session "$id" --report "$R/rw2.json" -- "$TESTS/probe-workload" -m 80 \
	2> /dev/null
is "$(json_get "$R/rw2.json" .verdict)" session-memory \
	"... and the session's memory.max (64M) ends a call allocating 80 MiB"
run_rc U "$SANDCAP" run -q --session "$id" -- "$TESTS/probe-workload" -c 40 -s 100 \
	2> "$R/rw3.err"
is "$rc" 1 "... and its pids.max (16) stops a call forking 40 children"
like "$(cat "$R/rw3.err")" "probe-workload: fork" "... at fork"
# A record naming another live session level of the same user, with more room: refused.
# (sandboxes = 2: the 60 s sandbox of the count above may still run.)
i=0
while [ "$(find "$CG" -maxdepth 1 -name "$SCTEST_UID-*" | wc -l)" -gt 1 ] && [ $i -lt 400 ]; do
	sleep 0.2
	i=$((i + 1))
done
id2=$(U "$SANDCAP" session start --memory 128M --ttl 5m)
L2=$(level_of "$id2")
check "a second session, with more memory" test -n "$L2" -a "$L2" != "$L"
sed "s/$L/$L2/g" "$X/sandcap/sessions/$id/cgroup" > "$R/forged"
run_rc U "$SANDCAP" run -q --session "$id" -- sh -c \
	"cat $R/forged > $X/sandcap/sessions/$id/cgroup"
run_rc U "$SANDCAP" run -q --session "$id" -- cat /proc/self/cgroup > "$R/rw4.out" 2> "$R/rw4.err"
is "$rc" 125 "a call after one that pointed the session's record at another level: refused"
like "$(cat "$R/rw4.err")" "not the session's own" "... saying so"
check_fails "... and it ran in neither level" test -s "$R/rw4.out"
U "$SANDCAP" session end "$id2" > /dev/null
U "$SANDCAP" session end "$id" > /dev/null 2>&1
is "$(leftovers "$L")$(leftovers "$L2")" "" "... nothing of either session left after end"
# The level gone (its keeper killed) and the state rewritten to rlimit: refused, not run.
U "$SANDCAP" session start --ttl 5m --json > "$R/gone.json"
id=$(json_get "$R/gone.json" .id)
L=$(level_of "$id")
run_rc U "$SANDCAP" run -q --session "$id" -- sh -c \
	"sed -i 's/^mode=.*/mode=rlimit/' $X/sandcap/sessions/$id/state"
kill -KILL "$(json_get "$R/gone.json" .keeper_pid)"
wait_gone "$L" 30
run_rc U "$SANDCAP" run -q --session "$id" -- true 2> "$R/gone.err"
is "$rc" 125 "its level gone and its state saying rlimit: a call is refused"
like "$(cat "$R/gone.err")" "sandcap session end $id" "... naming the fix"
U "$SANDCAP" session end "$id" > /dev/null 2>&1

# ---- The keeper SIGKILLed: its helper sees EOF and tears the level down. ---------------------
U "$SANDCAP" session start --ttl 10m --json > "$R/second.json"
id=$(json_get "$R/second.json" .id)
L=$(level_of "$id")
keeper=$(json_get "$R/second.json" .keeper_pid)
check "a second session (its keeper $keeper)" test -n "$L" -a -d "$CG/$L"
is "$(json_get "$R/second.json" .workspace)" "$WS/$L" "... whose --json names the level's workspace"
kill -KILL "$keeper"
wait_gone "$L" 30
is "$(leftovers "$L")" "" "keeper SIGKILLed: its helper removed the level, workspace and record"
run_rc U "$SANDCAP" run -q --session "$id" -- true 2> "$R/dead.err"
is "$rc" 125 "... and a call of it is refused"
U "$SANDCAP" session end "$id" > /dev/null 2>&1

# ---- Keeper and its helper SIGKILLed: the reaper ends the level at the TTL. -------------------
"$REAPER" > "$R/reaper.log" 2>&1 &
reaper=$!
U "$SANDCAP" session start --ttl 20s --json > "$R/short.json"
id=$(json_get "$R/short.json" .id)
L=$(level_of "$id")
keeper=$(json_get "$R/short.json" .keeper_pid)
helper=$(pgrep -P "$keeper" | head -1)
check "a session with a 20s TTL (keeper $keeper, helper $helper)" test -n "$helper" -a -d "$CG/$L"
kill -STOP "$helper"
kill -KILL "$keeper"
kill -KILL "$helper"
kill -CONT "$helper" 2> /dev/null
check "... both killed, the level is still there (its limits hold)" test -d "$CG/$L"
wait_gone "$L" 60
is "$(leftovers "$L")" "" "the reaper removed the level, its workspace and record at its TTL"
U "$SANDCAP" session ls > /dev/null
check_fails "... and session ls removed the expired session's directory" test -e "$X/sandcap/sessions/$id"
kill "$reaper"
wait "$reaper" 2> /dev/null

# ---- The TTL: the keeper ends the session. ----------------------------------------------------
id=$(U "$SANDCAP" session start --ttl 3s)
L=$(level_of "$id")
U "$SANDCAP" run -q --session "$id" -- sleep 60 > /dev/null 2>&1 &
call=$!
wait "$call"
wait_gone "$L" 30
is "$(leftovers "$L")" "" "after the TTL: the call was killed and nothing of the level is left"
check_fails "... nor the session's directory" test -e "$X/sandcap/sessions/$id"
done_testing
