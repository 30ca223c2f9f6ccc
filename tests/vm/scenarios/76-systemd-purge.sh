#!/bin/sh
# apt remove, then apt purge, after sandboxes ran: nothing of sandcap stays: no unit, no
# cgroup of it, nothing in /run; after purge no conffile and no /etc/sandcap.
# vm-timeout: 600
# vm-pending: reaper-pkg (#17: after apt remove the empty sandcap.slice stays active, its cgroup left; postrm could stop it)
. "$VMLIB"
. "$SRCDIR/tests/vm/sysd-lib.sh"
adduser --quiet sctest sandcap
chmod 0777 "$SCRATCH"
run_rc vm-login sctest sandcap run -q --memory 32M -- true
is "$rc" 0 "a sandbox ran before the removal"
run_rc env DEBIAN_FRONTEND=noninteractive apt-get remove -y sandcap > "$VM_RESULTS/remove.log" 2>&1
is "$rc" 0 "apt-get remove sandcap"
check_fails "no /usr/bin/sandcap" test -e /usr/bin/sandcap
check_fails "no /usr/libexec/sandcap" test -e /usr/libexec/sandcap
check_fails "sandcap.service is not active" systemctl -q is-active sandcap.service
# (the harness's own names start with sandcap-vm: not the package's)
is "$(find /sys/fs/cgroup \( -name 'sandcap.*' -o -name 'sandcap-[!v]*' \) 2>/dev/null | tr '\n' ' ')" "" \
	"no cgroup of sandcap is left (sandcap.slice, sandcap.service)"
check_fails "nothing in /run: no /run/sandcap" test -e /run/sandcap
check "remove keeps the conffile" test -f /etc/sandcap/sandbox.ini
run_rc env DEBIAN_FRONTEND=noninteractive apt-get purge -y sandcap > "$VM_RESULTS/purge.log" 2>&1
is "$rc" 0 "apt-get purge sandcap"
check_fails "purge leaves no /etc/sandcap" test -e /etc/sandcap
is "$(dpkg-query -W -f '${Status}' sandcap 2>/dev/null)" "" "dpkg no longer knows the package"
is "$(find /lib/systemd /etc/systemd /usr/lib/tmpfiles.d \( -name 'sandcap.*' -o -name 'sandcap-[!v]*' \) 2>/dev/null | tr '\n' ' ')" "" \
	"no unit, wants link or tmpfiles.d entry is left"
done_testing
