#!/bin/sh
# systemctl daemon-reload and systemctl restart sandcap while a user's sandbox runs: the
# sandbox survives both and ends with its own report; the service comes back with its
# delegated parent; new sandboxes run in cgroup mode after each.
# vm-timeout: 600
# vm-pending: reaper-pkg (#17: the oneshot unit; restart must not kill the delegated subtree)
. "$VMLIB"
. "$SRCDIR/tests/vm/sysd-lib.sh"
adduser --quiet sctest sandcap
check "a sandbox of sctest runs (cgroup mode, waiting)" bg_start sctest bg
check "systemctl daemon-reload" systemctl daemon-reload
check "the sandbox still runs after daemon-reload" bg_alive bg
parent_right "after daemon-reload"
check "systemctl restart sandcap" systemctl restart sandcap
check "the sandbox still runs after the restart" bg_alive bg
parent_right "after restart"
r=$SCRATCH/new.json
chmod 0777 "$SCRATCH"
run_rc vm-login sctest sandcap run -q --memory 32M --report "$r" -- true
is "$(json_get "$r" .mode)" cgroup "a new sandbox after the restart runs in cgroup mode"
check "the first sandbox ends when told" bg_finish bg
is "$(json_get "$SCRATCH/bg.json" .verdict)" ok "its report: verdict ok"
is "$(json_get "$SCRATCH/bg.json" .mode)" cgroup "its report: mode cgroup"
done_testing
