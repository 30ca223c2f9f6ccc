#!/bin/sh
# make bench: measure what sandcap adds, side by side with its peers, in one run.
# Writes bench/RESULTS.md and prints the same table.  Not part of make check.
#
#   bench/run.sh [BUILD]        BENCH_ARGS="--runs 50 --no-vm" for a quick look
#
# Host: the peers bwrap and firejail are measured when installed (apt-get install bubblewrap
# firejail), skipped and named otherwise; strace (tools/deps.sh) counts syscalls in the VM.
# VM half: tests/vm/guest-exec.sh (user-mode-linux), bench/vm-bench.sh.
set -eu
build=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
case $build in /*) ;; *) build=$top/$build ;; esac
cc -O2 -o "$build/bench-hello" "$top/bench/hello.c"
# The floor loads sandcap's own seccomp program: the build's template (make all made it).
# It is linked as sandcap is: dynamically, with the shared libseccomp (for
# seccomp_arch_native()).
# shellcheck disable=SC2046
cc -O2 -I"$top/lib" -I"$top/policy" -I"$top/frontend" -o "$build/bench-floor" \
	"$top/bench/floor.c" "$top/frontend/isolate/seccomp-tpl.c" "$build/gen/seccomp-tpl-data.c" \
	$(pkg-config --cflags --libs libseccomp)
# shellcheck disable=SC2086
exec python3 "$top/bench/bench.py" --build "$build" --out "$top/bench/RESULTS.md" ${BENCH_ARGS:-}
