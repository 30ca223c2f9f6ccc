#!/bin/sh
# make install-caps: give the helper exactly its capabilities, permitted set only.
set -eu
helper=$1
CAPS=cap_dac_override,cap_chown,cap_sys_admin,cap_net_admin,cap_bpf=p
[ -f "$helper" ] || { echo "install-caps: $helper not found; run 'make install' first" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "install-caps: must run as root" >&2; exit 1; }
command -v setcap >/dev/null 2>&1 || { echo "install-caps: setcap not found; apt-get install libcap2-bin" >&2; exit 1; }
chown root:root "$helper"
chmod 0755 "$helper"
if ! err=$(setcap "$CAPS" "$helper" 2>&1); then
	echo "install-caps: cannot set file capabilities on $helper: $err" >&2
	echo "install-caps: the filesystem must support security xattrs (not NFS, not a nosuid mount);" >&2
	echo "install-caps: install with LIBEXECDIR on a local filesystem such as ext4, xfs or btrfs" >&2
	exit 1
fi
got=$(getcap "$helper" | sed 's/^[^ ]* //')
case "$got" in
*cap_chown,cap_dac_override,cap_net_admin,cap_sys_admin,cap_bpf=p*) echo "install-caps: $helper: $got" ;;
*) echo "install-caps: capabilities did not stick on $helper (got '$got')" >&2; exit 1 ;;
esac
