#!/bin/sh
# The static sandcap and its dynamic twin (frontend/nss.h, issue 19): nss-check can fail;
# a plain run never touches NSS; what needs NSS or sd-bus is handed to the twin before
# sandcap opens or prints anything, with the same arguments; the twin's marker reaches
# neither the command nor the report; an untrusted or missing twin is a refusal.
. "$SRCDIR/tests/integration/libtest.sh"

# nss-check: a static program that calls getpwuid() is rejected, and so is a dynamic one.
cat > "$T/bad.c" <<'C'
#include <pwd.h>
#include <unistd.h>
int main(void) { return getpwuid(getuid()) == 0; }
C
libc_a=$(cc -print-file-name=libc.a 2>/dev/null)
if [ "${libc_a#/}" = "$libc_a" ]; then
	skip "nss-check rejects a static getpwuid(): no libc.a here"
elif cc -static-pie -Wl,-Map="$T/bad.map" -o "$T/bad" "$T/bad.c" 2>/dev/null; then
	out=$(sh "$SRCDIR/tools/nss-check.sh" "$T/bad" "$T/bad.map" 2>&1); r=$?
	if [ "$r" -ne 0 ]; then
		contains "nss-check rejects a static getpwuid()" "getpwuid" "$out"
	else
		notok "nss-check rejects a static getpwuid() (it passed)"
	fi
else
	skip "nss-check rejects a static getpwuid(): cc -static-pie failed here"
fi
cc -o "$T/bad2" -Wl,-Map="$T/bad2.map" "$T/bad.c"
out=$(sh "$SRCDIR/tools/nss-check.sh" "$T/bad2" "$T/bad2.map" 2>&1); r=$?
if [ "$r" -ne 0 ]; then
	contains "nss-check rejects a dynamic program" "not static" "$out"
else
	notok "nss-check rejects a dynamic program (it passed)"
fi

if readelf -lW "$SANDCAP" | grep -q INTERP; then
	skip "the static sandcap: built with SANDCAP_STATIC=0 (no libc.a, SANITIZE=1)"
	done_testing
fi
objs="$BUILD/frontend/main.o $BUILD/frontend/nss-static.o $BUILD/libfrontend.a $BUILD/libsandcap.a"
# shellcheck disable=SC2086
expect "nss-check passes the built sandcap and its objects" sh "$SRCDIR/tools/nss-check.sh" \
	"$SANDCAP" "$BUILD/sandcap.map" $objs
# An object of the project's that calls setlocale() (gconv modules, static dlopen) is not.
printf '#include <locale.h>\nvoid f(void);\nvoid f(void) { setlocale(LC_ALL, ""); }\n' > "$T/loc.c"
cc -c -o "$T/loc.o" "$T/loc.c"
# shellcheck disable=SC2086
out=$(sh "$SRCDIR/tools/nss-check.sh" "$SANDCAP" "$BUILD/sandcap.map" $objs "$T/loc.o" 2>&1); r=$?
if [ "$r" -ne 0 ]; then
	contains "nss-check rejects an object that calls setlocale()" "setlocale" "$out"
else
	notok "nss-check rejects an object that calls setlocale() (it passed)"
fi
out=$(sh "$SRCDIR/tools/nss-check.sh" "$SANDCAP" "$T/no.map" 2>&1); r=$?
eq "nss-check fails without its link map" "1" "$r"

# A plain run in rlimit mode: sandcap itself (not -f: the command is dynamic) opens no
# shared library, nsswitch.conf or NSS module.
if ! command -v strace >/dev/null 2>&1; then
	skip "a plain run opens no shared library, NSS file or module: strace is not installed"
else
	as_user strace -e trace=open,openat -o "$T/trace" "$SANDCAP" run -q -- true
	r=$?; files=$(grep -cE 'nsswitch\.conf|libnss_|/etc/passwd|/etc/group|\.so[."]' "$T/trace")
	if [ "$r" -eq 0 ] && [ "$files" -eq 0 ]; then
		ok "a plain run opens no shared library, NSS file or module"
	else
		notok "a plain run opens no shared library, NSS file or module (rc=$r): $(grep -E 'nss|passwd|group|\.so' "$T/trace")"
	fi
fi

# A copy of sandcap beside a stand-in twin that records how it was run.
mkdir -m 0755 "$T/bin" && cp "$SANDCAP" "$T/bin/sandcap" && chmod 0755 "$T/bin/sandcap"
# (A program, not a script: sandcap runs its twin through a close-on-exec descriptor.)
cat > "$T/fake.c" <<'C'
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
	int out_open = fcntl(1, F_GETFD) >= 0;
	FILE *f = fopen(CALLED, "w");
	const char *why = getenv("SANDCAP_NSS_HANDOVER");

	if (f == NULL)
		return 99;
	fprintf(f, "stdout=%s\n", out_open ? "open" : "closed");
	fprintf(f, "why=%s\nargv=", why ? why : "");
	for (int i = 1; i < argc; i++)
		fprintf(f, "%s%s", i > 1 ? " " : "", argv[i]);
	fprintf(f, "\n");
	return fclose(f) == 0 ? 42 : 99;
}
C
cc -DCALLED="\"$T/called\"" -o "$T/bin/sandcap-nss" "$T/fake.c" || notok "cannot build the stand-in twin"
chmod 0755 "$T/bin/sandcap-nss"
twin() {
	rm -f "$T/called" "$T/r.json"
	as_user "$T/bin/sandcap" "$@" > "$T/out" 2> "$T/err"; rc=$?
	called=$(cat "$T/called" 2>/dev/null)
}
twin run -q --report "$T/r.json" -- true
eq "a plain run stays static (exit 0)" 0 "$rc"
eq "... the twin is not run" "" "$called"
twin run -q --net proxy --report "$T/r.json" -- true
eq "--net proxy: handed to the twin (its exit status)" 42 "$rc"
contains "... which is told why" "why=--net proxy" "$called"
contains "... with the same arguments" "argv=run -q --net proxy --report $T/r.json -- true" "$called"
expect "... before the report was opened" test ! -e "$T/r.json"
eq "... and nothing printed first" "" "$(cat "$T/out" "$T/err")"
contains "... its stdout open as sandcap's was" "stdout=open" "$called"
rm -f "$T/called"
as_user "$T/bin/sandcap" run -q --net proxy -- true >&- 2> "$T/err"
contains "a closed stdout: closed for the twin too (not /dev/null)" "stdout=closed" \
	"$(cat "$T/called" 2>/dev/null)"
for c in doctor "policy show" "trace -- true"; do
	# shellcheck disable=SC2086
	twin $c
	eq "sandcap $c: handed to the twin" 42 "$rc"
done
# A runtime directory with a socket of a user manager: user-cgroup mode is the twin's.
as_user mkdir -m 0700 "$T/xdg"
# Made by whoever runs the tests (root may write into the test user's directory).
if python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$T/xdg/bus"; then
	rm -f "$T/called"
	as_user env XDG_RUNTIME_DIR="$T/xdg" "$T/bin/sandcap" run -q -- true > "$T/out" 2> "$T/err"
	rc=$?; called=$(cat "$T/called" 2>/dev/null)
	eq "a user manager's socket: handed to the twin" 42 "$rc"
	contains "... for user-cgroup mode" "why=user-cgroup mode" "$called"
	as_user env XDG_RUNTIME_DIR="$T/xdg" "$T/bin/sandcap" run -q --no-cgroup -- true \
		> "$T/out" 2> "$T/err"
	eq "... not with --no-cgroup (no user-cgroup mode to try)" 0 "$?"
else
	skip "a user manager's socket: handed to the twin: cannot make a socket here"
fi

# The marker of a handover is refused from outside (no loop), and the twin drops it.
rm -f "$T/called"
as_user env SANDCAP_NSS_HANDOVER=x "$T/bin/sandcap" run -q --net proxy -- true > "$T/out" 2> "$T/err"
eq "a handover marker in sandcap's own environment: refused" 125 "$?"
contains "... saying so" "handed the run back" "$(cat "$T/err")"
if [ -x "$BUILD/sandcap-nss" ]; then
	sandcap_run -q --net proxy --report "$T/r.json" -- env
	if [ "$rc" -eq 0 ] && ! grep -q SANDCAP_NSS "$T/out" "$T/r.json"; then
		ok "the real twin: its marker reaches neither the command nor the report"
	else
		notok "the real twin: its marker reaches neither the command nor the report (rc=$rc): $(grep SANDCAP_NSS "$T/out" "$T/r.json") $(cat "$T/err")"
	fi
else
	notok "the real twin: $BUILD/sandcap-nss was not built"
fi

# A twin in a directory others may write to, or one others may write, is passed over for the
# next place (hostile review: another user's file there stopped the run from reaching an
# installed twin); here a trusted stand-in in ../libexec/sandcap, which records elsewhere.
mkdir -m 0755 "$T/libexec" "$T/libexec/sandcap"
cc -DCALLED="\"$T/called2\"" -o "$T/libexec/sandcap/sandcap-nss" "$T/fake.c"
chmod 0775 "$T/bin"; rm -f "$T/called2"
twin run -q --net proxy -- true
eq "a group-writable directory: its twin is passed over for a trusted one" "42:" "$rc:$called"
contains "... which runs" "why=--net proxy" "$(cat "$T/called2" 2>/dev/null)"
chmod 0755 "$T/bin"; chmod 0777 "$T/bin/sandcap-nss"; rm -f "$T/called2"
twin run -q --net proxy -- true
eq "a twin others may write: passed over for a trusted one" "42:" "$rc:$called"
contains "... which runs" "why=--net proxy" "$(cat "$T/called2" 2>/dev/null)"
rm -rf "$T/libexec"
if [ -e /usr/libexec/sandcap/sandcap-nss ] || [ -e /usr/local/libexec/sandcap/sandcap-nss ]; then
	skip "no trusted twin anywhere: refused: an installed twin is there to fall back to"
else
	twin run -q --net proxy -- true
	eq "only a twin others may write: not run, the run refused" "125:" "$rc:$called"
	chmod 0755 "$T/bin/sandcap-nss"; chmod 0775 "$T/bin"
	twin run -q --net proxy -- true
	eq "only a twin in a group-writable directory: not run, the run refused" "125:" "$rc:$called"
	contains "... with the fix" "chmod go-w $T/bin" "$(cat "$T/err")"
	chmod 0755 "$T/bin"
	ln -sf "$BUILD/sandcap-nss" "$T/bin/sandcap-nss.link"
	mv "$T/bin/sandcap-nss" "$T/fake-nss" && mv "$T/bin/sandcap-nss.link" "$T/bin/sandcap-nss"
	twin run -q --net proxy -- true
	eq "a symbolic link as the twin: not followed, refused" "125:" "$rc:$called"
	contains "... saying so" "not a regular file (a symbolic link is not followed)" "$(cat "$T/err")"
	rm -f "$T/bin/sandcap-nss"
	twin run -q --net proxy --report "$T/r.json" -- true
	eq "no twin anywhere: the run is refused" 125 "$rc"
	contains "... naming every place looked at" \
		"$T/bin/sandcap-nss: No such file or directory; $T/bin/../libexec/sandcap/sandcap-nss:" \
		"$(cat "$T/err")"
	contains "... and the fix" "reinstall sandcap" "$(cat "$T/err")"
	eq "... with a setup-error report" setup-error "$(json "$T/r.json" '["verdict"]')"
fi
done_testing
