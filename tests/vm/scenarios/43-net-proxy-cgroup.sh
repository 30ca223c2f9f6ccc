#!/bin/sh
# --net proxy in cgroup mode: sandcap's proxy outside the sandbox, the helper's programs
# pinning 127.0.0.1:PORT, real clients (curl over HTTP and socks5h) through it, names from
# the guest's /etc/hosts (allowed.sandcap.test -> 127.0.0.1), and the report.  From the
# attacker's side: a --net loopback sandbox of the same user, holding the victim's proxy
# URL and secret, is refused by the victim's proxy (cgroup id) and leaves no record.
# vm-timeout: 300
# vm-cost: 5
# shellcheck source=tests/vm/lib.sh
. "$VMLIB"
R=$SCRATCH

python3 "$SRCDIR/tests/vm/net-server.py" 250 > "$R/srv" 2>&1 &
srv=$!
i=0; while ! grep -q '^ready' "$R/srv" && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
T=$(sed -n 's/^tcp //p' "$R/srv"); O=$(sed -n 's/^other //p' "$R/srv")
check "loopback servers are up (tcp $T, other $O)" test -n "$T" -a -n "$O"
v() { sed -n "s/^$1: //p" "$2"; }

run_rc "$SANDCAP" run --allow "allowed.sandcap.test:$T" --allow "127.0.0.1:$T" \
	--allow "other.sandcap.test:*" --report "$R/px.json" -- sh -c '
echo "curl: $(curl -sS http://allowed.sandcap.test:'"$T"'/c 2>&1)"
echo "socks: $(curl -sS -x "$ALL_PROXY" http://allowed.sandcap.test:'"$T"'/s 2>&1)"
echo "rebind: $(curl -sS -o /dev/null -w "%{http_code}" http://other.sandcap.test:'"$O"'/r 2>&1)"
echo "direct: $(curl -sS --noproxy "*" http://127.0.0.1:'"$T"'/d 2>&1 | head -c 80)"
' > "$R/px.out" 2> "$R/px.err"
is "$rc" 0 "sandcap run --allow in cgroup mode: exit 0"
is "$(v curl "$R/px.out")" "hello /c" "curl through the proxy to a name from /etc/hosts (with an address rule)"
is "$(v socks "$R/px.out")" "hello /s" "curl through socks5h"
is "$(v rebind "$R/px.out")" 403 "a name resolving to loopback without an address rule: 403"
like "$(v direct "$R/px.out")" "Failed to connect|Permission denied|Couldn't connect" \
	"a direct connection bypassing the proxy is refused (BPF)"
is "$(json_get "$R/px.json" .mode)" cgroup "report: cgroup mode"
is "$(json_get "$R/px.json" .network.enforcement)" "cgroup-bpf + seccomp" "report: network.enforcement"
is "$(json_get "$R/px.json" .network.connections_omitted)" 0 "report: nothing omitted"
like "$(cat "$R/px.err")" "network: 2 allowed, 1 denied by the proxy" "summary line"
like "$(json_get "$R/px.json" .network.authentication)" "cgroup id [0-9]+" \
	"report: the proxy knows its sandbox by cgroup id too"
cp "$R"/px.* "$VM_RESULTS/" 2>/dev/null
# No server in the sandbox: listen() on an unbound socket, which binds an ephemeral port on
# every address by itself past the bind hook, is refused by seccomp (EPERM).
out=$("$SANDCAP" run -q --allow "127.0.0.1:$T" -- python3 -c '
import errno, socket
s = socket.socket()
try:
    s.listen(); print("listen ok", s.getsockname())
except OSError as e:
    print("listen", errno.errorcode[e.errno])' 2>&1)
is "$out" "listen EPERM" "cgroup-mode --net proxy: listen() without bind is refused (EPERM)"

# Another sandbox of the same user (--net loopback reaches all of 127/8) with the victim's
# proxy URL and secret: its connections come from another cgroup and are closed at once.
PEERS="python3 $SRCDIR/tests/integration/proxy-peers.py"
rm -f "$R/v.go" "$R/v.url"
"$SANDCAP" run --allow "127.0.0.1:$T" --report "$R/v.json" -- sh -c '
echo "$HTTP_PROXY" > '"$R"'/v.url
while [ ! -e '"$R"'/v.go ]; do sleep 0.1; done
echo "own: $(curl -sS http://127.0.0.1:'"$T"'/own 2>&1)"' > "$R/v.out" 2> "$R/v.err" &
victim=$!
i=0; while [ ! -s "$R/v.url" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
URL=$(cat "$R/v.url" 2>/dev/null); PPORT=${URL##*:}
CRED=$(echo "$URL" | sed -n 's|^http://\([^@]*\)@.*|\1|p')
check "the victim's proxy URL is known (port $PPORT)" test -n "$PPORT" -a -n "$CRED"
out=$("$SANDCAP" run -q --net loopback -- $PEERS ask "$PPORT" "$CRED" "127.0.0.1:$T" 2>&1)
is "$out" closed "a --net loopback sandbox with the right secret: closed at once (cgroup id)"
out=$("$SANDCAP" run -q --net loopback -- $PEERS idle "$PPORT" 10 2>&1)
is "$out" "closed 10 of 10" "... its idle connections too (no slot)"
touch "$R/v.go"
wait "$victim"
is "$(v own "$R/v.out")" "hello /own" "the victim's own client works"
is "$(json_get "$R/v.json" '.network.connections | length')" 1 \
	"the victim's report lists its own connection only"
kill "$srv" 2>/dev/null
wait "$srv" 2>/dev/null
done_testing
