#!/bin/sh
# Landlock's network and scoping rules in rlimit mode, on the guest's own 6.12 kernel (the
# host suite proves them on whatever kernel the host runs): under --net none an inherited
# TCP socket cannot connect (Landlock, beside seccomp's socket() refusal), an abstract UNIX
# socket and a signal to a process outside the sandbox are refused (scoping, ABI 6), and
# --fs keeps the sandbox's own TMPDIR writable, not sandcap's.
# vm-kernel: 6.12
# vm-timeout: 90
# vm-cost: 6
. "$VMLIB"
R=$SCRATCH
NET=$TESTS/probe-net
FS=$TESTS/probe-fs

# Listeners outside the sandbox: TCP on 127.0.0.1 and an abstract UNIX socket.
cat > "$R/listen.py" << 'EOF'
import os, socket, sys, time
t = socket.socket(); t.bind(("127.0.0.1", 0)); t.listen(8)
a = socket.socket(socket.AF_UNIX); a.bind("\0sandcap-vm85-%d" % os.getpid()); a.listen(8)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write("%d %d\n" % (t.getsockname()[1], os.getpid()))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
time.sleep(80)
EOF
python3 "$R/listen.py" "$R/port" &
lpid=$!
i=0; while [ ! -s "$R/port" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
read -r port apid < "$R/port"
check "listeners are up outside the sandbox (tcp $port)" test -n "$port"

# The sandboxed probe inherits an unconnected TCP socket on fd 5: seccomp cannot see its
# connect() as a new socket, so refusing it is Landlock's job (EACCES).  --unix host leaves
# UNIX sockets to Landlock alone too: refusing the abstract one is its scoping (EPERM).
python3 -c 'import os, socket, sys
s = socket.socket(); os.dup2(s.fileno(), 5); os.set_inheritable(5, True)
os.execvp(sys.argv[1], sys.argv[1:])' "$SANDCAP" run -q --no-cgroup --net none --unix host \
	--keep-fds --report "$R/none.json" -- "$NET" --port "$port" --abstract "sandcap-vm85-$apid" \
	--fd 5 > "$R/none.out" 2>&1
v() { sed -n "s|^$1: ||p" "$2" | head -n 1; }
is "$(json_get "$R/none.json" .mode)" rlimit "--no-cgroup --net none: rlimit mode"
like "$(json_get "$R/none.json" .enforcement.net)" '^seccomp\+landlock \(ABI [6-9]' \
	"enforcement.net is seccomp+landlock (ABI 6 or later)"
is "$(v socket_tcp4 "$R/none.out")" EAFNOSUPPORT "net none: a new TCP socket is refused (seccomp)"
is "$(v connect_inherited_tcp "$R/none.out")" EACCES \
	"net none: the inherited TCP socket cannot connect to 127.0.0.1:$port (Landlock)"
is "$(v bind_inherited_tcp "$R/none.out")" EACCES "net none: nor bind (Landlock)"
is "$(v connect_unix_abstract "$R/none.out")" EPERM \
	"net none --unix host: the abstract socket outside the sandbox is refused (Landlock scoping)"

# Signal scoping, on every run: a process of the same user outside the sandbox.
sleep 60 &
spid=$!
run_rc "$SANDCAP" run -q --no-cgroup --report "$R/sig.json" -- sh -c "kill -TERM $spid" 2> "$R/sig.err"
check_fails "rlimit mode: the sandbox cannot signal a process outside it ($(cat "$R/sig.err"))" \
	test "$rc" -eq 0
check "... which still runs" kill -0 "$spid"
like "$(json_get "$R/sig.json" .enforcement.supervisor)" 'landlock' "report: the supervisor's protection names Landlock"
kill "$spid" 2> /dev/null

# rlimit mode's temp dir: the sandbox's own TMPDIR (--env TMPDIR) is writable, sandcap's
# own and /tmp are not.
mkdir -p "$R/own" "$R/given"
TMPDIR=$R/own "$SANDCAP" run -q --no-cgroup --fs ro --env TMPDIR="$R/given" -- \
	"$FS" write "$R/given/f" write "$R/own/f" write /tmp/f > "$R/tmp.out" 2>&1
is "$(v "write $R/given/f" "$R/tmp.out")" OK "--fs ro: the sandbox's TMPDIR (--env TMPDIR) is writable"
is "$(v "write $R/own/f" "$R/tmp.out")" EACCES "--fs ro: sandcap's own TMPDIR is refused"
is "$(v "write /tmp/f" "$R/tmp.out")" EACCES "--fs ro: /tmp is refused"

kill "$lpid" 2> /dev/null
done_testing
