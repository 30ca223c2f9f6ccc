#!/bin/sh
# The C sources changed since the tree was formatted once (the commit .git-blame-ignore-revs
# lists last) are as .clang-format lays them out.  Only changed files are checked, so a
# newer clang-format that lays out some untouched line differently fails nobody.
# Prints the files that differ and exits 1; outside a git checkout, or without
# clang-format, exit 77 with the reason.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
command -v clang-format >/dev/null 2>&1 || { echo "clang-format is not installed (make deps)"; exit 77; }
git rev-parse --git-dir >/dev/null 2>&1 || { echo "not a git checkout: no history to compare"; exit 77; }
base=$(sed -n 's/^\([0-9a-f]\{40\}\).*/\1/p' .git-blame-ignore-revs | tail -1)
git cat-file -e "$base^{commit}" 2>/dev/null || {
	echo "the format commit $base (.git-blame-ignore-revs) is not in this history (a shallow clone? fetch more)"
	exit 1
}
files=$( { git diff --name-only "$base" -- '*.c' '*.h'; git ls-files --others --exclude-standard -- '*.c' '*.h'; } |
	grep -E '^(lib|policy|helper|reaper|frontend)/' | sort -u)
n=0 bad=0
for f in $files; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	if ! clang-format --dry-run --Werror "$f" >/dev/null 2>&1; then
		bad=$((bad + 1))
		echo "$f: not as .clang-format lays it out (clang-format -i $f)"
	fi
done
echo "format: $n changed files checked, $bad not formatted"
[ "$bad" -eq 0 ]
