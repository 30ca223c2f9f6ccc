#!/bin/sh
# Package suite: build the Debian package from the tree and check what it installs.
# TAP output; writes "package PASSED FAILED SKIPPED" into $BUILD/results/package.  A check
# whose tool is missing (lintian, rpmbuild: `make deps` installs both) is a skip naming the
# tool, or a failure when SANDBOX_TESTS_MUST_RUN=1.
# The .deb it leaves in $BUILD/deb is what the VM scenario 50-package.root.sh installs.
set -u
build=${1:-build}
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
mkdir -p "$build/results"
n=0 pass=0 fail=0 skipped=0
ok() { n=$((n + 1)); pass=$((pass + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $1"; }
# missing_tool DESC TOOL: the check needs TOOL, which this host lacks.
missing_tool() {
	if [ "${SANDBOX_TESTS_MUST_RUN:-0}" = 1 ]; then
		notok "$1: $2 is not installed (make deps installs it; SANDBOX_TESTS_MUST_RUN=1)"
	else
		n=$((n + 1)); skipped=$((skipped + 1))
		echo "ok $n - $1 # SKIP $2 is not installed (make deps installs it)"
	fi
}
check() { if eval "$2"; then ok "$1"; else notok "$1"; fi; }

version=$(sed -n 's/^VERSION *:= *//p' Makefile)
tmp=$(mktemp -d)
probe=untracked-package-probe.txt       # an untracked file lying in the checkout
trap 'rm -rf "$tmp"; rm -f "$top/$probe"' EXIT
[ -e "$probe" ] || echo "must not be packaged" > "$probe"
# Built with a BUILD other than the default (make BUILD=x deb used to fail), from a clean
# export; the .deb is then copied to $build/deb, where the VM scenarios look for it.
pb=$build/pkgtree
rm -rf "$build/deb"
if make --no-print-directory deb BUILD="$pb" >"$build/package.log" 2>&1; then
	ok "make BUILD=$pb deb builds the package (dpkg-buildpackage -us -uc -b)"
else
	notok "make BUILD=$pb deb builds the package (dpkg-buildpackage -us -uc -b)"
	tail -30 "$build/package.log"
fi
mkdir -p "$build/deb" && cp "$pb"/deb/*.deb "$build/deb/" 2>/dev/null
rm -f "$probe"
src="$pb/deb/sandcap-$version"
check "the package is built from a clean export: tracked files only, no untracked $probe" \
	"[ -f '$src/README.md' ] && [ -f '$src/reaper/main.c' ] && [ ! -e '$src/$probe' ]"
deb=$(ls "$build"/deb/sandcap_"$version"_*.deb 2>/dev/null | head -1)
if [ -n "$deb" ] && dpkg-deb -c "$deb" >"$tmp/contents" && dpkg-deb -e "$deb" "$tmp/ctl"; then
	ok "the package's contents and control files can be read"
else
	notok "the package's contents and control files can be read"
	echo "package $pass $((fail + 1)) $skipped" >"$build/results/package"; exit 1
fi

has() { grep -Eq "^$1 +root/root +[0-9]+ [0-9-]+ [0-9:]+ \./$2\$" "$tmp/contents"; }
check "sandcap in /usr/bin, 0755 root:root" "has -rwxr-xr-x usr/bin/sandcap"
check "the helper in /usr/libexec/sandcap, 0755 root:root, not setuid" \
	"has -rwxr-xr-x usr/libexec/sandcap/sandcap-helper"
check "sandcap-setup in /usr/libexec/sandcap" "has -rwxr-xr-x usr/libexec/sandcap/sandcap-setup"
check "sandcap-reaper in /usr/libexec/sandcap, 0755, not setuid" \
	"has -rwxr-xr-x usr/libexec/sandcap/sandcap-reaper"
check "one sandcap: no second program beside the helper (no sandcap-nss)" \
	"! grep -q 'sandcap-nss' '$tmp/contents'"
check "the example policy is documentation only (/usr/share/doc/sandcap)" \
	"grep -Eq ' \\./usr/share/doc/sandcap/sandbox\\.ini\\.example(\\.gz)?\$' '$tmp/contents'"
check "the policy at /etc/sandcap/sandbox.ini, 0644" "has -rw-r--r-- etc/sandcap/sandbox.ini"
check "the systemd unit and slice" \
	"has -rw-r--r-- lib/systemd/system/sandcap.service && has -rw-r--r-- lib/systemd/system/sandcap.slice"
check "the tmpfiles.d entry" "has -rw-r--r-- usr/lib/tmpfiles.d/sandcap.conf"
for m in man1/sandcap.1.gz man5/sandbox.ini.5.gz man8/sandcap-helper.8.gz \
	man8/sandcap-setup.8.gz; do
	check "man page $m" "has -rw-r--r-- usr/share/man/$m"
done
check "no setuid or setgid file in the package" "! grep -Eq '^-..[sS]|^-.....[sS]' '$tmp/contents'"
check "/etc/sandcap/sandbox.ini is a conffile" "grep -qx /etc/sandcap/sandbox.ini '$tmp/ctl/conffiles'"
check "postinst runs setcap with exactly the helper's caps on the helper's path" \
	"grep -q 'CAPS=cap_dac_override,cap_chown,cap_sys_admin,cap_net_admin,cap_bpf=p' '$tmp/ctl/postinst' && \
	 grep -q 'HELPER=/usr/libexec/sandcap/sandcap-helper' '$tmp/ctl/postinst' && \
	 grep -q 'setcap \"\$CAPS\" \"\$HELPER\"' '$tmp/ctl/postinst'"
check "postinst respects dpkg-statoverride" "grep -q 'dpkg-statoverride --list' '$tmp/ctl/postinst'"
check "postinst creates the system group sandcap (Depends: adduser)" \
	"grep -q 'addgroup --system --quiet sandcap' '$tmp/ctl/postinst' && \
	 grep -q '^Depends:.*adduser' '$tmp/ctl/control'"
check "Recommends: libsystemd0 (sandcap loads it for user-cgroup mode only), not Depends" \
	"grep -q '^Recommends:.*libsystemd0 (>= 240)' '$tmp/ctl/control' && \
	 ! grep -q '^Depends:.*libsystemd' '$tmp/ctl/control'"
check "an upgrade neither stops nor restarts sandcap.service (running sandboxes stay)" \
	"! grep -q 'deb-systemd-invoke restart\\|_dh_action=restart' '$tmp/ctl/postinst' && \
	 grep -B1 'deb-systemd-invoke stop' '$tmp/ctl/prerm' | grep -q '\"\\\$1\" = remove'"
check "removing the package kills the running sandboxes (prerm remove: the unit's cgroup.kill)" \
	"grep -q 'echo 1 2>/dev/null >\"\$d/cgroup.kill\"' '$tmp/ctl/prerm' && grep -q 'kill -KILL' '$tmp/ctl/prerm'"
check "removal stops sandcap.slice too, once the subtree is empty (prerm remove; VM 76 runs it)" \
	"grep -q 'deb-systemd-invoke stop sandcap.slice' '$tmp/ctl/prerm' && grep -q 'populated 0' '$tmp/ctl/prerm'"
# As debhelper writes them: units are started and stopped through deb-systemd-invoke (which
# honours policy-rc.d); systemctl itself only queries and reloads (lintian checks it too).
check "the maintainer scripts run no systemctl but show and daemon-reload (deb-systemd-invoke)" \
	"! cat '$tmp/ctl/preinst' '$tmp/ctl/postinst' '$tmp/ctl/prerm' '$tmp/ctl/postrm' 2>/dev/null | \
	 grep -v '^[[:space:]]*#' | grep -E '(^|[;&|(]|then|do)[[:space:]]*systemctl' | \
	 grep -Ev 'systemctl (show|daemon-reload|--system daemon-reload)'"
check "removal clears /run/sandcap and /run/sandcap-deadlines without crossing mounts (postrm)" \
	"grep -q 'rm -rf --one-file-system /run/sandcap /run/sandcap-deadlines' '$tmp/ctl/postrm'"
check "purge lets systemd forget the unit (postrm purge: daemon-reload after deb-systemd-helper purge)" \
	"sed -n '/deb-systemd-helper purge/,\$p' '$tmp/ctl/postrm' | grep -B1 'systemctl daemon-reload' | grep -q '\"\$1\" = purge'"
check "postinst enables the unit (dh_installsystemd)" \
	"grep -q \"deb-systemd-helper enable 'sandcap.service'\" '$tmp/ctl/postinst'"

# The compiled-in paths follow the package's LIBEXECDIR and SYSCONFDIR.
mkdir -p "$tmp/x" && dpkg-deb -x "$deb" "$tmp/x"
# Every document a man page cites (SECURITY.md, docs/report.md, ...) is in the package at
# that path under /usr/share/doc/sandcap, uncompressed so that the name cited is the name.
cited=$(grep -ohE '(docs/[A-Za-z0-9_-]+|SECURITY|README)\.md' docs/man/* | sort -u)
nocite=""
for f in $cited; do [ -f "$tmp/x/usr/share/doc/sandcap/$f" ] || nocite="$nocite $f"; done
check "the documents the man pages cite are in /usr/share/doc/sandcap ($(echo $cited); missing:${nocite:- none})" \
	"[ -n '$cited' ] && [ -z '$nocite' ]"
check "the man pages say where those documents are installed" \
	"grep -q '/usr/share/doc/sandcap/' docs/man/sandcap.1 && grep -q '/usr/share/doc/sandcap/' docs/man/sandcap-helper.8"
# The unit as systemd sees it: no unknown key (DelegateSubgroup= is only for systemd 254 and
# later, the version the package was built for decides), no missing program.
sdv=$(pkg-config --modversion libsystemd 2>/dev/null | sed -n '1{s/[^0-9].*//;p;}')
unit=$tmp/x/lib/systemd/system/sandcap.service
if [ "0$sdv" -ge 254 ]; then
	check "built for systemd $sdv: the unit has DelegateSubgroup=reaper" "grep -qx 'DelegateSubgroup=reaper' '$unit'"
else
	check "built for systemd ${sdv:-?}: the unit has no DelegateSubgroup= (an unknown key before 254)" \
		"! grep -q '^DelegateSubgroup' '$unit'"
fi
if command -v systemd-analyze >/dev/null 2>&1; then
	mkdir -p "$tmp/verify"
	sed "s|^ExecStart=/usr/|ExecStart=$tmp/x/usr/|" "$unit" > "$tmp/verify/sandcap.service"
	cp "$tmp/x/lib/systemd/system/sandcap.slice" "$tmp/verify/"
	systemd-analyze verify --man=no "$tmp/verify/sandcap.service" "$tmp/verify/sandcap.slice" \
		> "$tmp/verify.out" 2>&1
	check "systemd-analyze verify (systemd $(systemd-analyze --version | sed -n '1s/^systemd \([0-9]*\).*/\1/p')) says nothing about the unit and the slice" \
		"[ ! -s '$tmp/verify.out' ]"
	[ -s "$tmp/verify.out" ] && sed 's/^/# /' "$tmp/verify.out"
else
	missing_tool "systemd-analyze verify says nothing about the unit" systemd-analyze
fi
check "every lintian override has its reason on the line above it" \
	"awk 'NF && !/^#/ && prev !~ /^# ./ { bad = 1 } { prev = \$0 } END { exit bad }' packaging/debian/*.lintian-overrides"
check "the package's control names a maintainer with an address, and no invented Homepage or Vcs-*" \
	"grep -Eq '^Maintainer: [^<]+ <[^@ ]+@[^> ]+>\$' '$tmp/ctl/control' && \
	 ! grep -Eq '^(Homepage|Vcs-[A-Za-z]+):' packaging/debian/control"
check "sandcap looks for the helper at /usr/libexec/sandcap/sandcap-helper" \
	"grep -aq /usr/libexec/sandcap/sandcap-helper '$tmp/x/usr/bin/sandcap'"
check "the packaged sandcap links the shared libseccomp, libinih, libbsd, libcap-ng, not libsystemd; runs" \
	"readelf -d '$tmp/x/usr/bin/sandcap' > '$tmp/needed' && \
	 grep -q 'NEEDED.*libseccomp\.so' '$tmp/needed' && grep -q 'NEEDED.*libinih\.so' '$tmp/needed' && \
	 grep -q 'NEEDED.*libbsd\.so' '$tmp/needed' && ! grep -q 'NEEDED.*libsystemd\.so' '$tmp/needed' && \
	 grep -q 'NEEDED.*libcap-ng\.so' '$tmp/needed' && \
	 '$tmp/x/usr/bin/sandcap' policy check --no-trust '$tmp/x/etc/sandcap/sandbox.ini' 2>/dev/null | \
	 grep -Eq ': OK(, with [0-9]+ warnings?)?\$'"
check "the unit's long-lived main process is the packaged reaper (Type=notify)" \
	"grep -q '^ExecStart=/usr/libexec/sandcap/sandcap-reaper --systemd\$' '$tmp/x/lib/systemd/system/sandcap.service' && \
	 grep -q '^Type=notify\$' '$tmp/x/lib/systemd/system/sandcap.service'"
check "a stop or restart of the unit kills only the reaper, not the sandboxes (KillMode=process)" \
	"grep -q '^KillMode=process\$' '$tmp/x/lib/systemd/system/sandcap.service'"
check "the reaper runs the packaged sandcap-setup" \
	"grep -aq /usr/libexec/sandcap/sandcap-setup '$tmp/x/usr/libexec/sandcap/sandcap-reaper'"
check "tmpfiles.d makes the root-only deadline directory" \
	"grep -q '^d /run/sandcap-deadlines 0700 root root' '$tmp/x/usr/lib/tmpfiles.d/sandcap.conf'"
check "tmpfiles.d and sandcap-setup make .locks and the deadline directory (the helper never does)" \
	"grep -q '^d /run/sandcap/.locks 0700 root root' '$tmp/x/usr/lib/tmpfiles.d/sandcap.conf' && \
	 grep -q '^chmod 0700 \"\$wsroot/.locks\"' '$tmp/x/usr/libexec/sandcap/sandcap-setup' && \
	 grep -q '^chmod 0700 /run/sandcap-deadlines' '$tmp/x/usr/libexec/sandcap/sandcap-setup'"
check "the packaged policy names the unit's delegated parent" \
	"grep -q '^cgroup_root = /sys/fs/cgroup/sandcap.slice/sandcap.service/sandboxes' '$tmp/x/etc/sandcap/sandbox.ini'"
check "the unit delegates the controllers the helper needs" \
	"grep -q '^Delegate=cpu memory pids io' '$tmp/x/lib/systemd/system/sandcap.service'"
check "the packaged policy passes sandcap policy check" \
	"'$tmp/x/usr/bin/sandcap' policy check --no-trust '$tmp/x/etc/sandcap/sandbox.ini' >/dev/null"
check "the live policy allows exactly the group sandcap (no fictional accounts)" \
	"[ \"\$(grep -E '^(allow_groups|allow_users|\\[user:|\\[group:)' '$tmp/x/etc/sandcap/sandbox.ini')\" = 'allow_groups = sandcap' ]"

# A source package from a clean export, as in a clean clone: 3.0 (native), no revision.
ex="$tmp/srcpkg/sandcap-$version"
mkdir -p "$ex"
tree=$(git stash create 2>/dev/null || true)
git archive --format=tar "${tree:-HEAD}" | tar -x -C "$ex"
if (cd "$ex" && cp -r packaging/debian debian && env -u MAKEFLAGS -u MAKELEVEL \
	dpkg-buildpackage -S -us -uc -d >"$tmp/srcpkg/log" 2>&1); then
	ok "cp -r packaging/debian debian && dpkg-buildpackage -S -us -uc -d builds the source package"
else
	notok "cp -r packaging/debian debian && dpkg-buildpackage -S -us -uc -d builds the source package"
	tail -15 "$tmp/srcpkg/log"
fi
check "the source package is sandcap_$version.dsc (native: no Debian revision)" \
	"[ -f '$tmp/srcpkg/sandcap_$version.dsc' ] && grep -q '^Format: 3.0 (native)' '$tmp/srcpkg/sandcap_$version.dsc'"

# A source install: built with the defaults, then installed with other paths.  install
# must rebuild, so that sandcap looks for the helper where install put it.
sb="$tmp/srcbuild" inst="$tmp/inst"
jobs=$(nproc 2>/dev/null || echo 1)
if make --no-print-directory -j"$jobs" BUILD="$sb" "$sb/sandcap" >"$tmp/src.log" 2>&1 &&
	grep -aq /usr/local/libexec/sandcap/sandcap-helper "$sb/sandcap" &&
	make --no-print-directory -j"$jobs" BUILD="$sb" DESTDIR="$inst" PREFIX=/usr \
		LIBEXECDIR=/usr/libexec install >>"$tmp/src.log" 2>&1; then
	ok "make, then make install PREFIX=/usr LIBEXECDIR=/usr/libexec DESTDIR=..."
else
	notok "make, then make install PREFIX=/usr LIBEXECDIR=/usr/libexec DESTDIR=..."
	tail -15 "$tmp/src.log"
fi
check "the installed sandcap looks for the helper where install put it (/usr/libexec)" \
	"[ -x '$inst/usr/libexec/sandcap/sandcap-helper' ] && \
	 grep -aq /usr/libexec/sandcap/sandcap-helper '$inst/usr/bin/sandcap' && \
	 ! grep -aq /usr/local/libexec '$inst/usr/bin/sandcap'"
check "make install puts the live policy allowing group sandcap and every man page" \
	"grep -qx 'allow_groups = sandcap' '$inst/etc/sandcap/sandbox.ini' && \
	 [ -f '$inst/usr/share/man/man8/sandcap-setup.8' ] && [ -f '$inst/usr/share/man/man1/sandcap.1' ]"
make --no-print-directory BUILD="$sb" DESTDIR="$inst" PREFIX=/usr LIBEXECDIR=/usr/libexec \
	uninstall >>"$tmp/src.log" 2>&1
check "make uninstall removes everything install put but the admin's policy" \
	"[ \"\$(cd '$inst' && find . ! -type d)\" = ./etc/sandcap/sandbox.ini ]"

# Man pages: one date for all; every sandcap page a page refers to exists.
dates=$(sed -n 's/^\.TH [^ ]* [0-9] "\([^"]*\)".*/\1/p' docs/man/* | sort -u)
check "every man page has the same date ($dates)" "[ \$(printf '%s\\n' \"$dates\" | wc -l) -eq 1 ]"
missing=""
for r in $(grep -hoE '\.BR (sandcap|sandbox)[-a-z.\\]* \([158]\)' docs/man/* | sed 's/^\.BR //; s/\\//g; s/ //g' | sort -u); do
	name=${r%%(*}; sec=${r#*(}; sec=${sec%)}
	[ -f "docs/man/$name.$sec" ] || missing="$missing $r"
done
check "every sandcap man page referred to exists (missing:${missing:- none})" "[ -z '$missing' ]"

# README: the admin quick start says how to give a user access.
check "README's admin quick start adds a user to group sandcap and says to log in again" \
	"sed -n '/^### Admin quick start/,/^### /p' README.md | grep -q 'adduser alice sandcap' && \
	 sed -n '/^### Admin quick start/,/^### /p' README.md | grep -qi 'log out and back in'"

# lintian at --pedantic, info tags included, on the binary and the source package: any tag
# not overridden (with its reason, debian/*.lintian-overrides) fails, so none piles up.
if command -v lintian >/dev/null 2>&1; then
	for p in "$deb" "$tmp/srcpkg/sandcap_$version.dsc"; do
		lintian -I --pedantic --show-overrides --tag-display-limit 0 "$p" >"$tmp/lintian" 2>&1
		tags=$(grep -E '^[EWIPX]: ' "$tmp/lintian")
		check "lintian -I --pedantic $(basename "$p"): no tag ($(grep -c '^O: ' "$tmp/lintian") overridden with a reason)" \
			"[ -f '$p' ] && [ -z \"\$tags\" ]"
		[ -n "$tags" ] && printf '%s\n' "$tags" | sed 's/^/# /'
	done
else
	missing_tool "lintian -I --pedantic reports no tag" lintian
fi

# The RPM spec: build it with rpmbuild (--nodeps: the build deps are Debian's here; the
# systemd scriptlet macros come from systemd-rpm-macros on RPM distributions).
if command -v rpmbuild >/dev/null 2>&1; then
	rt="$tmp/rpm"; mkdir -p "$rt/SOURCES"
	git ls-files -z | tar --null -T - --transform "s,^,sandcap-$version/," -czf \
		"$rt/SOURCES/sandcap-$version.tar.gz"
	if rpmbuild --define "_topdir $rt" --nodeps -bb packaging/rpm/sandcap.spec \
		>"$build/rpm.log" 2>&1; then
		ok "rpmbuild builds packaging/rpm/sandcap.spec"
	else
		notok "rpmbuild builds packaging/rpm/sandcap.spec"; tail -20 "$build/rpm.log"
	fi
	rpm=$(find "$rt/RPMS" -name 'sandcap-*.rpm' 2>/dev/null | head -n 1)
	check "the RPM gives the helper exactly its caps (%caps)" \
		"[ -n '$rpm' ] && rpm -qp --filecaps '$rpm' 2>/dev/null | grep -q '^/usr/libexec/sandcap/sandcap-helper[[:space:]]*cap_chown,cap_dac_override,cap_net_admin,cap_sys_admin,cap_bpf=p\$'"
	check "the RPM marks the policy %config(noreplace)" \
		"[ -n '$rpm' ] && rpm -qpc '$rpm' 2>/dev/null | grep -qx /etc/sandcap/sandbox.ini"
	check "the RPM's scriptlets are plain shell (no unexpanded %systemd_* macros)" \
		"[ -n '$rpm' ] && rpm -qp --scripts '$rpm' > '$tmp/scripts' 2>/dev/null && \
		 grep -q 'groupadd -r sandcap' '$tmp/scripts' && ! grep -q '%' '$tmp/scripts'"
	check "the RPM's erase stops sandcap.slice and clears /run as the .deb does" \
		"grep -q 'systemctl stop sandcap.slice' '$tmp/scripts' && \
		 grep -q 'rm -rf --one-file-system /run/sandcap /run/sandcap-deadlines' '$tmp/scripts'"
	check "the RPM recommends systemd-libs (user-cgroup mode loads it), requires it not" \
		"[ -n '$rpm' ] && rpm -qp --recommends '$rpm' 2>/dev/null | grep -q '^systemd-libs >= 240' && \
		 ! rpm -qp --requires '$rpm' 2>/dev/null | grep -q 'libsystemd'"
	check "the RPM ships the reaper" \
		"[ -n '$rpm' ] && rpm -qpl '$rpm' 2>/dev/null | grep -qx /usr/libexec/sandcap/sandcap-reaper"
	check "the RPM ships one sandcap (no sandcap-nss)" \
		"[ -n '$rpm' ] && rpm -qpl '$rpm' > '$tmp/rpmfiles' 2>/dev/null && \
		 grep -qx /usr/bin/sandcap '$tmp/rpmfiles' && ! grep -q sandcap-nss '$tmp/rpmfiles'"
else
	missing_tool "rpmbuild builds packaging/rpm/sandcap.spec, with %caps and %config" rpmbuild
fi

echo "1..$n"
echo "package $pass $fail $skipped" >"$build/results/package"
echo "package: $pass passed, $fail failed, $skipped skipped"
[ "$fail" -eq 0 ]
