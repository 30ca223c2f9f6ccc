#!/bin/sh
# sandcap-reaper (#14 item 2): a sandbox past its policy deadline (timeout + backstop) is
# killed by something the user cannot signal.  The user stops or kills their own helper
# and client (same uid: they may); the root-run reaper still kills the sandbox within 5 s
# of its recorded deadline, and removes it when the helper is gone.  Without a reaper, the
# next helper of another user kills it.  The reaper makes no wake-up while idle.
# Runs as root (to run the reaper and watch leaves); clients are sctest and scother.
# vm-timeout: 500
# vm-cost: 50
. "$VMLIB"
REAPER=$(dirname "$SANDCAP_HELPER")/sandcap-reaper
DL=/run/sandcap-deadlines
CGP=/sys/fs/cgroup/sandcap/$SCTEST_UID     # leaves are <cgroup_root>/<uid>/<id>
wait_for() { i=0; while [ $i -lt 100 ] && ! grep -q "$1" "$2"; do sleep 0.1; i=$((i + 1)); done; }
populated() { sed -n 's/^populated //p' "$CGP/$1/cgroup.events" 2>/dev/null; }
uptime_ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }   # CLOCK_BOOTTIME
wait_until_ms() { while [ "$(uptime_ms)" -lt "$1" ]; do sleep 0.2; done; }
switches() { awk '/^(non)?voluntary_ctxt_switches/ { n += $2 } END { print n }' "/proc/$1/status"; }
# The timeouts follow this guest's speed: a warm-up sandbox's start (about 1 s on an idle
# guest, 7 s seen on a heavily loaded one) times 12, at least 15 s, for A and B (deadline
# = timeout + the 10 s backstop after CREATE; the steps before the first deadline take
# about 3 starts); C's comes 15 s (or 8 starts) later.  The assertions do not depend on
# how long those steps take (a late C is replaced, below).
start() {       # start USER NAME [TIMEOUT_MS]: a sandbox (timeout $TA) whose child sleeps long
	env SANDCAP_HELPER="$SANDCAP_HELPER" vm-as-user "$1" "$TESTS/probe-client" \
		-t "${3:-$TA}" -a child -s 200 > "$SCRATCH/$2" 2>&1 &
	eval "client_$2=\$!"
	wait_for "spawn ok" "$SCRATCH/$2"
	diag "sandbox $2 spawned at $(uptime_ms) ms: $(tr '\n' ' ' < "$SCRATCH/$2")"
	eval "id_$2=\$(sed -n 's/^id //p' \"$SCRATCH/$2\")"
	eval "helper_$2=\$(sed -n 's/^helper //p' \"$SCRATCH/$2\")"
}
w0=$(uptime_ms)
env SANDCAP_HELPER="$SANDCAP_HELPER" vm-as-user sctest "$TESTS/probe-client" -a none \
	> "$SCRATCH/warm" 2>&1
unit=$(($(uptime_ms) - w0))
TA=$((unit * 12)); [ "$TA" -ge 15000 ] || TA=15000
TC=$((unit * 8)); [ "$TC" -ge 15000 ] || TC=15000
TC=$((TA + TC))
diag "a sandbox's start took $unit ms here: timeouts $TA ms (A, B, D) and $TC ms (C)"
deadline_of() { sed -n 's/^boottime_ms //p' "$DL/$1"; }
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
start sctest A
start sctest B
# C is for the part without a reaper (below): its deadline comes 15 s after A's and B's, so
# that on an idle guest the reaper is stopped before it and nothing waits for a deadline
# twice.  Where a loaded guest took longer, a fresh C replaces it there: same checks, one
# more wait; no assertion depends on which came first.
start sctest C "$TC"
check "sctest stops C's helper and client" vm-as-user sctest kill -STOP "$helper_C" "$client_C"
check "CREATE recorded A's deadline, root-owned 0600" \
	test "$(stat -c '%U %a' "$DL/$id_A" 2>/dev/null)" = "root 600"
like "$(cat "$DL/$id_A")" "cgroup $CGP/$id_A" "A's record names its leaf"
check_fails "sctest cannot list the deadline records" vm-as-user sctest ls $DL
check "A's and B's helpers found" test -n "$helper_A" -a -n "$helper_B"
check "sctest stops A's helper and client" vm-as-user sctest kill -STOP "$helper_A" "$client_A"
check "sctest kills B's helper and client" vm-as-user sctest kill -KILL "$helper_B" "$client_B"
dA=$(deadline_of "$id_A"); dB=$(deadline_of "$id_B")
diag "deadlines: A $dA B $dB, now $(uptime_ms)"
now=$(uptime_ms)
ge "$((dA - now))" 0 "A's deadline (timeout + backstop from CREATE) is still ahead"
is "$(populated "$id_A") $(populated "$id_B")" "1 1" "both sandboxes still run before the deadline"
last=$dA; [ "$dB" -gt "$last" ] && last=$dB
# Until everything below holds or 5 s past the later deadline, whichever comes first.
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
dC=$(deadline_of "$id_C")
now=$(uptime_ms)
if [ -n "$dC" ] && [ "$now" -lt "$dC" ]; then
	diag "the reaper stopped $((dC - now)) ms before C's deadline: C serves below"
else
	diag "the reaper stopped after C's deadline ($dC, now $now; a loaded guest): a fresh C"
	kill -KILL "$client_C"; kill -CONT "$helper_C"
	i=0; while [ $i -lt 100 ] && [ -e "$CGP/$id_C" ]; do sleep 0.1; i=$((i + 1)); done
	start sctest C
	vm-as-user sctest kill -STOP "$helper_C" "$client_C" ||
		fail "sctest stops the fresh C's helper and client"
fi
wait_until_ms $(($(deadline_of "$id_C") + 1000))
is "$(populated "$id_C")" 1 "without a reaper, C runs on past its deadline (helper stopped)"
env SANDCAP_HELPER="$SANDCAP_HELPER" vm-as-user scother "$TESTS/probe-client" -a child \
	> "$SCRATCH/D" 2>&1
like "$(cat "$SCRATCH/D")" "spawn ok" "scother runs a sandbox"
is "$(populated "$id_C")" 0 "scother's helper killed sctest's expired sandbox C"
check_fails "and removed C's record" test -e "$DL/$id_C"
kill -KILL "$client_C"; kill -CONT "$helper_C"
i=0; while [ $i -lt 100 ] && [ -e "$CGP/$id_C" ]; do sleep 0.1; i=$((i + 1)); done
check_fails "C's helper, resumed, tore its sandbox down" test -e "$CGP/$id_C"

# ---- D: a leftover reclaimed by its user's next helper takes its record with it. ------
start sctest D
check "D's deadline is recorded" test -e "$DL/$id_D"
check "sctest kills D's helper and client" vm-as-user sctest kill -KILL "$helper_D" "$client_D"
env SANDCAP_HELPER="$SANDCAP_HELPER" vm-as-user sctest "$TESTS/probe-client" -a child \
	> "$SCRATCH/E" 2>&1
like "$(cat "$SCRATCH/E")" "spawn ok" "sctest's next sandbox runs"
check_fails "it reclaimed the leftover D" test -e "$CGP/$id_D"
check_fails "and removed D's record (no stale records pile up)" test -e "$DL/$id_D"
done_testing
