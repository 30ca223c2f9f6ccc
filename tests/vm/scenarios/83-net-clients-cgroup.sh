#!/bin/sh
# Issue #15, real clients through the proxy in cgroup mode (the helper's BPF programs pin
# 127.0.0.1:PROXY; sandcap's proxy outside the sandbox): curl, python urllib, git clone
# over HTTP and pip download from a local index, all allowed by one --allow for the local
# file server; the same pip against a port not on the list gets nothing.  The host runs
# the same clients in rlimit mode (tests/integration/t-net-proxy.sh).
# vm-timeout: 360
# vm-cost: 24
# shellcheck source=tests/vm/lib.sh
. "$VMLIB"
R=$SCRATCH
SYSPY=/usr/bin/python3
v() { sed -n "s/^$1: //p" "$2"; }

# A static file server (a one-wheel index, a bare git repository) and a "hello" server.
mkdir -p "$R/www/simple/demo" "$R/dl"
$SYSPY "$SRCDIR/tests/integration/pip-index.py" "$R/www"
have_git=0
if command -v git > /dev/null 2>&1 &&
	(cd "$R" && git init -q src && cd src && echo hi > f && git add f &&
	 git -c user.name=t -c user.email=t@t commit -qm one &&
	 git clone -q --bare . "$R/www/repo.git" && cd "$R/www/repo.git" && git update-server-info); then
	have_git=1
fi
$SYSPY -c 'import functools, http.server, sys
h = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), h)
print(s.server_address[1], flush=True); s.serve_forever()' "$R/www" > "$R/www.port" 2> /dev/null &
www=$!
$SYSPY "$SRCDIR/tests/vm/net-server.py" 300 > "$R/srv" 2>&1 &
srv=$!
i=0; while { [ ! -s "$R/www.port" ] || ! grep -q '^ready' "$R/srv"; } && [ $i -lt 200 ]; do
	sleep 0.1; i=$((i + 1)); done
W=$(cat "$R/www.port"); O=$(sed -n 's/^other //p' "$R/srv")
check "local servers are up (files $W, other $O)" test -n "$W" -a -n "$O"

# ---- curl and urllib: one sandbox, two clients. ------------------------------------------
run_rc "$SANDCAP" run --allow "127.0.0.1:$W" --report "$R/c.json" -- sh -c '
echo "curl: $(curl -sS http://127.0.0.1:'"$W"'/simple/index.html 2>&1)"
echo "direct: $(curl -sS --noproxy "*" --max-time 10 http://127.0.0.1:'"$W"'/simple/ 2>&1 | head -c 80)"
'"$SYSPY"' -c "import urllib.request
print(\"urllib:\", urllib.request.urlopen(\"http://127.0.0.1:'"$W"'/simple/demo/index.html\").read().decode().split(chr(34))[1][:8])"
' > "$R/c.out" 2> "$R/c.err"
is "$rc" 0 "curl and urllib: sandcap run exits 0"
is "$(json_get "$R/c.json" .mode)" cgroup "report: cgroup mode"
is "$(json_get "$R/c.json" .network.enforcement)" "cgroup-bpf + seccomp" "report: enforced by cgroup-bpf + seccomp"
is "$(v curl "$R/c.out")" '<a href="demo/">demo</a>' "curl through the proxy"
like "$(v direct "$R/c.out")" "Failed to connect|Permission denied|Couldn't connect" \
	"curl bypassing the proxy is refused (BPF)"
is "$(v urllib "$R/c.out")" demo-1.0 "python urllib through the proxy (the index names the wheel)"

# ---- git clone over HTTP. ------------------------------------------------------------------
if [ "$have_git" = 1 ]; then
	run_rc "$SANDCAP" run -q --allow "127.0.0.1:$W" --report "$R/g.json" -- sh -c \
		"HOME=$R/dl git clone -q http://127.0.0.1:$W/repo.git $R/dl/clone && cat $R/dl/clone/f" \
		> "$R/g.out" 2> "$R/g.err"
	is "$rc" 0 "git clone over HTTP through the proxy: exit 0"
	is "$(cat "$R/g.out")" hi "git: the clone has the file"
	is "$(json_get "$R/g.json" .mode)" cgroup "git: cgroup mode"
	ge "$(json_get "$R/g.json" '.network.connections | length')" 1 "git: its connections are in the report"
else
	skip "git clone over HTTP" "no git in the guest"
fi

# ---- pip download from the local index; then from a port not on the list. --------------
if "$SYSPY" -m pip --version > /dev/null 2>&1; then
	run_rc "$SANDCAP" run -q --memory 160M --allow "127.0.0.1:$W" --report "$R/p.json" -- \
		env HOME="$R/dl" "$SYSPY" -m pip download --no-cache-dir --disable-pip-version-check \
		--no-deps -q --index-url "http://127.0.0.1:$W/simple" -d "$R/dl/pip" demo==1.0 \
		> "$R/p.out" 2>&1
	is "$rc" 0 "pip download from a local index through the proxy: exit 0"
	check "pip: the wheel was downloaded" test -s "$R/dl/pip/demo-1.0-py3-none-any.whl"
	is "$(json_get "$R/p.json" .mode)" cgroup "pip: cgroup mode"
	run_rc "$SANDCAP" run -q --memory 160M --allow "127.0.0.1:$W" --report "$R/p2.json" -- \
		env HOME="$R/dl" "$SYSPY" -m pip download --no-cache-dir --disable-pip-version-check \
		--no-deps -q --retries 0 --timeout 10 --index-url "http://127.0.0.1:$O/simple" \
		-d "$R/dl/pip2" demo==1.0 > "$R/p2.out" 2>&1
	check_fails "pip from a port not on the list: fails" test "$rc" = 0
	check_fails "pip from a port not on the list: no wheel" test -s "$R/dl/pip2/demo-1.0-py3-none-any.whl"
	ge "$(json_get "$R/p2.json" '[.network.connections[] | select(.decision == "denied")] | length')" 1 \
		"pip: the denied connection is in the report"
else
	skip "pip download" "no pip for $SYSPY (python3-pip)"
fi

cp "$R"/*.out "$R"/*.err "$R"/*.json "$VM_RESULTS/" 2>/dev/null
kill "$www" "$srv" 2>/dev/null
wait "$www" "$srv" 2>/dev/null
done_testing
