#!/bin/sh
# Malformed frames, wrong header fields, wrong fd counts and requests out of order: the helper drops the session (no reply, exit 1) and leaves nothing behind.
# Each line of hostile-client is one case with a fresh helper (tests/vm/hostile-client.c).
# vm-timeout: 120
# vm-cost: 4
. "$VMLIB"
run_hostile frames
done_testing
