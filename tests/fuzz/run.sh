#!/bin/sh
# Run every libFuzzer target in BUILD_FUZZ_DIR for SECONDS each, on a temporary copy of its
# seed corpus (tests/fuzz/corpus/<target>/; the tree is never written).  Fails if any
# target crashes, leaks or trips a sanitizer.  Usage: run.sh BUILD_FUZZ_DIR SECONDS
# Prints one line per target and then "fuzz: N passed, M failed".
set -u
dir=${1:?usage: run.sh BUILD_FUZZ_DIR SECONDS}
secs=${2:-60}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sandcap-fuzz.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
pass=0 fail=0
for bin in "$dir"/fuzz-*; do
	[ -x "$bin" ] && [ -f "$bin" ] || continue
	case "$bin" in *.d|*.o) continue;; esac
	name=$(basename "$bin")
	work="$tmp/$name"
	mkdir -p "$work/corpus" "$work/artifacts"
	if [ -d "$here/corpus/$name" ]; then
		cp -R "$here/corpus/$name/." "$work/corpus/"
	fi
	set -- -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=0 \
		-artifact_prefix="$work/artifacts/"
	[ -f "$here/$name.dict" ] && set -- "$@" -dict="$here/$name.dict"
	if "$bin" "$@" "$work/corpus" > "$work/log" 2>&1; then
		echo "fuzz: $name: ok ($secs s, $(ls "$work/corpus" | wc -l) inputs)"
		pass=$((pass + 1))
	else
		echo "fuzz: $name: FAILED; last lines of its log:"
		tail -n 30 "$work/log" | sed 's/^/    /'
		for a in "$work"/artifacts/*; do
			[ -f "$a" ] || continue
			echo "    crashing input (base64): $(base64 -w0 < "$a" | head -c 2000)"
		done
		fail=$((fail + 1))
	fi
done
echo "fuzz: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
