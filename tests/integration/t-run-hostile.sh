#!/bin/sh
# sandcap run against a hostile sandbox, a hostile other user and a broken policy: the
# front-end's invariants (SECURITY.md "Invariants against a hostile sandbox").
#   item 8:  another user pre-creates /tmp/sandcap-<uid>: ps and kill still work
#   item 10: an existing but invalid, untrusted or unreadable policy refuses every run
#            and trace (125), in every mode
#   item 3:  the sandbox cannot signal, stop, pidfd-open, prlimit or F_SETOWN sandcap or its
#            keeper (kill -STOP $PPID, kill -9 -1, ...), and --timeout still fires
#   item 11: SIGKILL of sandcap (or of its supervisor) leaves no process of the sandbox
#   item 13: a helper that refuses is reported once, in one short line, silenced by -q; a
#            timeout whose SIGTERM was followed by someone else's SIGKILL says so
# (Without Landlock ABI 6 the seccomp rules alone are tested in the VM suite, whose kernel
# has no Landlock: tests/vm/scenarios/41-hostile-supervisor.sh.)
# The cases that need another user or a policy at /etc/sandcap/sandbox.ini run as root in a
# private mount namespace (a tmpfs /tmp, a copy of /etc), so nothing of the host changes;
# without root or unshare they are reported as SKIP.
. "$(dirname "$0")/libtest.sh"
skip() { n=$((n + 1)); echo "ok $n - # SKIP $*"; }

U=65534         # the victim (libtest's test user when run as root)
as_nobody() { setpriv --reuid=$U --regid=$U --clear-groups -- "$@"; }

can_ns=false
if [ "$(id -u)" = 0 ] && unshare -m --propagation private true 2>/dev/null; then
	can_ns=true
fi

# in_ns SCRIPT: run SCRIPT (sh) as root in a private mount namespace with its own /tmp;
# SANDCAP and U are exported to it.  Prints what SCRIPT prints.  A checkout under /tmp
# (git clone into /tmp/x) stays reachable: sandcap's directory, opened before the new /tmp
# hides it, is bound back at its path (--no-canonicalize: mount(8) would resolve
# /proc/self/fd/9 by name, under the new /tmp).
in_ns() {
	SANDCAP=$SANDCAP U=$U unshare -m --propagation private sh -c '
		bin=$(dirname "$SANDCAP")
		exec 9< "$bin"
		mount -t tmpfs -o mode=1777 tmpfs /tmp || { echo "ns-setup-failed"; exit 0; }
		case $bin in
		/tmp/*) { mkdir -p "$bin" && mount --no-canonicalize --bind /proc/self/fd/9 "$bin"; } ||
			{ echo "ns-setup-failed"; exit 0; } ;;
		esac
		exec 9<&-
		as_nobody() { setpriv --reuid=$U --regid=$U --clear-groups -- "$@"; }
		unset XDG_RUNTIME_DIR
		cd /tmp || exit 1
		'"$1"
}

# ---- item 8: a squatted /tmp/sandcap-<uid> -------------------------------------------------
if $can_ns; then
	out=$(in_ns '
		mkdir -m 0777 /tmp/sandcap-$U       # the squatter (here root: any other user)
		as_nobody "$SANDCAP" run -- sleep 60 2>/tmp/err &
		pid=$!
		i=0 id=""
		while [ $i -lt 200 ]; do
			id=$(as_nobody "$SANDCAP" ps --json 2>/dev/null | python3 -c "import json,sys
print(\" \".join(x[\"id\"] for x in json.load(sys.stdin)))" 2>/dev/null)
			[ -n "$id" ] && break
			kill -0 $pid 2>/dev/null || break
			sleep 0.05; i=$((i + 1))
		done
		echo "id=$id"
		echo "sock=$(stat -c "%F %a %u" /tmp/sandcap-$id.sock 2>/dev/null)"
		as_nobody "$SANDCAP" kill "$id" >/dev/null 2>&1; echo "killrc=$?"
		wait $pid; echo "runrc=$?"
		echo "err=$(tr "\n" " " < /tmp/err)"
		echo "left=$(ls -a /tmp/sandcap-$U | tr "\n" " ")|$(ls -d /tmp/sandcap-$U.* /tmp/sandcap-$U-* 2>/dev/null)"
	')
	id=$(printf '%s\n' "$out" | sed -n 's/^id=//p')
	case "$id" in
	$U-*) ok "item 8: with /tmp/sandcap-$U squatted, sandcap ps still lists the sandbox" ;;
	*) notok "item 8: with /tmp/sandcap-$U squatted, sandcap ps still lists the sandbox ($out)" ;;
	esac
	eq "item 8: ... its control socket is /tmp/sandcap-ID.sock, the user's, mode 0700" \
		"socket 700 $U" "$(printf '%s\n' "$out" | sed -n 's/^sock=//p')"
	eq "item 8: ... and sandcap kill ID reaches it" 0 "$(printf '%s\n' "$out" | sed -n 's/^killrc=//p')"
	eq "item 8: ... the killed run ends with 137" 137 "$(printf '%s\n' "$out" | sed -n 's/^runrc=//p')"
	eq "item 8: ... no warning about the control socket" "" \
		"$(printf '%s\n' "$out" | sed -n 's/^err=//p' | grep -o 'control socket')"
	eq "item 8: ... the run's socket is removed, the squatter's directory left alone" \
		". ..|" "$(printf '%s\n' "$out" | sed -n 's/^left=//p' | sed 's/ *|/|/')"
else
	skip "item 8: needs root and unshare -m (a private /tmp and another user)"
fi

# ---- item 10: an existing but unusable policy refuses every run ------------------------------
# policy_case DESC MODE CONTENT EXPECT: install CONTENT (printf format) as
# /etc/sandcap/sandbox.ini with MODE in a private copy of /etc, then run each way a user may
# start a sandbox; EXPECT is "refuse" (all 125, message naming the file and sandcap policy
# check) or "run" (all 0).
policy_case() {
	desc=$1 mode=$2 content=$3 expect=$4
	out=$(in_ns '
		mkdir /tmp/etc && cp -a /etc/. /tmp/etc/ 2>/dev/null
		mkdir -p /tmp/etc/sandcap && chmod 755 /tmp/etc /tmp/etc/sandcap
		if [ "'"$mode"'" != absent ]; then
			printf "'"$content"'" > /tmp/etc/sandcap/sandbox.ini
			chown 0:0 /tmp/etc/sandcap/sandbox.ini
			chmod '"$mode"' /tmp/etc/sandcap/sandbox.ini
		fi
		mount --bind /tmp/etc /etc || { echo "bind-failed"; exit 0; }
		for how in "run" "run --no-cgroup" "run --fallback --memory 64M" "run -q" \
			"trace"; do
			# shellcheck disable=SC2086
			as_nobody "$SANDCAP" $how -- true > /tmp/o 2> /tmp/e
			echo "case $how|$?|$(tr "\n" " " < /tmp/e)"
		done
	')
	printf '%s\n' "$out" | grep '^case ' | while IFS='|' read -r how rc err; do
		how=${how#case }
		if [ "$expect" = refuse ]; then
			if [ "$rc" = 125 ] && contains_all "$err" "/etc/sandcap/sandbox.ini" \
			    "sandcap policy check"; then
				echo "ok - item 10: $desc: sandcap $how refused (125) naming the file"
			else
				echo "not ok - item 10: $desc: sandcap $how refused (125) naming the file (rc=$rc: $err)"
			fi
		else
			if [ "$rc" = 0 ]; then
				echo "ok - item 10: $desc: sandcap $how runs"
			else
				echo "not ok - item 10: $desc: sandcap $how runs (rc=$rc: $err)"
			fi
		fi
	done > "$T/cases"
	if [ ! -s "$T/cases" ]; then
		notok "item 10: $desc: the private namespace could not be set up ($out)"
		return
	fi
	while IFS= read -r l; do
		case "$l" in
		"ok - "*) ok "${l#ok - }" ;;
		*) notok "${l#not ok - }" ;;
		esac
	done < "$T/cases"
}
contains_all() {
	h=$1; shift
	for x; do case "$h" in *"$x"*) ;; *) return 1 ;; esac; done
	return 0
}

if $can_ns; then
	policy_case "a bad value (pids = 512x) with net = none required" 0644 \
		'[limits]\nnet = none\npids = 512x\n' refuse
	policy_case "an unknown key" 0644 '[limits]\nmemroy = 1G\n' refuse
	policy_case "a group-writable file" 0664 '[limits]\npids = 512\n' refuse
	policy_case "a file the user cannot read" 0600 '[limits]\npids = 512\n' refuse
	policy_case "a valid policy" 0644 '[limits]\npids = 512\n' run
	policy_case "no policy file" absent '' run
	# The line of the error is named.
	out=$(in_ns '
		mkdir /tmp/etc && cp -a /etc/. /tmp/etc/ 2>/dev/null
		mkdir -p /tmp/etc/sandcap && chmod 755 /tmp/etc /tmp/etc/sandcap
		printf "[limits]\nnet = none\npids = 512x\n" > /tmp/etc/sandcap/sandbox.ini
		chmod 644 /tmp/etc/sandcap/sandbox.ini
		mount --bind /tmp/etc /etc && as_nobody "$SANDCAP" run -q --net none -- true 2>&1
	')
	contains "item 10: the refusal names the line (sandbox.ini:3)" "/etc/sandcap/sandbox.ini:3" "$out"
	# The policy's timeout ceiling and default hold in rlimit mode too (sandcap enforces
	# the timeout in every mode): leaving --timeout out gets the default, not no timeout.
	out=$(in_ns '
		mkdir /tmp/etc && cp -a /etc/. /tmp/etc/ 2>/dev/null
		mkdir -p /tmp/etc/sandcap && chmod 755 /tmp/etc /tmp/etc/sandcap
		printf "[limits]\ntimeout = 20s\n[defaults]\ntimeout = 1s\n" \
			> /tmp/etc/sandcap/sandbox.ini
		chmod 644 /tmp/etc/sandcap/sandbox.ini
		mount --bind /tmp/etc /etc || { echo "bind-failed"; exit 0; }
		for how in run "run --no-cgroup"; do
			# shellcheck disable=SC2086
			as_nobody "$SANDCAP" $how -q --grace 0 --report - -- sleep 30 > /tmp/r 2>&1
			echo "default $how|$?|$(tr -d " " < /tmp/r | grep -o "\"timeout_ms\":[0-9]*")"
			# shellcheck disable=SC2086
			as_nobody "$SANDCAP" $how --timeout 1m -- true > /tmp/o 2> /tmp/e
			echo "over $how|$?|$(tr "\n" " " < /tmp/e)"
		done
	')
	for how in run "run --no-cgroup"; do
		l=$(printf '%s\n' "$out" | grep "^default $how|")
		eq "policy timeout: sandcap $how without --timeout gets the default (124, 1000 ms)" \
			"default $how|124|\"timeout_ms\":1000" "$l"
		l=$(printf '%s\n' "$out" | grep "^over $how|")
		case "$l" in
		"over $how|125|"*"--timeout 60s is over the ceiling 20s"*"policy show"*)
			ok "policy timeout: sandcap $how --timeout 1m over the ceiling: refused (125), named" ;;
		*)	notok "policy timeout: sandcap $how --timeout 1m over the ceiling ($l)" ;;
		esac
	done
else
	skip "item 10: needs root and unshare -m (a private copy of /etc for the policy)"
	skip "policy timeout in rlimit mode: needs root and unshare -m (a private copy of /etc)"
fi

# ---- item 13: truthful, short messages ----------------------------------------------------
# The helper of the build has no file capabilities: it refuses at HELLO.
if [ -x "$BUILD/sandcap-helper" ]; then
	as_user env SANDCAP_HELPER="$BUILD/sandcap-helper" "$SANDCAP" run -- true > "$T/out" 2> "$T/err"
	eq "item 13: an unusable helper: the run goes on (rlimit mode)" 0 "$?"
	eq "item 13: ... its refusal is reported once" 1 "$(grep -c 'capabilit' "$T/err")"
	l=$(grep 'capabilit' "$T/err" | head -n 1)
	if [ "${#l}" -le 160 ]; then ok "item 13: ... in one short line (${#l} characters)"
	else notok "item 13: ... in one short line (${#l} characters: $l)"; fi
	as_user env SANDCAP_HELPER="$BUILD/sandcap-helper" "$SANDCAP" run -q -- true > "$T/out" 2> "$T/err"
	eq "item 13: ... and -q silences it" "" "$(cat "$T/err")"
else
	skip "item 13: no $BUILD/sandcap-helper"
fi
sandcap_run --timeout 1 --grace 30 -- sh -c 'trap "kill -KILL \$\$" TERM; sleep 100 & wait'
eq "item 13: SIGTERM, then SIGKILL from elsewhere: exit 124" 124 "$rc"
contains "item 13: ... the message says SIGKILL ended it before the grace was over" \
	"then killed by SIGKILL before the 30s grace was over" "$(cat "$T/err")"

# ---- closed stdio: no descriptor of sandcap's takes its number -------------------------------
# A closed stdin, stdout or stderr is /dev/null for sandcap (sv_note_stdio(), first thing in
# main()) and closed for the command: the report's file must not take fd 2 (sandcap's own
# lines would land in it) nor fd 1 (the command's output would: it could forge its report).
# These runs are the user's own, as_user (nobody when root), in rlimit mode.
as_user "$SANDCAP" run --no-cgroup --report "$T/c1.json" -- true 2>&-
eq "closed stderr: exit 0" 0 "$?"
eq "closed stderr: the report is whole JSON (sandcap's lines are not in it)" ok \
	"$(json "$T/c1.json" '["verdict"]')"
as_user "$SANDCAP" run --no-cgroup -q --output-limit 1K --report "$T/c2.json" -- \
	sh -c 'printf "{\"forged\": 1}"' >&-
eq "closed stdout, --output-limit: the report is sandcap's" 1 "$(json "$T/c2.json" '["sandcap_report"]')"
eq "... and begins with it (the command's output is not in the file)" '{"sandcap_report"' \
	"$(head -c 17 "$T/c2.json")"
as_user "$SANDCAP" run --no-cgroup --report "$T/c3.json" -- true <&- >&- 2>&-
eq "stdin, stdout and stderr closed: the report is whole JSON" ok "$(json "$T/c3.json" '["verdict"]')"
o=$(as_user "$SANDCAP" run --no-cgroup -q --keep-fds -- sh -c \
	'for i in 0 1 2; do if [ -e /proc/self/fd/$i ]; then echo "$i-open" >&3; else echo "$i-closed" >&3; fi; done' \
	3>&1 <&- 2>&- | tr '\n' ' ')
eq "closed stdin and stderr: closed for the command, stdout open" "0-closed 1-open 2-closed " "$o"
o=$(as_user "$SANDCAP" run --no-cgroup -q --keep-fds --output-limit 1K -- sh -c \
	'for i in 0 1 2; do if [ -e /proc/self/fd/$i ]; then echo "$i-open" >&3; else echo "$i-closed" >&3; fi; done' \
	3>&1 >&- | tr '\n' ' ')
eq "closed stdout with --output-limit: closed for the command (no relay pipe)" \
	"0-open 1-closed 2-open " "$o"

# ---- item 3: the sandbox cannot touch its supervisors --------------------------------------
# Each attack runs inside the sandbox; PPID is sandcap (the supervisor), its parent the keeper.
# The attacks include kill -1: when root, they run as a uid of their own that nothing else on
# this (shared) machine uses, so that a sandcap that fails to block them harms nothing else.
# Not root: skipped (kill -1 would hit every process of the user running the tests).
if [ "$(id -u)" != 0 ]; then
	skip "items 3 and 11: need root (the attacks run as a uid of their own)"
	done_testing
fi
A=$((70000 + $$ % 20000))
attacker() { setpriv --reuid=$A --regid=$A --clear-groups -- "$@"; }
attacker_exec() { exec setpriv --reuid=$A --regid=$A --clear-groups -- "$@"; }
attack_run() {
	attacker "$SANDCAP" run "$@" > "$T/out" 2> "$T/err"
	rc=$?
}
attack_run -q -- sh -c '
	K=$(cut -d" " -f4 /proc/$PPID/stat)
	kill -STOP $PPID 2>/dev/null; echo "stop-sandcap $?"
	kill -STOP $K 2>/dev/null; echo "stop-keeper $?"
	kill -9 $PPID 2>/dev/null; echo "kill-sandcap $?"
	kill -9 $K 2>/dev/null; echo "kill-keeper $?"
	kill -9 -$(cut -d" " -f5 /proc/$K/stat) 2>/dev/null; echo "kill-group $?"
	kill -9 -1 2>/dev/null; echo "kill-all $?"
	P=$PPID K=$K python3 -c "
import errno, fcntl, os, resource, signal
for name in (\"P\", \"K\"):
    pid = int(os.environ[name])
    try:
        os.pidfd_open(pid); print(\"pidfd-%s ok\" % name)
    except OSError as e: print(\"pidfd-%s %s\" % (name, errno.errorcode[e.errno]))
    try:
        resource.prlimit(pid, resource.RLIMIT_CPU, (1, 1)); print(\"prlimit-%s ok\" % name)
    except OSError as e: print(\"prlimit-%s %s\" % (name, errno.errorcode[e.errno]))
    r, w = os.pipe()
    try:
        fcntl.fcntl(r, fcntl.F_SETOWN, pid); print(\"setown-%s ok\" % name)
    except OSError as e: print(\"setown-%s %s\" % (name, errno.errorcode[e.errno]))
    try:
        open(\"/proc/%d/mem\" % pid, \"rb\"); print(\"mem-%s ok\" % name)
    except OSError as e: print(\"mem-%s %s\" % (name, errno.errorcode[e.errno]))
"
	sleep 0.1 & kill -TERM $!; echo "own-child $?"
'
eq "item 3: the attacks' run ends normally" 0 "$rc"
o=$(tr '\n' ' ' < "$T/out")
for a in stop-sandcap stop-keeper kill-sandcap kill-keeper kill-group kill-all; do
	contains "item 3: $a from inside fails" "$a 1" "$o"
done
for who in P K; do
	contains "item 3: pidfd_open of the supervisor ($who) fails with EPERM" "pidfd-$who EPERM" "$o"
	contains "item 3: prlimit of the supervisor ($who) fails with EPERM" "prlimit-$who EPERM" "$o"
	contains "item 3: F_SETOWN to the supervisor ($who) fails with EPERM" "setown-$who EPERM" "$o"
	contains "item 3: /proc/PID/mem of the supervisor ($who) cannot be opened" "mem-$who EACCES" "$o"
done
contains "item 3: the sandbox still signals its own processes" "own-child 0" "$o"

# --timeout still fires after every attack (an outer timeout turns a hang into 137).
attacker timeout -s KILL 100 "$SANDCAP" run -q --timeout 2 --grace 0 -- sh -c '
	K=$(cut -d" " -f4 /proc/$PPID/stat)
	kill -STOP $PPID $K; kill -9 $PPID $K; kill -STOP -1; sleep 100' 2>/dev/null
eq "item 3: after kill -STOP/-9 of sandcap and its keeper from inside, --timeout fires (124)" \
	124 "$?"
attacker timeout -s KILL 100 "$SANDCAP" run -q --timeout 2 --grace 0 -- \
	sh -c 'sleep 100 & kill -TSTP $$' 2>/dev/null
eq "item 3: a main process that stops itself (SIGTSTP, no terminal) does not stop sandcap: --timeout fires (124)" \
	124 "$?"

# ---- item 11: SIGKILL of sandcap leaves nothing behind ---------------------------------------
# m N: a marker command line unique to this run
mark=$$
gone_all() { ! pgrep -f "sleep 1000.$mark" >/dev/null; }
# wait_for COND: poll up to 20 s (a deadline, not a timing target)
wait_for() { i=0; while [ $i -lt 400 ]; do "$@" && return 0; sleep 0.05; i=$((i + 1)); done; return 1; }
three_up() { [ "$(pgrep -f "sleep 1000.$mark" | wc -l)" -ge 3 ]; }
kill_leftovers() { for p in $(pgrep -f "sleep 1000.$mark"); do kill -9 "$p" 2>/dev/null; done; }
for victim in sandcap supervisor; do
	socks_before=$(ls /tmp/sandcap-$A-*.sock 2>/dev/null)
	(attacker_exec "$SANDCAP" run -q -- sh -c "setsid sleep 1000.${mark}1 & (sleep 1000.${mark}2 &); sleep 1000.${mark}3" 2>"$T/k11") &
	pid=$!
	LIBTEST_PIDS="$LIBTEST_PIDS $pid"
	if ! wait_for three_up; then
		notok "item 11 ($victim): the sandbox's three processes did not start"
		kill -9 "$pid" 2>/dev/null; kill_leftovers; continue
	fi
	if [ "$victim" = sandcap ]; then
		target=$pid
	else
		target=$(pgrep -P "$pid" | head -n 1)
	fi
	kill -9 "$target"
	wait "$pid" 2>/dev/null
	krc=$?
	if wait_for gone_all; then
		ok "item 11: kill -9 of the $victim: setsid'd, double-forked and main processes are gone"
	else
		notok "item 11: kill -9 of the $victim: setsid'd, double-forked and main processes are gone ($(pgrep -af "sleep 1000.$mark" | tr '\n' ' '))"
		kill_leftovers
	fi
	if [ "$victim" = supervisor ]; then
		eq "item 11: ... sandcap then exits 137" 137 "$krc"
		contains "item 11: ... and says why" "the supervisor (pid $target) was killed by SIGKILL" "$(cat "$T/k11")"
	fi
	# The keeper (supervisor killed) or the supervisor (sandcap killed) removed the run's
	# control socket: none is new since the run began, before any sandcap ps.
	eq "item 11: kill -9 of the $victim: the run's control socket is removed" "$socks_before" \
		"$(ls /tmp/sandcap-$A-*.sock 2>/dev/null)"
done
# A run whose keeper and supervisor were both killed above (item 3) leaves its control
# socket (nothing of sandcap's was left to remove it); the attacker's next sandcap ps
# removes every one of its sockets nobody listens on.  The uid is this test's own.
attacker "$SANDCAP" ps > /dev/null 2>&1
eq "item 11: after the user's sandcap ps no socket of the killed runs is left" "" \
	"$(ls /tmp/sandcap-$A-*.sock 2>/dev/null)"

done_testing
