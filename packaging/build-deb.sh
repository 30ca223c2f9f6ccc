#!/bin/sh
# Build the Debian package from a clean export of the tree: $1 = build dir, $2 = version.
# The export is `git archive` of the tracked files (with their uncommitted changes, via
# `git stash create`, which touches neither the work tree nor the stash): untracked files
# lying in the checkout never reach the package.  dpkg-buildpackage wants debian/ at the
# top of the source tree; we keep it under packaging/debian and copy it there.
set -eu
build=${1:-build}; version=${2:?version}
top=$(cd "$(dirname "$0")/.." && pwd)
case $build in /*) out=$build/deb ;; *) out=$top/$build/deb ;; esac
src="$out/sandcap-$version"
git -C "$top" rev-parse --git-dir >/dev/null 2>&1 || {
	echo "build-deb: $top is not a git checkout; in an unpacked source tree run:" >&2
	echo "build-deb:   cp -r packaging/debian debian && dpkg-buildpackage -us -uc -b" >&2
	exit 1; }
rm -rf "$out"
mkdir -p "$src"
tree=$(git -C "$top" stash create 2>/dev/null || true)
git -C "$top" archive --format=tar "${tree:-HEAD}" | tar -x -C "$src"
cp -r "$src/packaging/debian" "$src/debian"
# MAKEFLAGS of an outer make (BUILD=x ...) must not reach debian/rules.
(cd "$src" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
	dpkg-buildpackage -us -uc -b -j"$(nproc 2>/dev/null || echo 1)" >"$out/build.log" 2>&1) || {
	tail -40 "$out/build.log" >&2; echo "build-deb: dpkg-buildpackage failed (log: $out/build.log)" >&2; exit 1; }
ls "$out"/sandcap_*.deb
