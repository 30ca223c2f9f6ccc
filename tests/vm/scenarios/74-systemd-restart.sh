#!/bin/sh
# systemctl daemon-reload and systemctl restart sandcap while a user's sandbox runs: the
# sandbox survives both (KillMode=process: stopping the unit stops the reaper only) and
# ends with its own report; the service is active again with its delegated parent, at the
# latest once the sandbox has ended (before systemd 254, without DelegateSubgroup=, a start
# while sandboxes run fails with 219/CGROUP and Restart= retries every 5 s:
# sandcap-helper(8), UPGRADES AND RESTARTS), and new sandboxes run in cgroup mode then.
# vm-timeout: 400
# vm-cost: 17
. "$VMLIB"
. "$SRCDIR/tests/vm/sysd-lib.sh"
adduser --quiet sctest sandcap
check "a sandbox of sctest runs (cgroup mode, waiting)" bg_start sctest bg
check "systemctl daemon-reload" systemctl daemon-reload
check "the sandbox still runs after daemon-reload" bg_alive bg
parent_right "after daemon-reload"
run_rc systemctl restart sandcap
diag "systemctl restart sandcap with a sandbox running: exit $rc (systemd $(systemctl --version | sed -n '1s/^systemd \([0-9]*\).*/\1/p'))"
check "the sandbox still runs after the restart" bg_alive bg
cg=$(unit_cg)
is "$(stat -c '%U:%G %a' "$cg/sandboxes" 2>&1)" "root:root 700" "the delegated parent stays through the restart"
r=$SCRATCH/new.json
chmod 0777 "$SCRATCH"
# Before systemd 254 each failed start of the retries removes the unit's empty cgroups, a
# new sandbox's leaf between its CREATE and SPAWN included: a sandbox started during the
# retries may be refused (sandcap-helper(8)).  Whether it is depends on which comes first,
# so its outcome is reported, not asserted; the new sandbox asserted below starts once the
# service is back.
run_rc vm-login sctest sandcap run -q --memory 32M --report "$r.meanwhile" -- true
diag "a new sandbox during the restart retries: exit $rc (mode $(json_get "$r.meanwhile" .mode 2>/dev/null))"
check "the first sandbox ends when told" bg_finish bg
is "$(json_get "$SCRATCH/bg.json" .verdict)" ok "its report: verdict ok"
is "$(json_get "$SCRATCH/bg.json" .mode)" cgroup "its report: mode cgroup"
check "sandcap.service is active again once no sandbox runs (Restart= retries every 5 s)" \
	wait_for 90 systemctl -q is-active sandcap.service
parent_right "after the restart"
run_rc vm-login sctest sandcap run -q --memory 32M --report "$r" -- true
is "$rc" 0 "a new sandbox runs after the restart"
is "$(json_get "$r" .mode)" cgroup "in cgroup mode"
done_testing
