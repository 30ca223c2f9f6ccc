#!/bin/sh
# sandcap run by a user the policy denies ([user:sctest] allow = no, 38-sandcap-run-denied.ini):
# asking for a cgroup limit gives exit 125, the message names the section, nothing runs;
# asking for none, the command runs in rlimit mode, outside any leaf, under the policy's
# timeout default and ceiling like every other user's run.
# vm-timeout: 30
# vm-cost: 2
# shellcheck source=tests/vm/lib.sh
. "$VMLIB"
R=$SCRATCH

run_rc "$SANDCAP" run --memory 64M -- sh -c "touch $R/ran" 2> "$R/err"
is "$rc" 125 "denied user: exit 125"
like "$(cat "$R/err")" '\[user:sctest\] allow = no' "denied user: the message names [user:sctest] allow = no"
check_fails "denied user: the command did not run" test -e "$R/ran"
like "$(cat "$R/err")" 'refused you.*ask the admin' "denied user: told the helper refused, not to install it"
diag "$(cat "$R/err")"
# Access decides who may use the helper: asking for no cgroup limit, the command runs in
# rlimit mode (what the user could do without sandcap), never in a leaf.  The policy's
# defaults and ceilings bind that run all the same (one rule for every user in every mode):
# the [defaults] timeout of 7 s applies, and a --timeout over the [limits] 1 m is refused.
run_rc "$SANDCAP" run -q --report "$R/rl.json" -- sh -c "cat /proc/self/cgroup > $R/ran2"
is "$rc" 0 "denied user, no cgroup limit asked: runs"
is "$(json_get "$R/rl.json" .mode)" rlimit "denied user, no cgroup limit asked: in rlimit mode"
check_fails "denied user, no cgroup limit asked: not in a leaf of /sandcap" grep -q '/sandcap/' "$R/ran2"
is "$(json_get "$R/rl.json" .limits.timeout_ms)" 7000 "denied user, rlimit mode: the [defaults] timeout 7s applies"
run_rc "$SANDCAP" run -q --timeout 2m -- sh -c "touch $R/ran3" 2> "$R/err3"
is "$rc" 125 "denied user, rlimit mode: --timeout 2m over the [limits] ceiling is refused"
like "$(cat "$R/err3")" 'timeout 120s is over the ceiling 60s set by \[limits\]' "... naming the ceiling and its section"
check_fails "... and the command did not run" test -e "$R/ran3"
done_testing
