#!/bin/sh
# The ATTACH reap race, stretched by the per-user lock (an outside review, session 10):
# the helper used to check the pid, then wait up to 30 s for the per-user lock (held by
# another helper of the same user, stopped), then write the number.  A child reaped in
# that wait left its number to anyone: another user's process was moved into the caller's
# leaf, and the "poisoned" sandbox then let a retried ATTACH run without any timeout kill.
# Root stands in for the other helper (it holds the lock file) and for the attacker's pid
# cycling (it gives the freed number to a process of scother).  Now the helper takes the
# lock before its checks: the reaped child is refused, scother's process stays where it
# is, and the sandbox is not poisoned (KILL is carried out).
# vm-timeout: 180
# vm-cost: 3
. "$VMLIB"
S=/tmp/attachlock  # sctest writes here too: $SCRATCH is root's
rm -rf "$S"; mkdir -p "$S"; chmod 0777 "$S"
oldmax=$(cat /proc/sys/kernel/pid_max)
lockfile=/run/sandcap/.locks/user-$SCTEST_UID.lock
lockpid="" victim=""
cleanup() {
	[ -n "$lockpid" ] && kill "$lockpid" 2>/dev/null
	[ -n "$victim" ] && kill "$victim" 2>/dev/null
	echo "$oldmax" > /proc/sys/kernel/pid_max
}
trap cleanup EXIT

# A small pid space, so that giving a number away takes a few hundred forks in UML.
n=$(ls -d /proc/[0-9]* | wc -l)
echo $((n + 700)) > /proc/sys/kernel/pid_max

env SANDCAP_HELPER="$SANDCAP_HELPER" vm-as-user sctest "$TESTS/hostile-client" attachlock "$S" \
	> "$S/out" 2> "$S/err" &
client=$!
wait_file() { i=0; while [ $i -lt 600 ] && [ ! -e "$1" ]; do sleep 0.1; i=$((i + 1)); done; [ -e "$1" ]; }

wait_file "$S/created" || diag "the client made no sandbox"
[ -e "$lockfile" ] || diag "no $lockfile: $(ls -la /run/sandcap/.locks 2>&1 | tr '\n' ' ')"
if [ -e "$S/created" ] && [ -e "$lockfile" ]; then
	# One process holds it (flock(1) would leave its command holding it when killed).
	python3 -c 'import fcntl, sys, time
f = open(sys.argv[1]); fcntl.flock(f, fcntl.LOCK_EX); open(sys.argv[2], "w").close()
time.sleep(600)' "$lockfile" "$S/held" & lockpid=$!
	wait_file "$S/held" || diag "root could not take the per-user lock"
	touch "$S/locked"
	if wait_file "$S/helper"; then
		hp=$(cat "$S/helper")
		# The helper is waiting for the lock: a blocked FLOCK request of its pid.
		i=0; while [ $i -lt 300 ] && ! grep -- '->' /proc/locks | grep -q " $hp "; do
			sleep 0.1; i=$((i + 1)); done
		check "the helper waits for the per-user lock" sh -c "grep -- '->' /proc/locks | grep -q ' $hp '"
		touch "$S/blocked"
		if wait_file "$S/pid"; then
			P=$(cat "$S/pid")
			victim=$(python3 - "$P" "$SCOTHER_UID" <<'PY'
import os, sys
p, uid = int(sys.argv[1]), int(sys.argv[2])
for _ in range(20 * 1024):        # the small pid space, many times over
    c = os.fork()
    if c == 0:
        if os.getpid() == p:
            null = os.open("/dev/null", os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            os.setgroups([]); os.setresgid(uid, uid, uid); os.setresuid(uid, uid, uid)
            os.execv("/bin/sleep", ["sleep", "300.4747"])
        os._exit(0)
    if c == p:
        print(c)
        break
    os.waitpid(c, 0)
PY
)
			is "$victim" "$P" "root gave the reaped child's number to a process of scother"
			before=$(cat /proc/"$P"/cgroup 2>/dev/null)
			kill "$lockpid"; wait "$lockpid" 2>/dev/null; lockpid=""
			touch "$S/victim"
		fi
	fi
fi
wait "$client"
while IFS= read -r l; do
	case $l in
	"ok - "*) ok "${l#ok - }" ;;
	"not ok - "*) d=${l#not ok - }; fail "${d%% # *}" "${d#* # }" ;;
	esac
done < "$S/out"
sed 's/^/# client: /' "$S/err"
if [ -n "$victim" ]; then
	is "$(cat /proc/"$victim"/cgroup 2>/dev/null)" "$before" "scother's process is still in its own cgroup"
	kill "$victim" 2>/dev/null; wait "$victim" 2>/dev/null; victim=""
else
	fail "the scenario reached the ATTACH" "$(cat "$S/err")"
fi
done_testing
