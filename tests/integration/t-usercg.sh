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
	skip "libsystemd.so.0 that does not load: refused, the reason named: cannot make a socket here"
else
	xdg_run "$SANDCAP" run --memory 64M -- true
	contains "a bus socket nobody answers: --memory refused, the bus named" \
		"cannot reach your systemd user manager in $T/xdg: Connection refused" "$(cat "$T/err")"
	# sandcap loads libsystemd only to talk to the manager: where that library cannot be
	# loaded (here a file of that name that is no library, first on the search path), the
	# mode is refused with the loader's reason and the fix.
	mkdir "$T/badlib" && echo 'not a library' > "$T/badlib/libsystemd.so.0"
	chmod 0755 "$T/badlib" && chmod 0644 "$T/badlib/libsystemd.so.0"
	as_user env XDG_RUNTIME_DIR="$T/xdg" LD_LIBRARY_PATH="$T/badlib" \
		"$SANDCAP" run --memory 64M -- true > "$T/out" 2> "$T/err"
	eq "libsystemd.so.0 that does not load: --memory refused (125)" 125 "$?"
	contains "libsystemd.so.0 that does not load: the library and the loader's reason named" \
		"user-cgroup mode: needs libsystemd.so.0: $T/badlib/libsystemd.so.0: " "$(cat "$T/err")"
	contains "libsystemd.so.0 that does not load: the fix named" \
		"install libsystemd0 (systemd-libs), or ask the admin to set up the sandcap helper" \
		"$(cat "$T/err")"
	as_user env XDG_RUNTIME_DIR=/nonexistent LD_LIBRARY_PATH="$T/badlib" \
		"$SANDCAP" run -q --report "$T/r.json" -- true > "$T/out" 2> "$T/err"
	eq "libsystemd.so.0 that does not load: rlimit mode runs as before" \
		"0 rlimit" "$? $(json "$T/r.json" '["mode"]')"
	out=$(as_user env LD_LIBRARY_PATH="$T/badlib" "$SANDCAP" doctor 2>&1)
	contains "libsystemd.so.0 that does not load: sandcap doctor says so" \
		"info  user-cgroup mode needs libsystemd.so.0: $T/badlib/libsystemd.so.0: " "$out"
fi

# Which libraries a running sandcap has mapped (keeper and supervisor share one address
# space): read from outside while its command waits on a FIFO, so no timing is involved.
# sandcap is not dumpable, so only root may read its maps.
# maps_of FILE ENV...: run `sandcap run` with ENV, copy its maps to FILE.
maps_of() {
	f=$1
	shift
	rm -f "$T/up" "$T/go" && mkfifo -m 0666 "$T/up" "$T/go"
	(as_user_exec env "$@" "$SANDCAP" run -q -- sh -c 'echo up > "$1"; read -r x < "$2"' sh \
		"$T/up" "$T/go" > /dev/null 2>&1) &
	mpid=$!
	LIBTEST_PIDS="$LIBTEST_PIDS $mpid"
	# The deadlines only end a wait for a sandcap that failed to start; never a verdict.
	timeout 60 sh -c 'read -r _ < "$1"' sh "$T/up"
	cat "/proc/$mpid/maps" > "$f" 2>/dev/null
	timeout 60 sh -c 'echo go > "$1"' sh "$T/go"
	wait "$mpid"
}
if [ "$(id -u)" != 0 ]; then
	skip "rlimit mode maps no libsystemd: sandcap is not dumpable, only root reads its maps"
elif ! ldconfig -p 2>/dev/null | grep -q 'libsystemd\.so\.0 '; then
	skip "rlimit mode maps no libsystemd: this host has no libsystemd.so.0 to tell apart"
else
	maps_of "$T/maps-rlimit" XDG_RUNTIME_DIR=/nonexistent
	maps_of "$T/maps-tried" XDG_RUNTIME_DIR="$T/xdg"
	if ! grep -q '/libc\.so\.6$' "$T/maps-rlimit"; then
		notok "rlimit mode maps no libsystemd (no maps read: $(head -c 300 "$T/maps-rlimit"))"
	elif grep -q 'libsystemd' "$T/maps-rlimit"; then
		notok "rlimit mode maps no libsystemd: $(grep libsystemd "$T/maps-rlimit" | head -1)"
	else
		ok "rlimit mode maps no libsystemd"
	fi
	if [ -S "$T/xdg/bus" ]; then
		expect "user-cgroup mode tried (a bus socket nobody answers): libsystemd mapped" \
			grep -q 'libsystemd\.so\.0' "$T/maps-tried"
	else
		skip "user-cgroup mode tried: libsystemd mapped: no bus socket could be made"
	fi
fi
done_testing
