#!/bin/sh
# t-isolate.sh: --fs (Landlock) and --net none (seccomp + Landlock) through `sandcap run`, on the
# host kernel.  TAP output.  Env (from tests/integration/run.sh): SANDCAP, BUILD, SRCDIR.
# Run as root, the sandboxed side runs as nobody (setpriv), so file permissions alone would
# allow what the test expects Landlock to refuse: every refused path is one nobody may
# otherwise read or write.
set -u
: "${SANDCAP:?}" "${BUILD:?}"
PROBES=$BUILD/tests
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
skip() { n=$((n + 1)); echo "ok $n - # SKIP $*"; }
# check NAME EXPECTED OUTPUT-FILE LINE-PREFIX: the probe line "PREFIX: X" must say EXPECTED.
check() {
	got=$(grep -F -- "$3: " "$2" | head -1 | sed 's/.*: //')
	if [ "$got" = "$1" ]; then ok "$4 ($3: $got)"; else notok "$4 ($3: want $1, got '${got:-no line}')"; fi
}
# check_not: the line must exist and must not say OK.
check_not_ok() {
	got=$(grep -F -- "$2: " "$1" | head -1 | sed 's/.*: //')
	if [ -n "$got" ] && [ "$got" != OK ]; then ok "$3 ($2: $got)"; else notok "$3 ($2: '${got:-no line}')"; fi
}

T=$(mktemp -d /tmp/sandcap-isolate.XXXXXX)
cleanup() {
	[ -n "${LPID:-}" ] && kill "$LPID" 2>/dev/null
	[ -n "${SANDCAP_TEST_KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT INT TERM
chmod 755 "$T"
mkdir -p "$T/out" "$T/grant" "$T/tmp" "$T/home" "$T/rep"
echo original > "$T/out/f"
echo secret > "$T/home/secret"
chmod 644 "$T/out/f" "$T/home/secret"

as_user() { "$@"; }
USERCMD=
if [ "$(id -u)" = 0 ]; then
	chown 65534:65534 "$T/out" "$T/out/f" "$T/grant" "$T/tmp" "$T/home" "$T/home/secret" \
		"$T/rep"
	as_user() { setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"; }
	USERCMD="setpriv --reuid=65534 --regid=65534 --clear-groups --"
fi
cd "$T" || exit 1
# The system's python: a python3 earlier in root's PATH (pyenv) may be unreadable to nobody.
SYSPY=/usr/bin/python3
[ -x "$SYSPY" ] || SYSPY=$(command -v python3)
export TMPDIR="$T/tmp"

sandcap() { as_user "$SANDCAP" run -q "$@"; }
json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval("d" + sys.argv[2]))' "$@" 2>/dev/null; }

# ---- Does this kernel have Landlock, and which ABI? ----
# Rights newer than the host's ABI are not enforced (docs/isolation.md): a check that needs
# one is a skip naming the ABI it needs on an older kernel.
abi=$(sandcap --fs ro --report "$T/rep/abi.json" -- sh -c 'exit 0' 2>&1 >/dev/null; echo "rc=$?")
case "$abi" in
*rc=0) have_ll=1 ;;
*"no Landlock"*) have_ll=0 ;;
*) have_ll=0; notok "sandcap run --fs ro works at all: $abi" ;;
esac
ll_abi=0
[ "$have_ll" = 1 ] && ll_abi=$(json "$T/rep/abi.json" '["enforcement"]["fs"]' | sed -n 's/^landlock (ABI \([0-9]*\)).*/\1/p')
ll_abi=${ll_abi:-0}
# need_abi N DESC: true when the host's Landlock ABI is at least N, else a skip of DESC.
need_abi() {
	[ "$ll_abi" -ge "$1" ] && return 0
	skip "$2: needs Landlock ABI $1, this kernel has ABI $ll_abi"; return 1
}

if [ "$have_ll" = 1 ]; then
	# ---- --fs ro ----
	sandcap --fs ro --rw "$T/grant" --report "$T/rep/r1.json" -- "$PROBES/probe-fs" \
		write "$T/out/new" append "$T/out/f" trunc "$T/out/f" mkdir "$T/out/d" \
		unlink "$T/out/f" mknod-fifo "$T/out/fifo" symlink /etc "$T/out/l" \
		read "$T/home/secret" write "$TMPDIR/a" write "$T/grant/b" mkdir "$T/grant/d" \
		write /dev/null write "/proc/self/root$T/out/viaproc" \
		rename "$TMPDIR/a" "$T/out/moved" link "$T/out/f" "$T/grant/hardlink" \
		symlink "$T/out/f" "$TMPDIR/sl" write "$TMPDIR/sl" > "$T/o1" 2>&1
	check EACCES "$T/o1" "write $T/out/new" "ro: creating a file outside the granted paths fails"
	check EACCES "$T/o1" "append $T/out/f" "ro: appending to an existing file fails"
	need_abi 3 "ro: truncating fails" && check EACCES "$T/o1" "trunc $T/out/f" "ro: truncating fails"
	check EACCES "$T/o1" "mkdir $T/out/d" "ro: mkdir outside fails"
	check EACCES "$T/o1" "unlink $T/out/f" "ro: unlink outside fails"
	check EACCES "$T/o1" "mknod-fifo $T/out/fifo" "ro: mkfifo outside fails"
	check EACCES "$T/o1" "symlink /etc -> $T/out/l" "ro: symlink outside fails"
	check OK "$T/o1" "read $T/home/secret" "ro: everything stays readable"
	check OK "$T/o1" "write $TMPDIR/a" "ro: TMPDIR is writable"
	check OK "$T/o1" "write $T/grant/b" "ro: --rw PATH is writable"
	check OK "$T/o1" "mkdir $T/grant/d" "ro: --rw PATH allows mkdir"
	check OK "$T/o1" "write /dev/null" "ro: /dev/null is writable (with O_TRUNC)"
	check EACCES "$T/o1" "write /proc/self/root$T/out/viaproc" "ro: no way around via /proc/self/root"
	check_not_ok "$T/o1" "rename $TMPDIR/a -> $T/out/moved" "ro: moving a file out of TMPDIR fails"
	check_not_ok "$T/o1" "link $T/out/f -> $T/grant/hardlink" "ro: hard-linking an outside file into a granted dir fails"
	check EACCES "$T/o1" "write $TMPDIR/sl" "ro: writing through a symlink to an outside file fails"
	if [ "$(cat "$T/out/f")" = original ] && [ ! -e "$T/out/new" ]; then
		ok "ro: the outside files are unchanged"
	else
		notok "ro: the outside files are unchanged"
	fi
	e=$(json "$T/rep/r1.json" '["enforcement"]["fs"]')
	case "$e" in "landlock (ABI "[1-9]*")") ok "report: enforcement.fs is '$e'" ;;
	*) notok "report: enforcement.fs is '$e'" ;; esac

	# ---- --fs strict ----
	sandcap --fs strict --ro "$PROBES" -- "$PROBES/probe-fs" read "$T/home/secret" \
		readdir "$T" read /etc/passwd readdir /usr exec /bin/true write "$TMPDIR/s" \
		read /proc/self/status read /dev/urandom write "$T/out/s" > "$T/o2" 2>&1
	check EACCES "$T/o2" "read $T/home/secret" "strict: a file outside the system dirs is unreadable"
	check EACCES "$T/o2" "readdir $T" "strict: listing an outside dir fails"
	check OK "$T/o2" "read /etc/passwd" "strict: /etc is readable"
	check OK "$T/o2" "readdir /usr" "strict: /usr is listable"
	check OK "$T/o2" "exec /bin/true" "strict: system binaries run"
	check OK "$T/o2" "write $TMPDIR/s" "strict: TMPDIR is writable"
	check OK "$T/o2" "read /proc/self/status" "strict: /proc is readable"
	check OK "$T/o2" "read /dev/urandom" "strict: /dev/urandom is readable"
	check EACCES "$T/o2" "write $T/out/s" "strict: writes outside fail"
	# The temp dir Landlock keeps writable is the sandbox's TMPDIR, never sandcap's own: with
	# --env TMPDIR=DIR the sandbox writes DIR, and the caller's TMPDIR is refused to it.
	mkdir -p "$T/tmp2"; [ -n "$USERCMD" ] && chown 65534:65534 "$T/tmp2"
	for fs in ro strict; do
		sandcap --fs "$fs" --ro "$PROBES" --env TMPDIR="$T/tmp2" -- "$PROBES/probe-fs" \
			write "$T/tmp2/$fs" write "$TMPDIR/$fs-own" > "$T/o-tmp-$fs" 2>&1
		check OK "$T/o-tmp-$fs" "write $T/tmp2/$fs" "$fs: the sandbox's TMPDIR (--env TMPDIR) is writable"
		check EACCES "$T/o-tmp-$fs" "write $TMPDIR/$fs-own" "$fs: sandcap's own TMPDIR is not the sandbox's: refused"
	done
	sandcap --fs strict --ro "$PROBES" --ro "$T/home" -- "$PROBES/probe-fs" read "$T/home/secret" \
		write "$T/home/secret" > "$T/o3" 2>&1
	check OK "$T/o3" "read $T/home/secret" "strict: --ro PATH makes it readable"
	check EACCES "$T/o3" "write $T/home/secret" "strict: --ro PATH stays read-only"
	if out=$(sandcap --fs strict -- python3 -c 'import json, email, os; print(json.dumps([1]))' 2>&1) &&
	   [ "$out" = "[1]" ]; then
		ok "strict: python3 imports modules"
	else
		notok "strict: python3 imports modules: $out"
	fi
	if out=$(sandcap --fs strict -- sh -c 'echo hi > /dev/null && ls /usr/bin >/dev/null && echo fine' 2>&1) &&
	   [ "$out" = fine ]; then
		ok "strict: a shell pipeline with redirections works"
	else
		notok "strict: a shell pipeline with redirections works: $out"
	fi
	# A program outside the system directories, not named by --ro: 126, and the message
	# says which option lets it run.
	out=$(sandcap --fs strict -- "$PROBES/probe-fs" 2>&1)
	rc=$?
	case "$rc $out" in
	"126 "*"needs its directory named: --ro DIR"*)
		ok "strict: a program outside the system dirs is not executed (126), the message names --ro DIR" ;;
	*) notok "strict: a program outside the system dirs is not executed (126), the message names --ro DIR (rc $rc: $out)" ;;
	esac

	# A relative --rw is taken from sandcap's working directory ($T), also when the command
	# starts elsewhere (--chdir /): the plan asks for the directory only when a path is
	# relative (issue 19), and must still ask then.
	if out=$(sandcap --fs ro --rw grant --chdir / -- sh -c "echo x > $T/grant/rel && echo fine" 2>&1) &&
	   [ "$out" = fine ] && [ -s "$T/grant/rel" ]; then
		ok "a relative --rw is granted from sandcap's directory, under --chdir /"
	else
		notok "a relative --rw is granted from sandcap's directory, under --chdir /: $out"
	fi

	# ---- errors ----
	out=$(sandcap --fs ro --rw "$T/nonexistent" -- true 2>&1); rc=$?
	case "$rc:$out" in
	"125:"*"--rw $T/nonexistent"*) ok "--rw of a missing path: exit 125 naming the option and path" ;;
	*) notok "--rw of a missing path: rc=$rc '$out'" ;;
	esac
	out=$(sandcap --fs strict --ro "$T/nonexistent" -- true 2>&1); rc=$?
	case "$rc:$out" in
	"125:"*"--ro $T/nonexistent"*) ok "--ro of a missing path: exit 125 naming the option and path" ;;
	*) notok "--ro of a missing path: rc=$rc '$out'" ;;
	esac
	# A path that is not UTF-8 is named escaped, as everywhere else (never its raw bytes).
	out=$(sandcap --fs ro --rw "$(printf '%s/\377x' "$T")" -- true 2>&1); rc=$?
	case "$rc:$out" in
	"125:"*"--rw $T/\\xffx: "*) ok "--rw of a path that is not UTF-8: named escaped (\\xff)" ;;
	*) notok "--rw of a path that is not UTF-8: rc=$rc '$out'" ;;
	esac
else
	skip "no Landlock on this kernel: the --fs tests need it"
	out=$(sandcap --fs ro -- true 2>&1); rc=$?
	case "$rc:$out" in
	"125:"*"--fallback"*) ok "--fs without Landlock: exit 125, suggests --fallback" ;;
	*) notok "--fs without Landlock: rc=$rc '$out'" ;;
	esac
fi

# ---- --net none ----
# Listeners outside the sandbox: TCP and UDP on 127.0.0.1, a pathname and an abstract UNIX
# socket; an unconnected TCP socket on fd 5 for the sandbox to inherit.
cat > "$T/listen.py" <<'EOF'
import os, socket, sys, time
d = sys.argv[1]
t = socket.socket(); t.bind(("127.0.0.1", 0)); t.listen(8)
u = socket.socket(type=socket.SOCK_DGRAM); u.bind(("127.0.0.1", t.getsockname()[1]))
p = socket.socket(socket.AF_UNIX); p.bind(d + "/sock"); p.listen(8); os.chmod(d + "/sock", 0o777)
a = socket.socket(socket.AF_UNIX); a.bind("\0sandcap-isolate-%d" % os.getpid()); a.listen(8)
with open(d + "/port.tmp", "w") as f:
    f.write("%d %d\n" % (t.getsockname()[1], os.getpid()))
os.rename(d + "/port.tmp", d + "/port")
t.settimeout(30)
end = time.time() + 60
while time.time() < end:
    time.sleep(0.5)
EOF
python3 "$T/listen.py" "$T" & LPID=$!
i=0; while [ ! -s "$T/port" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
read -r port lpid < "$T/port"
abstract="sandcap-isolate-$lpid"

runnet() {   # runnet OUTFILE SANDCAP-RUN-ARGS...: probe-net with an inherited TCP socket on fd 5
	o=$1; shift
	# shellcheck disable=SC2086
	$USERCMD "$SYSPY" -c 'import os, socket, sys
s = socket.socket(); os.dup2(s.fileno(), 5); os.set_inheritable(5, True)
os.execvp(sys.argv[1], sys.argv[1:])' "$SANDCAP" run -q "$@" > "$o" 2>&1
}

runnet "$T/n0" --net host -- "$PROBES/probe-net" --port "$port" \
	--unix "$T/sock" --fd 5
check OK "$T/n0" socket_tcp4 "net host: the probe can open TCP sockets (control)"
check OK "$T/n0" connect_tcp4_loopback "net host: the probe reaches the listener (control)"

runnet "$T/n1" --net none --report "$T/rep/r2.json" -- "$PROBES/probe-net" \
	--port "$port" --unix "$T/sock" --abstract "$abstract" --fd 5
check EAFNOSUPPORT "$T/n1" socket_tcp4 "net none: TCP socket refused"
check EAFNOSUPPORT "$T/n1" socket_udp4 "net none: UDP socket refused"
check EAFNOSUPPORT "$T/n1" socket_tcp6 "net none: TCPv6 socket refused"
check EAFNOSUPPORT "$T/n1" socket_udp6 "net none: UDPv6 socket refused"
check EAFNOSUPPORT "$T/n1" socket_netlink "net none: netlink refused"
check EAFNOSUPPORT "$T/n1" socket_tcp4_highbits "net none: junk in the domain's high bits does not pass"
check_not_ok "$T/n1" connect_tcp4_loopback "net none: connect to a listener on 127.0.0.1 fails"
check_not_ok "$T/n1" sendto_udp4_loopback "net none: UDP to 127.0.0.1 fails"
check OK "$T/n1" socketpair_stream "net none: socketpair still works"
check ENOSYS "$T/n1" io_uring_setup "net none: io_uring_setup refused"
check EPERM "$T/n1" unshare_newuser "net none: unshare(CLONE_NEWUSER) refused"
check EPERM "$T/n1" clone_newuser "net none: clone(CLONE_NEWUSER) refused"
check ENOSYS "$T/n1" clone3 "net none: clone3 refused (ENOSYS, glibc falls back to clone)"
check EPERM "$T/n1" setns "net none: setns refused"
check EPERM "$T/n1" ioctl_tiocsti "net none: TIOCSTI terminal injection refused"
check EPERM "$T/n1" ioctl_tiocsti_highbits "net none: TIOCSTI with junk high bits refused"
# With Landlock ABI >= 4 an inherited TCP socket cannot connect either (EBADF if sandcap
# closed it first, which is as good).
if [ "$have_ll" = 1 ] && need_abi 4 "net none: an inherited TCP socket cannot connect"; then
	check_not_ok "$T/n1" connect_inherited_tcp "net none: an inherited TCP socket cannot connect"
fi
e=$(json "$T/rep/r2.json" '["enforcement"]["net"]')
case "$have_ll:$e" in
1:"seccomp+landlock (ABI "*) ok "report: enforcement.net is '$e'" ;;
1:seccomp) ok "report: enforcement.net is '$e' (Landlock ABI < 4)" ;;
0:seccomp) ok "report: enforcement.net is '$e'" ;;
*) notok "report: enforcement.net is '$e'" ;;
esac
if grep -q '^connect_unix_abstract: EPERM' "$T/n1"; then
	ok "net none: abstract UNIX socket outside the sandbox refused (Landlock ABI >= 6)"
elif [ "$have_ll" = 1 ] && grep -q '"seccomp+landlock (ABI [6-9]' "$T/rep/r2.json"; then
	notok "net none: abstract UNIX socket outside the sandbox refused"
else
	skip "abstract UNIX scoping needs Landlock ABI 6"
fi

if [ "$have_ll" = 1 ]; then
	# With a filesystem policy, pathname UNIX sockets are closed too.
	runnet "$T/n2" --net none --fs ro -- "$PROBES/probe-net" \
		--port "$port" --unix "$T/sock" --fd 5
	check_not_ok "$T/n2" connect_unix_path "net none + fs ro: connect to a pathname UNIX socket fails"
	check_not_ok "$T/n2" sendto_unix_path_dgram_pair "net none + fs ro: a datagram socketpair cannot reach a socket file"
	check OK "$T/n2" socketpair_stream "net none + fs ro: socketpair still works"
	check EAFNOSUPPORT "$T/n2" socket_tcp4 "net none + fs ro: TCP refused"
fi

# Other system-call ABIs: the filter kills rather than lets them through.
as_user "$SANDCAP" run -q --net none -- "$PROBES/probe-net" x32 > "$T/n3" 2>&1; rc=$?
if [ $rc = 159 ]; then ok "net none: x32 system call kills the process (SIGSYS)"
else notok "net none: x32 system call kills the process: rc=$rc $(cat "$T/n3")"; fi
# The i386 ABI only where the kernel has it: without IA-32 emulation int 0x80 faults
# (SIGSEGV) before any filter sees it, with or without sandcap.  Probed without sandcap.
ia32=$("$PROBES/probe-net" ia32-probe 2>&1); rc=$?
case $rc in
0)
	as_user "$SANDCAP" run -q --net none -- "$PROBES/probe-net" i386 > "$T/n4" 2>&1; rc=$?
	if [ $rc = 159 ]; then ok "net none: i386 int 0x80 socketcall kills the process (SIGSYS)"
	else notok "net none: i386 socketcall kills the process: rc=$rc $(cat "$T/n4")"; fi ;;
3) skip "net none: i386 socketcall kills the process: $ia32" ;;
*) notok "the IA-32 emulation probe works: rc=$rc $ia32" ;;
esac

kill "$LPID" 2>/dev/null; wait "$LPID" 2>/dev/null; LPID=
echo "1..$n"
[ "$failed" -eq 0 ]
