#!/bin/sh
# The Python package's tests against sandcap (python/tests/test_run.py) in cgroup mode, as
# the unprivileged user: the same assertions as on the host, where the mode-dependent ones
# (memory, pids, refusals) assert what cgroup mode reports.  One TAP line per pytest test.
# (test_pure.py needs no kernel; it runs on the host only.)
# vm-timeout: 600
# vm-cost: 36
# shellcheck source=tests/vm/lib.sh
. "$VMLIB"
py=/usr/bin/python3
if ! "$py" -c 'import pytest' 2>/dev/null; then
	skip "python package tests in cgroup mode" "python3-pytest is not installed (make deps)"
	done_testing
fi
mode=$("$SANDCAP" run -q --memory 64M --report-fd 3 -- true 3>&1 >/dev/null 2>&1 |
	"$py" -c 'import json, sys; print(json.load(sys.stdin)["mode"])' 2>/dev/null)
is "$mode" cgroup "sandcap runs in cgroup mode here (else the tests below prove rlimit mode)"

# pytest's own lines as TAP comments, as they come (progress in NAME.log).
{ HOME=$SCRATCH TMPDIR=$SCRATCH PYTHONDONTWRITEBYTECODE=1 SRCDIR=$SRCDIR \
	"$py" -m pytest -p no:cacheprovider -v -rs --durations=10 --junitxml="$SCRATCH/junit.xml" \
	-o junit_family=xunit2 "$SRCDIR/python/tests/test_run.py" 2>&1
  echo "rc=$?" > "$SCRATCH/rc"; } | sed -u 's/^/# /'
rc=$(sed -n 's/^rc=//p' "$SCRATCH/rc")
if [ ! -s "$SCRATCH/junit.xml" ]; then
	fail "pytest ran" "exit $rc, no junit.xml"
	done_testing
fi
# junit -> TAP: ok / not ok / ok # SKIP, one per test (pytest-tap.sh).
. "$SRCDIR/tests/vm/pytest-tap.sh"
junit_tap "$SCRATCH/junit.xml"
is "$rc" "$(grep -c '^F' "$SCRATCH/junit.xml.tap" | sed 's/^0$/0/; s/^[1-9][0-9]*$/1/')" "pytest's exit status agrees"
done_testing
