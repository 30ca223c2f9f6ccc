#!/bin/sh
# --net none by seccomp alone, and --fs without Landlock: the UML kernel has seccomp filters
# but no Landlock, so this is the kernel where the substitutes and refusals show.
# vm-timeout: 60
# vm-cost: 5
. "$VMLIB"
R=$SCRATCH
P=$TESTS/probe-net

# Control: without --net none the probe really can open sockets here.
"$SANDCAP" run -q --no-cgroup --net host -- "$P" > "$R/net-host.out" 2>&1
like "$(grep '^socket_tcp4:' "$R/net-host.out")" 'OK$' "net host: TCP socket opens (control)"

# A listener on the guest's loopback, when the guest has one up.
port=
if python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0))' 2>/dev/null; then
	python3 -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(4)
print(s.getsockname()[1], flush=True); time.sleep(30)' > "$R/port" &
	lpid=$!
	i=0; while [ ! -s "$R/port" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	port=$(cat "$R/port")
fi

run_rc "$SANDCAP" run -q --no-cgroup --net none --report "$R/net-none.json" -- \
	"$P" ${port:+--port "$port"} --pid $$ > "$R/net-none.out" 2>&1
is "$rc" 0 "net none without --fs runs (seccomp alone)"
is "$(json_get "$R/net-none.json" .enforcement.net)" seccomp "report: enforcement.net is seccomp"
for s in socket_tcp4 socket_udp4 socket_tcp6 socket_udp6 socket_netlink socket_tcp4_highbits; do
	is "$(sed -n "s/^$s: //p" "$R/net-none.out")" EAFNOSUPPORT "net none: $s refused"
done
if [ -n "$port" ]; then
	is "$(sed -n 's/^connect_tcp4_loopback: //p' "$R/net-none.out")" EAFNOSUPPORT \
		"net none: connect to 127.0.0.1:$port refused"
else
	skip "net none: connect to a loopback listener" "no loopback in the guest"
fi
is "$(sed -n 's/^socketpair_stream: //p' "$R/net-none.out")" OK "net none: socketpair works"
is "$(sed -n 's/^io_uring_setup: //p' "$R/net-none.out")" ENOSYS "net none: io_uring_setup refused"
is "$(sed -n 's/^unshare_newuser: //p' "$R/net-none.out")" EPERM "net none: unshare(CLONE_NEWUSER) refused"
is "$(sed -n 's/^clone_newuser: //p' "$R/net-none.out")" EPERM "net none: clone(CLONE_NEWUSER) refused"
is "$(sed -n 's/^clone3: //p' "$R/net-none.out")" ENOSYS "net none: clone3 refused"
is "$(sed -n 's/^setns: //p' "$R/net-none.out")" EPERM "net none: setns refused"
is "$(sed -n 's/^ioctl_tiocsti: //p' "$R/net-none.out")" EPERM "net none: TIOCSTI refused"
# No Landlock domain here, so seccomp also keeps the sandbox from driving other processes.
is "$(sed -n 's/^ptrace_attach: //p' "$R/net-none.out")" EPERM "net none: ptrace attach refused"
is "$(sed -n 's/^process_vm_readv: //p' "$R/net-none.out")" EPERM "net none: process_vm_readv refused"
is "$(sed -n 's/^pidfd_getfd: //p' "$R/net-none.out")" EPERM "net none: pidfd_getfd refused"
[ -n "${lpid:-}" ] && kill "$lpid" 2>/dev/null

# The default --net host (the UNIX gate) without Landlock: the same refusals, or a process
# of the sandbox could take a listening socket from a service of the user's (pidfd_getfd)
# and pass the gate as its holder.
"$SANDCAP" run -q --no-cgroup -- "$P" --pid $$ > "$R/gate.out" 2>&1
is "$(sed -n 's/^ptrace_attach: //p' "$R/gate.out")" EPERM "net host: ptrace attach refused"
is "$(sed -n 's/^process_vm_readv: //p' "$R/gate.out")" EPERM "net host: process_vm_readv refused"
is "$(sed -n 's/^pidfd_getfd: //p' "$R/gate.out")" EPERM "net host: pidfd_getfd refused"
# A debugger that starts its command itself still works.
if command -v strace >/dev/null 2>&1; then
	run_rc "$SANDCAP" run -q --no-cgroup -- strace -f -o /dev/null true
	is "$rc" 0 "net host: strace CMD inside the sandbox still works"
else
	skip "strace CMD inside the sandbox" "strace is not installed"
fi

run_rc "$SANDCAP" run -q --no-cgroup --net none -- "$P" x32
is "$rc" 159 "net none: an x32 system call is killed (SIGSYS)"

# --fs without Landlock: refused unless --fallback, which the report then admits.
run_rc "$SANDCAP" run -q --no-cgroup --fs ro -- true 2> "$R/fs.err"
is "$rc" 125 "--fs ro without Landlock and without --fallback: exit 125"
like "$(cat "$R/fs.err")" 'no Landlock.*--fallback' "the message names the cause and --fallback"
run_rc "$SANDCAP" run -q --no-cgroup --fs ro --fallback --report "$R/fs.json" -- sh -c 'echo x > "$1"' \
	sh "$R/written"
is "$rc" 0 "--fs ro --fallback runs"
is "$(json_get "$R/fs.json" .enforcement.fs)" "none (no Landlock; --fallback)" \
	"report: enforcement.fs says the policy was not enforced"
done_testing
