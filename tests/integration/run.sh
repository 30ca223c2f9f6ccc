#!/bin/sh
# Integration suite: run every tests/integration/t-*.sh against the built binaries.
#   sh tests/integration/run.sh BUILD
# Each script gets SANDCAP, BUILD and SRCDIR (absolute) in its environment and prints TAP
# lines.  We count "ok", "not ok" and "ok ... # SKIP reason" lines (a skip is neither passed
# nor failed); a script that exits non-zero or prints no TAP line counts as one more
# failure.  Exit status 77 means "cannot run here" and is a failure too when
# SANDBOX_TESTS_MUST_RUN=1 (CI), one skip otherwise.
# Writes "integration PASSED FAILED SKIPPED" into BUILD/results/integration.
set -u
build=${1:-build}
srcdir=$(cd "$(dirname "$0")/../.." && pwd)
case "$build" in /*) ;; *) build=$srcdir/$build ;; esac
mkdir -p "$build/results"
pass=0 fail=0 skipped=0 scripts=0
for t in "$srcdir"/tests/integration/t-*.sh; do
	[ -f "$t" ] || continue
	scripts=$((scripts + 1))
	name=$(basename "$t")
	echo "# --- $name"
	out=$(SANDCAP="$build/sandcap" BUILD="$build" SRCDIR="$srcdir" sh "$t" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	s=$(printf '%s\n' "$out" | grep -ci '^ok [^#]*# *skip')
	p=$(( $(printf '%s\n' "$out" | grep -c '^ok ') - s ))
	f=$(printf '%s\n' "$out" | grep -c '^not ok ')
	pass=$((pass + p)); fail=$((fail + f)); skipped=$((skipped + s))
	if [ "$rc" -eq 77 ]; then
		if [ "${SANDBOX_TESTS_MUST_RUN:-0}" = 1 ]; then
			echo "# $name: skipped, but SANDBOX_TESTS_MUST_RUN=1"; fail=$((fail + 1))
		else
			echo "# $name: skipped"; skipped=$((skipped + 1))
		fi
	elif [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "not ok - $name exited $rc without reporting a failure"; fail=$((fail + 1))
	elif [ $((p + f + s)) -eq 0 ]; then
		echo "not ok - $name printed no test result"; fail=$((fail + 1))
	fi
done
if [ "$scripts" -eq 0 ]; then
	echo "not ok - no integration test scripts found"; fail=$((fail + 1))
fi
echo "integration $pass $fail $skipped" > "$build/results/integration"
echo "integration: $pass passed, $fail failed, $skipped skipped"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
