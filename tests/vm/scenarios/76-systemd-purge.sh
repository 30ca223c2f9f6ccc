#!/bin/sh
# apt remove with a sandbox running, then apt purge: the removal ends the sandbox (prerm);
# nothing of sandcap stays: no unit loaded, no cgroup (sandcap.slice is stopped), nothing in
# /run; remove keeps the conffile, purge removes it and /etc/sandcap.  The system group
# sandcap stays, as documented (docs/install.md).
# vm-timeout: 600
# vm-cost: 19
. "$VMLIB"
. "$SRCDIR/tests/vm/sysd-lib.sh"
if [ "$(dpkg-query -W -f '${Status}' sandcap 2>/dev/null)" != "install ok installed" ]; then
	# Run alone (--only purge): install the package first.
	[ -n "$DEB" ] || { fail "a .deb in \$BUILD/deb"; done_testing; }
	cp "$DEB" "$SCRATCH/" && (cd "$SCRATCH" && env DEBIAN_FRONTEND=noninteractive \
		apt-get install -y ./"$(basename "$DEB")" > "$VM_RESULTS/install.log" 2>&1) ||
		{ fail "the package installs (install.log)"; done_testing; }
fi
adduser --quiet sctest sandcap
chmod 0777 "$SCRATCH"
run_rc vm-login sctest sandcap run -q --memory 32M -- true
is "$rc" 0 "a sandbox ran before the removal"
check "a sandbox of sctest runs (cgroup mode, waiting) while the package is removed" \
	bg_start sctest rm
run_rc env DEBIAN_FRONTEND=noninteractive apt-get remove -y sandcap > "$VM_RESULTS/remove.log" 2>&1
is "$rc" 0 "apt-get remove sandcap (remove.log)"
check "the running sandbox was ended by the removal (its sandcap wrote its report)" \
	wait_for 60 test -s "$SCRATCH/rm.json"
wait "$bg_pid_rm"
is "$(json_get "$SCRATCH/rm.json" .signal)" 9 "its report: killed by signal 9"
check_fails "no /usr/bin/sandcap" test -e /usr/bin/sandcap
check_fails "no /usr/libexec/sandcap" test -e /usr/libexec/sandcap
check_fails "sandcap.service is not active" systemctl -q is-active sandcap.service
# (the harness's own units and cgroups are named sandcap-vm*: not the package's)
# (remove keeps the unit's enablement, masked, until purge, as Debian does: the unit may
# stay known as "not-found"; the slice must be gone)
is "$(systemctl list-units --all --plain --no-legend sandcap.slice 2>&1 | tr '\n' ' ')" "" \
	"sandcap.slice is stopped and unloaded"
is "$(find /sys/fs/cgroup \( -name 'sandcap.*' -o -name 'sandcap-[!v]*' \) 2>/dev/null | tr '\n' ' ')" "" \
	"no cgroup of sandcap is left (sandcap.slice, sandcap.service)"
is "$(ls -d /run/sandcap* 2>/dev/null | tr '\n' ' ')" "" \
	"nothing in /run: no /run/sandcap, no /run/sandcap-deadlines"
check "remove keeps the conffile" test -f /etc/sandcap/sandbox.ini
run_rc env DEBIAN_FRONTEND=noninteractive apt-get purge -y sandcap > "$VM_RESULTS/purge.log" 2>&1
is "$rc" 0 "apt-get purge sandcap (purge.log)"
check_fails "purge leaves no /etc/sandcap" test -e /etc/sandcap
is "$(dpkg-query -W -f '${Status}' sandcap 2>/dev/null)" "" "dpkg no longer knows the package"
is "$(find /lib/systemd /etc/systemd /usr/lib/tmpfiles.d /var/lib/systemd \( -name 'sandcap.*' -o -name 'sandcap-[!v]*' \) 2>/dev/null | tr '\n' ' ')" "" \
	"no unit, wants link, enablement state or tmpfiles.d entry is left"
is "$(find /sys/fs/cgroup \( -name 'sandcap.*' -o -name 'sandcap-[!v]*' \) 2>/dev/null | tr '\n' ' ')" "" \
	"still no cgroup of sandcap after purge"
# (the harness's own units are named sandcap-vm*: not the package's)
is "$(systemctl list-units --all --plain --no-legend 'sandcap.*' 'sandcap-[!v]*' 2>&1 | tr '\n' ' ')" "" \
	"after purge systemd knows no unit of sandcap (sandcap.service, sandcap.slice)"
check "the system group sandcap stays (documented: delgroup sandcap removes it)" getent group sandcap
done_testing
