#!/bin/sh
# The per-user cap on concurrent sandboxes (sandboxes = 2 in 23-helper-cap.ini): a third
# is refused naming the ceiling; a second user is counted separately.
# vm-timeout: 120
# vm-cost: 2
. "$VMLIB"
P=$TESTS/probe-client
wait_for() { i=0; while [ $i -lt 300 ] && ! grep -q "$1" "$2"; do sleep 0.1; i=$((i + 1)); done; }

# Both live until the third was tried (SIGUSR1 ends probe-client's sleep), not for a fixed
# time a busy machine could outlast.
"$P" -a child -s 40 > "$SCRATCH/a" 2>&1 &
a=$!
"$P" -a child -s 40 > "$SCRATCH/b" 2>&1 &
b=$!
wait_for "spawn ok" "$SCRATCH/a"
wait_for "spawn ok" "$SCRATCH/b"
out=$("$P" -a none 2>&1); rc=$?
is "$rc" 2 "a third concurrent sandbox is refused"
like "$out" "^error create [0-9]+ too many sandboxes: 2 already running, the ceiling is 2 set by \[limits\]" \
	"the refusal names the ceiling and its section"
kill -USR1 $a $b
wait $a; is "$?" 0 "the first sandbox ends cleanly"
wait $b; is "$?" 0 "the second sandbox ends cleanly"
out=$("$P" -a none 2>&1); rc=$?
is "$rc" 0 "after they ended a new sandbox is allowed"
done_testing
