#!/bin/sh
# Every commit made since the commit rule was set (tools/commit-style-base names the last
# commit before it) passes tools/commit-msg.  Prints one TAP line per commit checked and
# a summary; exits 1 if any fails.  Outside a git checkout (a release tarball) there is no
# history to check: exit 77 with the reason.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
base=$(sed -n 's/^\([0-9a-f]\{40\}\).*/\1/p' tools/commit-style-base)
if ! git rev-parse --git-dir >/dev/null 2>&1; then
	echo "ok 1 # SKIP not a git checkout: no commit history to check"; exit 77
fi
git cat-file -e "$base^{commit}" 2>/dev/null || {
	echo "not ok 1 - base commit $base (tools/commit-style-base) is not in this history (a shallow clone? fetch more)"
	exit 1
}
tmp=$(mktemp) || exit 2
trap 'rm -f "$tmp"' EXIT
n=0 bad=0
for c in $(git rev-list --no-merges --reverse "$base..HEAD"); do
	n=$((n + 1))
	git log -1 --format=%B "$c" >"$tmp"
	if err=$(sh tools/commit-msg "$tmp" 2>&1); then
		echo "ok $n - $(git log -1 --format='%h %s' "$c")"
	else
		bad=$((bad + 1))
		echo "not ok $n - $(git log -1 --format='%h' "$c"): $(printf '%s' "$err" | head -1)"
	fi
done
echo "commit subjects: $n checked, $bad failed"
[ "$bad" -eq 0 ]
