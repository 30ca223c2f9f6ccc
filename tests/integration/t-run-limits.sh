#!/bin/sh
# sandcap run rlimits: --cpu-time -> cpu-time, --fsize -> fsize, --nproc, --nofile, --stack,
# --core default 0, --as; cgroup options refused or substituted with --fallback; a limit hit
# by a process other than the main one.
. "$(dirname "$0")/libtest.sh"

sandcap_run -q --cpu-time 1 --report "$T/c.json" -- sh -c 'while :; do :; done'
eq "busy loop under --cpu-time 1: 128+SIGXCPU" 152 "$rc"
eq "... verdict cpu-time" cpu-time "$(json "$T/c.json" '["verdict"]')"
eq "... limits_hit" '["cpu-time"]' "$(json "$T/c.json" '["limits_hit"]')"
eq "... limit in the report" 1000 "$(json "$T/c.json" '["limits"]["cpu_time_ms"]')"
eq "... enforced by rlimit" rlimit "$(json "$T/c.json" '["enforcement"]["cpu_time"]')"
cpu=$(json "$T/c.json" '["usage"]["cpu_user_ms"] + d["usage"]["cpu_system_ms"]')
# RLIMIT_CPU counts exact run time; getrusage's user/system split is scaled from ticks, and
# on a loaded 2-core host (VM suites beside it) it was read at 698 ms: a sanity range.
between "... CPU time used (ms)" 500 3000 "$cpu"

# SIGXCPU ignored: the hard limit (soft + 1 s) kills; still cpu-time, from the CPU time.
sandcap_run -q --cpu-time 1 --report "$T/c2.json" -- sh -c 'trap "" XCPU; while :; do :; done'
eq "SIGXCPU ignored: SIGKILL at the hard limit" 137 "$rc"
eq "... verdict cpu-time" cpu-time "$(json "$T/c2.json" '["verdict"]')"

sandcap_run -q --fsize 10K --report "$T/f.json" -- sh -c "exec head -c 100000 /dev/zero > $T/big"
eq "writing past --fsize: 128+SIGXFSZ" 153 "$rc"
eq "... verdict fsize" fsize "$(json "$T/f.json" '["verdict"]')"
eq "... the file stopped at the limit" 10240 "$(stat -c %s "$T/big")"
sandcap_run -q --fsize 1M -- sh -c "exec head -c 100000 /dev/zero > $T/small"
eq "writing under --fsize works" 0 "$rc"

eq "--core defaults to 0" 0 "$(as_user "$SANDCAP" run -q -- sh -c 'ulimit -c')"
eq "--core 1M (dash counts 512-byte blocks)" 2048 "$(as_user "$SANDCAP" run -q --core 1M -- sh -c 'ulimit -c')"
eq "--nofile 37" 37 "$(as_user "$SANDCAP" run -q --nofile 37 -- sh -c 'ulimit -n')"
eq "--stack 4M" 4096 "$(as_user "$SANDCAP" run -q --stack 4M -- sh -c 'ulimit -s')"
eq "--as 512M" 524288 "$(as_user "$SANDCAP" run -q --as 512M -- sh -c 'ulimit -v')"
eq "--cpu-time 2500ms rounds up to 3 s" 3 "$(as_user "$SANDCAP" run -q --cpu-time 2500ms -- sh -c 'ulimit -t')"
sandcap_run -q --as 64M -- /usr/bin/python3 -c 'b = bytearray(256 * 1024 * 1024)'
expect "--as 64M: a 256 MiB allocation fails" [ "$rc" -ne 0 ]
contains "... with MemoryError" MemoryError "$(cat "$T/err")"

# --nproc applies to the sandbox's user (nobody when the tests run as root).
sandcap_run -q --nproc 1 -- sh -c 'true & wait; echo forked'
expect "--nproc 1: the command cannot fork" [ "$rc" -ne 0 ]
expect "... and did not" [ "$(cat "$T/out")" != forked ]
sandcap_run -q --nproc 1000 -- sh -c 'true & wait; echo forked'
eq "--nproc 1000: forking works" forked "$(cat "$T/out")"

# RLIMIT_NPROC does not bind root (nor CAP_SYS_ADMIN or CAP_SYS_RESOURCE): refused there,
# never set for show; the --fallback substitute for --pids too.
if [ "$(id -u)" = 0 ]; then
	"$SANDCAP" run -q --nproc 5 --report "$T/np.json" -- true > "$T/out" 2> "$T/err"
	eq "--nproc as root: refused (125)" 125 "$?"
	contains "... naming the option, the reason and the fix" \
		"--nproc 5 cannot be enforced: you are root (uid 0)" "$(cat "$T/err")"
	contains "... and the way out" "unprivileged user" "$(cat "$T/err")"
	eq "... the report says setup-error" setup-error "$(json "$T/np.json" '["verdict"]')"
	"$SANDCAP" run -q --no-cgroup --fallback --pids 5 -- true > "$T/out" 2> "$T/err"
	eq "--fallback --pids as root: refused (125)" 125 "$?"
	contains "... naming --pids and its substitute" "--pids 5 with --fallback (RLIMIT_NPROC)" \
		"$(cat "$T/err")"
else
	skip "--nproc refused for root: the tests do not run as root"
	skip "--fallback --pids refused for root: the tests do not run as root"
fi

# SIGXFSZ and SIGXCPU that no limit of this run's sent: a plain signal, never a limit the
# report does not hold.
sandcap_run -q --report "$T/x.json" -- sh -c 'kill -XFSZ $$'
eq "SIGXFSZ sent by hand: 128+25" 153 "$rc"
eq "... verdict signal" signal "$(json "$T/x.json" '["verdict"]')"
eq "... no limit hit" '[]' "$(json "$T/x.json" '["limits_hit"]')"
contains "... the message says no file size limit of this run's" "no file size limit" \
	"$(json "$T/x.json" '["message"]')"
sandcap_run -q --report "$T/x.json" -- sh -c 'kill -XCPU $$'
eq "SIGXCPU sent by hand without --cpu-time: verdict signal" signal \
	"$(json "$T/x.json" '["verdict"]')"
contains "... no CPU time limit of this run's" "no CPU time limit" "$(json "$T/x.json" '["message"]')"
# (It binds sandcap too: its report, over 1000 bytes, cannot be written, which it says,
# instead of dying of SIGXFSZ itself.)
as_user prlimit --fsize=1000 "$SANDCAP" run --report "$T/x2.json" -- \
	sh -c "exec head -c 4096 /dev/zero > $T/inh" > "$T/out" 2> "$T/err"
eq "a file size limit inherited from sandcap's caller: the report cannot be written (125)" \
	125 "$?"
contains "... verdict signal, the limit named as inherited" \
	"signal: the command was killed by signal 25 (SIGXFSZ) (RLIMIT_FSIZE 1000 B inherited from sandcap's caller" \
	"$(cat "$T/err")"
contains "... sandcap says why there is no report" "--report: cannot write the report: File too large" \
	"$(cat "$T/err")"
expect "... and leaves no report file behind, not even a partial one" \
	[ -z "$(find "$T" -name '*x2.json*')" ]

# A per-process limit that kills a process other than the main one: named in the message
# and in limits_hit when sandcap reaps that process (an orphan comes to sandcap, the
# subreaper), the verdict staying the main process's.  The orphan starts its work once its
# parent has ended, and the main process waits until the orphan is reaped (kill -0 finds a
# zombie too), so nothing depends on timing.
orphan_then_wait='sh -c "q=\$\$; (while kill -0 \$q 2> /dev/null; do sleep 0.05; done; $1) &
echo \$! > $2/orphan.pid"; p=$(cat $2/orphan.pid)
while kill -0 "$p" 2> /dev/null; do sleep 0.1; done; exit 0'
sandcap_run -q --cpu-time 1 --report "$T/oc.json" -- sh -c "$orphan_then_wait" sh \
	'while :; do :; done' "$T"
eq "--cpu-time 1, an orphan spins: the main process exits 0" 0 "$rc"
eq "... verdict ok (the main process's)" ok "$(json "$T/oc.json" '["verdict"]')"
eq "... limits_hit names cpu-time" '["cpu-time"]' "$(json "$T/oc.json" '["limits_hit"]')"
contains "... the message names the other process's SIGXCPU" \
	"1 other process was killed by SIGXCPU at the CPU time limit (RLIMIT_CPU, per process)" \
	"$(json "$T/oc.json" '["message"]')"
sandcap_run -q --fsize 1K --report "$T/of.json" -- sh -c "$orphan_then_wait" sh \
	"exec head -c 4096 /dev/zero > $T/orphan-big" "$T"
eq "--fsize 1K, an orphan writes 4 KiB: verdict ok" ok "$(json "$T/of.json" '["verdict"]')"
eq "... limits_hit names fsize" '["fsize"]' "$(json "$T/of.json" '["limits_hit"]')"
contains "... the message names the other process's SIGXFSZ" \
	"1 other process was killed by SIGXFSZ at the file size limit" "$(json "$T/of.json" '["message"]')"
# Not seen (its own parent in the sandbox reaps it): the message says once that the limits
# are per process.
sandcap_run -q --cpu-time 1 --as 1G --report "$T/on.json" -- sh -c 'sh -c "while :; do :; done"; exit 0'
eq "--cpu-time 1, a child its parent reaps: verdict ok" ok "$(json "$T/on.json" '["verdict"]')"
contains "... the message says the limits are per process, once" \
	"the command exited with status 0 (per-process limits: --cpu-time (RLIMIT_CPU), --as (RLIMIT_AS); a process other than the main one that reached one is named here only when sandcap reaped it)" \
	"$(json "$T/on.json" '["message"]')"
sandcap_run -q --report "$T/pl.json" -- true
eq "no per-process limit: the message is the plain one" "the command exited with status 0" \
	"$(json "$T/pl.json" '["message"]')"

# --cpu-time under a second: RLIMIT_CPU counts whole seconds, and the message says which.
sandcap_run -q --cpu-time 300ms --report "$T/c3.json" -- sh -c 'while :; do :; done'
eq "busy loop under --cpu-time 300ms: verdict cpu-time" cpu-time "$(json "$T/c3.json" '["verdict"]')"
contains "... the limit applied is named, and the rounding" \
	"limit 1s per process, RLIMIT_CPU, whole seconds: --cpu-time 300ms rounded up" \
	"$(json "$T/c3.json" '["message"]')"

sandcap_run --nofile 99999999 -- true
eq "a limit over the hard limit: 125" 125 "$rc"
contains "... naming the option" "sandcap: setup-error: --nofile: cannot set the limit" "$(cat "$T/err")"

# cgroup-only limits in rlimit mode: refused with the reason and the fix, or --fallback.
for opt in "--memory 64M" "--pids 10" "--disk 1M" "--cpu 50%"; do
	eval "set -- $opt"
	sandcap_run --no-cgroup "$@" -- true
	if [ "$rc" = 125 ] && grep -q -- "^sandcap: $1 needs the sandcap helper" "$T/err" &&
	   grep -q -- "--fallback" "$T/err"; then
		ok "$opt without the helper: refused (125) with the fix"
	else
		notok "$opt without the helper (rc $rc: $(cat "$T/err"))"
	fi
done
eq "--no-cgroup: the reason, then the fix (drop it, or --fallback)" \
	"sandcap: --cpu needs the sandcap helper (cgroup v2), which is not available: --no-cgroup was given; drop --no-cgroup, or pass --fallback to accept no CPU limit instead" \
	"$(cat "$T/err")"
# On a host without cgroup v2 the refusal leads with that and its fix; the other reasons
# (the helper's, user-cgroup mode's) come after.
if [ "$(stat -f -c %T /sys/fs/cgroup 2>/dev/null)" != cgroup2fs ]; then
	sandcap_run --memory 64M -- true
	case $(cat "$T/err") in
	"sandcap: --memory needs cgroup v2, which this host does not have at /sys/fs/cgroup (cgroup v1 or a hybrid layout): boot with systemd.unified_cgroup_hierarchy=1 (see sandcap doctor), or pass --fallback to accept RLIMIT_AS instead.  Also: "*)
		ok "no cgroup v2 on this host: the refusal leads with it and its fix, the rest after" ;;
	*) notok "no cgroup v2 on this host: the refusal leads with it and its fix ($(cat "$T/err"))" ;;
	esac
	# As root, --fallback would refuse --pids (RLIMIT_NPROC does not bind root): the
	# refusal offers it only as what an unprivileged user can do, and says why not here.
	if [ "$(id -u)" = 0 ]; then
		"$SANDCAP" run -q --memory 64M --pids 10 -- true > "$T/out" 2> "$T/err"
		contains "as root, --memory --pids: --fallback offered only for an unprivileged user" \
			"; as an unprivileged user, --fallback accepts RLIMIT_AS and RLIMIT_NPROC instead (not here: you are root (uid 0)" \
			"$(cat "$T/err")"
		"$SANDCAP" run -q --memory 64M -- true > "$T/out" 2> "$T/err"
		contains "as root, --memory alone: --fallback is offered (it works for root)" \
			", or pass --fallback to accept RLIMIT_AS instead." "$(cat "$T/err")"
		"$SANDCAP" run -q --fallback --memory 64M -- true > "$T/out" 2> "$T/err"
		eq "... and it does" 0 "$?"
	else
		skip "as root, --memory --pids: the tests do not run as root"
		skip "as root, --memory alone: the tests do not run as root"
		skip "as root, --memory --fallback: the tests do not run as root"
	fi
else
	skip "no cgroup v2 on this host: the refusal says so (this host has cgroup v2)"
fi
sandcap_run --no-cgroup --fallback --memory 64M --pids 10 --disk 1M --cpu 50% \
	--report "$T/fb.json" -- awk '/^Max file size/ { print $4 } /^Max processes/ { print $3 }
	/^Max address space/ { print $4 }' /proc/self/limits
eq "--fallback runs the command" 0 "$rc"
eq "... memory -> RLIMIT_AS, pids -> RLIMIT_NPROC, disk -> RLIMIT_FSIZE" \
	"1048576 10 67108864" "$(tr '\n' ' ' < "$T/out" | sed 's/ $//')"
contains "... prints a warning" "sandcap: warning: " "$(cat "$T/err")"
eq "... enforcement of memory" "rlimit (RLIMIT_AS, --fallback)" \
	"$(json "$T/fb.json" '["enforcement"]["memory"]')"
eq "... enforcement of cpu" "none (not enforced)" "$(json "$T/fb.json" '["enforcement"]["cpu"]')"
eq "... limits as asked" '{"memory": 67108864, "cpu_percent": 50, "pids": 10, "disk": 1048576, "core": 0}' \
	"$(json "$T/fb.json" '["limits"]')"

done_testing
