#!/bin/sh
# The .deb installed the way an admin does it: `apt install ./sandcap_*.deb`, offline, from
# the file the package suite built; postinst's capabilities, the enabled and started unit.
# vm-timeout: 600
# vm-cost: 21
. "$VMLIB"
. "$SRCDIR/tests/vm/sysd-lib.sh"
if [ -z "$DEB" ]; then
	fail "the package suite left a .deb in \$BUILD/deb (run tests/package/run.sh or make deb first)"
	done_testing
fi
cp "$DEB" "$SCRATCH/" && cd "$SCRATCH" || exit 1
run_rc env DEBIAN_FRONTEND=noninteractive apt-get install -y ./"$(basename "$DEB")" \
	> "$VM_RESULTS/apt.log" 2>&1
is "$rc" 0 "apt-get install ./$(basename "$DEB") installs the package offline (apt.log)"
[ "$rc" -eq 0 ] || sed 's/^/# /' "$VM_RESULTS/apt.log" | tail -n 20
is "$(dpkg-query -W -f '${Status}' sandcap 2>&1)" "install ok installed" "dpkg knows it as installed"
like "$(getcap /usr/libexec/sandcap/sandcap-helper)" "cap_sys_admin.*=p$" \
	"postinst gave the helper its permitted capabilities"
is "$(stat -c '%U:%G %a' /usr/libexec/sandcap/sandcap-helper)" "root:root 755" "the helper is root:root 0755"
is "$(systemctl is-enabled sandcap.service 2>&1)" enabled "sandcap.service is enabled"
run_rc systemctl status sandcap --no-pager > "$VM_RESULTS/status.txt" 2>&1
is "$rc" 0 "systemctl status sandcap: active (status.txt)"
is "$(systemctl show -p Delegate --value sandcap.service)" yes "the unit has Delegate=yes"
is "$(stat -c '%U:%G %a' /run/sandcap 2>&1)" "root:root 755" "the workspace root /run/sandcap is root:root 0755"
check "sandcap policy check accepts the installed policy" sandcap policy check /etc/sandcap/sandbox.ini
# The guest's systemd (Debian 12: 252, no DelegateSubgroup=) finds nothing to say about the
# installed unit: no unknown key, no missing program.
run_rc systemd-analyze verify --man=no sandcap.service sandcap.slice > "$SCRATCH/verify.txt" 2>&1
is "$rc:$(cat "$SCRATCH/verify.txt")" "0:" \
	"systemd-analyze verify sandcap.service sandcap.slice (systemd $(systemctl --version | sed -n '1s/^systemd \([0-9]*\).*/\1/p')): clean"
done_testing
