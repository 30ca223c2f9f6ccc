#!/bin/sh
# Issue #20 in cgroup mode, Celery: python/tests/test_fleet_celery.py as sctest with the
# helper installed with caps: 2 prefork workers (concurrency 2) on kombu's filesystem
# transport run the 24 tool calls with exact verdicts, no pool process lost, nothing left;
# a task killed by Celery's own time_limit leaves no process, leaf or workspace mount 2 s
# later (leaves seen through a root-side lister).  Root's part: the lister and final checks.
# vm-early: it waits out Celery's 20 s time limit and its workers' shutdown (about 45 s idle), best spent while the host suites run beside this guest (make check)
# vm-timeout: 1500
# vm-cost: 121
# shellcheck source=tests/vm/lib.sh
. "$VMLIB"
. "$SRCDIR/tests/vm/pytest-tap.sh"
. "$SRCDIR/tests/vm/fleet-run.sh"
if ! /usr/bin/python3 -c 'import pytest, celery, kombu.transport.filesystem' 2>/dev/null; then
	skip "Celery acceptance test in cgroup mode" "python3-pytest or python3-celery is not installed (make deps)"
	done_testing
fi
fleet_pytest test_fleet_celery.py
done_testing
