#!/bin/sh
# The report channel (issue 16): --report-fd N, setup-error reports for refusals after
# option parsing, report files that appear whole (an unnamed file linked or renamed into
# place) and leave nothing when sandcap is killed, and sandcap
# trace's human output on stderr.
. "$(dirname "$0")/libtest.sh"

# --report-fd: the JSON goes to fd 5; the command never sees fd 5, not even with --keep-fds.
as_user "$SANDCAP" run -q --report-fd 5 -- sh -c 'ls /proc/self/fd' 5> "$T/fd.json" > "$T/fds" 2>&1
eq "--report-fd: exit 0" 0 "$?"
eq "--report-fd: the report arrives on the fd" ok "$(json "$T/fd.json" '["verdict"]')"
expect "--report-fd: fd 5 is not passed to the command" sh -c "! grep -qx 5 '$T/fds'"
as_user "$SANDCAP" run -q --keep-fds --report-fd 5 -- sh -c 'ls /proc/self/fd' 5> "$T/fd2.json" > "$T/fds2" 2>&1
expect "--report-fd with --keep-fds: fd 5 is still withheld" sh -c "! grep -qx 5 '$T/fds2'"
eq "--report-fd with --keep-fds: report written" ok "$(json "$T/fd2.json" '["verdict"]')"
# ... and it is a pipe a parent reads (how the Python package drives sandcap).
out=$(as_user "$SANDCAP" run -q --report-fd 3 -- sh -c 'echo job-$((40 + 2))' 3>&1 >/dev/null)
contains "--report-fd 3 into a pipe: the report" '"verdict": "ok"' "$out"
case "$out" in *job-42*) notok "--report-fd 3: the command's stdout stays out of the pipe" ;;
*) ok "--report-fd 3: the command's stdout stays out of the pipe" ;; esac

# Bad descriptors and combinations are refused before anything runs.
for bad in "--report-fd 2" "--report-fd 0" "--report-fd x" "--report-fd 77" \
	"--report-fd 5 --report $T/x.json"; do
	eval "set -- $bad"
	sandcap_run "$@" -- true 5>/dev/null
	if [ "$rc" = 125 ] && grep -q -- "^sandcap: --report-fd: " "$T/err"; then
		ok "refuses $bad (125, names --report-fd)"
	else
		notok "refuses $bad (rc $rc, stderr: $(cat "$T/err"))"
	fi
done
sandcap_run --report-fd 5 -- true 5< /dev/null
eq "--report-fd on a read-only fd: 125" 125 "$rc"
contains "... says it is open for reading only" "reading only" "$(cat "$T/err")"

# A refusal after option parsing writes a setup-error report saying why (no helper here:
# --memory without --fallback is refused).
sandcap_run --memory 64M --report "$T/refused.json" -- true
eq "refusal: exit 125" 125 "$rc"
eq "refusal: report verdict setup-error" setup-error "$(json "$T/refused.json" '["verdict"]')"
eq "refusal: sandcap_exit 125" 125 "$(json "$T/refused.json" '["sandcap_exit"]')"
contains "refusal: the report's message says why" "--memory needs " \
	"$(json "$T/refused.json" '["message"]')"
contains "refusal: stderr says the same" "sandcap: $(json "$T/refused.json" '["message"]')" "$(cat "$T/err")"
as_user "$SANDCAP" run -q --memory 64M --report-fd 4 -- true 4> "$T/refused-fd.json" 2>/dev/null
eq "refusal through --report-fd: setup-error" setup-error "$(json "$T/refused-fd.json" '["verdict"]')"
sandcap_run -q --memory 64M --report - -- true
eq "refusal with --report -: setup-error on stdout" setup-error "$(json "$T/out" '["verdict"]')"
# A refusal late in the plan reports nothing as enforced: root gets no --pids substitute,
# refused after --fallback had planned it.
if [ "$(id -u)" = 0 ]; then
	"$SANDCAP" run -q --pids 64 --fallback --report "$T/refused-late.json" -- true 2>/dev/null
	eq "late refusal: exit 125" 125 "$?"
	eq "late refusal: limits {}" '{}' "$(json "$T/refused-late.json" '["limits"]')"
	eq "late refusal: enforcement {}" '{}' "$(json "$T/refused-late.json" '["enforcement"]')"
else
	skip "late refusal: needs root (RLIMIT_NPROC does not bind root)"
fi
# The network asked for is in a refusal's report too (docs/report.md: always with --net or
# --allow), with no enforcement and, for the proxy, its rules and no connection.
sandcap_run -q --memory 64M --net none --report "$T/refused-net.json" -- true
eq "refusal with --net none: network.mode" none "$(json "$T/refused-net.json" '["network"]["mode"]')"
eq "... network.enforcement says it was refused" "none: the run was refused" \
	"$(json "$T/refused-net.json" '["network"]["enforcement"]')"
sandcap_run -q --memory 64M --net proxy --allow example.org:443 --report "$T/refused-net.json" -- true
eq "refusal with --net proxy: network.allow" '["example.org:443"]' \
	"$(json "$T/refused-net.json" '["network"]["allow"]')"
eq "... and an empty list of connections" '[]' \
	"$(json "$T/refused-net.json" '["network"]["connections"]')"

# Report files appear whole: an old report is replaced by rename (never truncated first),
# and no temporary file is left beside it.
mkdir "$T/rd"; chmod 777 "$T/rd"
echo '{"old": 1}' > "$T/rd/r.json"; chmod 666 "$T/rd/r.json"
ino0=$(stat -c %i "$T/rd/r.json")
sandcap_run -q --report "$T/rd/r.json" -- true
eq "report file: verdict ok" ok "$(json "$T/rd/r.json" '["verdict"]')"
expect "report file: a new inode (renamed into place, not rewritten)" \
	test "$(stat -c %i "$T/rd/r.json")" != "$ino0"
eq "report file: nothing else in its directory" "r.json" "$(ls -A "$T/rd")"
# sandcap killed while the command runs: no empty or partial report under the name.
rm -f "$T/rd/r.json"
(as_user_exec "$SANDCAP" run -q --report "$T/rd/k.json" -- sh -c "touch $T/started; exec sleep 100.3517") &
sp=$!
LIBTEST_PIDS="$sp"
i=0; while [ $i -lt 100 ] && [ ! -e "$T/started" ]; do sleep 0.1; i=$((i + 1)); done
expect "killed sandcap: the command had started" test -e "$T/started"
kill -9 "$sp"; wait "$sp" 2>/dev/null
# In rlimit mode the process killed is the keeper; the supervisor ends the sandbox and
# writes a whole report saying so.  Wait for it (the command gone, the supervisor gone).
i=0; while [ $i -lt 200 ] && pgrep -f "sleep 100.3517|report $T/rd/k.json" >/dev/null; do
	sleep 0.1; i=$((i + 1)); done
expect "killed sandcap: the sandbox ended with it" sh -c "! pgrep -f 'slee[p] 100.3517'"
if [ -e "$T/rd/k.json" ]; then
	eq "killed sandcap: the report is whole: verdict killed" killed "$(json "$T/rd/k.json" '["verdict"]')"
	eq "... by the death of sandcap's first process" "sandcap killed $sp" \
		"$(json "$T/rd/k.json" '["killed_by"]["by"] + " " + str(d["killed_by"]["pid"])')"
else
	notok "killed sandcap: no report (the supervisor must end the sandbox and write it)"
fi
i=0; while [ $i -lt 50 ] && ! gone "sleep 100.3517"; do sleep 0.1; i=$((i + 1)); done
# The supervisor (the keeper's child, which writes the report) killed: no report, and
# nothing left beside it either (the report is an unnamed O_TMPFILE file until complete;
# it used to leave an empty .k2.json.XXXXXX).
rm -f "$T/rd/k.json" "$T/started"
(as_user_exec "$SANDCAP" run -q --report "$T/rd/k2.json" -- sh -c "touch $T/started; exec sleep 100.3518") 2>/dev/null &
sp=$!
LIBTEST_PIDS="$sp"
i=0; while [ $i -lt 100 ] && [ ! -e "$T/started" ]; do sleep 0.1; i=$((i + 1)); done
sup=$(pgrep -P "$sp" | head -n 1)
expect "killed supervisor: the command had started, the supervisor is found" \
	test -e "$T/started" -a -n "$sup"
# The run's own control socket, by the socket sandcap or its supervisor holds: other runs of
# the same user (other tests) may make and remove theirs in /tmp meanwhile.
for p in "$sp" "$sup"; do
	ls -l "/proc/$p/fd" 2>/dev/null | sed -n 's/.*socket:\[\([0-9]*\)\]$/\1/p'
done | sort -u > "$T/inodes"
# (/proc/net/unix names the address it was bound to, <id>.bind, before its rename to
# <id>.sock.)
sock=$(awk 'NR == FNR { want[$1] = 1; next } ($7 in want) && $8 ~ /^\/tmp\/sandcap-/ { print $8 }' \
	"$T/inodes" /proc/net/unix | sed 's/\.bind$/.sock/' | sort -u)
expect "killed supervisor: the run has its control socket in /tmp" test -S "$sock"
kill -9 "$sup"; wait "$sp" 2>/dev/null
eq "killed supervisor: sandcap exits 137" 137 "$?"
# Where the filesystem refuses O_TMPFILE, sandcap falls back to a named temporary, which
# a killed supervisor does leave: probe first.
if python3 -c 'import os, sys; os.close(os.open(sys.argv[1], os.O_TMPFILE | os.O_WRONLY, 0o600))' \
	"$T/rd" 2> /dev/null; then
	eq "... nothing in the report's directory, no temporary either" "" "$(ls -A "$T/rd")"
else
	skip "... nothing left beside the report: $T's filesystem has no O_TMPFILE"
fi
i=0; while [ $i -lt 50 ] && ! gone "sleep 100.3518"; do sleep 0.1; i=$((i + 1)); done
LIBTEST_PIDS=""
# Its control socket outlives a killed supervisor (nothing of sandcap's is left to remove
# it); the user's next sandcap ps removes it, as it does any socket nobody listens on.
as_user "$SANDCAP" ps > /dev/null 2>&1
expect "killed supervisor: its control socket is gone after the user's next sandcap ps" \
	test -n "$sock" -a ! -e "$sock"

# sandcap trace: human output on stderr, so the command's stdout stays clean.
as_user "$SANDCAP" trace -- sh -c 'echo build-output' > "$T/trace.out" 2> "$T/trace.err"
eq "trace: stdout is the command's alone" "build-output" "$(cat "$T/trace.out")"
contains "trace: the summary is on stderr" "limits that fit it" "$(cat "$T/trace.err")"
as_user "$SANDCAP" trace --report-fd 3 -- true 3> "$T/trace.json" 2>/dev/null
eq "trace --report-fd: the trace JSON" 1 "$(json "$T/trace.json" '["sandcap_trace"]')"

# A report that would be lost is a refusal, and a reader that goes away an error that says
# so (real-workload review: a closed stdout held /dev/null and took the report silently; a
# closed pipe killed the supervisor with SIGPIPE).
as_user "$SANDCAP" run --report - -- true >&- 2> "$T/err"
eq "--report - with stdout closed: exit 125" 125 "$?"
contains "... saying the report would be lost" "standard output was closed" "$(cat "$T/err")"
as_user "$SANDCAP" run --report /dev/stderr -- true 2>&-
eq "--report /dev/stderr with stderr closed: exit 125" 125 "$?"
(as_user "$SANDCAP" run -q --report - -- sleep 0.3 2> "$T/err"; echo "rc=$?" > "$T/rc") | true
eq "--report - into a pipe whose reader left: exit 125" "rc=125" "$(cat "$T/rc")"
contains "... cannot write the report" "cannot write the report: Broken pipe" "$(cat "$T/err")"
done_testing
