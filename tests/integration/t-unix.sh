#!/bin/sh
# t-unix.sh: with the default --net host, the sandbox cannot reach the user's own services
# over UNIX sockets (unixgate.h), rlimit mode on the host kernel.  A service of the same
# user runs outside (a pathname, an abstract and a seqpacket socket; a real tmux server
# when tmux is installed); from inside, every way to it is tried: by path, by symlink, by
# relative path from its directory, through /proc/self/fd (a directory, the socket file
# itself) and /proc/self/cwd, with a thread rewriting the address and one renaming links
# onto the name during connect().  The service counts the connections it accepts: none may
# come from a refused connect() (decided before connecting).  Sockets the sandbox makes
# itself, one whose listen()ing process exited while its child kept it (daemonized),
# socketpair, Python multiprocessing (Manager, forkserver) and TCP keep working; --unix
# host opens it and the report says so.  Without unix_diag (the kernel's, or made
# unavailable by a seccomp filter around sandcap) the default run is refused.
# TAP output.  Env (run.sh): SANDCAP, BUILD, SRCDIR.
. "${SRCDIR:-.}/tests/integration/libtest.sh"
D=${SRCDIR:-.}/tests/integration

# The test user (nobody, when run as root) may not reach a python3 under root's home.
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3)
if [ -z "$PY" ]; then
	skip "UNIX sockets: python3 is not installed"
	done_testing
fi
# sock_diag for AF_UNIX (CONFIG_UNIX_DIAG): without it sandcap cannot decide a connect()
# before making it, and must refuse the default run rather than connect first.
diag=$("$PY" - <<'PYEOF' 2>/dev/null
import socket, struct
s = socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, 4)     # NETLINK_SOCK_DIAG
req = struct.pack("=BBHIII8x", socket.AF_UNIX, 0, 0, 0, 0, 0)     # no state: no socket
s.send(struct.pack("=IHHII", 16 + len(req), 20, 0x301, 1, 0) + req)  # SOCK_DIAG_BY_FAMILY
ln, typ = struct.unpack("=IH", s.recv(65536)[:6])
print("no" if typ == 2 else "yes")                              # NLMSG_ERROR: none
PYEOF
)
as_user "$SANDCAP" run --report "$T/probe.json" -- true > /dev/null 2> "$T/probe.err"
probe_rc=$?
if [ "$diag" = no ]; then
	eq "no unix_diag in this kernel: the default run is refused (exit 125)" 125 "$probe_rc"
	contains "... and the message says why" "does not answer UNIX socket diagnostics" \
		"$(cat "$T/probe.err")"
	done_testing
fi
# This kernel has it: the same refusal where sock_diag cannot be had, made so by a seccomp
# filter around sandcap (socket(AF_NETLINK) fails).
if [ -x "$BUILD/tests/probe-nodiag" ]; then
	as_user "$BUILD/tests/probe-nodiag" "$SANDCAP" run -- true > /dev/null 2> "$T/nodiag.err"
	eq "without sock_diag the default run is refused (exit 125), not connected first" 125 "$?"
	contains "... and the message says why" "does not answer UNIX socket diagnostics" \
		"$(cat "$T/nodiag.err")"
	as_user "$BUILD/tests/probe-nodiag" "$SANDCAP" run --unix host -- true > /dev/null 2>&1
	eq "... while --unix host runs (exit 0)" 0 "$?"
else
	skip "refusal without sock_diag: $BUILD/tests/probe-nodiag is not built (make probes)"
fi
# The probe: does this kernel let sandcap answer connect()?  Else the report says what
# binds, and there is nothing to test here.
unix_enf=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["enforcement"].get("unix",""))' "$T/probe.json" 2>/dev/null)
case "$unix_enf" in
seccomp-notify*) ;;
*)
	skip "UNIX sockets: this kernel has no seccomp user notification (enforcement.unix: '$unix_enf')"
	done_testing
	;;
esac
ok "the default run names what keeps the user's services out ($unix_enf)"

mkdir "$T/svc" "$T/in"
[ "$(id -u)" = 0 ] && chown 65534:65534 "$T/svc" "$T/in"
ABS="sandcap-test-outside-$$"
(as_user_exec "$PY" "$D/unix-server.py" "$T/svc/user.sock" "$ABS" "$T/svc/sp.sock" \
	"$T/svc/got.log" > "$T/svc/ready" 2>&1) &
LIBTEST_PIDS="$LIBTEST_PIDS $!"
i=0
while ! grep -q ready "$T/svc/ready" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done

sandcap_run --report "$T/r.json" -- "$PY" "$D/probe-unix.py" "$T/svc/user.sock" "$ABS" \
	"$T/svc/sp.sock" "$T/in"
eq "the probe ran to its end (exit 0)" 0 "$rc"
[ "$rc" = 0 ] || sed 's/^/# /' "$T/err"
line() { grep "^$1: " "$T/out" | head -1 | sed "s/^$1: //"; }
for c in path abstract symlink relative proc-fd proc-cwd proc-fd-file nonblocking seqpacket; do
	got=$(line "$c")
	case "$got" in
	"REFUSED EACCES") ok "outside service by $c: refused (EACCES)" ;;
	*) notok "outside service by $c: want REFUSED EACCES, got '${got:-no line}'" ;;
	esac
done
got=$(line race)
case "$got" in
OK*) ok "a thread rewriting the address during connect() never reaches it ($got)" ;;
*) notok "racing thread: want OK, got '${got:-no line}'" ;;
esac
got=$(line rename-race)
case "$got" in
OK*) ok "a thread renaming another file onto the name during connect() never reaches it ($got)" ;;
*) notok "rename race: want OK, got '${got:-no line}'" ;;
esac
eq "the outside service never got a byte from the sandbox" "" "$(cat "$T/svc/got.log" 2>/dev/null)"
# Decided before connecting: a refused connect() never reaches the listener outside (a
# socket-activated Accept=yes service would start a process for each one).
eq "the outside service never saw a connection from the sandbox (accepts: 0)" "" \
	"$(cat "$T/svc/got.log-accepts" 2>/dev/null)"
# Datagrams are not checked by sandcap; where Landlock scopes abstract sockets (ABI 6) a
# datagram to an abstract name outside is refused too.
case "$unix_enf" in
*landlock*)
	eq "a datagram to an outside abstract name: refused (Landlock scope)" "REFUSED EPERM" \
		"$(line dgram-abstract)"
	eq "connect() of a datagram socket to it: refused too (sandcap, EPERM)" "REFUSED EPERM" \
		"$(line dgram-connect-abstract)"
	eq "... and neither datagram arrived" "" "$(cat "$T/svc/got.log-dgram" 2>/dev/null)"
	eq "sendto() to its own abstract datagram socket works" OK "$(line own-dgram-abstract)"
	;;
*) skip "datagrams to abstract names: no Landlock ABI 6 here (enforcement.unix: $unix_enf)" ;;
esac
for c in socketpair own-path own-relative own-abstract own-seqpacket own-nonblocking \
	daemonized-path daemonized-abstract manager forkserver tcp; do
	eq "inside: $c works" OK "$(line "$c")"
done
refused=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["usage"]["unix_refused"])' "$T/r.json" 2>/dev/null)
expect "the report counts the refused connections (usage.unix_refused $refused >= 9)" \
	test "${refused:-0}" -ge 9
contains "the message names the first refused socket" "refused (the first: $T/svc/user.sock" \
	"$(cat "$T/err")"

# A real tmux server of the same user: the sandbox cannot have it run anything.
if command -v tmux > /dev/null 2>&1; then
	as_user tmux -S "$T/svc/tmux.sock" new-session -d -s outside "sleep 600" 2> "$T/tmux.err"
	if as_user tmux -S "$T/svc/tmux.sock" has-session -t outside 2> /dev/null; then
		sandcap_run -- tmux -S "$T/svc/tmux.sock" new-window -t outside "touch $T/svc/pwned"
		expect "tmux from inside: refused (exit $rc)" test "$rc" != 0
		sleep 0.5
		expect "the user's tmux server ran nothing for the sandbox" test ! -e "$T/svc/pwned"
		eq "its session has one window still" 1 \
			"$(as_user tmux -S "$T/svc/tmux.sock" list-windows -t outside 2>/dev/null | wc -l)"
		as_user tmux -S "$T/svc/tmux.sock" kill-server 2> /dev/null
	else
		skip "tmux: cannot start a server here ($(head -c 200 "$T/tmux.err"))"
	fi
else
	skip "tmux: not installed (tools/deps.sh installs it)"
fi

# A blocking TCP connect() is made by sandcap on the command's own socket, set non-blocking
# for it; threads clearing O_NONBLOCK on that shared file meanwhile must not hold sandcap
# in the kernel's SYN retries (minutes) against a listener whose backlog is full: the
# timeout still ends the run.  The bound is loose on purpose (a busy machine is slow).
(exec "$PY" "$D/blackhole.py" "$T/bh.port") &
bh_pid=$!
LIBTEST_PIDS="$LIBTEST_PIDS $bh_pid"
i=0
while [ ! -s "$T/bh.port" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
if [ ! -x "$BUILD/tests/probe-flipconnect" ]; then
	skip "blocking TCP connect: $BUILD/tests/probe-flipconnect is not built (make probes)"
elif [ -s "$T/bh.port" ]; then
	sandcap_run --timeout 3 --report "$T/bh.json" -- "$BUILD/tests/probe-flipconnect" \
		"$(cat "$T/bh.port")" 200
	eq "threads unsetting O_NONBLOCK during sandcap's TCP connect: verdict timeout" timeout \
		"$(json "$T/bh.json" '["verdict"]')"
	expect "... which came in time (wall $ms ms < 30000: sandcap was not held in connect())" \
		test "$ms" -lt 30000
	contains "... and the attacker had started its connects" started "$(cat "$T/out")"
else
	skip "blocking TCP connect: the black-hole listener did not start"
fi
kill "$bh_pid" 2> /dev/null

# A process that made itself non-dumpable is out of sandcap's reach: its connect() fails
# (EPERM, TCP too), and the message says why and what to do.
sandcap_run -- "$PY" -c '
import ctypes, errno, socket
ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0
s = socket.socket()
try:
    s.connect(("127.0.0.1", 9)); print("CONNECTED")
except OSError as e:
    print(errno.errorcode.get(e.errno, e.errno))
'
eq "a non-dumpable process: its TCP connect() fails closed (EPERM)" EPERM "$(cat "$T/out")"
contains "... and the message says why" "made itself non-dumpable" "$(cat "$T/err")"
contains "... and names the fix" "--unix host lets it connect" "$(cat "$T/err")"

# --unix host: the explicit opt-out, said in the report.
sandcap_run --unix host --report "$T/h.json" -- "$PY" -c '
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); print(s.recv(8).decode().strip())
' "$T/svc/user.sock"
eq "--unix host: the user's service is reachable" OUTSIDE "$(cat "$T/out")"
expect "... and the server counted that connection (the accept count is live)" \
	test -s "$T/svc/got.log-accepts"
henf=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["enforcement"]["unix"])' "$T/h.json" 2>/dev/null)
contains "--unix host: the report says so" "none (--unix host): the user's services are reachable" "$henf"
# --unix host is valid with any --net; --unix none only where it means something.
sandcap_run --net none --unix host -- true
eq "--net none --unix host runs" 0 "$rc"
sandcap_run --unix none -- true
eq "--unix none with --net host: refused (125)" 125 "$rc"
contains "its message names the fix" "--unix host" "$(cat "$T/err")"

done_testing
