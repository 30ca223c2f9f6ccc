#!/bin/sh
# Nothing the helper writes outlives it, whatever its user does to its process: sctest
# starts the helper under each resource limit a user can set, at exec or with prlimit(2)
# after HELLO (RLIMIT_NOFILE 5 to 24 then fails the step that needs each next descriptor in
# turn; RLIMIT_FSIZE below a record's size and RLIMIT_NOFILE below 64 are refused with their
# reason) and SIGKILLs it at points spread over a CREATE with a timeout; then root traces
# the helper and SIGKILLs it at each system call of a CREATE in turn, until one completes
# (tests/vm/hostile-client.c, createsteps and killat).  After each, root looks: no temporary
# in the deadline directory (a record without a name until it is whole), and any record
# names a leaf that is there for the next session to reclaim; after the user's next
# session: no record, leaf, lock file, workspace or mount of sctest is left.
# vm-timeout: 900
# vm-cost: 340
# shellcheck source=tests/vm/lib.sh
. "$VMLIB"
S=/tmp/hostile-createsteps  # sctest writes here too: $SCRATCH is root's
rm -rf "$S"; mkdir -p "$S"; chmod 0777 "$S"
DL=/run/sandcap-deadlines
CGP=/sys/fs/cgroup/sandcap/$SCTEST_UID
W=/run/sandcap
wait_file() { i=0; while [ $i -lt 600 ] && [ ! -e "$1" ]; do sleep 0.1; i=$((i + 1)); done; [ -e "$1" ]; }

# What the helper may leave for the next session while it is dead: records whose leaf is
# there, a leaf, its lock and workspace.  Never a temporary in the deadline directory.
after_helper() {
	left=$(find "$DL" -mindepth 1 -maxdepth 1 -name '.*' 2>/dev/null | tr '\n' ' ')
	for r in "$DL"/*; do
		[ -f "$r" ] || continue
		l=$(sed -n 's/^cgroup //p' "$r")
		[ -d "$l" ] || left="$left record ${r##*/} without its leaf $l;"
	done
	echo "$left"
}
# After the user's next session: nothing of sctest's anywhere.
after_next() {
	left=$(find "$DL" -mindepth 1 -maxdepth 1 2>/dev/null | tr '\n' ' ')
	left="$left$(find "$CGP" -mindepth 1 -maxdepth 1 -type d 2>/dev/null | tr '\n' ' ')"
	left="$left$(find "$W/$SCTEST_UID" -mindepth 1 -maxdepth 1 2>/dev/null | tr '\n' ' ')"
	left="$left$(find "$W/.locks" -mindepth 1 -maxdepth 1 ! -name 'user-*.lock' 2>/dev/null |
		tr '\n' ' ')"
	left="$left$(grep " $W/$SCTEST_UID/" /proc/mounts | tr '\n' ' ')"
	echo "$left"
}

# What a helper killed between making its lock file and its leaf (or between removing them)
# leaves: a lock file without a leaf.  The window is too short to hit by a signal; root
# makes the state (a session run first makes .locks).
env SANDCAP_HELPER="$SANDCAP_HELPER" vm-as-user sctest "$TESTS/probe-client" -a none \
	> "$SCRATCH/warm" 2>&1
ORPHAN=$W/.locks/$SCTEST_UID-00000000deadbeef.lock
check "root made a lock file without a leaf" touch "$ORPHAN"
env SANDCAP_HELPER="$SANDCAP_HELPER" HOSTILE_SYNC="$S" vm-as-user sctest \
	"$TESTS/hostile-client" createsteps > "$S/out" 2> "$S/err" &
client=$!
n=1
while wait_file "$S/s$n"; do
	read -r phase desc < "$S/s$n"
	[ "$phase" = 0 ] && { touch "$S/c$n"; break; }
	if [ "$phase" = 3 ]; then       # "PID N": trace the helper, SIGKILL it at call N
		# shellcheck disable=SC2086
		"$TESTS/hostile-client" killat $desc > "$S/k" 2>&1 &
		tracer=$!
		i=0
		while [ $i -lt 300 ] && ! grep -q attached "$S/k" && kill -0 $tracer 2>/dev/null; do
			sleep 0.05; i=$((i + 1))
		done
		# An attach seen to fail now and then in this guest (ESRCH): that step is skipped
		# by the client, which then goes on to the next call instead of ending there.
		if grep -q attached "$S/k"; then
			echo 1 > "$S/c.tmp"
		else
			diag "root could not trace the helper (pid ${desc% *}): $(cat "$S/k")"
			kill "$tracer" 2>/dev/null; wait "$tracer" 2>/dev/null; tracer=""
			echo 0 > "$S/c.tmp"
		fi
		mv "$S/c.tmp" "$S/c$n"  # whole when it appears: the client reads it then
		n=$((n + 1))
		continue
	fi
	if [ -n "${tracer:-}" ]; then
		wait "$tracer"
		diag "$(grep -v attached "$S/k")"
		tracer=""
	fi
	if [ "$phase" = 1 ]; then
		diag "$desc: left for the next session: $(find "$CGP" -mindepth 1 -maxdepth 1 -type d |
			wc -l) leaf, $(find "$DL" -mindepth 1 -maxdepth 1 | wc -l) record, $(grep -c \
			" $W/$SCTEST_UID/" /proc/mounts) workspace"
		is "$(after_helper)" "" "$desc: no temporary in $DL, no record without its leaf"
	else
		is "$(after_next)" "" "$desc: after the next session nothing of sctest's is left"
	fi
	touch "$S/c$n"
	n=$((n + 1))
done
wait "$client"
hrc=$?
hostile_tap "$S/out"
[ "$hrc" -le 1 ] || { fail "hostile-client createsteps ran to the end" "exit $hrc"; sed 's/^/# /' "$S/err"; }
is "$(find /run -maxdepth 3 -name '.new-*' | tr '\n' ' ')" "" "no temporary anywhere under /run"
check_fails "the next session removed the lock file without a leaf" test -e "$ORPHAN"
done_testing
