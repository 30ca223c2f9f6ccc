#!/bin/sh
# --net none|loopback|proxy in cgroup mode: the helper's cgroup BPF programs, alone (through
# probe-client, which applies no seccomp and no Landlock of its own, as a hostile client
# would) and inside `sandcap run` (with the front-end's seccomp for the other families).
# Destinations outside loopback are documentation addresses; the guest has no device but lo.
# vm-timeout: 480
# vm-cost: 13
# shellcheck source=tests/vm/lib.sh
. "$VMLIB"
R=$SCRATCH
PROBE="python3 $SRCDIR/tests/vm/net-probe.py"
PC=$TESTS/probe-client

python3 "$SRCDIR/tests/vm/net-server.py" 200 > "$R/srv" 2>&1 &
srv=$!
i=0; while ! grep -q '^ready' "$R/srv" && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
T=$(sed -n 's/^tcp //p' "$R/srv"); T6=$(sed -n 's/^tcp6 //p' "$R/srv")
U=$(sed -n 's/^udp //p' "$R/srv"); O=$(sed -n 's/^other //p' "$R/srv")
check "loopback servers are up (tcp $T, udp $U, other $O)" test -n "$T" -a -n "$U" -a -n "$O"
[ -n "$T6" ] || diag "no IPv6 in the guest: the ::1 cases are skipped"
ARGS="--tcp $T --udp $U --other $O ${T6:+--tcp6 $T6}"
v() { sed -n "s/^$1: //p" "$2"; }

# ---- Control: --net host through the helper lets everything the probe tries through. ---
$PC -N host -- $PROBE $ARGS > "$R/host.out" 2>&1
is "$(v tcp4_lo "$R/host.out")" OK "host (control): TCP to 127.0.0.1"
is "$(v socket_udplite4 "$R/host.out")" OK "host (control): a UDP-Lite socket opens"
is "$(v bind4_any "$R/host.out")" OK "host (control): bind 0.0.0.0"
check_fails "host (control): TCP to 192.0.2.1 is not refused with EPERM" \
	test "$(v tcp4_ext "$R/host.out")" = EPERM

# ---- loopback, BPF alone. -----------------------------------------------------------------
$PC -N loopback -- sh -c "$PROBE $ARGS" > "$R/lo.out" 2>&1
is "$(sed -n 's/^spawn //p' "$R/lo.out")" ok "loopback: the helper spawned the sandbox's process"
is "$(v tcp4_lo "$R/lo.out")" OK "loopback: TCP to 127.0.0.1 (after fork and exec)"
is "$(v tcp4_lo_other_addr "$R/lo.out")" ECONNREFUSED "loopback: 127.0.0.2 is let through (nothing listens)"
is "$(v tcp4_lo_other_port "$R/lo.out")" OK "loopback: any port on loopback"
is "$(v tcp4_ext "$R/lo.out")" EPERM "loopback: TCP to 192.0.2.1 refused"
is "$(v udp4_lo "$R/lo.out")" OK "loopback: UDP to 127.0.0.1"
is "$(v udp4_ext "$R/lo.out")" EPERM "loopback: UDP sendto 192.0.2.1 refused"
is "$(v udp4_connect_ext "$R/lo.out")" EPERM "loopback: UDP connect to 192.0.2.1 refused"
is "$(v bind4_lo "$R/lo.out")" OK "loopback: bind 127.0.0.1"
is "$(v bind4_any "$R/lo.out")" EPERM "loopback: bind 0.0.0.0 refused"
is "$(v socket_udplite4 "$R/lo.out")" EPERM "loopback: UDP-Lite refused (sock_create)"
for s in socket_raw4 socket_icmp4 socket_mptcp4 socket_sctp4; do
	check_fails "loopback: $s does not open" test "$(v $s "$R/lo.out")" = OK
done
if [ -n "$T6" ]; then
	is "$(v tcp6_lo "$R/lo.out")" OK "loopback: TCP to ::1"
	is "$(v tcp6_ext "$R/lo.out")" EPERM "loopback: TCP to 2001:db8::1 refused"
	is "$(v tcp6_mapped_lo "$R/lo.out")" EPERM "loopback: IPv4-mapped ::ffff:127.0.0.1 refused"
	is "$(v udp6_ext "$R/lo.out")" EPERM "loopback: UDP to 2001:db8::1 refused"
	is "$(v bind6_any "$R/lo.out")" EPERM "loopback: bind :: refused"
else
	skip "loopback: the IPv6 cases" "no IPv6 in this guest"
fi

# ---- proxy, BPF alone: only 127.0.0.1:PORT (here the "other" server stands in). --------
$PC -N proxy -o "$O" -- $PROBE --tcp "$T" --proxy "$O" --udp "$U" > "$R/px.out" 2>&1
is "$(v tcp4_proxy "$R/px.out")" OK "proxy: TCP to 127.0.0.1:PROXY"
is "$(v tcp4_proxy_other_addr "$R/px.out")" EPERM "proxy: 127.0.0.2:PROXY refused"
is "$(v tcp4_lo "$R/px.out")" EPERM "proxy: another loopback port (another user's proxy) refused"
is "$(v tcp4_ext "$R/px.out")" EPERM "proxy: TCP to 192.0.2.1 refused"
is "$(v socket_udp4 "$R/px.out")" EPERM "proxy: no UDP socket at all"
is "$(v bind4_lo "$R/px.out")" EPERM "proxy: no bind"

# ---- none, BPF alone. -----------------------------------------------------------------------
$PC -N none -- $PROBE --tcp "$T" > "$R/none.out" 2>&1
is "$(v socket_tcp4 "$R/none.out")" EPERM "none: no TCP socket"
is "$(v socket_udp4 "$R/none.out")" EPERM "none: no UDP socket"

# ---- The wire: a port only with proxy, and the programs are the helper's to choose. ----
$PC -N proxy -- true > "$R/noport.out" 2>&1
like "$(cat "$R/noport.out")" '^error create' "proxy without a port: the helper ends the session"

# ---- sandcap run --net loopback: BPF plus the front-end's seccomp. --------------------------
run_rc "$SANDCAP" run -q --net loopback --report "$R/run-lo.json" -- $PROBE $ARGS > "$R/run-lo.out" 2>&1
is "$rc" 0 "sandcap run --net loopback runs"
is "$(json_get "$R/run-lo.json" .network.mode)" loopback "report: network.mode"
is "$(json_get "$R/run-lo.json" .network.enforcement)" "cgroup-bpf + seccomp" "report: network.enforcement"
is "$(v tcp4_lo "$R/run-lo.out")" OK "run loopback: TCP to 127.0.0.1"
is "$(v tcp4_ext "$R/run-lo.out")" EPERM "run loopback: TCP to 192.0.2.1 refused"
for s in socket_netlink socket_alg socket_packet socket_vsock; do
	is "$(v $s "$R/run-lo.out")" EAFNOSUPPORT "run loopback: $s refused (seccomp)"
done
is "$(v socket_unix "$R/run-lo.out")" EPERM "run loopback: new AF_UNIX socket refused (--unix none)"
is "$(v socketpair_unix "$R/run-lo.out")" OK "run loopback: socketpair works"
run_rc "$SANDCAP" run -q --net loopback --unix host -- $PROBE > "$R/run-unix.out" 2>&1
is "$(v socket_unix "$R/run-unix.out")" OK "run loopback --unix host: AF_UNIX sockets"

# ---- sandcap run --net none in cgroup mode: the helper enforces it too. ---------------------
run_rc "$SANDCAP" run -q --net none --report "$R/run-none.json" -- $PROBE > "$R/run-none.out" 2>&1
is "$(json_get "$R/run-none.json" .network.enforcement)" "cgroup-bpf + seccomp" "run none: enforced by cgroup-bpf + seccomp"
is "$(v socket_tcp4 "$R/run-none.out")" EAFNOSUPPORT "run none: no TCP socket"

# ---- rlimit mode cannot do loopback: refused, with the reason. ------------------------------
run_rc "$SANDCAP" run -q --no-cgroup --net loopback -- true 2> "$R/rl-lo.err"
is "$rc" 125 "--net loopback without the helper: exit 125"
like "$(cat "$R/rl-lo.err")" 'needs cgroup mode' "the message says why"

cp "$R"/*.out "$R"/*.json "$VM_RESULTS/" 2>/dev/null
kill "$srv" 2>/dev/null
wait "$srv" 2>/dev/null
done_testing
