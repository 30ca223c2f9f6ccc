#!/bin/sh
# cgroup mode (the helper's SPAWN, Linux 6.1: no Landlock, no connect_unix hooks): with the
# default --net host the sandbox cannot reach its user's own services over UNIX sockets
# (unixgate.h; the filter's listener comes back over the stage socket).  The same attacks
# as tests/integration/t-unix.sh from inside a cgroup-mode sandbox against a service of the
# same user (pathname, abstract, seqpacket, a real tmux server), and what must keep working.
# Decided before connecting: the service never sees a connection from a refused connect();
# a server whose listen()ing process exited while its child serves stays reachable.
# vm-timeout: 180
# vm-cost: 12
# shellcheck source=tests/vm/lib.sh
. "$VMLIB"
R=$SCRATCH
D=$SRCDIR/tests/integration
PY=/usr/bin/python3
mkdir "$R/svc" "$R/in"
ABS="sandcap-vm-outside-$$"
"$PY" "$D/unix-server.py" "$R/svc/user.sock" "$ABS" "$R/svc/sp.sock" "$R/svc/got.log" \
	> "$R/svc/ready" 2>&1 &
SRV=$!
i=0
while ! grep -q ready "$R/svc/ready" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done

run_rc "$SANDCAP" run -q --report "$R/r.json" -- "$PY" "$D/probe-unix.py" "$R/svc/user.sock" \
	"$ABS" "$R/svc/sp.sock" "$R/in" > "$R/out" 2> "$R/err"
is "$rc" 0 "the probe ran to its end in cgroup mode"
is "$(json_get "$R/r.json" .mode)" cgroup "report mode: cgroup"
like "$(json_get "$R/r.json" .enforcement.unix)" "^seccomp-notify" "enforcement.unix: seccomp-notify"
line() { sed -n "s/^$1: //p" "$R/out" | head -1; }
for c in path abstract symlink relative proc-fd proc-cwd proc-fd-file nonblocking seqpacket; do
	is "$(line "$c")" "REFUSED EACCES" "outside service by $c: refused"
done
like "$(line race)" "^OK" "a thread rewriting the address during connect() never reaches it"
like "$(line rename-race)" "^OK" "a thread renaming links onto the name never reaches it"
is "$(cat "$R/svc/got.log" 2>/dev/null)" "" "the outside service never got a byte"
is "$(cat "$R/svc/got.log-accepts" 2>/dev/null)" "" \
	"the outside service never saw a connection from the sandbox (accepts: 0)"
for c in socketpair own-path own-relative own-abstract own-seqpacket own-nonblocking \
	daemonized-path daemonized-abstract manager forkserver tcp; do
	is "$(line "$c")" OK "inside: $c works"
done
ge "$(json_get "$R/r.json" .usage.unix_refused)" 9 "usage.unix_refused counts them"

if command -v tmux > /dev/null 2>&1; then
	tmux -S "$R/svc/tmux.sock" new-session -d -s outside "sleep 600"
	run_rc "$SANDCAP" run -q -- tmux -S "$R/svc/tmux.sock" new-window -t outside \
		"touch $R/svc/pwned" 2> /dev/null
	check_fails "tmux from inside: refused" test "$rc" = 0
	sleep 0.5
	check_fails "the user's tmux server ran nothing for the sandbox" test -e "$R/svc/pwned"
	tmux -S "$R/svc/tmux.sock" kill-server 2> /dev/null
else
	skip "tmux" "not installed"
fi

run_rc "$SANDCAP" run -q --unix host --report "$R/h.json" -- "$PY" -c '
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); print(s.recv(8).decode().strip())
' "$R/svc/user.sock" > "$R/h.out"
is "$(cat "$R/h.out")" OUTSIDE "--unix host: reachable"
check "... and the service counted that connection (its accept count is live)" \
	test -s "$R/svc/got.log-accepts"
like "$(json_get "$R/h.json" .enforcement.unix)" "^none \(--unix host\)" "--unix host: the report says so"

kill "$SRV" 2> /dev/null
wait "$SRV" 2> /dev/null
done_testing
