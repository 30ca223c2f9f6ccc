#!/bin/sh
# The helper exec'd by a hostile parent: argc 0, LD_PRELOAD/GCONV_PATH, fds 0-2 closed, RLIMIT_NOFILE 4, RLIMIT_FSIZE 0, signals blocked/ignored, no_new_privs, ptrace, SIGSTOP: it works, or refuses / fails closed, never more.
# Each line of hostile-client is one case with a fresh helper (tests/vm/hostile-client.c).
# vm-timeout: 120
# vm-cost: 4
. "$VMLIB"
# A preload library that leaves a marker: it must work on an ordinary binary (so this test
# can fail) and must be ignored by the setcap'd helper (secure execution).
cat > "$SCRATCH/pre.c" <<'C'
#include <fcntl.h>
#include <unistd.h>
__attribute__((constructor)) static void mark(void)
{
	close(open(MARKER, O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
}
C
if cc -shared -fPIC -DMARKER="\"$SCRATCH/preloaded\"" -o "$SCRATCH/pre.so" "$SCRATCH/pre.c" 2>"$SCRATCH/cc.err"; then
	LD_PRELOAD=$SCRATCH/pre.so /bin/true
	check "control: the preload library runs in an ordinary binary" test -e "$SCRATCH/preloaded"
	rm -f "$SCRATCH/preloaded"
	export HOSTILE_PRELOAD="$SCRATCH/pre.so"
	run_hostile exec
	check_fails "the helper never ran the preload library" test -e "$SCRATCH/preloaded"
else
	fail "cc builds the preload library" "$(cat "$SCRATCH/cc.err")"
	run_hostile exec
fi
done_testing
