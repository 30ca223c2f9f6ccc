#!/bin/sh
# Reboot: the package installed and used in one boot; a second boot of the same image
# brings sandcap.service back with its delegated parent, and a user's sandbox runs in
# cgroup mode.
# vm-timeout: 600
# vm-cost: 56
. "$VMLIB"
. "$SRCDIR/tests/vm/sysd-lib.sh"
if [ "$VM_BOOT" = 1 ]; then
	[ -n "$DEB" ] || { fail "a .deb in \$BUILD/deb"; done_testing; }
	cp "$DEB" "$SCRATCH/" && cd "$SCRATCH" || exit 1
	run_rc env DEBIAN_FRONTEND=noninteractive apt-get install -y ./"$(basename "$DEB")" \
		> "$VM_RESULTS/apt.log" 2>&1
	is "$rc" 0 "boot 1: the package is installed"
	adduser --quiet sctest sandcap
	is "$(systemctl is-enabled sandcap.service)" enabled "boot 1: sandcap.service is enabled"
	chmod 0777 "$SCRATCH"
	run_rc vm-login sctest sandcap run -q --memory 32M --report "$SCRATCH/b1.json" -- true
	is "$rc:$(json_get "$SCRATCH/b1.json" .mode)" 0:cgroup "boot 1: sctest's sandbox runs in cgroup mode"
	vm_reboot
	done_testing
fi
is "$(dpkg-query -W -f '${Status}' sandcap 2>&1)" "install ok installed" "boot $VM_BOOT: still installed"
parent_right "boot $VM_BOOT"
r=$SCRATCH/r.json
chmod 0777 "$SCRATCH"
run_rc vm-login sctest sandcap run -q --memory 32M --report "$r" -- true
is "$rc" 0 "boot $VM_BOOT: sctest's sandbox runs"
is "$(json_get "$r" .mode)" cgroup "boot $VM_BOOT: in cgroup mode"
done_testing
