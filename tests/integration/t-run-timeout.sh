#!/bin/sh
# sandcap run --timeout/--grace and the end of the sandbox: the whole tree is signalled, escaped
# descendants (background, setsid, double fork) are killed and reaped, nothing is left.
# Upper bounds on wall time only tell "ended on its limit" from "ran on" (the command's own
# sleep, or the 5 s default grace), with margin for a busy machine: they are no speed targets.
. "$(dirname "$0")/libtest.sh"

sandcap_run --timeout 1 -- sleep 10
eq "timeout exits 124" 124 "$rc"
between "timeout 1 ends after about a second (ms)" 800 9000 "$ms"
contains "timeout summary line" "sandcap: timeout: " "$(cat "$T/err")"

sandcap_run -q --timeout 1 --grace 1 --report "$T/t.json" -- \
	sh -c 'trap "" TERM; sleep 100.1231'
eq "TERM-ignoring command: exit 124" 124 "$rc"
between "... killed after timeout + grace (ms)" 1500 30000 "$ms"
expect "... no process left" gone "sleep 100.1231"
eq "... verdict timeout" timeout "$(json "$T/t.json" '["verdict"]')"
eq "... died of SIGKILL" 9 "$(json "$T/t.json" '["signal"]')"
eq "... limits_hit" '["timeout"]' "$(json "$T/t.json" '["limits_hit"]')"
eq "... limits" '{"timeout_ms": 1000, "grace_ms": 1000, "core": 0}' "$(json "$T/t.json" '["limits"]')"
eq "... timeout enforced by sandcap" sandcap "$(json "$T/t.json" '["enforcement"]["timeout"]')"

sandcap_run -q --timeout 500ms --grace 0 -- sh -c 'trap "" TERM; sleep 100.1232'
eq "--grace 0: exit 124" 124 "$rc"
between "--grace 0 kills at once (ms)" 300 5000 "$ms"
expect "... no process left" gone "sleep 100.1232"

# A command that handles SIGTERM and exits 0 still timed out.
sandcap_run -q --timeout 1 --report "$T/t2.json" -- sh -c 'trap "exit 0" TERM; sleep 100.1233 & wait'
eq "SIGTERM handled, exit 0: still 124" 124 "$rc"
eq "... verdict timeout" timeout "$(json "$T/t2.json" '["verdict"]')"
eq "... exit_code 0 reported" 0 "$(json "$T/t2.json" '["exit_code"]')"
expect "... its background child is gone" gone "sleep 100.1233"

# Descendants still alive when the main process exits are killed: the sandbox ends with its
# command.
sandcap_run -q -- sh -c 'sleep 100.1234 & exit 0'
eq "background grandchild: exit 0" 0 "$rc"
between "... without waiting for it (ms)" 0 30000 "$ms"
expect "... the grandchild is gone" gone "sleep 100.1234"

sandcap_run -q -- sh -c 'setsid sleep 100.1235 & exit 0'
eq "setsid escapee: exit 0" 0 "$rc"
expect "... the escapee is gone" gone "sleep 100.1235"

sandcap_run -q -- sh -c '(sh -c "sleep 100.1236" &) ; exit 7'
eq "double fork: exit 7" 7 "$rc"
expect "... the orphan is gone" gone "sleep 100.1236"

sandcap_run -q --timeout 1 --grace 1 -- \
	sh -c 'setsid sh -c "trap \"\" TERM; sleep 100.1237" & sleep 100.1238'
eq "timeout with a TERM-ignoring setsid escapee: 124" 124 "$rc"
between "... after timeout + grace (ms)" 1500 30000 "$ms"
expect "... the escapee is gone" gone "sleep 100.1237"
expect "... the main sleep is gone" gone "sleep 100.1238"

# The main process exits 0 on SIGTERM, a child ignoring it needs the SIGKILL: the message
# says so, not that the command was killed.
sandcap_run -q --timeout 2 --grace 1 --report "$T/tg.json" -- sh -c 'sh -c "trap \"\" TERM; sleep 100.1240" & trap "exit 0" TERM; sleep 100.1241 & wait'
eq "main exits 0 on SIGTERM, a child ignores it: 124" 124 "$rc"
contains "... the message says the command exited 0 and the rest was killed" \
	"the command exited with status 0 after SIGTERM; what was left of the sandbox was killed (SIGKILL) after the 1s grace" \
	"$(json "$T/tg.json" '["message"]')"
expect "... the child is gone" gone "sleep 100.1240"

# A stopped descendant does not hold up the end.
sandcap_run -q -- sh -c 'sleep 100.1239 & kill -STOP $!; exit 0'
eq "stopped descendant: exit 0" 0 "$rc"
expect "... it is gone" gone "sleep 100.1239"

# Usage covers the whole tree: a child's CPU time counts.
sandcap_run -q --report "$T/u.json" -- sh -c 'sh -c "i=0; while [ \$i -lt 300000 ]; do i=\$((i+1)); done" & wait'
cpu=$(json "$T/u.json" '["usage"]["cpu_user_ms"] + d["usage"]["cpu_system_ms"]')
between "child CPU time is in the usage (ms)" 50 60000 "$cpu"
wall=$(json "$T/u.json" '["usage"]["wall_ms"]')
between "wall time is measured (ms)" 1 60000 "$wall"

done_testing
