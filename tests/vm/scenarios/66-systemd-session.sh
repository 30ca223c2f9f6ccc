#!/bin/sh
# Sessions in user-cgroup mode, in the systemd guest before the package is installed (no
# helper): a logged-in user's session is a delegated scope of their own systemd with the
# session's limits, each call a leaf below it.  The workspace persists, a call asking more
# than the session is refused, the session's memory binds a call that asked for none (verdict
# session-memory, as in cgroup mode, with the scope's counters as its evidence), a CPU
# budget is spent across calls, the calls cannot rewrite their own or the session's limits
# (Landlock on 6.12) nor move later calls out of the scope by rewriting the session's files, and nothing is left after end, after SIGKILL of the keeper and of
# every sandcap (the user manager's RuntimeMaxSec at the TTL), or after the TTL.
# vm-timeout: 600
# vm-cost: 60
. "$VMLIB"
. "$SRCDIR/tests/vm/sysd-lib.sh"
ucg_setup
SESS=/run/user/$SCTEST_UID/sandcap/sessions
scope_of() { find "$UCG" -type d -name "sandcap-sess-$1.scope" 2> /dev/null | head -n 1; }
scope_gone() { [ -z "$(scope_of "$1")" ]; }
no_proc() { ! pgrep -u sctest -f "$1" > /dev/null; }
running() { pgrep -u sctest -f "$1" > /dev/null; }
# bg_done DESC: the background logins of this section have ended (bounded; what is left of
# sctest's processes is shown otherwise)
bg_done() {
	for _p in $(jobs -p); do
		# ended: gone, or a zombie this shell has not reaped yet
		if ! wait_for 30 sh -c "[ ! -d /proc/$_p ] || grep -q '^State:[[:space:]]*Z' /proc/$_p/status"; then
			fail "$1" "a login still runs: $(ps -o pid,stat,args -u sctest | tr '\n' ';')"
			return
		fi
		wait "$_p"
	done
	ok "$1"
}
jfield() { python3 -c 'import json,sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"; }

# The sessions live in the user manager: it must outlive each login of this test.
loginctl enable-linger sctest
check "sctest's user manager runs (linger)" wait_for 60 test -S "/run/user/$SCTEST_UID/bus"
ll_abi=$(python3 -c 'import ctypes
print(max(ctypes.CDLL(None, use_errno=True).syscall(444, None, 0, 1), 0))' 2> /dev/null)
diag "guest kernel $(uname -r), Landlock ABI ${ll_abi:-0}"

# --- what a user-cgroup session refuses before it starts: --disk, and over the policy
run_rc u session start --disk 10M 2> "$R/disk.err"
is "$rc" 125 "session start --disk: refused in user-cgroup mode (125)"
like "$(cat "$R/disk.err")" "--disk: a size-limited workspace needs the sandcap helper" "... saying why"
mkdir -p /etc/sandcap
printf '[limits]\nmemory = 64M\n' > /etc/sandcap/sandbox.ini
chmod 0644 /etc/sandcap/sandbox.ini
run_rc u session start --memory 128M 2> "$R/ceil.err"
is "$rc" 125 "session start --memory 128M over the policy's 64M ceiling: refused (125)"
like "$(cat "$R/ceil.err")" "--memory .* is over the ceiling" "... naming the option and the ceiling"
rm -rf /etc/sandcap
check "no session was left by the refusals" sh -c "[ -z \"\$(ls $SESS 2> /dev/null)\" ] && [ -z \"\$(find $UCG -name 'sandcap-sess-*')\" ]"

# --- a session with limits: its scope, the calls below it, the workspace, refusals
j=$(u session start --ttl 10m --memory 64M --pids 32 --timeout 60s --name ucg --json 2> "$R/start.err")
is "$?" 0 "session start with --memory 64M --pids 32 as a logged-in user without a helper"
id=$(printf '%s' "$j" | jfield id)
is "$(printf '%s' "$j" | jfield mode)" user-cgroup "the session's mode is user-cgroup"
sc=$(scope_of "$id")
like "$sc" "/sandcap-sess-$id[.]scope$" "its scope sandcap-sess-ID.scope is in sctest's user manager"
is "$(cat "$sc/memory.max" 2>&1)" $((64 * MiB)) "the scope's memory.max is the session's 64M"
is "$(cat "$sc/pids.max" 2>&1)" 32 "the scope's pids.max is the session's 32"
like "$(vm-login sctest systemctl --user show -p RuntimeMaxUSec "sandcap-sess-$id.scope")" \
	"^RuntimeMaxUSec=10min 10s$" "the user manager stops the scope at the TTL plus 10 s (RuntimeMaxSec)"
is "$(cat "$sc/keeper/cgroup.procs" 2>&1)" "$(printf '%s' "$j" | jfield keeper_pid)" \
	"the keeper is in <scope>/keeper"

u run -q --session "$id" --report "$R/c1.json" -- sh -c 'pwd; sed -n "s/^0:://p" /proc/self/cgroup; echo kept > note' \
	> "$R/c1.out" 2> "$R/c1.err"
is "$(sed -n 1p "$R/c1.out")" "$SESS/$id/workspace" "a call runs in the session's workspace"
like "$(sed -n 2p "$R/c1.out")" "/sandcap-sess-$id[.]scope/call-1$" "... in the leaf call-1 below the session's scope"
is "$(json_get "$R/c1.json" .mode)" user-cgroup "... in user-cgroup mode (its report)"
like "$(json_get "$R/c1.json" .enforcement.session)" "call-1 is below the session's scope" \
	"... whose report says the session's limits bind it"
is "$(u run -q --session "$id" -- cat note 2>&1)" kept "the workspace persists across calls"

run_rc u run -q --session "$id" --memory 128M -- true 2> "$R/over.err"
is "$rc" 125 "a call asking --memory 128M in a 64M session is refused (125)"
like "$(cat "$R/over.err")" "--memory 128 MiB: above session $id's memory of 64 MiB" "... naming the option and the session's limit"
run_rc u run -q --session "$id" --pids 64 -- true 2> "$R/over2.err"
is "$rc" 125 "a call asking --pids 64 in a 32-task session is refused (125)"

run_rc u run -q --session "$id" --memory 32M --report "$R/m32.json" -- tail /dev/zero
is "$(json_get "$R/m32.json" .verdict)" memory "a call's own --memory 32M (within the session's) holds: verdict memory"
le_ok() { if [ "$1" -le "$2" ] 2> /dev/null; then ok "$3"; else fail "$3" "got '$1', want <= $2"; fi; }
le_ok "$(json_get "$R/m32.json" .usage.memory_peak)" $((32 * MiB)) "... its memory_peak is at most 32M"
run_rc u run -q --session "$id" --report "$R/m64.json" -- tail /dev/zero
diag "a memory hog with no --memory of its own: verdict $(json_get "$R/m64.json" .verdict), $(json_get "$R/m64.json" .message)"
# The scope's own peak: the leaf's may pass 64M by one charge batch (the kernel raises the
# leaf's watermark before the scope's limit refuses the charge).
le_ok "$(cat "$sc/memory.peak")" $((64 * MiB)) \
	"a call with no --memory of its own is held by the session's 64M (the scope's memory.peak)"
ge "$(json_get "$R/m64.json" .usage.oom_kills)" 1 "... by the OOM killer (oom_kills >= 1)"
# The same verdict as in cgroup mode: the session's memory, from the scope's memory.events
# that sandcap read outside the sandbox, not a plain signal.
is "$(json_get "$R/m64.json" .verdict)" session-memory "... reported as the session's memory (verdict session-memory)"
is "$(json_get "$R/m64.json" '.limits_hit | join(",")')" session-memory "... limits_hit says session-memory, not memory"
is "$rc" "$(json_get "$R/m64.json" .sandcap_exit)" "... sandcap exits with the report's sandcap_exit ($rc)"
like "$(json_get "$R/m64.json" .message)" "the session's memory was reached \(64 MiB .*sandcap-sess-$id[.]scope" \
	"... its message names the session's scope and its limit"
is "$(json_get "$R/m64.json" .oom_at.limit)" session-memory "... its evidence: oom_at names the limit"
like "$(json_get "$R/m64.json" .oom_at.cgroup)" "/sandcap-sess-$id[.]scope$" "... and the scope whose memory.events counted the OOM"
is "$(json_get "$R/m64.json" .oom_at.memory_max)" $((64 * MiB)) "... with its memory.max"
ge "$(json_get "$R/m64.json" .oom_at.oom)" 1 "... and its memory.events.local oom that grew during the call"
ge "$(json_get "$R/m64.json" .oom_at.oom_kill)" 1 "... and its memory.events oom_kill"
if [ "${ll_abi:-0}" -ge 1 ]; then
	like "$(json_get "$R/m64.json" .oom_at.read_by)" "Landlock kept the call from writing" \
		"... read outside the sandbox from files Landlock kept the call from writing"
else
	like "$(json_get "$R/m64.json" .oom_at.read_by)" "writable by the call \(no Landlock\)" \
		"... and says the call could have written the scope's limits (no Landlock)"
fi

# The hostile call: its leaf and the session's scope are the user's own cgroups, so only the
# Landlock layer keeps it from raising the limits or leaving the leaf.
hostile='cg=/sys/fs/cgroup$(sed -n "s/^0:://p" /proc/self/cgroup); sc=${cg%/*}
try() { n=$1; shift; if e=$( (eval "$*") 2>&1); then echo "$n: WRITTEN"; else echo "$n: refused: $e"; fi; }
try call-memory.max "echo max > $cg/memory.max"
try session-memory.max "echo max > $sc/memory.max"
try session-pids.max "echo max > $sc/pids.max"
try session-cgroup.procs "echo \$\$ > $sc/keeper/cgroup.procs"
try call-cgroup.procs "echo \$\$ > $cg/cgroup.procs"
echo "session memory.max now: $(cat $sc/memory.max)"'
if [ "${ll_abi:-0}" -ge 1 ]; then
	u run -q --session "$id" --memory 48M --report "$R/hostile.json" -- sh -c "$hostile" \
		> "$R/hostile.out" 2>&1
	diag "$(tr '\n' ';' < "$R/hostile.out")"
	for t in call-memory.max session-memory.max session-pids.max session-cgroup.procs call-cgroup.procs; do
		like "$(sed -n "s/^$t: //p" "$R/hostile.out")" '^refused: .*Permission denied' \
			"a call cannot write $t (EACCES: Landlock)"
	done
	is "$(cat "$sc/memory.max")" $((64 * MiB)) "... and the session's memory.max is still 64M"
	like "$(json_get "$R/hostile.json" .enforcement.cgroup_files)" "^landlock" \
		"... its report says Landlock protects the cgroup files"
else
	for t in call-memory.max session-memory.max session-pids.max session-cgroup.procs call-cgroup.procs kept report; do
		skip "a hostile call rewriting the cgroup files ($t)" "this guest's kernel $(uname -r) has no Landlock"
	done
fi

u session show "$id" --json > "$R/show.json" 2>&1
like "$(json_get "$R/show.json" .user_cgroup.scope)" "/sandcap-sess-$id[.]scope$" "session show names the session's scope"
is "$(json_get "$R/show.json" .user_cgroup.memory):$(json_get "$R/show.json" .user_cgroup.pids)" "$((64 * MiB)):32" \
	"... and its limits"
like "$(json_get "$R/show.json" .user_cgroup.enforcement)" "^your systemd user manager" "... and what enforces them"

# end while a call runs: the call is killed, the scope and everything of the session go.
u run -q --session "$id" -- sh -c 'exec sleep 1000.71' > /dev/null 2>&1 &
check "a call of the session runs" wait_for 60 running '^sleep 1000[.]71'
u session end "$id" --json > "$R/end.json" 2> "$R/end.err"
is "$?" 0 "session end: exit 0"
is "$(json_get "$R/end.json" .ended)" end "... its report says how it ended"
ge "$(json_get "$R/end.json" .totals.calls)" 5 "... and counts the calls"
check "the running call is gone" wait_for 30 no_proc '^sleep 1000[.]71'
check "the session's scope is gone" wait_for 30 scope_gone "$id"
check "nothing of the session is left in sctest's subtree" wait_for 30 no_leftovers
check "the session's directory and workspace are gone" test ! -e "$SESS/$id"
bg_done "the login of the call end killed has ended"

# --- a call rewrites its session's state (mode=rlimit) and its ucg record: the mode is the
# session id's (d: user-cgroup) and the scope the user manager's, so the next call is still
# held by the scope, and a record naming another directory is refused
id=$(u session start --ttl 10m --memory 48M 2> "$R/start5.err")
is "$?" 0 "session start --memory 48M"
like "$id" "^d" "a user-cgroup session's id starts with d"
sc=$(scope_of "$id")
u run -q --session "$id" -- sh -c 'sed -i "s/^mode=.*/mode=rlimit/" ../state' 2> "$R/rw0.err"
is "$(sed -n 's/^mode=//p' "$SESS/$id/state")" rlimit \
	"a call without --fs rewrote the session's state to mode=rlimit"
u run -q --session "$id" --report "$R/rw1.json" -- sh -c 'sed -n "s/^0:://p" /proc/self/cgroup' \
	> "$R/rw1.out" 2> "$R/rw1.err"
is "$(json_get "$R/rw1.json" .mode)" user-cgroup "... the next call still runs in user-cgroup mode"
like "$(cat "$R/rw1.out")" "/sandcap-sess-$id[.]scope/call-[0-9]*$" "... in a leaf of the session's scope"
u run -q --session "$id" --report "$R/rw2.json" -- tail /dev/zero > /dev/null 2>&1
le_ok "$(cat "$sc/memory.peak")" $((48 * MiB)) \
	"... and the scope's 48M holds a memory hog (the scope's memory.peak)"
ge "$(json_get "$R/rw2.json" .usage.oom_kills)" 1 "... by the OOM killer"
# A directory of the scope's name elsewhere in the user's own delegated tree (the user may
# make one; a call without Landlock could too), and the record pointed at it.
fake=$UCG/app.slice/sandcap-fake.slice
vm-login sctest mkdir -p "$fake/sandcap-sess-$id.scope"
u run -q --session "$id" -- sh -c "sed -i 's|^scope=.*|scope=$fake/sandcap-sess-$id.scope|' ../ucg" \
	2> "$R/rw3.err"
run_rc u run -q --session "$id" -- sh -c 'sed -n "s/^0:://p" /proc/self/cgroup' > "$R/rw4.out" \
	2> "$R/rw4.err"
is "$rc" 125 "a call after one that pointed the ucg record at another directory: refused"
like "$(cat "$R/rw4.err")" "your user manager's sandcap-sess-$id.scope is" "... saying so"
check_fails "... and it ran nowhere" test -s "$R/rw4.out"
# end sweeps the calls' leaves of the scope the manager names, never of the record's path
vm-login sctest mkdir "$fake/sandcap-sess-$id.scope/call-9"
u session end "$id" > /dev/null 2>&1
check "that session's scope is gone after end" wait_for 30 test ! -d "$sc"
check "... and end left the record's directory alone" test -d "$fake/sandcap-sess-$id.scope/call-9"
vm-login sctest rmdir "$fake/sandcap-sess-$id.scope/call-9" "$fake/sandcap-sess-$id.scope" "$fake"

# --- a CPU-time budget spent across calls
id=$(u session start --ttl 10m --cpu-time 3s --timeout 60s --fs ro 2> "$R/start2.err")
is "$?" 0 "session start --cpu-time 3s --fs ro"
run_rc u run -q --session "$id" -- sh -c 'echo w > f && cat f && ! echo mode=rlimit >> ../state' \
	> "$R/ro.out" 2> "$R/ro.err"
is "$rc:$(cat "$R/ro.out")" 0:w "with --fs ro a call writes the workspace, not the session's state"
spin='while :; do :; done'
u run -q --session "$id" --cpu-time 1 --report "$R/b1.json" -- sh -c "$spin"
is "$(json_get "$R/b1.json" .verdict)" cpu-time "call 1 with its own --cpu-time 1: verdict cpu-time"
u run -q --session "$id" --report "$R/b2.json" -- sh -c "$spin"
is "$(json_get "$R/b2.json" .verdict)" cpu-time "call 2 with no --cpu-time of its own: ended by what is left of the budget"
like "$(json_get "$R/b2.json" .enforcement.cpu_time)" "user-cgroup" "... measured from the cgroup (cpu.stat)"
run_rc u run -q --session "$id" -- true 2> "$R/b3.err"
is "$rc" 125 "call 3: refused, the budget is spent (125)"
like "$(cat "$R/b3.err")" "CPU-time budget of 3s is spent" "... naming the budget"
u session end "$id" --json > "$R/bend.json" 2>&1
ge "$(json_get "$R/bend.json" .user_cgroup.cpu_used_ms)" 3000 "the session report's CPU time (the scope's cpu.stat) is at least the 3s budget"
check "the budget session's scope is gone after end" wait_for 30 scope_gone "$id"

# --- the keeper and every sandcap killed: the user manager ends the session at the TTL
id=$(u session start --ttl 15s 2> "$R/start3.err")
is "$?" 0 "session start --ttl 15s"
# A grandchild of its own session, which outlives the call's main process.  The call's two
# supervisors are frozen first (cgroup.freeze of the call's own scope: no signal, not even
# the SIGHUP and SIGCONT of a newly orphaned process group, runs their code), so that
# neither can end the call before SIGKILL ends them.
u run -q --session "$id" -- sh -c 'setsid sleep 1000.72 & exec sleep 1000.74' > /dev/null 2>&1 &
check "a call of the session runs" wait_for 60 running '^sleep 1000[.]72'
cs=$(find "$UCG" -type d -name "sandcap-$SCTEST_UID-*.scope" | head -n 1)
echo 1 > "$cs/cgroup.freeze"
check "the call's sandcap is frozen (its own scope ${cs##*/})" wait_for 30 grep -qx 'frozen 1' "$cs/cgroup.events"
pkill -KILL -u sctest -x sandcap-sess
pkill -KILL -u sctest -x sandcap
check "with the keeper and the call's sandcap killed, the call's grandchild still runs" \
	running '^sleep 1000[.]72'
check "... in the session's scope, which stays" test -n "$(scope_of "$id")"
check "at the TTL (plus 10 s) the user manager stops the scope: the call is gone" \
	wait_for 90 no_proc '^sleep 1000[.]72'
check "... and the scope with it" wait_for 30 scope_gone "$id"
run_rc u run -q --session "$id" -- true 2> "$R/dead.err"
is "$rc" 125 "a call of the expired session is refused"
u session ls > /dev/null 2>&1
check "session ls removes the expired session's directory" test ! -e "$SESS/$id"
bg_done "the login of the killed call has ended"

# --- the TTL with the keeper alive: it kills the call, writes the report, removes everything
id=$(u session start --ttl 8s --report "$R/ttl.json" 2> "$R/start4.err")
is "$?" 0 "session start --ttl 8s --report FILE"
u run -q --session "$id" -- sh -c 'exec sleep 1000.73' > /dev/null 2>&1 &
check "a call of the session runs" wait_for 60 running '^sleep 1000[.]73'
check "at the TTL the keeper writes the report" wait_for 60 test -s "$R/ttl.json"
is "$(json_get "$R/ttl.json" .ended)" ttl "... which says the TTL ended it"
check "the call is gone" wait_for 30 no_proc '^sleep 1000[.]73'
check "the scope is gone" wait_for 30 scope_gone "$id"
check "the session's directory is gone" wait_for 30 test ! -e "$SESS/$id"
bg_done "the login of the call the TTL ended has ended"

check "nothing of any session is left in sctest's subtree" wait_for 30 no_leftovers
check "no keeper is left" sh -c '! pgrep -u sctest -x sandcap-sess'
loginctl disable-linger sctest
done_testing
