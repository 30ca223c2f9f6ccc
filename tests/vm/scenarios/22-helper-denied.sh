#!/bin/sh
# A user the policy denies gets a refusal at HELLO naming the reason; sandbox.ini from
# 22-helper-denied.ini denies sctest.
# vm-timeout: 30
# vm-cost: 2
. "$VMLIB"
out=$("$TESTS/probe-client" -a none 2>&1); rc=$?
is "$rc" 2 "the denied user is refused"
like "$out" "^error open 1 .*may not run sandboxes.*sctest" "the refusal says why"
# (the harness checks, as root, that no leaf, mount or workspace dir is left)
done_testing
