#!/bin/sh
# A helper-like binary with file capabilities (cap_dac_override,cap_chown=p), run by the
# unprivileged user, can create a leaf under the root-owned parent, hand it to root, write
# its limits and remove it: the kernel facts sandcap-helper is built on.
# vm-timeout: 30
# vm-cost: 3
# shellcheck source=tests/vm/lib.sh
. "$VMLIB"

like "$(getcap "$TESTS/probe-capcg")" 'cap_chown,cap_dac_override=p' "probe has file caps (=p)"
out=$("$TESTS/probe-capcg" 2>&1); rc=$?
printf '%s\n' "$out" | sed 's/^/# /'
is "$rc" 0 "probe exits 0"
for s in "mkdir leaf" "chown leaf and its files to root" "write memory.max" \
	"write pids.max" "rmdir leaf"; do
	like "$out" "$s: ok" "probe: $s"
done
check_fails "the caller still cannot mkdir there itself" mkdir /sys/fs/cgroup/sandcap/x
done_testing
