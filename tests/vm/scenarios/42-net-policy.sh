#!/bin/sh
# The policy's net requirement is the helper's to enforce in cgroup mode: with `net = proxy`
# a client (here probe-client, which would apply nothing itself) cannot get a sandbox with
# fewer programs than proxy's; stricter modes are fine.
# vm-timeout: 120
# vm-cost: 2
# shellcheck source=tests/vm/lib.sh
. "$VMLIB"
R=$SCRATCH
PC=$TESTS/probe-client

$PC -N host -- true > "$R/host.out" 2>&1
like "$(cat "$R/host.out")" '^error create 1 .*requires --net proxy' "net host under 'net = proxy': the helper refuses (EPERM)"
$PC -N proxy -o 9 -- true > "$R/proxy.out" 2>&1
is "$(sed -n 's/^status //p' "$R/proxy.out")" 0 "net proxy: accepted"
$PC -N loopback -- true > "$R/lo.out" 2>&1
is "$(sed -n 's/^status //p' "$R/lo.out")" 0 "net loopback (stricter): accepted"
$PC -N none -- true > "$R/none.out" 2>&1
is "$(sed -n 's/^status //p' "$R/none.out")" 0 "net none (stricter): accepted"
run_rc "$SANDCAP" run -q --net host -- true 2> "$R/run.err"
is "$rc" 125 "sandcap run --net host: refused (125)"
like "$(cat "$R/run.err")" 'requires --net proxy' "the message names the requirement"
done_testing
