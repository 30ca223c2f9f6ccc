#!/bin/sh
# Verdict killed with who asked (issue 16): sandcap kill (uid and pid of the requester), a
# signal sent to sandcap from outside (forwarded); sandcap kill --signal 0; sandcap ps with
# human sizes and '-' for what rlimit mode does not measure.
. "$(dirname "$0")/libtest.sh"

U=$T/k; mkdir -p "$U/run"; chmod 700 "$U/run"
[ "$(id -u)" = 0 ] && chown 65534:65534 "$U/run"
ue() { as_user env XDG_RUNTIME_DIR="$U/run" "$@"; }
ue_exec() { as_user_exec env XDG_RUNTIME_DIR="$U/run" "$@"; }
nsock() { find "$U/run/sandcap" -name '*.sock' 2> /dev/null | wc -l; }
wait_sock() { i=0; while [ $i -lt 100 ] && [ "$(nsock)" -lt "$1" ]; do sleep 0.1; i=$((i + 1)); done; }
one_id() { ue "$SANDCAP" ps --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])'; }

# sandcap kill: verdict killed, naming the requester.
(ue_exec "$SANDCAP" run -q --timeout 60 --report "$T/k1.json" -- sleep 100.5611) & a=$!
LIBTEST_PIDS="$a"
wait_sock 1
id=$(one_id)
ps_out=$(ue "$SANDCAP" ps)
case "$ps_out" in *null*) notok "sandcap ps: no 'null' in the table" ;; *) ok "sandcap ps: no 'null' in the table" ;; esac
line=$(printf '%s\n' "$ps_out" | grep "sleep 100.5611")
# rlimit mode: memory, CPU and pids from /proc (t-profile-ps), '-' for the peak and the
# workspace, which only a cgroup and the helper have.
case $line in
*" "[0-9.]*" "[KMG]i"B          -    "[0-9.]*"s     1          -  sleep 100.5611")
	ok "sandcap ps in rlimit mode: memory, CPU and pids from /proc, '-' for peak and disk" ;;
*) notok "sandcap ps in rlimit mode: memory, CPU and pids from /proc, '-' for peak and disk ($line)" ;;
esac
ue "$SANDCAP" kill --signal 0 "$id"
eq "sandcap kill --signal 0 of a running sandbox: exit 0" 0 "$?"
expect "... and it still runs" kill -0 "$a"
ue sh -c 'echo $$ > "$1"; exec "$2" kill "$3"' sh "$T/kpid" "$SANDCAP" "$id"
eq "sandcap kill: exit 0" 0 "$?"
wait "$a"
eq "the killed sandbox: 137" 137 "$?"
eq "verdict killed" killed "$(json "$T/k1.json" '["verdict"]')"
eq "killed_by.by" "sandcap kill" "$(json "$T/k1.json" '["killed_by"]["by"]')"
eq "killed_by.signal" 9 "$(json "$T/k1.json" '["killed_by"]["signal"]')"
eq "killed_by.pid is the sandcap kill process" "$(cat "$T/kpid")" "$(json "$T/k1.json" '["killed_by"]["pid"]')"
eq "killed_by.uid is the requester's" "$(as_user id -u)" "$(json "$T/k1.json" '["killed_by"]["uid"]')"
eq "killed is not a limit: limits_hit empty" "[]" "$(json "$T/k1.json" '["limits_hit"]')"
contains "the message names sandcap kill and the pid" "'sandcap kill' (SIGKILL, from pid $(cat "$T/kpid")" \
	"$(json "$T/k1.json" '["message"]')"
ue "$SANDCAP" kill --signal 0 "$id" 2> /dev/null
eq "sandcap kill --signal 0 of an ended sandbox: exit 1" 1 "$?"

# A signal sent to sandcap from outside: forwarded, verdict killed, the sender named.
(ue_exec "$SANDCAP" run -q --timeout 60 --report "$T/k2.json" -- sh -c 'trap "exit 3" TERM; sleep 100.5612 & wait') & b=$!
LIBTEST_PIDS="$b"
wait_sock 1
# The socket exists before the command starts: wait until its sleep runs, i.e. the trap is
# set, or a TERM that comes first kills sh (143) and the check depends on a race.
i=0; while [ $i -lt 300 ] && ! pgrep -f -- '^sleep 100\.5612$' > /dev/null; do
	sleep 0.1; i=$((i + 1)); done
sh -c 'echo $$ > "$1"; exec kill -TERM "$2"' sh "$T/spid" "$b"
wait "$b"
eq "a TERM-handling command: sandcap exits with its status (3)" 3 "$?"
eq "verdict killed" killed "$(json "$T/k2.json" '["verdict"]')"
eq "killed_by.by" signal "$(json "$T/k2.json" '["killed_by"]["by"]')"
eq "killed_by.signal" 15 "$(json "$T/k2.json" '["killed_by"]["signal"]')"
eq "killed_by.pid is the sender" "$(cat "$T/spid")" "$(json "$T/k2.json" '["killed_by"]["pid"]')"
eq "exit_code 3 reported" 3 "$(json "$T/k2.json" '["exit_code"]')"
LIBTEST_PIDS=""
i=0; while [ $i -lt 50 ] && ! gone "sleep 100.5612"; do sleep 0.1; i=$((i + 1)); done
expect "its children are gone" gone "sleep 100.5612"

# Two requests, the first ignored: killed_by names the last one, the one the command met.
# (Standard signals pending together are read lowest number first: HUP before TERM.)
(ue_exec "$SANDCAP" run -q --timeout 60 --report "$T/k4.json" -- sh -c 'trap "" HUP; trap "exit 4" TERM; sleep 100.5613 & wait') & b=$!
LIBTEST_PIDS="$b"
i=0; while [ $i -lt 300 ] && ! pgrep -f -- '^sleep 100\.5613$' > /dev/null; do
	sleep 0.1; i=$((i + 1)); done
kill -HUP "$b"; sleep 0.3; kill -TERM "$b"
wait "$b"
eq "HUP ignored, then TERM handled: sandcap exits with the command's status (4)" 4 "$?"
eq "... killed_by.signal is the last request, TERM" 15 "$(json "$T/k4.json" '["killed_by"]["signal"]')"
contains "... the message says it was a request, then how the command ended" \
	"SIGTERM sent to sandcap by pid" "$(json "$T/k4.json" '["message"]')"
contains "... ..." "forwarded, then the command exited with status 4" "$(json "$T/k4.json" '["message"]')"
LIBTEST_PIDS=""
i=0; while [ $i -lt 50 ] && ! gone "sleep 100.5613"; do sleep 0.1; i=$((i + 1)); done

# Each process gets a signal once: the supervisor signalled the process group, then every
# descendant again, the group's members included (SIGTERM twice: a handler ran twice, one
# that exits 0 was killed by the second).  A real-time signal, blocked and so queued,
# counts the deliveries whatever the scheduler does (probe-sigcount.py).
D=$T/sigcount; mkdir -p "$D"; chmod 777 "$D"
ready3() { [ -e "$D/ready.main" ] && [ -e "$D/ready.child" ] && [ -e "$D/ready.other" ]; }
(ue_exec "$SANDCAP" run -q --no-cgroup --timeout 60 --report "$T/k5.json" -- \
	python3 "$SRCDIR/tests/integration/probe-sigcount.py" "$D" 40) & b=$!
LIBTEST_PIDS="$b"
i=0; while [ $i -lt 300 ] && ! ready3; do sleep 0.1; i=$((i + 1)); done
wait_sock 1
ue "$SANDCAP" kill --signal 40 "$(one_id)"
eq "sandcap kill --signal 40: exit 0" 0 "$?"
touch "$D/go"
wait "$b"
eq "... the sandbox ends on its own: exit 0" 0 "$?"
for p in main child other; do
	eq "... the $p process got signal 40 once" 1 "$(cat "$D/n.$p" 2> /dev/null)"
done
LIBTEST_PIDS=""

# The finding itself: a SIGTERM handler that exits 0 is not killed by a second SIGTERM.
rm -f "$D/ready.main"
(ue_exec "$SANDCAP" run -q --no-cgroup --timeout 60 --report "$T/k6.json" -- python3 -c '
import signal, sys, time
signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
open(sys.argv[1], "w").close()
while True:
    time.sleep(1)' "$D/ready.main") & b=$!
LIBTEST_PIDS="$b"
i=0; while [ $i -lt 300 ] && [ ! -e "$D/ready.main" ]; do sleep 0.1; i=$((i + 1)); done
wait_sock 1
ue "$SANDCAP" kill --signal TERM "$(one_id)"
wait "$b"
eq "a SIGTERM handler that exits 0: sandcap exits 0" 0 "$?"
eq "... verdict killed" killed "$(json "$T/k6.json" '["verdict"]')"
eq "... exit_code 0" 0 "$(json "$T/k6.json" '["exit_code"]')"
LIBTEST_PIDS=""

# Options end at "--": what follows the ID there is an argument, refused, not an option.
"$SANDCAP" kill -- nosuch -s TERM > "$T/out" 2> "$T/err"
eq "sandcap kill -- ID -s TERM: refused (125)" 125 "$?"
contains "... -s is an unexpected argument there" "unexpected argument '-s'" "$(cat "$T/err")"

# Nothing from outside: no killed_by.
sandcap_run -q --report "$T/k3.json" -- sh -c 'kill -TERM $$'
eq "a command that signals itself: verdict signal" signal "$(json "$T/k3.json" '["verdict"]')"
eq "... killed_by null" null "$(json "$T/k3.json" '["killed_by"]')"
done_testing
