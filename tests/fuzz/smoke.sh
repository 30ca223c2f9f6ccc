#!/bin/sh
# `make check` fuzz suite: build every tests/fuzz/fuzz-*.c target with clang (libFuzzer,
# ASan, UBSan) into BUILD/fuzz and run each for 5 seconds on a copy of its seed corpus.
# Writes "fuzz PASSED FAILED SKIPPED" to BUILD/results/fuzz.  clang is a build dependency
# (make deps): without it every target is reported as skipped with that reason, and the
# suite, having run nothing, fails (it never counts as passed).  Usage: smoke.sh BUILD
set -u
build=${1:-build}
secs=${FUZZ_SMOKE_SECONDS:-5}
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$build/results"
build=$(cd "$build" && pwd)
ntargets=$(ls "$root"/tests/fuzz/fuzz-*.c 2>/dev/null | wc -l)
result() { echo "fuzz $1 $2 0" > "$build/results/fuzz"; echo "fuzz: $1 passed, $2 failed"; }

if [ "$ntargets" -eq 0 ]; then
	echo "fuzz: no targets in tests/fuzz" >&2; result 0 1; exit 1
fi
clang=${CLANG:-clang}
if ! command -v "$clang" >/dev/null 2>&1; then
	for src in "$root"/tests/fuzz/fuzz-*.c; do
		echo "ok - $(basename "$src" .c) # SKIP $clang not found; it is a build dependency (make deps)"
	done
	echo "fuzz 0 0 $ntargets" > "$build/results/fuzz"
	echo "fuzz: 0 passed, 0 failed, $ntargets skipped: $clang not found (make deps); nothing ran" >&2
	exit 1
fi
bins=
for src in "$root"/tests/fuzz/fuzz-*.c; do
	bins="$bins $build/fuzz/$(basename "$src" .c)"
done
# shellcheck disable=SC2086
if ! make --no-print-directory -C "$root" BUILD="$build" CLANG="$clang" $bins >"$build/fuzz-build.log" 2>&1; then
	echo "fuzz: building the targets failed:" >&2
	tail -n 30 "$build/fuzz-build.log" >&2
	result 0 "$ntargets"; exit 1
fi
out=$(sh "$root/tests/fuzz/run.sh" "$build/fuzz" "$secs"); rc=$?
printf '%s\n' "$out"
p=$(printf '%s\n' "$out" | sed -n 's/^fuzz: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p' | tail -1)
f=$(printf '%s\n' "$out" | sed -n 's/^fuzz: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p' | tail -1)
p=${p:-0}; f=${f:-0}
# Every target must have run: a target that did not is a failure.
if [ $((p + f)) -lt "$ntargets" ]; then f=$((ntargets - p)); fi
if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
echo "fuzz $p $f 0" > "$build/results/fuzz"
[ "$f" -eq 0 ] && [ "$p" -gt 0 ]
