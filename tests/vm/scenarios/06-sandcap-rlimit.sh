#!/bin/sh
# sandcap run in rlimit mode (--no-cgroup: no helper) works for the unprivileged user in the
# guest: exit codes as sandcap(1) says, --timeout, and the JSON report.
# vm-timeout: 60
# vm-cost: 7
# shellcheck source=tests/vm/lib.sh
. "$VMLIB"
R=$SCRATCH

run_rc "$SANDCAP" run -q --no-cgroup -- true
is "$rc" 0 "true exits 0"
run_rc "$SANDCAP" run -q --no-cgroup -- sh -c 'exit 3'
is "$rc" 3 "the command's own exit code is passed through"
run_rc "$SANDCAP" run -q --no-cgroup -- sh -c 'kill -KILL $$'
is "$rc" 137 "death by SIGKILL gives 128+9"
run_rc "$SANDCAP" run -q --no-cgroup -- /nonexistent/sandcap-vm-command
is "$rc" 127 "a missing command gives 127"
run_rc "$SANDCAP" run -q --no-cgroup -- "$SRCDIR/tests/vm/lib.sh"
is "$rc" 126 "a non-executable command gives 126"

start=$(date +%s)
run_rc "$SANDCAP" run -q --no-cgroup --timeout 1s --grace 1s --report "$R/timeout.json" -- sleep 30
took=$(($(date +%s) - start))
is "$rc" 124 "--timeout 1s on sleep 30 gives 124"
check "the timeout fired in time (${took}s)" test "$took" -le 10
is "$(json_get "$R/timeout.json" .verdict)" timeout "report verdict: timeout"
is "$(json_get "$R/timeout.json" .sandcap_exit)" 124 "report sandcap_exit: 124"

run_rc "$SANDCAP" run -q --no-cgroup --report "$R/ok.json" -- true
is "$(json_get "$R/ok.json" .verdict)" ok "report verdict: ok"
is "$(json_get "$R/ok.json" .exit_code)" 0 "report exit_code: 0"
is "$(json_get "$R/ok.json" .sandcap_report)" 1 "report sandcap_report: 1"

run_rc "$SANDCAP" run -q --no-cgroup --report "$R/exit.json" -- sh -c 'exit 5'
is "$(json_get "$R/exit.json" .verdict)" exit "report verdict for exit 5: exit"
is "$(json_get "$R/exit.json" .exit_code)" 5 "report exit_code: 5"

# A timed-out command's children die with it (process-group kill).
run_rc "$SANDCAP" run -q --no-cgroup --timeout 1s --grace 0 -- sh -c 'sleep 300 & sleep 300 & wait'
is "$rc" 124 "timeout with children gives 124"
sleep 0.5
is "$(pgrep -u "$SCTEST_UID" -x sleep | wc -l)" 0 "no sleep of the test user survives"
done_testing
