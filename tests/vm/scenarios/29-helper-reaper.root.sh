#!/bin/sh
# sandcap-reaper (#14 item 2): a sandbox past its policy deadline (timeout + backstop) is
# killed by something the user cannot signal.  The user stops or kills their own helper
# and client (same uid: they may); the root-run reaper still kills the sandbox within 5 s
# of its recorded deadline, and removes it when the helper is gone.  Without a reaper, the
# next helper of another user kills it.  The reaper makes no wake-up while idle.
# The sandboxes get long timeouts, so nothing expires while the test looks at them; once
# it has, root brings the recorded deadlines forward (rewriting the records, as root may)
# instead of waiting them out.
# Runs as root (to run the reaper and watch leaves); clients are sctest and scother.
# vm-timeout: 500
# vm-cost: 15
. "$VMLIB"
REAPER=$(dirname "$SANDCAP_HELPER")/sandcap-reaper
DL=/run/sandcap-deadlines
CGP=/sys/fs/cgroup/sandcap/$SCTEST_UID     # leaves are <cgroup_root>/<uid>/<id>
# Up to 60 s: a start waits for the user's lock, which a helper tearing down still holds.
wait_for() { i=0; while [ $i -lt 600 ] && ! grep -q "$1" "$2"; do sleep 0.1; i=$((i + 1)); done; }
populated() { sed -n 's/^populated //p' "$CGP/$1/cgroup.events" 2>/dev/null; }
uptime_ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }   # CLOCK_BOOTTIME
switches() { awk '/^(non)?voluntary_ctxt_switches/ { n += $2 } END { print n }' "/proc/$1/status"; }
# Timeouts of 300 s: every look before a deadline is made long before it (none depends on
# how fast this guest is), and the deadlines that count are set below by root's hand.
TA=300000
start() {       # start USER NAME: a sandbox (timeout $TA) whose child sleeps long
	env SANDCAP_HELPER="$SANDCAP_HELPER" vm-as-user "$1" "$TESTS/probe-client" \
		-t "$TA" -a child -s 200 > "$SCRATCH/$2" 2>&1 &
	eval "client_$2=\$!"
	wait_for "spawn ok" "$SCRATCH/$2"
	diag "sandbox $2 spawned at $(uptime_ms) ms: $(tr '\n' ' ' < "$SCRATCH/$2")"
	eval "id_$2=\$(sed -n 's/^id //p' \"$SCRATCH/$2\")"
	eval "helper_$2=\$(sed -n 's/^helper //p' \"$SCRATCH/$2\")"
}
deadline_of() { sed -n 's/^boottime_ms //p' "$DL/$1"; }
set_deadline() {        # set_deadline ID MS: the record rewritten as root may, renamed in
	sed "s/^boottime_ms .*/boottime_ms $2/" "$DL/$1" > "$DL/.new-test" && mv "$DL/.new-test" "$DL/$1"
}
reaped_AB() {   # A killed, B killed and removed with its workspace, lock and both records
	[ "$(populated "$id_A")" = 0 ] && [ ! -e "$CGP/$id_B" ] &&
		! grep -q " /run/sandcap/$SCTEST_UID/$id_B " /proc/mounts &&
		[ ! -e "/run/sandcap/.locks/$id_B.lock" ] && [ ! -e "$DL/$id_A" ] && [ ! -e "$DL/$id_B" ]
}

# ---- The reaper, idle. --------------------------------------------------------------
"$REAPER" > "$SCRATCH/reaper.log" 2>&1 &
reaper=$!
wait_for "watching" "$SCRATCH/reaper.log"
is "$(stat -c '%U:%G %a' $DL)" "root:root 700" "the reaper made $DL root:root 0700"
a=$(switches $reaper); sleep 3; b=$(switches $reaper)
is "$b" "$a" "no sandbox has a deadline: the reaper made no context switch in 3 s"

# ---- A: helper and client stopped by the user; B: both killed by the user. -----------
t0=$(uptime_ms)
start sctest A
t1=$(uptime_ms)
start sctest B
# C is for the part without a reaper (below).
start sctest C
check "sctest stops C's helper and client" vm-as-user sctest kill -STOP "$helper_C" "$client_C"
check "CREATE recorded A's deadline, root-owned 0600" \
	test "$(stat -c '%U %a' "$DL/$id_A" 2>/dev/null)" = "root 600"
like "$(cat "$DL/$id_A")" "cgroup $CGP/$id_A" "A's record names its leaf"
check_fails "sctest cannot list the deadline records" vm-as-user sctest ls $DL
check "A's and B's helpers found" test -n "$helper_A" -a -n "$helper_B"
check "sctest stops A's helper and client" vm-as-user sctest kill -STOP "$helper_A" "$client_A"
check "sctest kills B's helper and client" vm-as-user sctest kill -KILL "$helper_B" "$client_B"
dA=$(deadline_of "$id_A"); dB=$(deadline_of "$id_B")
diag "deadlines: A $dA B $dB, A's start between $t0 and $t1, now $(uptime_ms)"
# /proc/uptime is CLOCK_BOOTTIME in 10 ms steps, cut down: t1 + 10 is past the CREATE.
ge "$dA" $((t0 + TA + 10000)) "A's recorded deadline is at least its timeout + the 10 s backstop after its start"
ge $((t1 + 10 + TA + 10000)) "$dA" "... and at most that after its CREATE was answered"
ge "$((dA - $(uptime_ms)))" 0 "A's deadline is still ahead"
is "$(populated "$id_A") $(populated "$id_B")" "1 1" "both sandboxes still run before the deadline"
# Done looking before the deadlines: root brings them forward, to half a second from now.
last=$(($(uptime_ms) + 500))
check "root sets A's deadline to $last" set_deadline "$id_A" "$last"
check "root sets B's deadline to $last" set_deadline "$id_B" "$last"
# Until everything below holds or 5 s past the deadline, whichever comes first.
while [ "$(uptime_ms)" -lt $((last + 5000)) ] && ! reaped_AB; do sleep 0.2; done
is "$(populated "$id_A")" 0 "A (helper stopped) was killed within 5 s of its deadline"
check_fails "B (helper killed) was killed and its leaf removed" test -e "$CGP/$id_B"
check_fails "B's workspace was unmounted" grep -q " /run/sandcap/$SCTEST_UID/$id_B " /proc/mounts
check_fails "B's lock was removed" test -e "/run/sandcap/.locks/$id_B.lock"
check_fails "the records of A and B are gone" test -e "$DL/$id_A" -o -e "$DL/$id_B"
like "$(cat "$SCRATCH/reaper.log")" "sandbox $id_A: past its deadline .* killed" \
	"the reaper says it killed A"
sed 's/^/# reaper: /' "$SCRATCH/reaper.log"
check "A's leaf stays for its (stopped) helper to tear down" test -d "$CGP/$id_A"
kill -KILL "$client_A"
kill -CONT "$helper_A"
i=0; while [ $i -lt 100 ] && [ -e "$CGP/$id_A" ]; do sleep 0.1; i=$((i + 1)); done
check_fails "resumed, A's helper tore its sandbox down" test -e "$CGP/$id_A"

a=$(switches $reaper); sleep 3; b=$(switches $reaper)
is "$b" "$a" "idle again: no context switch in 3 s"
kill -TERM "$reaper"; wait "$reaper"
is "$?" 0 "the reaper exits 0 on SIGTERM"

# ---- C: no reaper; the next helper of another user kills the expired sandbox. -------
# The reaper is gone: root moves C's deadline to a second ago.
dC=$(($(uptime_ms) - 1000))
check "root sets C's deadline to $dC" set_deadline "$id_C" "$dC"
is "$(populated "$id_C")" 1 "without a reaper, C runs on past its deadline (helper stopped)"
env SANDCAP_HELPER="$SANDCAP_HELPER" vm-as-user scother "$TESTS/probe-client" -a child \
	> "$SCRATCH/D" 2>&1
like "$(cat "$SCRATCH/D")" "spawn ok" "scother runs a sandbox"
is "$(populated "$id_C")" 0 "scother's helper killed sctest's expired sandbox C"
check_fails "and removed C's record" test -e "$DL/$id_C"
kill -KILL "$client_C"; kill -CONT "$helper_C"
i=0; while [ $i -lt 100 ] && [ -e "$CGP/$id_C" ]; do sleep 0.1; i=$((i + 1)); done
check_fails "C's helper, resumed, tore its sandbox down" test -e "$CGP/$id_C"
# ... and ended (its lock released) before D starts.
i=0; while [ $i -lt 100 ] && kill -0 "$helper_C" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done

# ---- D: a leftover reclaimed by its user's next helper takes its record with it. ------
start sctest D
check "D started" test -n "$id_D" -a -n "$helper_D"
check "D's deadline is recorded" test -e "$DL/$id_D"
check "sctest kills D's helper and client" vm-as-user sctest kill -KILL "$helper_D" "$client_D"
env SANDCAP_HELPER="$SANDCAP_HELPER" vm-as-user sctest "$TESTS/probe-client" -a child \
	> "$SCRATCH/E" 2>&1
like "$(cat "$SCRATCH/E")" "spawn ok" "sctest's next sandbox runs"
check_fails "it reclaimed the leftover D" test -e "$CGP/$id_D"
check_fails "and removed D's record (no stale records pile up)" test -e "$DL/$id_D"
done_testing
