#!/bin/sh
# t-net-proxy.sh: --net proxy in rlimit mode on the host (Landlock ABI >= 4 + seccomp), the
# egress proxy's decisions and records, and real clients through it: curl (HTTP,
# CONNECT, socks5h), python urllib, git over HTTP, pip download from a local index.  Every
# server is on 127.0.0.1; the only names used are "localhost" and names that do not
# resolve; nothing is sent anywhere else (a denied request never leaves the proxy).
# The attacker cases: another uid and the same uid without the secret against the proxy,
# idle connections that must not starve the sandbox, a slow upstream, Host: rewriting, wide
# address rules.
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
echo "abs: $(curl -sS http://127.0.0.1:'"$H"'/abs 2>&1)"
echo "name_rebind: $(curl -sS -o /dev/null -w "%{http_code}" http://localhost:'"$O"'/n 2>&1)"
echo "other_port: $(curl -sS -o /dev/null -w "%{http_code}" http://127.0.0.1:'"$O"'/o 2>&1)"
echo "suffix_bare: $(curl -sS -o /dev/null -w "%{http_code}" http://example.com/ 2>&1)"
echo "socks: $(curl -sS -x "$ALL_PROXY" http://127.0.0.1:'"$H"'/socks 2>&1)"
echo "tunnel: $(curl -sS -p http://127.0.0.1:'"$H"'/tunnel 2>&1)"
if command -v wget >/dev/null; then echo "wget: $(wget -qO- http://127.0.0.1:'"$H"'/wget 2>&1)"; else echo "wget: none"; fi
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
contains "the proxy variables are set, with the run's secret, NO_PROXY empty" "env: http://sandcap:" "$(cat "$T/out")"
contains "ALL_PROXY is socks5h" "socks5h://sandcap:" "$(cat "$T/out")"
eq "curl through the proxy (absolute URI)" "hello /abs" "$(v abs "$T/out")"
eq "a name resolving to loopback is refused unless an address rule names it (403)" 403 "$(v name_rebind "$T/out")"
eq "a port not in the list is refused (403)" 403 "$(v other_port "$T/out")"
eq "*.example.com does not allow example.com (403, nothing sent)" 403 "$(v suffix_bare "$T/out")"
eq "curl through socks5h (username/password from ALL_PROXY)" "hello /socks" "$(v socks "$T/out")"
eq "curl through a CONNECT tunnel (credentials from HTTP_PROXY)" "hello /tunnel" "$(v tunnel "$T/out")"
if [ "$(v wget "$T/out")" = none ]; then
	skip "wget through the proxy: no wget"
else
	eq "wget through the proxy (credentials from http_proxy)" "hello /wget" "$(v wget "$T/out")"
fi
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
n_att=8 n_ok=5
[ "$(v wget "$T/out")" = none ] && n_att=7 n_ok=4
eq "report: $n_att connection attempts" "$n_att" "$(json "$T/rep/r1.json" '["network"]["connections"].__len__()')"
eq "report: three denied" 3 \
	"$(json "$T/rep/r1.json" '["network"]["connections"]' | grep -o '"denied"' | wc -l | tr -d ' ')"
contains "report: the rebinding refusal names the reason" "resolves only to loopback" \
	"$(json "$T/rep/r1.json" '["network"]["connections"]')"
eq "report: connections_omitted" 0 "$(json "$T/rep/r1.json" '["network"]["connections_omitted"]')"
contains "summary line: N allowed, M denied" "network: $n_ok allowed, 3 denied by the proxy" "$(cat "$T/err")"

# The proxy variables are sandcap's own: --env-clear and --env-deny keep them, and the report
# lists them (real-workload review: --env-clear removed them, curl then failed).
for f in --env-clear --env-deny=*; do
	sandcap_run -q --no-cgroup --allow "127.0.0.1:$H" "$f" --report "$T/rep/e.json" -- \
		sh -c 'echo "env: $HTTP_PROXY ${ALL_PROXY%%:*} [$NO_PROXY]"; curl -sS http://127.0.0.1:'"$H"'/envc'
	contains "$f: the proxy variables are still set" "env: http://sandcap:" "$(cat "$T/out")"
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
	"1 allowed, 0 denied by the proxy (1 allowed but failed to connect)" "$(cat "$T/err")"

# With an address rule for loopback, the name works.
sandcap_run -q --no-cgroup --allow "localhost:$H" --allow "127.0.0.1:$H" -- \
	curl -sS http://localhost:$H/named
eq "a name to loopback with an address rule naming it" "hello /named" "$(cat "$T/out")"

# An empty list allows nothing, and sandcap says so before the run.
sandcap_run --no-cgroup --net proxy --report "$T/rep/r2.json" -- \
	curl -sS -o /dev/null -w "%{http_code}" http://127.0.0.1:$H/
eq "--net proxy with no --allow: everything refused (403)" 403 "$(cat "$T/out")"
contains "--net proxy with no --allow warns, naming the fix" \
	"--net proxy without --allow: nothing will be reachable through the proxy; add --allow HOST[:PORT]" \
	"$(cat "$T/err")"
eq "report: an empty allow-list" "[]" "$(json "$T/rep/r2.json" '["network"]["allow"]')"

# ---- CONNECT: a tunnel, and a second request smuggled after its header. ------------------
sandcap_run -q --no-cgroup --allow "127.0.0.1:$H" --report "$T/rep/r3.json" -- "$SYSPY" -c '
import base64, os, socket, urllib.parse
u = urllib.parse.urlsplit(os.environ["HTTP_PROXY"])
p = u.port
a = b"Proxy-Authorization: Basic " + base64.b64encode(("%s:%s" % (u.username, u.password)).encode()) + b"\r\n"
def exchange(req):  # one connection to the proxy: send req, print all it answers on one line
    s = socket.create_connection(("127.0.0.1", p))
    s.sendall(req)
    data = b""
    while True:
        b = s.recv(4096)
        if not b:
            break
        data += b
    print(data.decode().replace("\r\n", "|").replace("\n", "|"))
exchange(b"CONNECT 127.0.0.1:'"$H"' HTTP/1.1\r\nHost: x\r\n" + a + b"\r\nGET /tunnelled HTTP/1.0\r\n\r\n")
exchange(b"CONNECT 127.0.0.1:'"$H"' HTTP/1.1\r\n" + a + b"\r\nCONNECT 127.0.0.1:'"$O"' HTTP/1.1\r\n" + a + b"\r\n")'
contains "CONNECT: 200 then the tunnelled request's answer" "HTTP/1.1 200 Connection established||HTTP/1.0 200 OK" "$(sed -n 1p "$T/out")"
contains "CONNECT: the bytes after the header went to the tunnel" "hello /tunnelled" "$(sed -n 1p "$T/out")"
contains "a second CONNECT after the header is the allowed host's data" "hello 127.0.0.1:$O" "$(sed -n 2p "$T/out")"
eq "report: two connections, both to the allowed port" "$H $H" \
	"$(json "$T/rep/r3.json" '["network"]["connections"]' | grep -o '"port": [0-9]*' | sed 's/.* //' | tr '\n' ' ' | sed 's/ $//')"

# ---- The proxy serves its own sandbox only (from the attacker's side). ----------------------
# The sandbox publishes its proxy URL, waits for $T/go, then makes three requests.  Meanwhile
# another uid (which found the port as anyone can, in /proc/net/tcp) and the same uid without
# the secret try the proxy.
PEERS="$SYSPY $SRCDIR/tests/integration/proxy-peers.py"
$SYSPY "$SRCDIR/tests/integration/proxy-peers.py" server 600 > "$T/peers" 2>&1 &
LIBTEST_PIDS="$LIBTEST_PIDS $!"
i=0; while ! grep -q '^ready' "$T/peers" && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
E=$(sed -n 's/^port //p' "$T/peers")
rm -f "$T/go"
(as_user_exec "$SANDCAP" run --no-cgroup --allow "127.0.0.1:$H" --report "$T/rep/a.json" -- sh -c '
echo "$HTTP_PROXY" > '"$T"'/rep/px.url
while [ ! -e '"$T"'/go ]; do sleep 0.1; done
for k in 1 2 3; do echo "own$k: $(curl -sS -m 30 http://127.0.0.1:'"$H"'/own$k 2>&1)"; done
') > "$T/a.out" 2> "$T/a.err" &
victim=$!
i=0; while [ ! -s "$T/rep/px.url" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
URL=$(cat "$T/rep/px.url" 2>/dev/null)
PPORT=${URL##*:}
CRED=$(echo "$URL" | sed -n 's|^http://\([^@]*\)@.*|\1|p')
expect "the sandbox's proxy URL carries credentials (sandcap:SECRET)" test -n "$CRED" -a -n "$PPORT"
case $CRED in sandcap:????????????????????????????????) ok "the secret is 32 hex digits" ;;
*) notok "the secret is 32 hex digits (got '$CRED')" ;; esac
if [ "$(id -u)" = 0 ]; then
	intruder() { setpriv --reuid=65533 --regid=65533 --clear-groups -- "$@"; }
	eq "another uid with the right secret: closed at once, no answer" closed \
		"$(intruder $PEERS ask "$PPORT" "$CRED" "127.0.0.1:$H")"
	eq "another uid's 70 idle connections are all closed at once (no slot)" "closed 70 of 70" \
		"$(intruder $PEERS idle "$PPORT" 70)"
else
	skip "another uid against the proxy: the tests do not run as root (no second uid)"
	skip "another uid's idle connections: the tests do not run as root"
fi
eq "the same uid without the secret: 407" "HTTP/1.1 407 Proxy Authentication Required" \
	"$(as_user $PEERS ask "$PPORT" - "127.0.0.1:$H")"
eq "the same uid with a wrong secret: 407" "HTTP/1.1 407 Proxy Authentication Required" \
	"$(as_user $PEERS ask "$PPORT" sandcap:00000000000000000000000000000000 "127.0.0.1:$H")"
# 70 idle connections that never authenticate, held open while the sandbox works.
(as_user_exec $PEERS hold "$PPORT" 70 300 > "$T/hold" 2>&1) &
holder=$!
LIBTEST_PIDS="$LIBTEST_PIDS $holder"
i=0; while ! grep -q '^holding' "$T/hold" && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
eq "an intruder holds 70 idle connections" "holding 70" "$(cat "$T/hold")"
ppid=$(ss -Hltnp "sport = :$PPORT" 2>/dev/null | sed -n 's/.*pid=\([0-9]*\).*/\1/p' | head -1)
if [ -n "$ppid" ]; then
	eq "the proxy is one process: no child" "" "$(ps -o pid= --ppid "$ppid")"
	eq "the proxy is one process: one thread" 1 "$(sed -n 's/^Threads:[[:space:]]*//p' /proc/"$ppid"/status)"
else
	skip "the proxy's process count: ss cannot name the listener's process here"
	skip "the proxy's thread count: ss cannot name the listener's process here"
fi
touch "$T/go"
wait "$victim"
eq "the sandbox's requests all got through despite the idle intruders" \
	"hello /own1|hello /own2|hello /own3" "$(sed -n 's/^own[0-9]: //p' "$T/a.out" | paste -sd '|')"
kill "$holder" 2>/dev/null
eq "report: only the sandbox's own three connections" 3 \
	"$(json "$T/rep/a.json" '["network"]["connections"].__len__()')"
eq "report: nothing denied (refused peers leave no record)" 0 \
	"$(json "$T/rep/a.json" '["network"]["connections"]' | grep -o '"denied"' | wc -l | tr -d ' ')"
eq "report: the connection cap" 64 "$(json "$T/rep/a.json" '["network"]["max_connections"]')"
contains "report: how peers are authenticated" "per-run secret" \
	"$(json "$T/rep/a.json" '["network"]["authentication"]')"

# A slow upstream gets the whole upload: partial writes wait for the socket, in both the
# tunnel and the absolute-form (forwarded) request.
head -c 8388608 /dev/zero > "$T/dl/big"
sandcap_run -q --no-cgroup --allow "127.0.0.1:$E" --report "$T/rep/up.json" -- sh -c '
echo "tunnel: $('"$PEERS"' upload "$HTTP_PROXY" 127.0.0.1:'"$E"' 8388608)"
echo "forward: $(curl -sS -H "Expect:" --data-binary @'"$T"'/dl/big http://127.0.0.1:'"$E"'/up)"'
eq "a slow server received the whole 8 MiB upload through a tunnel" "got 8388608" "$(v tunnel "$T/out")"
eq "... and through an absolute-form request" "got 8388608" "$(v forward "$T/out")"
eq "report: both relays ended without an error" '["", ""]' \
	"$(json "$T/rep/up.json" '["network"]["connections"] and [c["reason"] for c in d["network"]["connections"]]')"

# A relay that ends on an error says why: the server resets the connection mid-upload.
sandcap_run -q --no-cgroup --allow "127.0.0.1:$E" --report "$T/rep/rst.json" -- sh -c \
	"$PEERS upload \"\$HTTP_PROXY\" 127.0.0.1:$E 4194304 /reset"
contains "an upload the server resets: the report names the relay's error" \
	"relay ended: " "$(json "$T/rep/rst.json" '["network"]["connections"][0]["reason"]')"

# Absolute-form: the origin sees the target's authority as Host:, not the client's.
sandcap_run -q --no-cgroup --allow "127.0.0.1:$E" -- \
	curl -sS -H "Host: evil.example" "http://127.0.0.1:$E/host"
eq "absolute-form request: Host: follows the target" "host: 127.0.0.1:$E" "$(cat "$T/out")"

# A rule as wide as ::/0 contains mapped loopback and link-local but does not name them.
sandcap_run -q --no-cgroup --allow "[::/0]:*" --report "$T/rep/wide.json" -- sh -c '
echo "mapped_lo: $(curl -sS -o /dev/null -w "%{http_code}" "http://[::ffff:127.0.0.1]:'"$H"'/" 2>&1)"
echo "mapped_ll: $(curl -sS -o /dev/null -w "%{http_code}" "http://[::ffff:169.254.169.254]/" 2>&1)"'
eq "--allow [::/0]:* does not admit [::ffff:127.0.0.1] (403)" 403 "$(v mapped_lo "$T/out")"
eq "--allow [::/0]:* does not admit [::ffff:169.254.169.254] (403)" 403 "$(v mapped_ll "$T/out")"
contains "report: the refusal names the special range" "only to loopback addresses" \
	"$(json "$T/rep/wide.json" '["network"]["connections"]')"

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
*"cannot start the proxy"*|*"RLIMIT_NOFILE"*)
	eq "... the report says setup-error" setup-error "$(python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["verdict"])' "$T/noproxy.json" 2>&1)" ;;
*) ok "# SKIP the report of that refusal: it failed earlier with 8 descriptors ($out)" ;;
esac
done_testing
