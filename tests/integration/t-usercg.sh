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

# A runtime directory of the user's with no socket of a user manager in it (containers,
# hosts without systemd): rlimit mode, the reason named, and no connection is even tried.
# With a socket named bus that nobody answers, it is.
as_user mkdir -m 0700 "$T/xdg"
xdg_run() { as_user env XDG_RUNTIME_DIR="$T/xdg" "$@" > "$T/out" 2> "$T/err"; }
xdg_run "$SANDCAP" run -q --report "$T/r.json" -- true
eq "runtime directory without a manager: rlimit mode" rlimit "$(json "$T/r.json" '["mode"]')"
if ! command -v strace >/dev/null 2>&1 ||
	! as_user strace -qq -e trace=connect -o /dev/null true 2>/dev/null; then
	skip "runtime directory without a manager: no connection tried: strace cannot trace here"
else
	xdg_run strace -qq -e trace=connect -o "$T/st" "$SANDCAP" run -q -- true
	if [ ! -e "$T/st" ]; then
		notok "runtime directory without a manager: no connection tried (no strace output)"
	elif grep -q "$T/xdg" "$T/st"; then
		notok "runtime directory without a manager: no connection tried: $(grep "$T/xdg" "$T/st")"
	else
		ok "runtime directory without a manager: no connection tried"
	fi
fi
xdg_run "$SANDCAP" run --memory 64M -- true
contains "runtime directory without a manager: --memory refused, the reason named" \
	"neither systemd/private nor bus is a socket there" "$(cat "$T/err")"
# Made by whoever runs the tests (root may write into the test user's directory), open to
# all so that connecting fails only for want of a listener.
if ! python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$T/xdg/bus" ||
	! chmod 0777 "$T/xdg/bus"; then
	skip "a bus socket nobody answers: --memory refused, the bus named: cannot make a socket here"
else
	xdg_run "$SANDCAP" run --memory 64M -- true
	contains "a bus socket nobody answers: --memory refused, the bus named" \
		"cannot reach your systemd user manager in $T/xdg: Connection refused" "$(cat "$T/err")"
fi
done_testing
