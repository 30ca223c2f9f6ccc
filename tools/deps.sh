#!/bin/sh
# Install the Debian packages sandcap needs to build and test.  A no-op when all are present.
# Run as root (or with sudo available) on Debian 12 or later.
set -eu

PKGS="make gcc pkg-config libcap-ng-dev libinih-dev libbsd-dev libseccomp-dev libcmocka-dev
libsystemd-dev libcap2-bin util-linux user-mode-linux clang python3 procps iproute2 jq
dpkg-dev debhelper lintian fakeroot cppcheck clang-tidy clang-format rpm strace
python3-pytest python3-pip python3-distributed python3-celery python3-kombu
systemd dbus libpam-systemd kmod e2fsprogs adduser
flex bison bc xz-utils patch debian-archive-keyring tmux"
# (the systemd line: the VM suite's systemd guest boots the host's own systemd, D-Bus and
#  logind, loads overlay.ko with insmod and makes its ext4 layer with mkfs.ext4;
#  the last line: the VM suite's second kernel, linux-source-6.12 built as user-mode Linux
#  by tests/vm/kernel-build.sh, fetched with apt and the Debian archive's keyring, with
#  patch applying its fixes; tmux: the user's own service that t-unix.sh tries to reach
#  from inside a sandbox)

# The MCP server's test drives it with the official TypeScript SDK, installed with npm
# (python/tests/test_mcp_sdk.py).  Debian's nodejs and npm, unless a node with its own npm
# (e.g. NodeSource's nodejs, which conflicts with Debian's npm) is already there.
command -v npm >/dev/null 2>&1 || PKGS="$PKGS nodejs npm"

# `make bench` also measures the peers sandcap is compared with.
[ "${1:-}" = bench ] && PKGS="$PKGS bubblewrap firejail"

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

echo "deps: installing:$missing"
if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1; then SUDO=sudo; else
		echo "deps: missing packages:$missing; run 'make deps' as root" >&2; exit 1
	fi
else
	SUDO=
fi
export DEBIAN_FRONTEND=noninteractive
# The package lists of a fresh machine may be empty or stale: update once, then install.
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
echo "deps: done"
