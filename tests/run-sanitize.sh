#!/bin/sh
# Sanitizer suite: build everything with ASan+UBSan (`make SANITIZE=1`, -fno-sanitize-recover)
# into SANBUILD (default build-san), then run the unit tests and the host integration suite
# against those binaries.  Any sanitizer report makes the test that hit it fail (the process
# aborts with a non-zero status); leaks are reported by LeakSanitizer at exit.
# Writes "sanitize PASSED FAILED SKIPPED" (the sums of both suites) into
# BUILD/results/sanitize.  A test the host cannot run (e.g. the i386 ABI on a kernel without
# IA-32 emulation) is probed and skipped, and the probe's own fault is kept away from the
# sanitizers (tests/integration/probe-net.c, probe_ia32), so it is no finding.
#   sh tests/run-sanitize.sh [--build-only] [BUILD] [SANBUILD]
# --build-only makes the SANITIZE=1 build and stops (`make check` starts it early, beside
# the other suites; the later full run finds it built).
set -u
build_only=0
[ "${1:-}" = --build-only ] && { build_only=1; shift; }
build=${1:-build}
san=${2:-build-san}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
mkdir -p "$build/results" "$san/results"
result() {
	echo "sanitize $1 $2 ${3:-0}" > "$build/results/sanitize"
	echo "sanitize: $1 passed, $2 failed, ${3:-0} skipped"
}

# halt_on_error: the first report ends the process with exitcode 99 (tests see a failure).
# abort_on_error=0 keeps core dumps away.  The helper and sandcap close fds and clear the
# environment; ASan needs neither after start-up.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1:exitcode=99:abort_on_error=0:detect_stack_use_after_return=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

units=$(ls tests/unit/test-*.c 2>/dev/null | sed 's|tests/unit/\(.*\)\.c|'"$san"'/tests/\1|')
# shellcheck disable=SC2086
if ! make --no-print-directory SANITIZE=1 BUILD="$san" -j2 all $units \
	> "$san/build.log" 2>&1; then
	echo "sanitize: the SANITIZE=1 build failed:" >&2
	tail -n 30 "$san/build.log" >&2
	result 0 1; exit 1
fi
[ "$build_only" = 1 ] && exit 0

status=0
rm -f "$san/results/unit" "$san/results/integration"
sh tests/run-unit.sh "$san" > "$san/sanitize-unit.log" 2>&1 || status=1
cat "$san/sanitize-unit.log"
sh tests/integration/run.sh "$san" > "$san/sanitize-integration.log" 2>&1 || status=1
cat "$san/sanitize-integration.log"
pass=0 fail=0 skip=0
for s in unit integration; do
	if [ -s "$san/results/$s" ]; then
		read -r _ p f sk < "$san/results/$s"
		pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + ${sk:-0}))
	else
		echo "sanitize: the $s suite recorded no result" >&2; fail=$((fail + 1))
	fi
done
# Any sanitizer report that did not surface as a test failure still fails the suite.
if grep -sE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' \
	"$san/sanitize-unit.log" "$san/sanitize-integration.log" >&2; then
	echo "sanitize: sanitizer reports in $san/sanitize-*.log" >&2; fail=$((fail + 1))
fi
[ "$status" -ne 0 ] && [ "$fail" -eq 0 ] && fail=1
result "$pass" "$fail" "$skip"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
