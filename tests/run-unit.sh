#!/bin/sh
# Run every cmocka unit binary in $1/tests; print cmocka's own summaries and record counts
# ("unit PASSED FAILED SKIPPED"; a test that calls cmocka's skip() is neither passed nor
# failed).
set -u
build=${1:-build}
mkdir -p "$build/results"
pass=0 fail=0 skipped=0
for t in "$build"/tests/test-*; do
	[ -x "$t" ] || continue
	case "$t" in *.d|*.o) continue;; esac
	out=$("$t" 2>&1); rc=$?
	printf '%s\n' "$out"
	p=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -1)
	f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -1)
	s=$(printf '%s\n' "$out" | sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' | tail -1)
	pass=$((pass + ${p:-0})); fail=$((fail + ${f:-0})); skipped=$((skipped + ${s:-0}))
	if [ $rc -ne 0 ] && [ "${f:-0}" -eq 0 ]; then
		echo "unit: $t exited $rc without a cmocka summary" >&2; fail=$((fail + 1))
	fi
done
echo "unit $pass $fail $skipped" > "$build/results/unit"
echo "unit: $pass passed, $fail failed, $skipped skipped"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
