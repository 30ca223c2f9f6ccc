#!/bin/sh
# Requests over a ceiling, a denied isolation level and ATTACH of processes that are not
# the caller's fresh child are refused with a reason; nothing is left behind.
# vm-timeout: 150
# vm-cost: 5
. "$VMLIB"
P=$TESTS/probe-client
MB=1048576

out=$("$P" -m $((512 * MB)) -a none 2>&1); rc=$?
is "$rc" 2 "memory over the ceiling is refused"
like "$out" "^error create 1 .*memory.*192.*\[limits\]" "the refusal names the ceiling and its section"
out=$("$P" -p 100000 -a none 2>&1)
like "$out" "^error create 1 .*pids" "pids over the ceiling is refused"
out=$("$P" -c 400 -a none 2>&1)
like "$out" "^error create 1 .*cpu" "cpu over the ceiling is refused"
out=$("$P" -d $((1024 * MB)) -a none 2>&1)
like "$out" "^error create 1 .*disk" "disk over the ceiling is refused"

for a in self parent pid:1 notpidfd; do
	out=$("$P" -a $a 2>&1); rc=$?
	printf '%s\n' "$out" | grep '^error' | sed 's/^/# /'
	like "$out" "^error attach [0-9]+ " "ATTACH of '$a' is refused"
done
# A root process that is not ours: the harness's own shell ancestors run as root.
rootpid=$(ps -o pid= -u root | awk 'NR == 1 { print $1 }')
out=$("$P" -a "pid:$rootpid" 2>&1)
like "$out" "^error attach 1 .*(uid|child)" "ATTACH of a root process ($rootpid) is refused"
# A process of ours that is not a child of the client.
sleep 30 &
sl=$!
out=$("$P" -a "pid:$sl" 2>&1)
like "$out" "^error attach 1 .*not a child" "ATTACH of our own non-child is refused"
kill $sl
wait $sl 2>/dev/null
# (the harness checks, as root, that no leaf, mount or workspace dir is left)
done_testing
