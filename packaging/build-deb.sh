#!/bin/sh
# Build the Debian package out of tree: $1 = build dir, $2 = version.
# dpkg-buildpackage wants debian/ at the top of the source tree; we keep it under
# packaging/debian and assemble a source tree in $BUILD/deb/sandcap-VERSION.
set -eu
build=${1:-build}; version=${2:?version}
top=$(cd "$(dirname "$0")/.." && pwd)
out="$top/$build/deb"
src="$out/sandcap-$version"
rm -rf "$out"
mkdir -p "$src"
# Only tracked and untracked-but-not-ignored files, as a fresh clone would have them.
(cd "$top" && git ls-files -z --cached --others --exclude-standard) |
	(cd "$top" && xargs -0 cp --parents -t "$src" 2>/dev/null) || true
cp -r "$top/packaging/debian" "$src/debian"
(cd "$src" && dpkg-buildpackage -us -uc -b >"$out/build.log" 2>&1) || {
	tail -40 "$out/build.log" >&2; echo "build-deb: dpkg-buildpackage failed (log: $out/build.log)" >&2; exit 1; }
ls "$out"/sandcap_*.deb
