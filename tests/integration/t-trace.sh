#!/bin/sh
# sandcap trace on the host (rlimit mode; cgroup mode: tests/vm/scenarios/60-sandcap-trace.sh):
# floors for short runs, --runs N (the largest figure, the spread, stop at a failed run),
# never a --fsize suggestion.
. "$(dirname "$0")/libtest.sh"

as_user "$SANDCAP" trace -q --runs 3 --report-fd 3 -- sh -c 'echo $$ >> "$0"' "$T/pids" \
	3> "$T/t.json" > /dev/null 2> "$T/t.err"
eq "trace --runs 3: exit 0" 0 "$?"
eq "trace --runs 3: the command ran 3 times" 3 "$(wc -l < "$T/pids" | tr -d ' ')"
eq "the report says runs 3" 3 "$(json "$T/t.json" '["runs"]')"
eq "a short run: the timeout suggested is the 2 s floor" 2000 "$(json "$T/t.json" '["suggested"]["timeout_ms"]')"
eq "a short run: the CPU time suggested is the 1 s floor" 1000 "$(json "$T/t.json" '["suggested"]["cpu_time_ms"]')"
eq "used is the largest, used_min the smallest" true \
	"$(json "$T/t.json" '["used"]["wall_ms"] >= d["used_min"]["wall_ms"]')"
eq "no fsize suggested" false "$(json "$T/t.json" '.__contains__("fsize") or "fsize" in d["suggested"]')"
contains "the summary names the number of runs" "the largest of 3 runs" "$(cat "$T/t.err")"
case $(json "$T/t.json" '["suggested"]["flags"]') in *--fsize*) notok "flags without --fsize" ;;
*) ok "flags without --fsize" ;; esac

as_user "$SANDCAP" trace -q --runs 3 --report "$T/t2.json" -- sh -c 'echo $$ >> "$0"; exit 3' "$T/pids2" \
	> /dev/null 2> "$T/t2.err"
eq "trace --runs 3 of a failing command: its status" 3 "$?"
eq "... stops after the failed run" 1 "$(wc -l < "$T/pids2" | tr -d ' ')"
eq "... and reports 1 run" 1 "$(json "$T/t2.json" '["runs"]')"
contains "... and warns that the figures are of a failed run" \
	"warning: run 1 did not end ok (verdict exit: the command exited with status 3)" "$(cat "$T/t2.err")"
expect "a run that went well gets no such warning" sh -c "! grep -q 'did not end ok' '$T/t.err'"

for bad in 0 101 x -1; do
	as_user "$SANDCAP" trace --runs "$bad" -- true > /dev/null 2> "$T/err"
	rc=$?
	if [ "$rc" = 125 ] && grep -q "^sandcap: --runs: " "$T/err"; then ok "--runs $bad refused"
	else notok "--runs $bad refused (rc $rc: $(cat "$T/err"))"; fi
done

# trace reads run's options from the same table: a flag (--env-clear) never takes the next
# option (--runs) as its value, and trace's own options may come anywhere among them.
as_user "$SANDCAP" trace -q --no-cgroup --env-clear --runs 2 --report "$T/t3.json" -- \
	sh -c 'echo $$ >> "$0"' "$T/pids3" > /dev/null 2> "$T/err"
eq "trace --env-clear --runs 2: exit 0" 0 "$?"
eq "... ran twice" 2 "$(wc -l < "$T/pids3" | tr -d ' ')"
as_user "$SANDCAP" trace --no-cgroup --headroom > /dev/null 2> "$T/err"
eq "trace --headroom without a value: exit 125" 125 "$?"
eq "... says it needs a value" "sandcap: trace: --headroom needs a value; see 'sandcap trace --help'" \
	"$(cat "$T/err")"
as_user "$SANDCAP" trace -q --headroom=10% --runs=1 --timeout=5 --report "$T/t4.json" -- true \
	> /dev/null 2>&1
eq "trace --opt=VALUE forms: exit 0" 0 "$?"
eq "... headroom 10" 10 "$(json "$T/t4.json" '["headroom_percent"]')"
as_user "$SANDCAP" trace --run 2 -- true > /dev/null 2> "$T/err"
contains "trace: no abbreviations" "unknown option '--run' (options are not abbreviated: did you mean --runs?)" \
	"$(cat "$T/err")"
done_testing
