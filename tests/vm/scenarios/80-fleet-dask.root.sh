#!/bin/sh
# Issue #20 in cgroup mode, Dask: python/tests/test_fleet_dask.py as sctest with the helper
# installed with caps: a LocalCluster of 2 worker processes with 2 sandcap slots each runs
# the 24 tool calls (18 ok, 2 memory, 2 pids, 1 timeout, 1 --net none refusal: exact
# verdicts from the leaves' counters); no worker dies or is paused; nothing left (leaves
# through a root-side lister, mounts, processes).  The time of the 24 calls is printed,
# bounded only by the test's hang guard.  Root's part: the lister and the final checks.
# vm-timeout: 1500
# vm-cost: 95
# shellcheck source=tests/vm/lib.sh
. "$VMLIB"
. "$SRCDIR/tests/vm/pytest-tap.sh"
. "$SRCDIR/tests/vm/fleet-run.sh"
if ! /usr/bin/python3 -c 'import pytest, distributed' 2>/dev/null; then
	skip "Dask acceptance test in cgroup mode" "python3-pytest or python3-distributed is not installed (make deps)"
	done_testing
fi
fleet_pytest test_fleet_dask.py
done_testing
