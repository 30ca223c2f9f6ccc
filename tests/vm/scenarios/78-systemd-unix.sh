#!/bin/sh
# No escape through the user's own service manager (unixgate.h): a logged-in user's sandbox
# with the default --net host asks their systemd --user (user@.service) to start processes
# outside the sandbox and its limits: systemd-run --user --scope and --unit over D-Bus,
# busctl --user and dbus-send to org.freedesktop.systemd1, the manager's private socket.
# Refused in user-cgroup mode (no helper) and in cgroup mode (the package's helper), and
# nothing is left running after the run; with --unix host the same request works (the test
# is not vacuous) and the report says the services are reachable.  A socket-activated user
# unit with Accept=yes (one service instance per accepted connection) accepts nothing and
# starts nothing for a refused connect(): the decision is made before connecting.
# vm-timeout: 400
# vm-cost: 40
. "$VMLIB"
. "$SRCDIR/tests/vm/sysd-lib.sh"
check "adduser sctest sandcap" adduser --quiet sctest sandcap
chmod 0777 "$SCRATCH"
R=$SCRATCH
# The two modes: $BUILD's sandcap without a helper (user-cgroup), the package's (cgroup).
ucg() { vm-login sctest env SANDCAP_HELPER=/nonexistent/sandcap-helper "$BUILD/sandcap" "$@"; }
cgm() { vm-login sctest sandcap "$@"; }
gone() { ! pgrep -u sctest -f "$1" > /dev/null; }
naccepted() { vm-login sctest systemctl --user show -P NAccepted sc78.socket 2> /dev/null; }

# The user's Accept=yes service: each connection accepted starts sc78@.service, which
# leaves a file behind.
U=/home/sctest/.config/systemd/user
mkdir -p "$U"
printf '[Socket]\nListenStream=%%t/sc78.sock\nAccept=yes\n' > "$U/sc78.socket"
printf '[Service]\nStandardInput=socket\nExecStart=/bin/sh -c "touch /tmp/sandcap-78-accepted-$$$$"\n' \
	> "$U/sc78@.service"
chown -R sctest: /home/sctest/.config
vm-login sctest systemctl --user daemon-reload
check "the user's Accept=yes socket unit starts" vm-login sctest systemctl --user start sc78.socket
unit_gone() { ! vm-login sctest systemctl --user is-active --quiet "$1"; }

for mode in ucg cgm; do
	want=user-cgroup
	[ "$mode" = cgm ] && want=cgroup
	run_rc $mode run -q --timeout 60s --memory 48M --report "$R/$mode-scope.json" -- \
		systemd-run --user --scope -- sh -c "touch /tmp/sandcap-78-$mode; exec sleep 1000.78" \
		> "$R/$mode-scope.out" 2>&1
	is "$(json_get "$R/$mode-scope.json" .mode)" "$want" "$want mode: the run is in $want mode"
	like "$(json_get "$R/$mode-scope.json" .enforcement.unix)" "^seccomp-notify" \
		"$want: enforcement.unix is seccomp-notify"
	check_fails "$want: systemd-run --user --scope from inside fails" test "$rc" = 0
	check_fails "$want: its command never ran" test -e "/tmp/sandcap-78-$mode"
	check "$want: no sleep 1000.78 after the run" wait_for 10 gone 'sleep 1000[.]78'
	ge "$(json_get "$R/$mode-scope.json" .usage.unix_refused)" 1 "$want: usage.unix_refused >= 1"

	run_rc $mode run -q --timeout 60s --report "$R/$mode-unit.json" -- \
		systemd-run --user --unit "sandcap-78-$mode" -- sleep 1000.79 > /dev/null 2>&1
	check_fails "$want: systemd-run --user --unit from inside fails" test "$rc" = 0
	check "$want: the unit is not running after the run" unit_gone "sandcap-78-$mode"
	check "$want: no sleep 1000.79 after the run" wait_for 10 gone 'sleep 1000[.]79'

	run_rc $mode run -q -- busctl --user call org.freedesktop.systemd1 /org/freedesktop/systemd1 \
		org.freedesktop.systemd1.Manager GetUnit s default.target > /dev/null 2>&1
	check_fails "$want: busctl --user to org.freedesktop.systemd1 fails" test "$rc" = 0
	if command -v dbus-send > /dev/null 2>&1; then
		run_rc $mode run -q -- sh -c 'exec dbus-send --session --print-reply \
			--bus="unix:path=$XDG_RUNTIME_DIR/bus" --dest=org.freedesktop.systemd1 \
			/org/freedesktop/systemd1 org.freedesktop.DBus.Peer.Ping' > /dev/null 2>&1
		check_fails "$want: dbus-send to org.freedesktop.systemd1 fails" test "$rc" = 0
	else
		skip "$want: dbus-send" "not installed"
	fi
	run_rc $mode run -q -- python3 -c '
import os, socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(os.environ["XDG_RUNTIME_DIR"] + "/systemd/private")
except PermissionError:
    sys.exit(3)
sys.exit(0)'
	is "$rc" 3 "$want: the manager's private socket: EACCES"
	run_rc $mode run -q -- python3 -c '
import os, socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(os.environ["XDG_RUNTIME_DIR"] + "/sc78.sock")
except PermissionError:
    sys.exit(3)
sys.exit(0)'
	is "$rc" 3 "$want: the Accept=yes socket: EACCES"
	is "$(naccepted)" 0 "$want: ... and the socket unit accepted no connection (NAccepted 0)"
	check_fails "$want: ... and started no instance" sh -c 'ls /tmp/sandcap-78-accepted-* 2>/dev/null | grep -q .'

	# The opt-out reaches the manager: the checks above are not vacuous.
	run_rc $mode run -q --unix host --report "$R/$mode-host.json" -- \
		systemd-run --user --scope -- true > /dev/null 2>&1
	is "$rc" 0 "$want: with --unix host, systemd-run --user --scope works"
	like "$(json_get "$R/$mode-host.json" .enforcement.unix)" "^none \(--unix host\)" \
		"$want: --unix host: the report says the services are reachable"
done
# The opt-out reaches the Accept=yes unit too: NAccepted above was not vacuous.
run_rc ucg run -q --unix host -- python3 -c '
import os, socket
s = socket.socket(socket.AF_UNIX); s.connect(os.environ["XDG_RUNTIME_DIR"] + "/sc78.sock")'
is "$rc" 0 "with --unix host the Accept=yes socket is reachable"
check "... and the unit accepted that connection" wait_for 10 sh -c \
	'[ "$(vm-login sctest systemctl --user show -P NAccepted sc78.socket)" = 1 ]'
vm-login sctest systemctl --user stop sc78.socket 2> /dev/null
done_testing
