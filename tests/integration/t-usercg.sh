#!/bin/sh
# user-cgroup mode on the host: the Landlock layer that keeps the cgroup filesystem
# unwritable, proven on a stand-in tree (never the host's own cgroup files); and, with no
# systemd user manager here, rlimit mode as before with both reasons named.  The mode itself
# runs in the systemd guest (tests/vm/scenarios/*user-cgroup*).
. "$SRCDIR/tests/integration/libtest.sh"

mkdir -m 0777 "$T/tree"
out=$(as_user "$BUILD/tests/probe-cgprotect" "$T/tree" 2>&1); prc=$?
if [ "$prc" -eq 77 ]; then
	ok "# SKIP Landlock layer over the cgroup filesystem: this kernel has no Landlock"
else
	printf '%s\n' "$out" | while IFS= read -r l; do
		case $l in
		"ok "*) echo "# probe: $l" ;;
		"not ok "*) echo "# probe: $l" ;;
		esac
	done
	pf=$(printf '%s\n' "$out" | grep -c '^not ok')
	pp=$(printf '%s\n' "$out" | grep -c '^ok')
	if [ "$prc" -eq 0 ] && [ "$pf" -eq 0 ] && [ "$pp" -ge 9 ]; then
		ok "Landlock layer: the stand-in cgroup tree is read-only, the rest writable ($pp checks)"
	else
		notok "Landlock layer on a stand-in tree (rc=$prc, $pf of $((pp + pf)) checks failed): $out"
	fi
fi

# No user manager reachable (no /run/user/<uid> of the test user): rlimit mode, and a
# cgroup limit's refusal names why neither cgroup mode could be used.
uid=$(as_user id -u)
if [ -d "/run/user/$uid" ]; then
	ok "# SKIP fallback without a user manager: /run/user/$uid exists on this host"
	ok "# SKIP refusal names user-cgroup mode: /run/user/$uid exists on this host"
else
	sandcap_run -q --report "$T/r.json" -- true
	eq "no helper, no user manager: rlimit mode" rlimit "$(json "$T/r.json" '["mode"]')"
	sandcap_run --memory 64M -- true
	contains "--memory refused with the user-cgroup reason too" "user-cgroup mode: no runtime directory" "$(cat "$T/err")"
fi
done_testing
