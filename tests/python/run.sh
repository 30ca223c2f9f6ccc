#!/bin/sh
# Python suite: pytest over python/tests against the built sandcap, on the host (rlimit
# mode: an installed helper is never picked up).  Includes the Dask and Celery acceptance
# tests of issue #20 (they skip, with the reason, when python3-distributed/python3-celery
# are missing), and sandcap-mcp driven by the official MCP TypeScript SDK (installed with npm
# into BUILD/mcp-sdk; skipped, with the reason, when npm cannot reach the registry).
#   sh tests/python/run.sh BUILD [PYTEST-ARGS...]
# When run as root, pytest and everything it starts run as nobody (setpriv), as the
# integration suite does, so that per-user rlimits such as RLIMIT_NPROC really apply.
# Writes "python PASSED FAILED" into BUILD/results/python; skipped tests count as neither.
set -u
build=${1:-build}
[ $# -gt 0 ] && shift
srcdir=$(cd "$(dirname "$0")/../.." && pwd)
case "$build" in /*) ;; *) build=$srcdir/$build ;; esac
mkdir -p "$build/results"
fail_run() { echo "python 0 1" > "$build/results/python"; echo "python: $*" >&2; exit 1; }

# Debian's python3, where python3-pytest installs pytest (a python3 earlier in PATH, e.g.
# pyenv's, may lack it).  PYTHON overrides.
py=${PYTHON:-}
if [ -z "$py" ]; then
	for c in /usr/bin/python3 python3; do
		if "$c" -c 'import pytest' 2>/dev/null; then py=$c; break; fi
	done
fi
[ -n "$py" ] || fail_run "pytest not found (apt-get install python3-pytest, or make deps)"

scratch=$(mktemp -d /tmp/sandcap-python.XXXXXX) || fail_run "mktemp failed"
trap 'rm -rf "$scratch"' EXIT
trap 'exit 1' INT TERM
chmod 0755 "$scratch"
# The official MCP SDK that python/tests/test_mcp_sdk.py installs with npm: kept in the
# build directory between runs, never in the source tree.
sdk=$build/mcp-sdk
mkdir -p "$sdk"
as_user() { "$@"; }
if [ "$(id -u)" = 0 ]; then
	chown 65534:65534 "$scratch"
	chown -R 65534:65534 "$sdk"
	as_user() { setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"; }
fi

# HOME and TMPDIR in the scratch directory: engines write configuration and spill files.
# pytest's output also goes to BUILD/python-tests.log (the failures' details).
{ as_user env HOME="$scratch" TMPDIR="$scratch" PYTHONDONTWRITEBYTECODE=1 \
	SANDCAP="$build/sandcap" SRCDIR="$srcdir" SANDCAP_MCP_SDK_DIR="$sdk" \
	SANDCAP_HELPER=/nonexistent/sandcap-helper-disabled-by-tests-python \
	"$py" -m pytest -p no:cacheprovider -rfEs --junitxml="$scratch/junit.xml" \
	-o junit_family=xunit2 "$srcdir/python/tests" "$@" 2>&1
  echo $? > "$scratch/rc"; } | tee "$build/python-tests.log"
rc=$(cat "$scratch/rc" 2>/dev/null || echo 1)
[ -s "$scratch/junit.xml" ] || fail_run "pytest wrote no results (exit $rc)"
set -- $("$py" - "$scratch/junit.xml" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
t = f = s = 0
for x in suites:
    t += int(x.get("tests", 0)); s += int(x.get("skipped", 0))
    f += int(x.get("failures", 0)) + int(x.get("errors", 0))
print(t - f - s, f)
PY
)
pass=${1:-0} fail=${2:-1}
# pytest's own failure (collection error, crash) with no failed test counted is a failure.
if [ "$rc" -ne 0 ] && [ "$fail" -eq 0 ]; then fail=1; fi
echo "python $pass $fail" > "$build/results/python"
echo "python: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
