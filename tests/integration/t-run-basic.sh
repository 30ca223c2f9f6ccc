#!/bin/sh
# sandcap run: exit statuses (command's own, 125, 126, 127), strict option parsing, --report.
. "$(dirname "$0")/libtest.sh"

sandcap_run -q -- true
eq "true exits 0" 0 "$rc"
sandcap_run -q -- sh -c 'exit 3'
eq "the command's own status passes through" 3 "$rc"
sandcap_run -q true
eq "the command without -- also works" 0 "$rc"
sandcap_run -q -- sh -c 'kill -SEGV $$'
eq "death by signal N is 128+N" 139 "$rc"

sandcap_run -- /nonexistent/cmd
eq "missing command exits 127" 127 "$rc"
contains "missing command names it" "cannot execute '/nonexistent/cmd'" "$(cat "$T/err")"
sandcap_run -q -- no-such-command-sandcap-test
eq "command not on PATH exits 127" 127 "$rc"
# A script whose interpreter is missing is "No such file" too: the message names it.
printf '#!/nonexistent/sandcap-interp -x\necho hi\n' > "$T/badinterp"; chmod 755 "$T/badinterp"
sandcap_run -q -- "$T/badinterp"
eq "a script whose #! interpreter is missing exits 127" 127 "$rc"
contains "... and the message names the interpreter" \
	"the interpreter its #! line names, '/nonexistent/sandcap-interp', does not" "$(cat "$T/err")"
printf 'echo hi\n' > "$T/noexec"; chmod 644 "$T/noexec"
sandcap_run -q -- "$T/noexec"
eq "non-executable file exits 126" 126 "$rc"
sandcap_run -q -- "$T"
eq "a directory exits 126" 126 "$rc"
# Work the command leaves running is ended with it, and the report says so (real-workload
# review: it read as a plain success).
sandcap_run -q --report "$T/left.json" -- sh -c 'sleep 100.6601 & echo started'
eq "a command that leaves a process running: its own status" 0 "$rc"
eq "... killed_at_end 1" 1 "$(json "$T/left.json" '["usage"]["killed_at_end"]')"
contains "... the message says so" "1 more process ended by SIGKILL after it" \
	"$(json "$T/left.json" '["message"]')"
expect "... and it is gone" gone "sleep 100.6601"
sandcap_run -q --report "$T/noleft.json" -- sh -c '(sleep 0.1; echo done) & wait'
eq "a command that waits for its children: killed_at_end 0" 0 \
	"$(json "$T/noleft.json" '["usage"]["killed_at_end"]')"
eq "... and a plain message" "the command exited with status 0" "$(json "$T/noleft.json" '["message"]')"
# The command's own 127 is not confused with "not found": the report says exit, not
# setup-error.
sandcap_run -q --report "$T/r127.json" -- sh -c 'exit 127'
eq "command's own 127 passes through" 127 "$rc"
eq "... with verdict exit" exit "$(json "$T/r127.json" '["verdict"]')"
sandcap_run -q --report "$T/rnf.json" -- /nonexistent/cmd
eq "not found has verdict setup-error" setup-error "$(json "$T/rnf.json" '["verdict"]')"
eq "... sandcap_exit 127" 127 "$(json "$T/rnf.json" '["sandcap_exit"]')"

# Strict parsing: each bad value exits 125 with the option, the value and the forms.
for bad in "--as 12X" "--as -1" "--as 0x10" "--as ''" "--as 1.5" "--as 99999999999T" \
	"--fsize 1G2" "--stack '5 '" "--stack ' 5'" "--timeout 1x" "--timeout -1" "--timeout 0" \
	"--grace abc" "--cpu-time 0x1" "--nofile 0" "--nofile 12k" "--nproc -3" \
	"--cpu 1.5%" "--memory 12Q" "--fs bogus" "--net maybe"; do
	eval "set -- $bad"
	sandcap_run "$@" -- true
	opt=$1
	if [ "$rc" = 125 ] && grep -q -- "^sandcap: $opt: " "$T/err" && grep -q "'" "$T/err" &&
	   ! grep -q . "$T/out"; then
		ok "rejects $bad (125, names $opt)"
	else
		notok "rejects $bad (rc $rc, stderr: $(cat "$T/err"))"
	fi
done
sandcap_run --as 12X -- true
contains "size error names the accepted forms" "sandcap: --as: invalid size '12X': expected" "$(cat "$T/err")"
sandcap_run --timeout 5q -- true
contains "duration error names the forms" "ms, s, m or h" "$(cat "$T/err")"
sandcap_run --as 1.5G --stack 8M --nofile 64 --timeout 1.5 --grace 250ms --cpu-time 2m -q -- true
eq "valid forms are accepted" 0 "$rc"
sandcap_run --bogus -- true
eq "unknown option exits 125" 125 "$rc"
sandcap_run -q
eq "no command exits 125" 125 "$rc"
contains "no command says so" "no command" "$(cat "$T/err")"
sandcap_run --timeout
eq "missing value exits 125" 125 "$rc"
eq "missing value names the option" \
	"sandcap: run: --timeout needs a value; see 'sandcap run --help'" "$(cat "$T/err")"

# Messages name the word typed: in a bundle of short options, after an option's value.
sandcap_run -xq -- true
eq "-xq: names -x" "sandcap: run: unknown option '-x'; see 'sandcap run --help'" "$(cat "$T/err")"
sandcap_run --timeout 5 -xq
eq "--timeout 5 -xq: names -x" "sandcap: run: unknown option '-x'; see 'sandcap run --help'" \
	"$(cat "$T/err")"
sandcap_run --quiet=yes -- true
contains "a value given to a flag is refused" "--quiet takes no value" "$(cat "$T/err")"
# Options are matched whole: abbreviations are refused (rc 125) and the message says so.
for abbr in "--time 1" "--mem 1G" "--no-cg" "--c 1"; do
	eval "set -- $abbr"
	sandcap_run --no-cgroup "$@" -- true
	if [ "$rc" = 125 ] && grep -q "unknown option '$1' (options are not abbreviated: did you mean" \
	   "$T/err"; then ok "abbreviation $1 refused"; else notok "abbreviation $1 (rc $rc: $(cat "$T/err"))"; fi
done
sandcap_run -q --timeout=5 --as=1G -- true
eq "--opt=VALUE works as --opt VALUE" 0 "$rc"

# Limits: no size means "unlimited" (at most 1 EiB, the policy's cap); --as 0 and --stack 0
# are refused (they only killed the command at its exec); --fsize 0 and --core 0 are limits.
for bad in "--as 18446744073709551615" "--stack 18446744073709551615" \
	"--fsize 18446744073709551615" "--as 0" "--stack 0" "--memory 2000000T" "--cpu 999999%" \
	"--pids 4194305" "--timeout 8785h" "--grace 9000h" "--cpu-time 400000000"; do
	eval "set -- $bad"
	sandcap_run --no-cgroup "$@" -- true
	if [ "$rc" = 125 ] && grep -q -- "^sandcap: $1: .* '$2' is out of range: expected .* from .* to " \
	   "$T/err"; then ok "$bad refused, naming the range"; else notok "$bad (rc $rc: $(cat "$T/err"))"; fi
done
contains "sizes: the range is 1 EiB" "from 1 byte to 1 EiB" \
	"$(as_user "$SANDCAP" run --as 0 -- true 2>&1)"
# (--fsize 0 applies to the file $T/out too, so through a pipe)
out=$(as_user "$SANDCAP" run -q --no-cgroup --fsize 0 --core 0 -- sh -c 'ulimit -f; ulimit -c' | cat)
eq "--fsize 0 --core 0 are applied" "0 0" "$(echo $out)"
sandcap_run -q --no-cgroup --fsize 0 -- sh -c 'echo x > "$0"' "$T/f0"
eq "--fsize 0: writing a file is the verdict fsize (exit 153)" 153 "$rc"
sandcap_run -q --no-cgroup --as 1048576T --stack 8M -- sh -c 'ulimit -v; ulimit -s'
eq "--as 1 EiB is a limit, not unlimited" "1125899906842624 8192" \
	"$(tr '\n' ' ' < "$T/out" | sed 's/ $//')"

# sandcap doctor's fix names the variable sandcap reads.
out=$(SANDCAP_HELPER=/nonexistent/sandcap-helper "$SANDCAP" doctor 2>&1)
contains "doctor: SANDCAP_HELPER=PATH" "SANDCAP_HELPER=PATH points sandcap at another copy" "$out"
case $out in *SC_HELPER*) notok "doctor names no SC_HELPER" ;; *) ok "doctor names no SC_HELPER" ;; esac
# Every check README and sandcap(1) list gets a line, passed or not (newcomer review).
contains "doctor: a line for the capability bounding set" "the capability bounding set" "$out"
contains "doctor: a line for the workspace root" "workspace root" "$out"

# Help, version.
out=$("$SANDCAP" run --help); r=$?
eq "sandcap run --help exits 0" 0 "$r"
contains "sandcap run --help lists --timeout" "--timeout DUR" "$out"
contains "sandcap run --help lists --profile" "--profile NAME" "$out"
out=$("$SANDCAP" --version); r=$?
eq "sandcap --version exits 0" 0 "$r"
contains "sandcap --version prints the version" "sandcap " "$out"
out=$("$SANDCAP" --help); r=$?
eq "sandcap --help exits 0" 0 "$r"

# Report: valid JSON with the documented fields, to a file and to stdout.
sandcap_run --report "$T/r.json" --nofile 100 -- sh -c 'echo out; exit 5'
eq "exit 5 with --report" 5 "$rc"
eq "the command's stdout is untouched" out "$(cat "$T/out")"
check_report() {
	python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
want = ["sandcap_report", "version", "mode", "id", "command", "verdict", "limits_hit",
        "exit_code", "signal", "sandcap_exit", "message", "limits", "enforcement", "usage"]
missing = [k for k in want if k not in d]
assert not missing, "missing %s" % missing
assert d["sandcap_report"] == 1 and d["mode"] == "rlimit"
assert d["command"] == ["sh", "-c", "echo out; exit 5"], d["command"]
assert d["verdict"] == "exit" and d["exit_code"] == 5 and d["signal"] is None
assert d["sandcap_exit"] == 5 and d["limits_hit"] == []
u0 = d["usage"]
assert d["limits"] == {"nofile": 100, "core": 0}, d["limits"]
sup = d["enforcement"].pop("supervisor", None)
unix = d["enforcement"].pop("unix", None)       # what keeps the user's services out
assert unix is not None and unix.startswith("seccomp-notify"), unix
assert u0["unix_refused"] == 0, u0
assert d["enforcement"] == {"nofile": "rlimit", "core": "rlimit"}, d["enforcement"]
assert sup is not None and sup.startswith("seccomp"), sup     # what keeps the sandbox off sandcap
u = d["usage"]
for k in ("wall_ms", "cpu_user_ms", "cpu_system_ms", "max_rss"):
    assert isinstance(u[k], int) and u[k] >= 0, k
assert u["max_rss"] > 0
for k in ("memory_peak", "pids_peak", "disk_used", "oom_kills", "cpu_throttled_ms"):
    assert u[k] is None, k
import re
assert re.fullmatch(r"\d+-[0-9a-f]{12}", d["id"]), d["id"]
print("good")
PY
}
eq "--report FILE has the documented fields" good "$(check_report "$T/r.json" 2>&1 | tail -1)"
as_user "$SANDCAP" run -q --report - -- sh -c 'exit 0' > "$T/stdout.json" 2>/dev/null
eq "--report - writes JSON to stdout" ok "$(json "$T/stdout.json" '["verdict"]')"
odd=$(printf 'a\001\377"\\b')
as_user "$SANDCAP" run -q --report - -- true "$odd" > "$T/odd.json" 2>/dev/null
eq "odd bytes in argv still give valid JSON" '["true", "a\u0001\u00ff\"\\b"]' \
	"$(json "$T/odd.json" '["command"]')"
sandcap_run -q --report /nonexistent-dir/r.json -- true
eq "unwritable --report path exits 125" 125 "$rc"
sandcap_run -- true
contains "summary line without -q" "sandcap: ok: " "$(cat "$T/err")"
contains "usage line without -q" "sandcap: usage: wall " "$(cat "$T/err")"
sandcap_run -q -- true
eq "-q prints nothing" "" "$(cat "$T/err")"

done_testing
