#!/bin/sh
# Requests over a ceiling and a denied isolation level are refused with a reason, and a
# SPAWN without a socket ends the session; nothing is left behind.
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
# sandcap never asks for more than 1 EiB: more is a protocol violation (the page rounding
# of disk would wrap near 2^64), whatever the ceiling.
out=$("$P" -d $((1 << 61)) -a none 2>&1)
like "$out" "^error create 71 sandcap-helper exited without replying" \
	"disk over 1 EiB ends the session (a protocol violation, no reply)"
out=$("$P" -m $((1 << 61)) -a none 2>&1)
like "$out" "^error create 71 sandcap-helper exited without replying" \
	"memory over 1 EiB ends the session (a protocol violation, no reply)"

# SPAWN carries no pid, only a socket for the process the helper makes: anything else ends
# the session as a protocol violation (torn down before that fd is ever closed), and the
# harness finds nothing left.
out=$("$P" -a notsocket 2>&1)
like "$out" "^error spawn 71 sandcap-helper exited without replying" \
	"SPAWN with a descriptor that is no socket ends the session (EPROTO, no reply)"
# (the harness checks, as root, that no leaf, mount or workspace dir is left)
done_testing
