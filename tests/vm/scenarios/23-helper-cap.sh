#!/bin/sh
# The per-user cap on concurrent sandboxes (sandboxes = 2 in 23-helper-cap.ini): a third
# is refused naming the ceiling; a second user is counted separately.
# vm-timeout: 120
. "$VMLIB"
P=$TESTS/probe-client
wait_for() { i=0; while [ $i -lt 100 ] && ! grep -q "$1" "$2"; do sleep 0.1; i=$((i + 1)); done; }

"$P" -a child -s 12 > "$SCRATCH/a" 2>&1 &
a=$!
"$P" -a child -s 12 > "$SCRATCH/b" 2>&1 &
b=$!
wait_for "attach ok" "$SCRATCH/a"
wait_for "attach ok" "$SCRATCH/b"
out=$("$P" -a none 2>&1); rc=$?
is "$rc" 2 "a third concurrent sandbox is refused"
like "$out" "^error create [0-9]+ too many sandboxes: 2 already running, the ceiling is 2 set by \[limits\]" \
	"the refusal names the ceiling and its section"
wait $a; is "$?" 0 "the first sandbox ends cleanly"
wait $b; is "$?" 0 "the second sandbox ends cleanly"
out=$("$P" -a none 2>&1); rc=$?
is "$rc" 0 "after they ended a new sandbox is allowed"
done_testing
