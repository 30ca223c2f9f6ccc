#!/bin/sh
# sandcap.service under a real systemd: its main process lives on and holds the delegated
# parent (a oneshot unit's cgroup, delegated subtree included, is removed by systemd as
# soon as its process exits), in a leaf of the unit's cgroup; the policy points at it.
# vm-timeout: 120
# vm-cost: 2
. "$VMLIB"
. "$SRCDIR/tests/vm/sysd-lib.sh"
cg=$(unit_cg)
parent_right "installed"
is "$(tr '\n' ' ' < "$cg/cgroup.procs" 2>&1)" "" "no process in the unit's own cgroup (no-internal-process rule)"
like "$(systemctl status sandcap --no-pager 2>&1)" "Active: active \(running\)" "systemctl status sandcap says active (running)"
done_testing
