#!/bin/sh
# The Debian package, installed the way its postinst does it: extract the .deb built by
# the package suite (tests/package/run.sh), setcap the helper on the guest's tmpfs, set
# the host up with the packaged sandcap-setup (both its plain and its --systemd path), and run
# a sandbox as the unprivileged user through the packaged binaries.
# vm-timeout: 180
# vm-needs: package
# vm-cost: 11
. "$VMLIB"

deb=$(ls "$BUILD"/deb/sandcap_*.deb 2>/dev/null | head -n 1)
if [ -z "$deb" ]; then
	fail "the package suite left a .deb in \$BUILD/deb (run tests/package/run.sh first)"
	done_testing
fi
root=/opt/pkgroot
rm -rf "$root"; mkdir -p "$root"
check "the .deb extracts" dpkg-deb -x "$deb" "$root"
helper=$root/usr/libexec/sandcap/sandcap-helper
# What postinst does (without dpkg-statoverride): owner, mode, then the capabilities.
chown root:root "$helper"; chmod 0755 "$helper"
check "postinst's setcap works on the helper" setcap cap_dac_override,cap_chown,cap_sys_admin,cap_net_admin,cap_bpf=p "$helper"
like "$(getcap "$helper")" "cap_chown,cap_dac_override,cap_net_admin,cap_sys_admin,cap_bpf=p" "the helper has exactly its caps"

# --- sandcap-setup for hosts without systemd
cg=/sys/fs/cgroup/sandcappkg
out=$("$root/usr/libexec/sandcap/sandcap-setup" --cgroup "$cg" --workspace-root /run/sandcappkg 2>&1); rc=$?
is "$rc" 0 "sandcap-setup creates the delegated parent ($out)"
is "$(stat -c '%U:%G %a' "$cg")" "root:root 700" "the parent is root-owned 0700"
ctl=$(cat "$cg/cgroup.subtree_control")
like "$ctl" "cpu" "cpu is enabled for the sandboxes"
like "$ctl" "memory" "memory is enabled for the sandboxes"
like "$ctl" "pids" "pids is enabled for the sandboxes"
is "$(stat -c '%U:%G %a' /run/sandcappkg)" "root:root 755" "the workspace root is root-owned 0755"
out2=$("$root/usr/libexec/sandcap/sandcap-setup" --cgroup "$cg" --workspace-root /run/sandcappkg 2>&1)
is "$?" 0 "sandcap-setup is idempotent"

# --- the packaged policy, pointed at this parent, then a sandbox as the user
mkdir -p /etc/sandcap
sed -e "s|^cgroup_root = .*|cgroup_root = $cg|" -e "s|^workspace_root = .*|workspace_root = /run/sandcappkg|" \
	-e 's|^allow_groups = .*|allow_groups = scdev|' "$root/etc/sandcap/sandbox.ini" > /etc/sandcap/sandbox.ini
chmod 0644 /etc/sandcap/sandbox.ini
check "the packaged policy (edited as the quick start says) passes sandcap policy check" \
	"$root/usr/bin/sandcap" policy check /etc/sandcap/sandbox.ini
chmod 0777 "$SCRATCH"
doc=$(vm-as-user sctest env SANDCAP_HELPER="$helper" "$root/usr/bin/sandcap" doctor 2>&1); rc=$?
is "$rc" 0 "the packaged sandcap doctor finds nothing missing for sctest (in group scdev)"
[ "$rc" -eq 0 ] || diag "$doc"
like "$doc" "ok +the policy lets user sctest run sandboxes" "doctor says the policy allows sctest"
doc=$(SANDCAP_HELPER=$helper "$root/usr/bin/sandcap" doctor 2>&1); rc=$?
is "$rc" 1 "for root, not in scdev, doctor fails"
like "$doc" "FAIL +the policy does not let user root run sandboxes" "naming the policy's refusal"
like "$doc" "fix: as root: adduser root scdev .*logs out and back in" \
	"and the fix: add the user to the group, then log in again"
# A session that started before the user was added: the group database has scdev, the
# process does not.
doc=$(setpriv --reuid=sctest --regid=sctest --clear-groups env SANDCAP_HELPER="$helper" \
	"$root/usr/bin/sandcap" doctor 2>&1); rc=$?
is "$rc" 1 "doctor fails in a session without the new group"
like "$doc" "through group scdev, which this login session does not have" \
	"it says the session lacks the group"
like "$doc" "log out and back in" "and that a new login fixes it"
rep=$SCRATCH/pkg-report.json
out=$(vm-as-user sctest env SANDCAP_HELPER="$helper" "$root/usr/bin/sandcap" run -q --memory 32M --pids 16 \
	--report "$rep" -- sh -c 'echo hi > "$TMPDIR/f"; cat "$TMPDIR/f"' 2>&1); rc=$?
is "$rc" 0 "a sandbox runs through the packaged sandcap and helper ($out)"
is "$(json_get "$rep" .verdict)" ok "its verdict is ok"
is "$(json_get "$rep" .enforcement.memory)" cgroup "memory was enforced by the cgroup"
is "$(json_get "$rep" .limits.memory)" 33554432 "with the requested limit"
is "$(ls "$cg" | grep -c '^[0-9]*-')" 0 "nothing is left under the parent"

# --- the --systemd path: run from inside a (simulated) unit's delegated cgroup
unit=/sys/fs/cgroup/sandcap.slice/sandcap.service
mkdir -p "$unit"
echo "+cpu +memory +pids +io" > /sys/fs/cgroup/sandcap.slice/cgroup.subtree_control
out=$(sh -c "echo \$\$ > $unit/cgroup.procs && exec $root/usr/libexec/sandcap/sandcap-setup --systemd \
	--workspace-root /run/sandcappkg" 2>&1); rc=$?
is "$rc" 0 "sandcap-setup --systemd works inside the unit's cgroup ($out)"
check "it moved itself into a keeper leaf" test -d "$unit/keeper"
is "$(stat -c '%U:%G %a' "$unit/sandboxes" 2>&1)" "root:root 700" "it made <unit>/sandboxes root-owned 0700"
like "$(cat "$unit/sandboxes/cgroup.subtree_control" 2>&1)" "memory" "with the controllers enabled"
like "$out" "cgroup_root = $unit/sandboxes" "it prints the cgroup_root the policy needs"

# clean up what this scenario made outside the harness's own places
rmdir "$unit/sandboxes" "$unit/keeper" "$unit" /sys/fs/cgroup/sandcap.slice "$cg" 2>/dev/null
rm -rf /run/sandcappkg "$root"
done_testing
