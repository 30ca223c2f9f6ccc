#!/bin/sh
# t-net-proxy.sh: --net proxy in rlimit mode on the host (Landlock ABI >= 4 + seccomp), the
# egress proxy's decisions and records, and real clients through it: curl (HTTP,
# CONNECT, socks5h), python urllib, git over HTTP, pip download from a local index.  Every
# server is on 127.0.0.1; the only names used are "localhost" and names that do not
# resolve; nothing is sent anywhere else (a denied request never leaves the proxy).
# Env (from tests/integration/run.sh): SANDCAP, BUILD, SRCDIR.
. "$(dirname "$0")/libtest.sh"

SYSPY=/usr/bin/python3
[ -x "$SYSPY" ] || SYSPY=$(command -v python3)
v() { sed -n "s/^$1: //p" "$2"; }

# A static file server (the index, the git repository) and a "hello PATH" server.
mkdir -p "$T/www/simple/demo" "$T/rep" "$T/dl"
chmod 1777 "$T/rep" "$T/dl"
$SYSPY "$SRCDIR/tests/integration/pip-index.py" "$T/www"
if command -v git >/dev/null 2>&1; then
	(cd "$T" && git init -q src && cd src && echo hi > f && git add f &&
	 git -c user.name=t -c user.email=t@t commit -qm one &&
	 git clone -q --bare . "$T/www/repo.git" && cd "$T/www/repo.git" && git update-server-info)
fi
$SYSPY -c 'import functools, http.server, sys
h = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), h)
print(s.server_address[1], flush=True); s.serve_forever()' "$T/www" > "$T/www.port" 2>/dev/null &
LIBTEST_PIDS="$LIBTEST_PIDS $!"
$SYSPY "$SRCDIR/tests/vm/net-server.py" 600 > "$T/srv" 2>&1 &
LIBTEST_PIDS="$LIBTEST_PIDS $!"
i=0; while { [ ! -s "$T/www.port" ] || ! grep -q '^ready' "$T/srv"; } && [ $i -lt 100 ]; do
	sleep 0.1; i=$((i + 1)); done
W=$(cat "$T/www.port"); H=$(sed -n 's/^tcp //p' "$T/srv"); O=$(sed -n 's/^other //p' "$T/srv")
expect "local servers are up (files $W, hello $H, other $O)" test -n "$W" -a -n "$H" -a -n "$O"

# ---- Can this kernel do it?  rlimit-mode proxy needs Landlock ABI 4 and seccomp. --------
sandcap_run -q --no-cgroup --allow "127.0.0.1:$H" -- true
if [ "$rc" -ne 0 ]; then
	case "$(cat "$T/err")" in
	*"Landlock ABI 4"*|*"no seccomp"*)
		echo "ok 1 - # SKIP rlimit-mode --net proxy: $(cat "$T/err")"; echo "1..1"; exit 0 ;;
	esac
	notok "sandcap run --net proxy works at all: $(cat "$T/err")"
	done_testing
fi
ok "sandcap run --allow runs (rlimit mode)"

# ---- No server: bind is refused, and so is listen() on an unbound socket, which would bind
# an ephemeral port on every address by itself (Landlock does not see that bind). -----------
sandcap_run -q --no-cgroup --allow "127.0.0.1:$H" -- python3 -c '
import errno, socket
for how in ("listen", "bind"):
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", 0)) if how == "bind" else s.listen()
        print(how, "ok", s.getsockname())
    except OSError as e:
        print(how, errno.errorcode[e.errno])'
contains "rlimit-mode --net proxy: listen() without bind is refused (EPERM)" "listen EPERM" "$(cat "$T/out")"
contains "rlimit-mode --net proxy: bind is refused (EACCES, Landlock)" "bind EACCES" "$(cat "$T/out")"

# ---- Refusals. ----------------------------------------------------------------------------
sandcap_run -q --no-cgroup --net loopback -- true
eq "--net loopback in rlimit mode: exit 125" 125 "$rc"
contains "the message says it needs cgroup mode and names the alternatives" "needs cgroup mode" "$(cat "$T/err")"
sandcap_run -q --net none --allow example.com -- true
eq "--allow with --net none: exit 125" 125 "$rc"
sandcap_run -q --allow 'bad name' -- true
eq "--allow with a bad rule: exit 125" 125 "$rc"
contains "the message names the rule" "invalid rule 'bad name'" "$(cat "$T/err")"
sandcap_run -q --allow 'b\303\274cher.de' -- true
eq "--allow with a non-ASCII name: exit 125" 125 "$rc"

# ---- curl and friends through the proxy. ---------------------------------------------------
sandcap_run --no-cgroup --allow "127.0.0.1:$H" --allow "localhost:*" --allow "*.example.com" \
	--report "$T/rep/r1.json" -- sh -c '
echo "env: $HTTP_PROXY $HTTPS_PROXY $ALL_PROXY [$NO_PROXY]"
P=${HTTP_PROXY##*:}
echo "abs: $(curl -sS http://127.0.0.1:'"$H"'/abs 2>&1)"
echo "name_rebind: $(curl -sS -o /dev/null -w "%{http_code}" http://localhost:'"$O"'/n 2>&1)"
echo "other_port: $(curl -sS -o /dev/null -w "%{http_code}" http://127.0.0.1:'"$O"'/o 2>&1)"
echo "suffix_bare: $(curl -sS -o /dev/null -w "%{http_code}" http://example.com/ 2>&1)"
echo "socks: $(curl -sS -x socks5h://127.0.0.1:$P http://127.0.0.1:'"$H"'/socks 2>&1)"
echo "direct: $(curl -sS --noproxy "*" --max-time 5 http://127.0.0.1:'"$H"'/direct 2>&1 | head -c 60)"
'"$SYSPY"' -c "import socket
try:
    socket.socket(socket.AF_INET, socket.SOCK_DGRAM); print(\"udp: OK\")
except OSError as e:
    print(\"udp:\", e.errno)
try:
    socket.socket(socket.AF_UNIX); print(\"unix: OK\")
except OSError as e:
    print(\"unix:\", e.errno)
import urllib.request
print(\"urllib:\", urllib.request.urlopen(\"http://127.0.0.1:'"$H"'/urllib\").read().decode().strip())"
'
eq "sandcap run --allow ...: exit 0" 0 "$rc"
contains "the proxy variables are set, NO_PROXY empty" "env: http://127.0.0.1:" "$(cat "$T/out")"
contains "ALL_PROXY is socks5h" "socks5h://127.0.0.1:" "$(cat "$T/out")"
eq "curl through the proxy (absolute URI)" "hello /abs" "$(v abs "$T/out")"
eq "a name resolving to loopback is refused unless an address rule names it (403)" 403 "$(v name_rebind "$T/out")"
eq "a port not in the list is refused (403)" 403 "$(v other_port "$T/out")"
eq "*.example.com does not allow example.com (403, nothing sent)" 403 "$(v suffix_bare "$T/out")"
eq "curl through socks5h" "hello /socks" "$(v socks "$T/out")"
case "$(v direct "$T/out")" in
"hello"*) notok "a direct connection bypassing the proxy is refused (got through)" ;;
*) ok "a direct connection bypassing the proxy is refused (Landlock)" ;;
esac
eq "no UDP socket (seccomp)" 93 "$(v udp "$T/out")"
eq "no new AF_UNIX socket (--unix none)" 1 "$(v unix "$T/out")"
eq "python urllib through the proxy" "hello /urllib" "$(v urllib "$T/out")"
eq "report: network.mode" proxy "$(json "$T/rep/r1.json" '["network"]["mode"]')"
contains "report: network.enforcement names Landlock and seccomp" "+ seccomp" \
	"$(json "$T/rep/r1.json" '["network"]["enforcement"]')"
eq "report: the normalised allow-list" "[\"127.0.0.1:$H\", \"localhost:*\", \"*.example.com\"]" \
	"$(json "$T/rep/r1.json" '["network"]["allow"]')"
eq "report: six connection attempts" 6 "$(json "$T/rep/r1.json" '["network"]["connections"].__len__()')"
eq "report: three denied" 3 \
	"$(json "$T/rep/r1.json" '["network"]["connections"]' | grep -o '"denied"' | wc -l | tr -d ' ')"
contains "report: the rebinding refusal names the reason" "resolves only to loopback" \
	"$(json "$T/rep/r1.json" '["network"]["connections"]')"
eq "report: connections_omitted" 0 "$(json "$T/rep/r1.json" '["network"]["connections_omitted"]')"
contains "summary line counts the denied connections" "6 connections through the proxy, 3 denied" "$(cat "$T/err")"

# The proxy variables are sandcap's own: --env-clear and --env-deny keep them, and the report
# lists them (real-workload review: --env-clear removed them, curl then failed).
for f in --env-clear --env-deny=*; do
	sandcap_run -q --no-cgroup --allow "127.0.0.1:$H" "$f" --report "$T/rep/e.json" -- \
		sh -c 'echo "env: $HTTP_PROXY ${ALL_PROXY%%:*} [$NO_PROXY]"; curl -sS http://127.0.0.1:'"$H"'/envc'
	contains "$f: the proxy variables are still set" "env: http://127.0.0.1:" "$(cat "$T/out")"
	contains "$f: curl through the proxy" "hello /envc" "$(cat "$T/out")"
	contains "$f: the report lists them" '"HTTPS_PROXY", "https_proxy", "ALL_PROXY"' \
		"$(json "$T/rep/e.json" '["env"]')"
done
sandcap_run -q --no-cgroup --allow "127.0.0.1:$H" --report "$T/rep/e.json" -- true
contains "the report lists the proxy variables without --env options too" '"NO_PROXY", "no_proxy"' \
	"$(json "$T/rep/e.json" '["env"]')"

# An allowed attempt that makes no connection (a closed port) is counted as such.
closed=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
sandcap_run --no-cgroup --allow "127.0.0.1:$closed" -- \
	sh -c "curl -sS -m 5 http://127.0.0.1:$closed/ > /dev/null 2>&1; true"
contains "summary line: an allowed attempt that connected nowhere is 'allowed but failed'" \
	"1 connection through the proxy, 0 denied, 1 allowed but failed" "$(cat "$T/err")"

# With an address rule for loopback, the name works.
sandcap_run -q --no-cgroup --allow "localhost:$H" --allow "127.0.0.1:$H" -- \
	curl -sS http://localhost:$H/named
eq "a name to loopback with an address rule naming it" "hello /named" "$(cat "$T/out")"

# An empty list allows nothing.
sandcap_run -q --no-cgroup --net proxy --report "$T/rep/r2.json" -- \
	curl -sS -o /dev/null -w "%{http_code}" http://127.0.0.1:$H/
eq "--net proxy with no --allow: everything refused (403)" 403 "$(cat "$T/out")"
eq "report: an empty allow-list" "[]" "$(json "$T/rep/r2.json" '["network"]["allow"]')"

# ---- CONNECT: a tunnel, and a second request smuggled after its header. ------------------
sandcap_run -q --no-cgroup --allow "127.0.0.1:$H" --report "$T/rep/r3.json" -- "$SYSPY" -c '
import os, socket
p = int(os.environ["HTTP_PROXY"].rsplit(":", 1)[1])
s = socket.create_connection(("127.0.0.1", p))
s.sendall(b"CONNECT 127.0.0.1:'"$H"' HTTP/1.1\r\nHost: x\r\n\r\nGET /tunnelled HTTP/1.0\r\n\r\n")
data = b""
while True:
    b = s.recv(4096)
    if not b:
        break
    data += b
print(data.decode().replace("\r\n", "|").replace("\n", "|"))
s = socket.create_connection(("127.0.0.1", p))
s.sendall(b"CONNECT 127.0.0.1:'"$H"' HTTP/1.1\r\n\r\nCONNECT 127.0.0.1:'"$O"' HTTP/1.1\r\n\r\n")
data = b""
while True:
    b = s.recv(4096)
    if not b:
        break
    data += b
print(data.decode().replace("\r\n", "|").replace("\n", "|"))'
contains "CONNECT: 200 then the tunnelled request's answer" "HTTP/1.1 200 Connection established||HTTP/1.0 200 OK" "$(sed -n 1p "$T/out")"
contains "CONNECT: the bytes after the header went to the tunnel" "hello /tunnelled" "$(sed -n 1p "$T/out")"
contains "a second CONNECT after the header is the allowed host's data" "hello 127.0.0.1:$O" "$(sed -n 2p "$T/out")"
eq "report: two connections, both to the allowed port" "$H $H" \
	"$(json "$T/rep/r3.json" '["network"]["connections"]' | grep -o '"port": [0-9]*' | sed 's/.* //' | tr '\n' ' ' | sed 's/ $//')"

# ---- git over HTTP and pip from a local index. --------------------------------------------
if [ -d "$T/www/repo.git" ]; then
	sandcap_run -q --no-cgroup --allow "127.0.0.1:$W" -- sh -c \
		"HOME=$T/dl git clone -q http://127.0.0.1:$W/repo.git $T/dl/clone && cat $T/dl/clone/f"
	eq "git clone over HTTP through the proxy" hi "$(cat "$T/out")"
else
	ok "# SKIP git over HTTP: no git"
fi
if "$SYSPY" -m pip --version >/dev/null 2>&1; then
	sandcap_run -q --no-cgroup --allow "127.0.0.1:$W" -- env HOME="$T/dl" "$SYSPY" -m pip \
		download --no-cache-dir --disable-pip-version-check --no-deps -q \
		--index-url "http://127.0.0.1:$W/simple" -d "$T/dl/pip" demo==1.0
	eq "pip download from a local index through the proxy: exit 0" 0 "$rc"
	expect "the wheel was downloaded" test -s "$T/dl/pip/demo-1.0-py3-none-any.whl"
else
	ok "# SKIP pip download: no pip for $SYSPY"
fi

# The proxy cannot start (no descriptor left for its pipes): a refusal with its reason and
# its report, never an empty "sandcap: " line and no report (review).
out=$( (ulimit -n 8; exec "$SANDCAP" run -q --net proxy --allow example.org:443 \
	--report "$T/noproxy.json" -- true) 2>&1)
rc=$?
eq "the proxy cannot start: exit 125" 125 "$rc"
case $out in
"sandcap: "?*) ok "... stderr gives the reason ($out)" ;;
*) notok "... stderr gives the reason (got '$out')" ;;
esac
case $out in
*"cannot start the proxy"*)
	eq "... the report says setup-error" setup-error "$(python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["verdict"])' "$T/noproxy.json" 2>&1)" ;;
*) ok "# SKIP the report of that refusal: it failed earlier with 8 descriptors ($out)" ;;
esac
done_testing
