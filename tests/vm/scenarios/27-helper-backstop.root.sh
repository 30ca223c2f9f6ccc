#!/bin/sh
# The helper's timeout backstop: a client that speaks the protocol but never enforces the
# sandbox's timeout (sandcap does, with its grace period) cannot outlive it: the helper kills
# the cgroup 10 s after the timeout.  Runs as root to watch the leaf; the client is sctest.
# vm-timeout: 90
# vm-cost: 14
. "$VMLIB"
P="env SANDCAP_HELPER=$SANDCAP_HELPER vm-as-user sctest $TESTS/probe-client"
wait_for() { i=0; while [ $i -lt 100 ] && ! grep -q "$1" "$2"; do sleep 0.1; i=$((i + 1)); done; }

# The client stays after SPAWN until we are done looking (SIGUSR1 ends probe-client's
# sleep; 60 s at most): past the backstop (11 s after CREATE), however loaded the guest.
$P -t 1000 -a child -s 60 > "$SCRATCH/o" 2>&1 &
pid=$!
wait_for "spawn ok" "$SCRATCH/o"
id=$(sed -n 's/^id //p' "$SCRATCH/o")
is "$(sed -n 's/^timeout //p' "$SCRATCH/o")" 1000 "the helper accepted a 1 s timeout"
# 2 s after we saw the spawn: past the 1 s timeout, 9 s inside the 10 s backstop (margin
# for a busy machine that shows us the spawn late).
sleep 2
is "$(sed -n 's/^populated //p' "/sys/fs/cgroup/sandcap/$SCTEST_UID/$id/cgroup.events")" 1 \
	"2 s in (past the timeout, within the backstop) the sandbox still runs"
i=0
while [ $i -lt 300 ] && [ "$(sed -n 's/^populated //p' "/sys/fs/cgroup/sandcap/$SCTEST_UID/$id/cgroup.events")" = 1 ]; do
	sleep 0.1; i=$((i + 1))
done
is "$(sed -n 's/^populated //p' "/sys/fs/cgroup/sandcap/$SCTEST_UID/$id/cgroup.events" 2>/dev/null)" 0 \
	"the helper killed it about 10 s after its timeout (client still connected)"
check "the client is still connected at that point" kill -0 "$pid"
pkill -USR1 -u sctest -x probe-client
wait "$pid"
check_fails "the leaf is gone once the client ends" test -e "/sys/fs/cgroup/sandcap/$SCTEST_UID/$id"
done_testing
