#!/bin/sh
# The sandbox cannot touch its supervisors (#14 item 3) where only seccomp protects them:
# this kernel has no Landlock.  In cgroup mode sandcap and its helper, in rlimit mode sandcap
# and its keeper: kill -STOP/-9, kill -1, pidfd_open, prlimit, F_SETOWN from inside all fail
# with EPERM and --timeout still fires.  A helper that stops answering (stopped by its own
# user) no longer hangs sandcap: the round trip's deadline ends it.  SIGKILL of sandcap in
# rlimit mode leaves no process of the sandbox (#14 item 11).
# vm-timeout: 400
# vm-cost: 18
. "$VMLIB"
R=$SCRATCH
P=/sys/fs/cgroup/sandcap

# attacks K: the script run inside; $PPID is sandcap, K names the other supervisor.
attacks='
	if [ "$1" = cgroup ]; then
		K=""
		for c in $(cat /proc/$PPID/task/*/children); do [ "$c" != $$ ] && K=$c; done
	else
		K=$(cut -d" " -f4 /proc/$PPID/stat)
	fi
	echo "other $K $(cat /proc/$K/comm)"
	kill -STOP $PPID 2>/dev/null; echo "stop-sandcap $?"
	kill -STOP $K 2>/dev/null; echo "stop-other $?"
	kill -9 $PPID 2>/dev/null; echo "kill-sandcap $?"
	kill -9 $K 2>/dev/null; echo "kill-other $?"
	kill -9 -1 2>/dev/null; echo "kill-all $?"
	P=$PPID K=$K python3 -c "
import errno, fcntl, os, resource
for name in (\"P\", \"K\"):
    pid = int(os.environ[name])
    for what, f in ((\"pidfd\", lambda: os.pidfd_open(pid)),
                    (\"prlimit\", lambda: resource.prlimit(pid, resource.RLIMIT_CPU, (1, 1))),
                    (\"setown\", lambda: fcntl.fcntl(os.pipe()[0], fcntl.F_SETOWN, pid)),
                    (\"affinity\", lambda: os.sched_setaffinity(pid, {0}))):
        try:
            f(); print(\"%s-%s ok\" % (what, name))
        except OSError as e: print(\"%s-%s %s\" % (what, name, errno.errorcode[e.errno]))
"
	sleep 0.1 & kill -TERM $!; echo "own-child $?"
'

for mode in cgroup rlimit; do
	opt=; [ $mode = rlimit ] && opt=--no-cgroup
	run_rc "$SANDCAP" run -q $opt --report "$R/$mode.json" -- sh -c "$attacks" sh $mode > "$R/$mode.out" 2>&1
	o=$(tr '\n' ' ' < "$R/$mode.out")
	is "$rc" 0 "$mode: the attacks' run ends normally ($o)"
	is "$(json_get "$R/$mode.json" .mode)" $mode "$mode: the run is in $mode mode"
	is "$(json_get "$R/$mode.json" .enforcement.supervisor)" seccomp \
		"$mode: the supervisors are protected by seccomp alone (no Landlock here)"
	case $mode in
	cgroup) like "$o" "other [0-9]+ sandcap-helper" "cgroup: the other supervisor is the helper" ;;
	rlimit) like "$o" "other [0-9]+ sandcap" "rlimit: the other supervisor is the keeper" ;;
	esac
	for a in stop-sandcap stop-other kill-sandcap kill-other kill-all; do
		like "$o" "$a 1" "$mode: $a from inside fails"
	done
	for w in P K; do
		for what in pidfd prlimit setown affinity; do
			like "$o" "$what-$w EPERM" "$mode: $what on supervisor $w fails with EPERM"
		done
	done
	like "$o" "own-child 0" "$mode: the sandbox still signals its own processes"

	run_rc timeout -s KILL 60 "$SANDCAP" run -q $opt --timeout 2 --grace 0 -- sh -c '
		if [ "$1" = cgroup ]; then
			for c in $(cat /proc/$PPID/task/*/children); do [ "$c" != $$ ] && K=$c; done
		else
			K=$(cut -d" " -f4 /proc/$PPID/stat)
		fi
		kill -STOP $PPID $K; kill -9 $PPID $K; kill -STOP -1; sleep 100' sh $mode 2>/dev/null
	is "$rc" 124 "$mode: after kill -STOP of every supervisor from inside, --timeout fires (124)"
done

# A helper its user stopped: sandcap's KILL round trip meets its deadline and the sandbox
# still ends (before: sandcap hung for ever in that round trip).  The helper is stopped once
# the command runs (stopping it during CREATE would end the run at that round trip's
# deadline instead), then the kill is asked for through the control socket: no race with
# a timer.
timeout -s KILL 120 "$SANDCAP" run -q --report "$R/dead.json" -- \
	sh -c "touch $R/dead.ready; exec sleep 100" > "$R/dead.out" 2> "$R/dead.err" &
pid=$!
i=0 h=
while [ $i -lt 1200 ] && [ -z "$h" ]; do
	if [ -e "$R/dead.ready" ]; then
		s=$(pgrep -P $pid -x sandcap 2>/dev/null)
		[ -n "$s" ] && h=$(pgrep -P "$s" -x sandcap-helper 2>/dev/null)
	fi
	[ -n "$h" ] || sleep 0.05
	i=$((i + 1))
done
id=$("$SANDCAP" ps --json 2>/dev/null | jq -r '.[0].id' 2>/dev/null)
if [ -n "$h" ] && [ -n "$id" ] && kill -STOP "$h"; then
	"$SANDCAP" kill "$id" > /dev/null 2>&1     # its reply may time out: the helper is stopped
	wait $pid
	is "$?" 137 "a stopped helper: sandcap kill still ends the sandbox (137), no hang"
	like "$(tr '\n' ' ' < "$R/dead.err")" "did not answer .* treated as dead" \
		"... and says the helper was treated as dead"
	like "$(jq -r .message "$R/dead.json" 2>/dev/null)" "its teardown was incomplete" \
		"... and so does the report's message (not only stderr)"
	check_fails "... the sandbox's process is gone" pgrep -x -u "$(id -u)" -f "sleep 100"
	kill -0 "$h" 2>/dev/null && fail "... the helper was killed" "pid $h still there" ||
		ok "... the helper was killed"
	"$SANDCAP" run -q -- true     # the next run reclaims what the dead helper left
	check_fails "the next run reclaims its leaf" test -e "$P/$id"
else
	fail "a stopped helper: found and stopped the helper" "pid '$h', id '$id'"
	kill -9 $pid 2>/dev/null
fi

# rlimit mode: SIGKILL of sandcap leaves nothing behind (#14 item 11).
"$SANDCAP" run -q --no-cgroup -- sh -c 'setsid sleep 1000.41 & (sleep 1000.42 &); sleep 1000.43' &
pid=$!
i=0
while [ $i -lt 200 ] && [ "$(pgrep -u "$(id -u)" -f 'sleep 1000.4[123]' | wc -l)" -lt 3 ]; do
	sleep 0.05; i=$((i + 1))
done
kill -9 $pid
wait $pid 2>/dev/null
i=0
while [ $i -lt 200 ] && pgrep -u "$(id -u)" -f 'sleep 1000.4[123]' >/dev/null; do
	sleep 0.05; i=$((i + 1))
done
check_fails "rlimit mode: kill -9 of sandcap leaves no process of the sandbox" \
	pgrep -u "$(id -u)" -f 'sleep 1000.4[123]'
done_testing
