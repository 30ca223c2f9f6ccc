#!/bin/sh
# cgroup mode with the isolation layers together, on a kernel that has both cgroup v2 and
# Landlock (what Debian 13 and Ubuntu 24.04 run): --fs ro|strict with --rw, --ro, --net and
# the helper's workspace in one sandbox.  From the sandbox's side: only the workspace (its
# TMPDIR) and --rw are writable; /tmp, a 1777 directory under it and the caller's files are
# refused; --ro is read-only; --net none and loopback hold beside the filesystem rules.
# vm-kernel: 6.12
# vm-timeout: 120
# vm-cost: 10
. "$VMLIB"
R=$SCRATCH
FS=$TESTS/probe-fs
NET=$TESTS/probe-net

mkdir -p "$R/rw" "$R/ro" "$R/out" "$HOME/private"
echo kept > "$R/ro/f"
echo secret > "$HOME/private/key"
# The attacker's target: a world-writable sticky directory under /tmp, as on any host.
OTHER=/tmp/other.$$
mkdir -m 1777 "$OTHER"

# A loopback listener outside the sandbox for the --net cases.
python3 -c 'import socket, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
print(s.getsockname()[1], flush=True); time.sleep(100)' > "$R/port" &
lpid=$!
i=0; while [ ! -s "$R/port" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
port=$(cat "$R/port")
check "a loopback listener is up (port $port)" test -n "$port"

v() { sed -n "s|^$1: ||p" "$2" | head -n 1; }
# probe OUT ARGS... -- OPS...: probe-fs in a sandbox of ARGS, with its workspace ($TMPDIR)
# first: "write WS/w" is the workspace, the rest as given.
probe() {
	o=$1; shift
	args=""
	while [ "$1" != -- ]; do args="$args $1"; shift; done
	shift
	# shellcheck disable=SC2086
	"$SANDCAP" run -q $args -- sh -c 'echo "TMPDIR=$TMPDIR"; exec "$0" write "$TMPDIR/w" "$@"' \
		"$FS" "$@" > "$o" 2>&1
}

# ---- --fs ro, --rw, --net none, cgroup mode ----
probe "$R/ro.out" --fs ro --rw "$R/rw" --net none --report "$R/ro.json" -- \
	write "$R/rw/a" write "$OTHER/planted" write /tmp/planted write "$R/out/x" \
	read "$HOME/private/key"
rc=$?
is "$rc" 0 "--fs ro --rw --net none in cgroup mode runs"
is "$(json_get "$R/ro.json" .mode)" cgroup "... in cgroup mode"
like "$(json_get "$R/ro.json" .enforcement.fs)" '^landlock \(ABI [6-9]' "... enforcement.fs is Landlock (ABI 6 or later)"
is "$(json_get "$R/ro.json" .enforcement.net)" "cgroup-bpf + seccomp + landlock" \
	"... --net none: cgroup BPF, seccomp and Landlock's TCP rules"
like "$(sed -n 's/^TMPDIR=//p' "$R/ro.out")" '^/run/sandcap/' "... the sandbox's TMPDIR is its workspace"
like "$(grep ' /run/sandcap/.*/w: ' "$R/ro.out")" ': OK$' "... the workspace is writable"
is "$(v "write $R/rw/a" "$R/ro.out")" OK "... --rw is writable"
is "$(v "write $OTHER/planted" "$R/ro.out")" EACCES "... a file in a 1777 dir under /tmp is refused"
is "$(v "write /tmp/planted" "$R/ro.out")" EACCES "... /tmp itself is refused"
is "$(v "write $R/out/x" "$R/ro.out")" EACCES "... the caller's other files are read-only"
is "$(v "read $HOME/private/key" "$R/ro.out")" OK "... ro reads everything"
check "nothing was planted in /tmp" test ! -e "$OTHER/planted" -a ! -e /tmp/planted

# ---- --fs strict, --ro, --rw, --net loopback ----
probe "$R/st.out" --fs strict --ro "$R/ro" --ro "$TESTS" --rw "$R/rw" --net loopback \
	--report "$R/st.json" -- \
	read "$R/ro/f" write "$R/ro/f" write "$R/rw/b" write "$OTHER/planted" \
	readdir /tmp read "$HOME/private/key" write "$R/out/y"
is "$?" 0 "--fs strict --ro --rw --net loopback in cgroup mode runs"
is "$(json_get "$R/st.json" .mode)" cgroup "... in cgroup mode"
like "$(json_get "$R/st.json" .enforcement.fs)" '^landlock \(ABI [6-9]' "... enforcement.fs is Landlock"
like "$(grep ' /run/sandcap/.*/w: ' "$R/st.out")" ': OK$' "... the workspace is writable"
is "$(v "read $R/ro/f" "$R/st.out")" OK "... --ro is readable"
is "$(v "write $R/ro/f" "$R/st.out")" EACCES "... --ro is not writable"
is "$(v "write $R/rw/b" "$R/st.out")" OK "... --rw is writable"
is "$(v "write $OTHER/planted" "$R/st.out")" EACCES "... a 1777 dir under /tmp is refused"
is "$(v "readdir /tmp" "$R/st.out")" EACCES "... /tmp is not even listable"
is "$(v "read $HOME/private/key" "$R/st.out")" EACCES "... the home directory is unreadable"
is "$(v "write $R/out/y" "$R/st.out")" EACCES "... other files are refused"
is "$(cat "$R/ro/f")" kept "the --ro file is unchanged"

# The network rules beside the filesystem rules, in one sandbox.
"$SANDCAP" run -q --fs strict --ro "$TESTS" --net loopback -- "$NET" --port "$port" \
	> "$R/lo.out" 2>&1
is "$(v connect_tcp4_loopback "$R/lo.out")" OK "--fs strict --net loopback: 127.0.0.1:$port is reached"
"$SANDCAP" run -q --fs ro --net none -- "$NET" --port "$port" > "$R/none.out" 2>&1
is "$(v socket_tcp4 "$R/none.out")" EAFNOSUPPORT "--fs ro --net none: no TCP socket"
like "$(v connect_tcp4_loopback "$R/none.out")" '^E' "--fs ro --net none: 127.0.0.1:$port is not reached"

kill "$lpid" 2> /dev/null
rm -rf "$OTHER"
done_testing
