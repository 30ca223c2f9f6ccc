#!/bin/sh
# A package upgrade with a sandbox running: the .deb rebuilt with a higher version
# (dpkg-deb), installed with apt; the sandbox survives and ends with its own report, the
# new helper has its capabilities, the service and its delegated parent are back.
# vm-timeout: 600
# vm-cost: 25
. "$VMLIB"
. "$SRCDIR/tests/vm/sysd-lib.sh"
[ -n "$DEB" ] || { fail "a .deb in \$BUILD/deb"; done_testing; }
old=$(dpkg-query -W -f '${Version}' sandcap)
new=$old+vmupgrade1
rm -rf "$SCRATCH/pkg"
dpkg-deb -R "$DEB" "$SCRATCH/pkg" &&
	sed -i "s/^Version: .*/Version: $new/" "$SCRATCH/pkg/DEBIAN/control" &&
	dpkg-deb -b "$SCRATCH/pkg" "$SCRATCH/sandcap_${new}_upgrade.deb" > /dev/null
is "$?" 0 "the .deb rebuilt as version $new"
adduser --quiet sctest sandcap
check "a sandbox of sctest runs (cgroup mode, waiting)" bg_start sctest up
cd "$SCRATCH" || exit 1
run_rc env DEBIAN_FRONTEND=noninteractive apt-get install -y ./"sandcap_${new}_upgrade.deb" \
	> "$VM_RESULTS/apt.log" 2>&1
is "$rc" 0 "apt-get install upgrades $old to $new (apt.log)"
is "$(dpkg-query -W -f '${Version}' sandcap)" "$new" "dpkg has $new"
like "$(getcap /usr/libexec/sandcap/sandcap-helper)" "cap_sys_admin.*=p$" "the new helper has its capabilities"
check "the sandbox still runs after the upgrade" bg_alive up
parent_right "after the upgrade"
check "the sandbox ends when told" bg_finish up
is "$(json_get "$SCRATCH/up.json" .verdict)" ok "its report: verdict ok"
r=$SCRATCH/new.json
run_rc vm-login sctest sandcap run -q --memory 32M --report "$r" -- true
is "$(json_get "$r" .mode)" cgroup "a sandbox through the upgraded package runs in cgroup mode"
done_testing
