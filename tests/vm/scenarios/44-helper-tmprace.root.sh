#!/bin/sh
# The helper never makes .locks or the deadline dir: without them (or with a .locks that is
# not root's 0700) it refuses, naming sandcap-setup, and makes nothing.  Then a racer
# watching workspace_root with inotify makes every new directory 0777, plants a subdir and
# a symlink in it, while sctest's sessions run.  Afterwards no directory under
# workspace_root is world-writable, no temporary (.new-*) is left, .locks is root 0700.
# vm-timeout: 300
# vm-cost: 3
# shellcheck source=tests/vm/lib.sh
. "$VMLIB"
W=/run/sandcap
DL=/run/sandcap-deadlines
probe() { env SANDCAP_HELPER="$SANDCAP_HELPER" vm-as-user sctest "$TESTS/probe-client" "$@"; }
rm -rf "$W/.locks"
# What earlier scenarios left (the per-user dirs stay, root's and empty) is not this one's.
before=$(find "$W" -mindepth 1 | sort | tr '\n' ' ')
out=$(probe -a none 2>&1)
like "$out" "error .*\.locks: No such file.*run sandcap-setup" \
	"without .locks: refused, naming sandcap-setup"
check_fails "the helper did not make .locks" test -e "$W/.locks"
is "$(find "$W" -mindepth 1 | sort | tr '\n' ' ')" "$before" "nothing made in $W"
mkdir -m 0755 "$W/.locks"
like "$(probe -a none 2>&1)" "error .*\.locks: Operation not permitted.*run sandcap-setup" \
	"a .locks of mode 0755: refused"
chmod 0700 "$W/.locks"
rm -rf "$DL"
like "$(probe -a none -t 60000 2>&1)" "error .*deadline.*No such file.*run sandcap-setup" \
	"without the deadline dir, a sandbox with a timeout: refused, naming sandcap-setup"
check_fails "the helper did not make $DL" test -e "$DL"
mkdir -m 0700 "$DL"
env SANDCAP_HELPER="$SANDCAP_HELPER" vm-as-user sctest "$TESTS/hostile-client" tmprace 10 \
	> "$SCRATCH/race.out" 2> "$SCRATCH/race.err"
hostile_tap "$SCRATCH/race.out"
diag "$(tail -n 1 "$SCRATCH/race.err")"
is "$(find "$W" -perm -0002 \! -type l | tr '\n' ' ')" "" "no world-writable entry under $W"
is "$(find "$W" -name '.new-*' | tr '\n' ' ')" "" "no temporary left under $W"
is "$(stat -c '%U:%G %a' "$W/.locks")" "root:root 700" ".locks is root:root 0700"
is "$(find "$W" -mindepth 1 -maxdepth 1 \! -name .locks \! -name '[0-9]*' | tr '\n' ' ')" "" \
	"nothing but .locks and the per-user dirs left in $W"
is "$(find "$W" -mindepth 1 -maxdepth 1 -name '[0-9]*' \! \( -user root -group root -perm 0755 \
	-type d -empty \) | tr '\n' ' ')" "" "the per-user dirs stay, root:root 0755 and empty"
check "sctest's is one of them" test -d "$W/$SCTEST_UID"
# A stale temporary (a helper killed between its mkdir and its chown: still the user's, and
# empty, as nobody but the helpers can reach into .locks) is swept by the next helper of
# that uid.
mkdir -m 0777 "$W/.locks/.new-$SCTEST_UID-00000000deadbeef"
chown sctest: "$W/.locks/.new-$SCTEST_UID-00000000deadbeef"
run_rc vm-as-user sctest env SANDCAP_HELPER="$SANDCAP_HELPER" "$SANDCAP" run -q -- true
is "$rc" 0 "the next run of the user succeeds"
check_fails "it removed the stale temporary" test -e "$W/.locks/.new-$SCTEST_UID-00000000deadbeef"
done_testing
