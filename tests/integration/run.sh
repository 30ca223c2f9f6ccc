#!/bin/sh
# Integration suite: run every tests/integration/t-*.sh against the built binaries.
#   sh tests/integration/run.sh BUILD
# Each script gets SANDCAP, BUILD and SRCDIR (absolute) in its environment and prints TAP
# lines.  We count "ok", "not ok" and "ok ... # SKIP reason" lines (a skip is neither passed
# nor failed); a script that exits non-zero or prints no TAP line counts as one more
# failure.  Exit status 77 means "cannot run here" and is a failure too when
# SANDBOX_TESTS_MUST_RUN=1 (CI), one skip otherwise.
# Writes "integration PASSED FAILED SKIPPED" into BUILD/results/integration.
#
# Up to SANDCAP_TEST_JOBS scripts (default 3) run at once: most of their time is spent
# waiting (timeouts, deadlines, sleeping sandboxes).  Each script's output is kept and
# printed in file order, so the output and the counts are those of a serial run.  Each
# script gets a TMPDIR and a HOME of its own; what it looks for (pgrep markers, its own
# sockets, ports) must be its own too.  A script that cannot keep to itself says so in its
# header with a line "# integration: serial" and then runs alone.
# SANDCAP_CHECK_SERIAL=1 or SANDCAP_TEST_JOBS=1 runs one script at a time.
set -u
build=${1:-build}
srcdir=$(cd "$(dirname "$0")/../.." && pwd)
case "$build" in /*) ;; *) build=$srcdir/$build ;; esac
mkdir -p "$build/results"
jobs=${SANDCAP_TEST_JOBS:-3}
case "$jobs" in ''|*[!0-9]*|0) echo "run.sh: SANDCAP_TEST_JOBS=$jobs: want a number >= 1" >&2; exit 2 ;; esac
[ "${SANDCAP_CHECK_SERIAL:-0}" = 1 ] && jobs=1

work=$(mktemp -d "${TMPDIR:-/tmp}/sandcap-itest.XXXXXX") || exit 1
chmod 755 "$work"       # the scripts' sandboxes run as another user (libtest.sh)
launcher=""
# Interrupted: no script starts any more, the running ones are told to end (libtest.sh
# cleans up on TERM), and their directories are removed once they have (a deadline: 30 s).
cleanup() {
	if [ -n "$launcher" ]; then
		: > "$work/stop"
		kill -KILL "$launcher" 2>/dev/null; wait "$launcher" 2>/dev/null
		for f in "$work"/*.pid; do
			[ -e "$f" ] && [ ! -e "${f%.pid}.rc" ] && kill -TERM "$(cat "$f")" 2>/dev/null
		done
		i=0
		while [ "$i" -lt 150 ]; do
			left=0
			for f in "$work"/*.pid; do [ -e "$f" ] && [ ! -e "${f%.pid}.rc" ] && left=1; done
			[ "$left" = 0 ] && break
			sleep 0.2; i=$((i + 1))
		done
	fi
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

serial() { sed -n '1,40p' "$1" | grep -q '^# integration: serial$'; }

# run_one I SCRIPT: run SCRIPT, its output in $work/I.out, its exit status in $work/I.rc
# (written last: the printer waits for it).
run_one() {
	[ -e "$work/stop" ] && return
	d=$work/$1.d
	mkdir -p "$d/tmp" "$d/home" && chmod 1777 "$d/tmp"
	SANDCAP="$build/sandcap" BUILD="$build" SRCDIR="$srcdir" TMPDIR="$d/tmp" HOME="$d/home" \
		sh "$2" > "$work/$1.out" 2>&1 < /dev/null 3>&- &
	echo "$!" > "$work/$1.pid"
	wait "$!"
	echo "$?" > "$work/$1.rc.tmp"
	rm -rf "$d"
	mv "$work/$1.rc.tmp" "$work/$1.rc"
}

# The launcher starts the scripts in order, at most $jobs at once (a token per free slot
# in a FIFO), and a serial one only once every earlier one has ended, alone.
launch() {
	mkfifo "$work/slots" || exit 1
	exec 3<> "$work/slots"
	k=0; while [ "$k" -lt "$jobs" ]; do echo >&3; k=$((k + 1)); done
	i=0
	for t in "$srcdir"/tests/integration/t-*.sh; do
		[ -f "$t" ] || continue
		i=$((i + 1))
		if serial "$t"; then
			wait
			run_one "$i" "$t"
		else
			read -r _ <&3
			{ run_one "$i" "$t"; echo >&3; } &
		fi
	done
	wait
}
launch &
launcher=$!

pass=0 fail=0 skipped=0 scripts=0
for t in "$srcdir"/tests/integration/t-*.sh; do
	[ -f "$t" ] || continue
	scripts=$((scripts + 1))
	name=$(basename "$t")
	echo "# --- $name"
	while [ ! -e "$work/$scripts.rc" ] && kill -0 "$launcher" 2>/dev/null; do sleep 0.2; done
	if [ -e "$work/$scripts.rc" ]; then
		rc=$(cat "$work/$scripts.rc")
	else
		echo "# $name: never ran (the launcher ended)"; rc=1
	fi
	out=$(cat "$work/$scripts.out" 2>/dev/null)
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
wait "$launcher" 2>/dev/null
launcher=""
if [ "$scripts" -eq 0 ]; then
	echo "not ok - no integration test scripts found"; fail=$((fail + 1))
fi
echo "integration $pass $fail $skipped" > "$build/results/integration"
echo "integration: $pass passed, $fail failed, $skipped skipped"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
