#!/bin/sh
# Shared helpers for tests/integration/t-*.sh (sourced).  TAP output; bubblewrap libtest
# pattern.  Needs SANDCAP (absolute path of the sandcap binary); BUILD and SRCDIR as run.sh sets.
#
# When the tests run as root, the sandboxed side runs as nobody (setpriv), so that rlimits
# such as --nproc really apply and nothing relies on root's powers.  $T is a scratch
# directory, mode 1777, removed at exit.
set -u
: "${SANDCAP:?SANDCAP must name the sandcap binary}"

# These tests are about rlimit mode: never pick up an installed helper (cgroup mode is
# tested in the VM suite, tests/vm/scenarios/30-sandcap-run-cgroup.sh).
SANDCAP_HELPER=/nonexistent/sandcap-helper-disabled-by-libtest
export SANDCAP_HELPER

n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
# skip DESC: REASON: a test this host cannot run; counted neither as passed nor as failed.
skip() { n=$((n + 1)); echo "ok $n - # SKIP $*"; }
# expect DESC CONDITION...: ok if the command succeeds.
expect() { d=$1; shift; if "$@"; then ok "$d"; else notok "$d"; fi; }
# eq DESC WANT GOT
eq() { if [ "$2" = "$3" ]; then ok "$1"; else notok "$1 (want '$2', got '$3')"; fi; }
# contains DESC NEEDLE HAYSTACK
contains() {
	case "$3" in *"$2"*) ok "$1" ;; *) notok "$1 ('$2' not in: $3)" ;; esac
}
done_testing() { echo "1..$n"; [ "$failed" -eq 0 ]; exit $?; }

T=$(mktemp -d /tmp/sandcap-test.XXXXXX)
chmod 1777 "$T"
LIBTEST_PIDS=""
libtest_cleanup() {
	for p in $LIBTEST_PIDS; do kill -9 "$p" 2>/dev/null; done
	rm -rf "$T"
}
trap libtest_cleanup EXIT
trap 'exit 1' INT TERM

as_user() { "$@"; }
as_user_exec() { exec "$@"; }
if [ "$(id -u)" = 0 ]; then
	as_user() { setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"; }
	as_user_exec() { exec setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"; }
fi
# For background jobs whose $! must be sandcap itself: (as_user_exec "$SANDCAP" run ...) &
cd "$T" || exit 1

# sandcap_run ARGS...: run "sandcap run ARGS" as the test user; stdout/stderr to $T/out, $T/err;
# the exit status in $rc and the wall time in ms in $ms.
sandcap_run() {
	t0=$(now_ms)
	as_user "$SANDCAP" run "$@" > "$T/out" 2> "$T/err"
	rc=$?
	ms=$(( $(now_ms) - t0 ))
}
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
# between DESC LOW HIGH VALUE
between() {
	if [ "$4" -ge "$2" ] && [ "$4" -le "$3" ]; then ok "$1 ($4)"; else notok "$1 ($4 not in [$2, $3])"; fi
}
# json FILE EXPR: print a field of a JSON report (python syntax after the document, e.g.
# '["usage"]["wall_ms"]'); prints PARSE-ERROR if the file is not valid JSON.
json() {
	python3 - "$1" "$2" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print("PARSE-ERROR %s" % e); sys.exit(0)
v = eval("d" + sys.argv[2])
print(json.dumps(v) if not isinstance(v, str) else v)
PY
}
# gone MARKER: no process whose command line contains MARKER.
gone() { ! pgrep -f -- "$1" >/dev/null; }
