#!/bin/sh
# One sandbox too many ([limits] sandboxes = 2, 39-sandcap-run-cap.ini): with two running, a
# third sandcap run is refused with exit 125 naming the ceiling and its section; once one ends,
# a new one runs.
# vm-timeout: 40
# vm-cost: 3
# shellcheck source=tests/vm/lib.sh
. "$VMLIB"
R=$SCRATCH
wait_file() { i=0; while [ $i -lt 100 ] && ! [ -e "$1" ]; do sleep 0.1; i=$((i + 1)); done; [ -e "$1" ]; }

"$SANDCAP" run -q --timeout 20 -- sh -c "cat /proc/self/cgroup > $R/a.cg; touch $R/a.up; while ! [ -e $R/a.stop ]; do sleep 0.1; done" &
a=$!
"$SANDCAP" run -q --timeout 20 -- sh -c "cat /proc/self/cgroup > $R/b.cg; touch $R/b.up; while ! [ -e $R/b.stop ]; do sleep 0.1; done" &
b=$!
wait_file "$R/a.up" && wait_file "$R/b.up"
check "both sandboxes started" test -e "$R/a.up" -a -e "$R/b.up"
like "$(cat "$R/a.cg" "$R/b.cg" | tr '\n' ' ')" '^0::/sandcap/[^ ]+ 0::/sandcap/[^ ]+ $' "both run in a leaf of /sandcap (cgroup mode)"
run_rc "$SANDCAP" run -- sh -c "touch $R/c.ran" 2> "$R/err"
is "$rc" 125 "a third sandbox: exit 125"
like "$(cat "$R/err")" 'too many sandboxes.*2.*\[limits\]' "a third sandbox: the message names the ceiling 2 and [limits]"
check_fails "a third sandbox: its command did not run" test -e "$R/c.ran"
diag "$(cat "$R/err")"
touch "$R/a.stop"
wait "$a"
is "$?" 0 "the first sandbox ends cleanly"
run_rc "$SANDCAP" run -q -- true
is "$rc" 0 "with one running, a new sandbox runs"
touch "$R/b.stop"
wait "$b"
is "$?" 0 "the second sandbox ends cleanly"
done_testing
