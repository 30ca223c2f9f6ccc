#!/bin/sh
# The VM suite's second guest kernel: Debian's linux-source-6.12 built as a user-mode Linux
# binary with kernel-6.12.config, cached outside the source tree.
#
#   sh tests/vm/kernel-build.sh            prints the kernel's path (builds it at most once)
#
# The configuration starts from `allnoconfig` with the fragment as KCONFIG_ALLCONFIG: only
# what the fragment asks for (and what that needs) is built, a few minutes on 2 cores.
# The patches tests/vm/kernel-6.12-*.patch are applied in name order (patch -p1): fixes the
# guest needs that Debian's source lacks, each saying why in its header.
# The cache key is the source package's version and a hash of the fragment's settings and
# the patches, so a second run on the same machine reuses the binary and a changed setting,
# a new or changed patch, or a new upload builds anew.
# The source is fetched with a throw-away apt configuration (its own sources.list, state
# and cache under a temporary directory): the machine's /etc/apt is never changed.
#
# Exit status, which the VM runner tells apart:
#   0  the path on stdout
#   2  the kernel cannot be had on this machine (no network or no Debian archive and
#      nothing cached, a build tool missing): the reason on stderr; the runner reports
#      each 6.12 scenario as a skip with it
#   1  the source was there but a patch, the configuration or the build failed: a bug of
#      ours; the reason and the last lines of the log on stderr (the whole log is kept in
#      the cache directory as build-failed-KEY.log); the runner fails each 6.12 scenario
#
# SANDCAP_VM_KERNEL_612      use this binary instead (nothing is fetched or built)
# SANDCAP_VM_KERNEL_CACHE    cache directory (default /var/cache/sandcap-vm when it is
#                            writable, else ${XDG_CACHE_HOME:-~/.cache}/sandcap-vm)
# SANDCAP_VM_KERNEL_JOBS     make -j (default 2)
# SANDCAP_VM_KERNEL_MIRROR   the Debian mirror (default http://deb.debian.org), for a machine
#                            that reaches Debian only through its own mirror
# SANDCAP_VM_KERNEL_SOURCE   an unpacked Linux source tree to build instead of fetching
#                            Debian's (copied first; built every time, cached as
#                            linux-local-KEY): to try a tree, and for the runner's tests
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
FRAGMENT=$HERE/kernel-6.12.config
PKG=linux-source-6.12
MIRROR=${SANDCAP_VM_KERNEL_MIRROR:-http://deb.debian.org}

say() { echo "kernel-build: $*" >&2; }
unavailable() { say "$*"; exit 2; }
# failed REASON LOG: our bug, never a skip: the reason, the log's tail, the log kept.
failed() {
	say "FAILED: $1"
	if [ -s "$2" ]; then
		cp "$2" "$CACHE/build-failed-$HASH.log" 2>/dev/null &&
			say "the whole log: $CACHE/build-failed-$HASH.log"
		tail -n 25 "$2" | sed 's/^/kernel-build:   /' >&2
	fi
	exit 1
}

if [ -n "${SANDCAP_VM_KERNEL_612:-}" ]; then
	[ -x "$SANDCAP_VM_KERNEL_612" ] || unavailable "SANDCAP_VM_KERNEL_612=$SANDCAP_VM_KERNEL_612 is not an executable file"
	echo "$SANDCAP_VM_KERNEL_612"
	exit 0
fi

cache_dir() {
	if [ -n "${SANDCAP_VM_KERNEL_CACHE:-}" ]; then
		echo "$SANDCAP_VM_KERNEL_CACHE"
	elif mkdir -p /var/cache/sandcap-vm 2>/dev/null && [ -w /var/cache/sandcap-vm ]; then
		echo /var/cache/sandcap-vm
	else
		echo "${XDG_CACHE_HOME:-${HOME:?}/.cache}/sandcap-vm"
	fi
}
CACHE=$(cache_dir)
mkdir -p "$CACHE" || unavailable "cannot create the cache directory $CACHE"
PATCHES=$(LC_ALL=C ls "$HERE"/kernel-6.12-*.patch 2>/dev/null || true)
# The base configuration, the settings (comments aside and in a stable order: a reworded
# comment rebuilds nothing), then each patch whole.
BASE=allnoconfig
HASH=$({
	echo "base $BASE"
	grep -E '^(CONFIG_[A-Z0-9_]+=|# CONFIG_[A-Z0-9_]+ is not set$)' "$FRAGMENT" | LC_ALL=C sort
	for p in $PATCHES; do cat "$p"; done
} | sha256sum | cut -c1-12)

# One build at a time per key: a second run waits for the first and then reuses it, while a
# run that wants another key (a cached kernel of other settings or patches) does not wait
# half an hour for a build it does not need.
exec 9>"$CACHE/.lock-$HASH"
flock 9

TMP=$(mktemp -d "$CACHE/tmp.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
trap 'rm -rf "$TMP"; exit 130' INT TERM HUP

# apt with nothing of the machine's state: only the keyring and apt.conf.d (a proxy) are read.
aptq() {
	"$@" -q -o Dir::Etc::SourceList="$TMP/sources.list" -o Dir::Etc::SourceParts="$TMP/none" \
		-o Dir::State="$TMP/state" -o Dir::State::status="$TMP/status" \
		-o Dir::Cache="$TMP/cache" -o Debug::NoLocking=1 -o APT::Sandbox::User="$(id -un)"
}
resolve_version() {
	mkdir -p "$TMP/none" "$TMP/state/lists/partial" "$TMP/cache/archives/partial"
	: >"$TMP/status"
	key=/usr/share/keyrings/debian-archive-keyring.gpg
	[ -r "$key" ] || return 1
	cat >"$TMP/sources.list" <<-EOF
	deb [signed-by=$key] $MIRROR/debian bookworm-backports main
	deb [signed-by=$key] $MIRROR/debian-security bookworm-security main
	EOF
	aptq apt-get update >"$TMP/update.log" 2>&1 || return 1
	aptq apt-cache show --no-all-versions "$PKG" 2>/dev/null | sed -n 's/^Version: //p' | head -n1
}

if [ -n "${SANDCAP_VM_KERNEL_SOURCE:-}" ]; then
	[ -f "$SANDCAP_VM_KERNEL_SOURCE/Makefile" ] ||
		unavailable "SANDCAP_VM_KERNEL_SOURCE=$SANDCAP_VM_KERNEL_SOURCE is not a Linux source tree"
	VERSION=local
	OUT=$CACHE/linux-local-$HASH
else
	VERSION=$(resolve_version || true)
	if [ -z "$VERSION" ]; then
		# Offline: the newest binary already built from these settings and patches still serves.
		found=$(ls -d "$CACHE"/linux-[0-9]*-"$HASH" 2>/dev/null | sort -V | tail -n1 || true)
		[ -n "$found" ] && [ -x "$found/linux" ] ||
			unavailable "cannot resolve $PKG from bookworm-backports/bookworm-security (offline?) and no cached build of these settings and patches ($HASH) in $CACHE"
		say "apt unreachable; using the cached $(basename "$found")"
		echo "$found/linux"
		exit 0
	fi
	OUT=$CACHE/linux-$(echo "$VERSION" | tr -c 'A-Za-z0-9.+\n-' _)-$HASH
	if [ -x "$OUT/linux" ]; then
		echo "$OUT/linux"
		exit 0
	fi
fi

for tool in make gcc flex bison bc xz dpkg-deb patch; do
	command -v "$tool" >/dev/null 2>&1 || unavailable "$tool is missing (make deps installs what the kernel build needs)"
done

say "building $PKG $VERSION (settings and patches $HASH) in $TMP; the result goes to $OUT"
start=$(date +%s)
if [ "$VERSION" = local ]; then
	cp -a "$SANDCAP_VM_KERNEL_SOURCE" "$TMP/src"
else
	(cd "$TMP" && aptq apt-get download "$PKG=$VERSION") >"$TMP/download.log" 2>&1 ||
		unavailable "apt-get download $PKG=$VERSION failed: $(tail -n3 "$TMP/download.log")"
	deb=$(ls "$TMP"/"$PKG"_*.deb)
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$TMP" --wildcards './usr/src/linux-source-6.12.tar.*'
	rm -f "$deb"
	mkdir "$TMP/src"
	tar -x -C "$TMP/src" --strip-components=1 -f "$TMP"/usr/src/linux-source-6.12.tar.*
	rm -rf "${TMP:?}/usr"
fi
# From here on the source is here: whatever fails is a bug of ours, not this machine's.

cd "$TMP/src"
for p in $PATCHES; do
	patch -p1 --forward --batch <"$p" >"$TMP/patch.log" 2>&1 ||
		failed "$(basename "$p") does not apply to $PKG $VERSION" "$TMP/patch.log"
done
# Everything off but what the fragment sets (and what that selects), then the defaults of
# what is left; olddefconfig only settles, it turns nothing the fragment named on.
make ARCH=um KCONFIG_ALLCONFIG="$FRAGMENT" "$BASE" >"$TMP/config.log" 2>&1 ||
	failed "make ARCH=um $BASE failed" "$TMP/config.log"
make ARCH=um olddefconfig >>"$TMP/config.log" 2>&1 ||
	failed "make ARCH=um olddefconfig failed" "$TMP/config.log"
# Kconfig silently drops what it does not allow (an unmet dependency, a misspelt name):
# refuse a kernel without every line of the fragment, naming each one missing.
bad=""
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=*) grep -qxF "$line" .config || bad="$bad $line" ;;
	"# CONFIG_"*" is not set") name=${line#\# }; name=${name%% *}
		grep -q "^$name=" .config && bad="$bad $line" ;;
	esac
done <"$FRAGMENT"
[ -z "$bad" ] || failed "the kernel configuration does not hold (not set as tests/vm/kernel-6.12.config asks):$bad" "$TMP/config.log"

make -s ARCH=um -j"${SANDCAP_VM_KERNEL_JOBS:-2}" linux >"$TMP/build.log" 2>&1 ||
	failed "make linux failed (ARCH=um)" "$TMP/build.log"
[ -x linux ] || failed "make linux left no ./linux" "$TMP/build.log"
mkdir -p "$OUT.new"
cp linux "$OUT.new/linux"
cp .config "$OUT.new/config"
for p in $PATCHES; do cp "$p" "$OUT.new/"; done
rm -rf "$OUT"
mv "$OUT.new" "$OUT"
say "built $OUT/linux ($(du -k "$OUT/linux" | cut -f1) KiB) in $(($(date +%s) - start)) s"
echo "$OUT/linux"
