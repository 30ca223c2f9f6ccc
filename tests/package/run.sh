#!/bin/sh
# Package suite: build the Debian package from the tree and check what it installs.
# TAP output; writes "package PASSED FAILED" into $BUILD/results/package.
# The .deb it leaves in $BUILD/deb is what the VM scenario 50-package.root.sh installs.
set -u
build=${1:-build}
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
mkdir -p "$build/results"
n=0 pass=0 fail=0
ok() { n=$((n + 1)); pass=$((pass + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $1"; }
check() { if eval "$2"; then ok "$1"; else notok "$1"; fi; }

version=$(sed -n 's/^VERSION *:= *//p' Makefile)
if make --no-print-directory deb BUILD="$build" >"$build/package.log" 2>&1; then
	ok "dpkg-buildpackage -us -uc -b builds the package"
else
	notok "dpkg-buildpackage -us -uc -b builds the package"; tail -30 "$build/package.log"
fi
deb=$(ls "$build"/deb/sandcap_"$version"-*_*.deb 2>/dev/null | head -1)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
if [ -n "$deb" ] && dpkg-deb -c "$deb" >"$tmp/contents" && dpkg-deb -e "$deb" "$tmp/ctl"; then
	ok "the package's contents and control files can be read"
else
	notok "the package's contents and control files can be read"
	echo "package $pass $((fail + 1))" >"$build/results/package"; exit 1
fi

has() { grep -Eq "^$1 +root/root +[0-9]+ [0-9-]+ [0-9:]+ \./$2\$" "$tmp/contents"; }
check "sandcap in /usr/bin, 0755 root:root" "has -rwxr-xr-x usr/bin/sandcap"
check "the helper in /usr/libexec/sandcap, 0755 root:root, not setuid" \
	"has -rwxr-xr-x usr/libexec/sandcap/sandcap-helper"
check "sandcap-setup in /usr/libexec/sandcap" "has -rwxr-xr-x usr/libexec/sandcap/sandcap-setup"
check "the policy at /etc/sandcap/sandbox.ini, 0644" "has -rw-r--r-- etc/sandcap/sandbox.ini"
check "the systemd unit and slice" \
	"has -rw-r--r-- lib/systemd/system/sandcap.service && has -rw-r--r-- lib/systemd/system/sandcap.slice"
check "the tmpfiles.d entry" "has -rw-r--r-- usr/lib/tmpfiles.d/sandcap.conf"
for m in man1/sandcap.1.gz man5/sandbox.ini.5.gz man8/sandcap-helper.8.gz; do
	check "man page $m" "has -rw-r--r-- usr/share/man/$m"
done
check "no setuid or setgid file in the package" "! grep -Eq '^-..[sS]|^-.....[sS]' '$tmp/contents'"
check "/etc/sandcap/sandbox.ini is a conffile" "grep -qx /etc/sandcap/sandbox.ini '$tmp/ctl/conffiles'"
check "postinst runs setcap with exactly the helper's caps on the helper's path" \
	"grep -q 'CAPS=cap_dac_override,cap_chown,cap_sys_admin,cap_net_admin,cap_bpf=p' '$tmp/ctl/postinst' && \
	 grep -q 'HELPER=/usr/libexec/sandcap/sandcap-helper' '$tmp/ctl/postinst' && \
	 grep -q 'setcap \"\$CAPS\" \"\$HELPER\"' '$tmp/ctl/postinst'"
check "postinst respects dpkg-statoverride" "grep -q 'dpkg-statoverride --list' '$tmp/ctl/postinst'"
check "postinst enables the unit (dh_installsystemd)" \
	"grep -q \"deb-systemd-helper enable 'sandcap.service'\" '$tmp/ctl/postinst'"

# The compiled-in paths follow the package's LIBEXECDIR and SYSCONFDIR.
mkdir -p "$tmp/x" && dpkg-deb -x "$deb" "$tmp/x"
check "sandcap looks for the helper at /usr/libexec/sandcap/sandcap-helper" \
	"grep -aq /usr/libexec/sandcap/sandcap-helper '$tmp/x/usr/bin/sandcap'"
check "the unit runs the packaged sandcap-setup" \
	"grep -q '^ExecStart=/usr/libexec/sandcap/sandcap-setup --systemd' '$tmp/x/lib/systemd/system/sandcap.service'"
check "the packaged policy names the unit's delegated parent" \
	"grep -q '^cgroup_root = /sys/fs/cgroup/sandcap.slice/sandcap.service/sandboxes' '$tmp/x/etc/sandcap/sandbox.ini'"
check "the unit delegates the controllers the helper needs" \
	"grep -q '^Delegate=cpu memory pids io' '$tmp/x/lib/systemd/system/sandcap.service'"
check "the packaged policy passes sandcap policy check" \
	"'$tmp/x/usr/bin/sandcap' policy check --no-trust '$tmp/x/etc/sandcap/sandbox.ini' >/dev/null"

if command -v lintian >/dev/null 2>&1; then
	lintian --no-tag-display-limit "$deb" >"$tmp/lintian" 2>&1
	if grep -q '^E:' "$tmp/lintian"; then
		notok "lintian reports no errors"; grep '^E:' "$tmp/lintian"
	else
		ok "lintian reports no errors ($(grep -c '^W:' "$tmp/lintian") warnings)"
	fi
else
	notok "lintian is installed (make deps installs it)"
fi

# The RPM spec: build it with rpmbuild (--nodeps: the build deps are Debian's here; the
# systemd scriptlet macros come from systemd-rpm-macros on RPM distributions).
if command -v rpmbuild >/dev/null 2>&1; then
	rt="$tmp/rpm"; mkdir -p "$rt/SOURCES"
	git ls-files -z | tar --null -T - --transform "s,^,sandcap-$version/," -czf \
		"$rt/SOURCES/sandcap-$version.tar.gz"
	if rpmbuild --define "_topdir $rt" --define 'systemd_post() :' \
		--define 'systemd_preun() :' --define 'systemd_postun_with_restart() :' \
		--nodeps -bb packaging/rpm/sandcap.spec >"$build/rpm.log" 2>&1; then
		ok "rpmbuild builds packaging/rpm/sandcap.spec"
	else
		notok "rpmbuild builds packaging/rpm/sandcap.spec"; tail -20 "$build/rpm.log"
	fi
	rpm=$(find "$rt/RPMS" -name 'sandcap-*.rpm' 2>/dev/null | head -n 1)
	check "the RPM gives the helper exactly its caps (%caps)" \
		"[ -n '$rpm' ] && rpm -qp --filecaps '$rpm' 2>/dev/null | grep -q '^/usr/libexec/sandcap/sandcap-helper[[:space:]]*cap_chown,cap_dac_override,cap_net_admin,cap_sys_admin,cap_bpf=p\$'"
	check "the RPM marks the policy %config(noreplace)" \
		"[ -n '$rpm' ] && rpm -qpc '$rpm' 2>/dev/null | grep -qx /etc/sandcap/sandbox.ini"
else
	notok "rpmbuild is installed (make deps installs rpm)"
fi

echo "1..$n"
echo "package $pass $fail" >"$build/results/package"
echo "package: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
