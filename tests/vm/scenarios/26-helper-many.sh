#!/bin/sh
# 20 sandboxes at once (sandboxes = 32 in the default policy) all complete and leave
# nothing behind.
# vm-timeout: 120
# vm-cost: 4
. "$VMLIB"
P=$TESTS/probe-client
pids=""
for i in $(seq 1 20); do
	"$P" -m 33554432 -d 1048576 -a child -k > "$SCRATCH/o$i" 2>&1 &
	pids="$pids $!"
done
n=0 bad=0
for p in $pids; do
	n=$((n + 1))
	if wait "$p"; then :; else bad=$((bad + 1)); sed 's/^/# /' "$SCRATCH/o$n"; fi
done
is "$bad" 0 "all 20 concurrent sandboxes complete"
is "$(cat "$SCRATCH"/o* | grep -c '^destroy ok')" 20 "all 20 report a complete teardown"
# (the harness checks, as root, that no leaf, mount or workspace dir is left)
done_testing
