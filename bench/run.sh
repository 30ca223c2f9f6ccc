#!/bin/sh
# make bench: measure what sbx adds, side by side with its peers, in one run.
# Writes bench/RESULTS.md and prints the same table.  Not part of make check.
set -eu
build=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
cc -O2 -o "$top/$build/bench-hello" "$top/bench/hello.c"
exec python3 "$top/bench/bench.py" --build "$top/$build" --out "$top/bench/RESULTS.md" ${BENCH_ARGS:-}
