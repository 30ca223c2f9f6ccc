#!/bin/sh
# --grace longer than the helper's backstop in cgroup mode (#14 item 13): sandcap warns at
# start, keeps its grace below the backstop (9 s) and reports the grace applied and its own
# SIGKILL -- before, the helper's backstop killed the sandbox at 10 s and the report said
# "ended on SIGTERM" with the 30 s grace that was not honoured.
# vm-timeout: 90
# vm-cost: 12
. "$VMLIB"
R=$SCRATCH

run_rc timeout -s KILL 60 "$SANDCAP" run --timeout 1 --grace 30 --report "$R/g.json" -- \
	sh -c 'trap "" TERM; sleep 100' 2> "$R/g.err"
is "$rc" 124 "a TERM-ignoring command past --timeout 1 --grace 30: exit 124"
is "$(json_get "$R/g.json" .mode)" cgroup "... in cgroup mode"
like "$(tr '\n' ' ' < "$R/g.err")" "warning: --grace 30s: .*helper kills the sandbox 10s after its timeout; the grace period is 9s" \
	"... a warning at start says the grace is lowered to 9s"
is "$(json_get "$R/g.json" .limits.grace_ms)" 9000 "... the report's grace_ms is the one applied"
like "$(json_get "$R/g.json" .message)" "SIGTERM, then SIGKILL after the 9s grace" \
	"... the message names sandcap's own SIGKILL after the applied grace"
check_fails "... never 'ended on SIGTERM'" grep -q "ended on SIGTERM" "$R/g.json"
done_testing
