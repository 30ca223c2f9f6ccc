#!/bin/sh
# A user added to the group sandcap runs cgroup-mode sandboxes from a real login (logind
# session, user@.service); the limits hold; a user outside the group gets no cgroup mode.
# vm-timeout: 400
# vm-cost: 12
. "$VMLIB"
. "$SRCDIR/tests/vm/sysd-lib.sh"
check "adduser sctest sandcap" adduser --quiet sctest sandcap
chmod 0777 "$SCRATCH"
r=$SCRATCH/ok.json
run_rc vm-login sctest sandcap run -q --memory 32M --pids 16 --report "$r" -- sh -c 'echo hi > "$TMPDIR/f"; cat "$TMPDIR/f"'
is "$rc" 0 "sctest's sandbox runs"
is "$(json_get "$r" .mode)" cgroup "in cgroup mode"
is "$(json_get "$r" .enforcement.memory)" cgroup "memory enforced by the cgroup"
is "$(json_get "$r" .limits.memory)" 33554432 "with the requested limit"
r=$SCRATCH/oom.json
run_rc vm-login sctest sandcap run -q --memory 32M --report "$r" -- python3 -c 'b = bytearray(256 << 20)'
is "$(json_get "$r" .verdict)" memory "a 256M allocation under --memory 32M: verdict memory"
run_rc vm-login scother sandcap run -q --memory 32M -- true
is "$rc" 125 "scother, not in the group: --memory is refused (125), no cgroup mode"
done_testing
