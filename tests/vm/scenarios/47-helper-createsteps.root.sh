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
# vm-cost: 100
# shellcheck source=tests/vm/lib.sh
. "$VMLIB"
S=/tmp/hostile-createsteps  # sctest writes here too: $SCRATCH is root's
rm -rf "$S"; mkdir -p "$S"; chmod 0777 "$S"
DL=/run/sandcap-deadlines
CGP=/sys/fs/cgroup/sandcap/$SCTEST_UID
W=/run/sandcap
# Root's half runs hundreds of steps, and in this guest a fork and exec cost tens of
# milliseconds of the one CPU the helper under test needs: between steps root sleeps in a
# read on the FIFO $S/wake (the client writes a line after each step file, the tracer once
# attached, and the lines below when either has ended), and its looks are globs and builtins.
mkfifo -m 0666 "$S/wake"
exec 3<> "$S/wake"
wait_step() {   # wait_step N: until the client's step file sN is there, or it has ended
	while [ ! -e "$S/s$1" ] && [ ! -e "$S/client.end" ]; do read -r _ <&3; done
	[ -e "$S/s$1" ]
}
entries() {     # entries DIR [d]: N and L, the number and the list of DIR's entries (d: dirs)
	N=0 L=""
	for e in "$1"/* "$1"/.[!.]* "$1"/..?*; do
		[ -e "$e" ] || [ -L "$e" ] || continue
		if [ "${2:-}" = d ] && { [ ! -d "$e" ] || [ -L "$e" ]; }; then continue; fi
		N=$((N + 1)) L="$L$e "
	done
}
ws_mounts() {   # ws_mounts: N and L, the lines of /proc/mounts naming a path under sctest's workspaces
	N=0 L=""
	while read -r m; do
		case " $m" in *" $W/$SCTEST_UID/"*) N=$((N + 1)) L="$L$m " ;; esac
	done < /proc/mounts
}

# What the helper may leave for the next session while it is dead: records whose leaf is
# there, a leaf, its lock and workspace.  Never a temporary in the deadline directory.
after_helper() {        # sets LEFT
	LEFT=""
	for r in "$DL"/.[!.]* "$DL"/..?*; do
		[ -e "$r" ] || [ -L "$r" ] && LEFT="$LEFT$r "
	done
	for r in "$DL"/*; do
		[ -f "$r" ] || continue
		l=""
		while read -r k v || [ -n "$k" ]; do [ "$k" = cgroup ] && l=$v; done < "$r"
		[ -d "$l" ] || LEFT="$LEFT record ${r##*/} without its leaf $l;"
	done
}
# After the user's next session: nothing of sctest's anywhere.
after_next() {          # sets LEFT
	entries "$DL"; LEFT=$L
	entries "$CGP" d; LEFT="$LEFT$L"
	entries "$W/$SCTEST_UID"; LEFT="$LEFT$L"
	for e in "$W/.locks"/* "$W/.locks"/.[!.]* "$W/.locks"/..?*; do
		[ -e "$e" ] || [ -L "$e" ] || continue
		case ${e##*/} in user-*.lock) ;; *) LEFT="$LEFT$e " ;; esac
	done
	ws_mounts; LEFT="$LEFT$L"
}

# What a helper killed between making its lock file and its leaf (or between removing them)
# leaves: a lock file without a leaf.  The window is too short to hit by a signal; root
# makes the state (a session run first makes .locks).
env SANDCAP_HELPER="$SANDCAP_HELPER" vm-as-user sctest "$TESTS/probe-client" -a none \
	> "$SCRATCH/warm" 2>&1
ORPHAN=$W/.locks/$SCTEST_UID-00000000deadbeef.lock
check "root made a lock file without a leaf" touch "$ORPHAN"
{
	env SANDCAP_HELPER="$SANDCAP_HELPER" HOSTILE_SYNC="$S" vm-as-user sctest \
		"$TESTS/hostile-client" createsteps > "$S/out" 2> "$S/err" 3>&-
	echo "$?" > "$S/client.rc"
	: > "$S/client.end"
	echo >&3
} &
client=$!
n=1 tracer=""
while wait_step $n; do
	read -r phase desc < "$S/s$n"
	[ "$phase" = 0 ] && { : > "$S/c$n"; break; }
	if [ "$phase" = 3 ]; then       # "PID N": trace the helper, SIGKILL it at call N
		# Files of this step's own (kN, eN): nothing of an earlier tracer is read for it.
		# shellcheck disable=SC2086
		{
			HOSTILE_SYNC="$S" "$TESTS/hostile-client" killat $desc > "$S/k$n" 2>&1 3>&-
			: > "$S/e$n"
			echo >&3
		} &
		tracer=$! k=$S/k$n
		a=""
		while :; do
			[ -e "$k" ] && read -r a < "$k"
			[ "$a" = attached ] || [ -e "$S/e$n" ] && break
			read -r _ <&3
		done
		# An attach seen to fail now and then in this guest (ESRCH): that step is skipped
		# by the client, which then goes on to the next call instead of ending there.  uN
		# (made before cN) tells it.
		if [ "$a" != attached ]; then
			wait "$tracer"
			diag "root could not trace the helper (pid ${desc% *}): $(cat "$k")"
			tracer=""
			: > "$S/u$n"
		fi
		: > "$S/c$n"
		n=$((n + 1))
		continue
	fi
	if [ -n "$tracer" ]; then
		wait "$tracer"
		while IFS= read -r l; do [ "$l" = attached ] || diag "$l"; done < "$k"
		tracer=""
	fi
	if [ "$phase" = 1 ]; then
		entries "$CGP" d; nl=$N
		entries "$DL"; nr=$N
		entries "$W/$SCTEST_UID"
		diag "$desc: left for the next session: $nl leaf, $nr record, $N workspace"
		after_helper
		is "$LEFT" "" "$desc: no temporary in $DL, no record without its leaf"
	else
		after_next
		is "$LEFT" "" "$desc: after the next session nothing of sctest's is left"
	fi
	: > "$S/c$n"
	n=$((n + 1))
done
wait "$client"
hrc=125
[ -s "$S/client.rc" ] && read -r hrc < "$S/client.rc"
exec 3<&-
hostile_tap "$S/out"
[ "$hrc" -le 1 ] || { fail "hostile-client createsteps ran to the end" "exit $hrc"; sed 's/^/# /' "$S/err"; }
is "$(find /run -maxdepth 3 -name '.new-*' | tr '\n' ' ')" "" "no temporary anywhere under /run"
check_fails "the next session removed the lock file without a leaf" test -e "$ORPHAN"
done_testing
