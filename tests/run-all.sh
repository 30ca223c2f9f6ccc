#!/bin/sh
# `make check`: every suite, each in turn even if an earlier one failed, then one summary,
# `check: N passed, N failed, N skipped`.  Each suite writes "NAME PASSED FAILED [SKIPPED]"
# into BUILD/results/NAME; a skip (a test this host cannot run, reported with its reason)
# is neither passed nor failed.  A suite that recorded nothing, or passed nothing (ran
# nothing, or skipped everything), counts as a failure, never as a pass.
set -u
build=${1:-build}
rm -rf "$build/results"; mkdir -p "$build/results"
status=0
start=$(date +%s)
run() {
	name=$1; shift
	echo "=== $name ==="
	t0=$(date +%s)
	if ! "$@"; then status=1; echo "=== $name: FAILED ==="; fi
	echo "=== $name: $(($(date +%s) - t0)) s ==="
	if [ ! -s "$build/results/$name" ]; then
		echo "=== $name: recorded no results ==="; echo "$name 0 1 0" > "$build/results/$name"; status=1
	fi
	read -r _ p fl sk < "$build/results/$name"
	if [ "${p:-0}" -eq 0 ] && [ "${fl:-0}" -eq 0 ]; then
		echo "=== $name: passed no test (${sk:-0} skipped): it counts as one failure ==="
		echo "$name 0 1 ${sk:-0}" > "$build/results/$name"; status=1
	fi
}
# The VM suite runs in the background, beside the host suites after the unit suite: its
# guests are one CPU-bound user-mode Linux at a time, while the host suites spend much of
# their time waiting (timeouts, deadlines, sleeping sandboxes), so the two overlap.  The
# package scenarios and the systemd guest wait for the package suite's .deb (the mark
# .package-done, left whether the suite passed or not).  Lint, the fuzz smoke test and the
# sanitizer pass's SANITIZE=1 build start beside the integration suite too: they run no
# sandbox (nothing the integration tests look for with pgrep or sandcap ps) and write only
# their own directories (BUILD/lint, BUILD/fuzz, build-san).  A background suite's output
# is kept and printed in its turn, with the time it ran; SANDCAP_CHECK_SERIAL=1 runs every
# suite in turn instead.
bg_pids=""
# bg_start NAME CMD...: run CMD in the background, its output in BUILD/NAME-suite.out.
bg_start() {
	name=$1; shift
	rm -f "$build/$name-suite.out"
	( trap 'kill -TERM "$c" 2>/dev/null; exit 143' TERM
	  t0=$(date +%s); "$@" & c=$!; wait "$c"; rc=$?
	  echo "=== $name: ran in the background for $(($(date +%s) - t0)) s ==="; exit "$rc" ) \
		> "$build/$name-suite.out" 2>&1 &
	eval "bg_$name=\$!"
	bg_pids="$bg_pids $!"
}
bg_wait() {             # bg_wait NAME: the background suite's output and exit status
	pid=""; eval "pid=\$bg_$1"
	wait "$pid"; rc=$?
	cat "$build/$1-suite.out"
	return "$rc"
}
trap 'for p in $bg_pids; do kill -TERM "$p" 2>/dev/null; done; exit 130' INT TERM HUP
overlap=0
[ "${SANITIZE:-0}" != 1 ] && [ "${SANDCAP_CHECK_SERIAL:-0}" != 1 ] && overlap=1
run unit        sh tests/run-unit.sh "$build"
if [ "$overlap" = 1 ]; then
	rm -f "$build/.package-done"
	bg_start vm     env SANDCAP_VM_PACKAGE_MARK=.package-done sh tests/vm/run.sh "$build" --keep-going
	run package     sh tests/package/run.sh "$build"
	touch "$build/.package-done"
	bg_start fuzz   sh tests/fuzz/smoke.sh "$build"
	bg_start lint   sh tools/lint.sh "$build"
	bg_start sanbuild sh tests/run-sanitize.sh --build-only "$build"
	run integration sh tests/integration/run.sh "$build"
	run python      sh tests/python/run.sh "$build"
	run fuzz        bg_wait fuzz
	run lint        bg_wait lint
	# The SANITIZE=1 build is done by now (its log: build-san/build.log); the pass's
	# make finds nothing left to do, or fails again and says why.
	bg_wait sanbuild
	run sanitize    sh tests/run-sanitize.sh "$build"
	run vm          bg_wait vm
else
	run fuzz        sh tests/fuzz/smoke.sh "$build"
	run integration sh tests/integration/run.sh "$build"
	if [ "${SANITIZE:-0}" = 1 ]; then
		# These binaries carry ASan+UBSan.  The VM suite cannot run them (ASan's shadow
		# memory does not fit user-mode Linux's address space), lint's hardening check
		# wants FORTIFY (off with ASan) and the package is built from the plain sources:
		# those suites, and the plain build's sanitizer pass, run in `make check`.  Not
		# counted.
		echo "=== python, package, vm, lint, sanitize: not run in a SANITIZE=1 build; 'make check' runs them ==="
	else
		run python      sh tests/python/run.sh "$build"
		run package     sh tests/package/run.sh "$build"
		run vm          sh tests/vm/run.sh "$build" --keep-going
		run lint        sh tools/lint.sh "$build"
		run sanitize    sh tests/run-sanitize.sh "$build"
	fi
fi
pass=0 fail=0 skip=0
for f in "$build"/results/*; do
	read -r n p fl sk < "$f"
	pass=$((pass + p)); fail=$((fail + fl)); skip=$((skip + ${sk:-0}))
	echo "  $n: $p passed, $fl failed, ${sk:-0} skipped"
done
echo "=== all suites: $(($(date +%s) - start)) s ==="
echo "check: $pass passed, $fail failed, $skip skipped"
[ "$status" -eq 0 ] && [ "$fail" -eq 0 ]
