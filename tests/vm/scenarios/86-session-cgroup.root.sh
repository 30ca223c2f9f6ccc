#!/bin/sh
# sandcap session where sandcap run would use cgroup mode (the guest's helper): refused with
# the reason and the fix, never a session that pretends to hold cgroup limits; with
# --no-cgroup an rlimit-mode session, whose calls run in rlimit mode and leave nothing.
# vm-timeout: 90
# vm-cost: 3
# shellcheck source=tests/vm/lib.sh
. "$VMLIB"
R=$SCRATCH
XDG_RUNTIME_DIR=$R/xdg
export XDG_RUNTIME_DIR
mkdir -m 0700 "$XDG_RUNTIME_DIR"

run_rc "$SANDCAP" run -q --report "$R/probe.json" -- true
if [ "$(json_get "$R/probe.json" .mode)" != cgroup ]; then
	skip "session start refused in cgroup mode" "sandcap run does not use cgroup mode here"
	done_testing
	exit 0
fi
"$SANDCAP" session start > "$R/start.out" 2> "$R/start.err"; rc=$?
is "$rc" 125 "session start where sandcap run uses cgroup mode: refused (125)"
like "$(cat "$R/start.err")" "sessions run in rlimit mode for now.*--no-cgroup" \
	"... saying sessions run in rlimit mode and giving --no-cgroup"
check_fails "... and no session is left" test -n "$(ls "$XDG_RUNTIME_DIR/sandcap/sessions" 2>/dev/null)"

id=$("$SANDCAP" session start --no-cgroup --ttl 2m)
is "$?" 0 "session start --no-cgroup: an rlimit-mode session"
run_rc "$SANDCAP" run -q --session "$id" --report "$R/call.json" -- true
is "$rc" 0 "a call of it runs"
is "$(json_get "$R/call.json" .mode)" rlimit "... in rlimit mode, as its report says"
"$SANDCAP" session end "$id" > /dev/null
check_fails "session end leaves nothing" test -e "$XDG_RUNTIME_DIR/sandcap/sessions/$id"
done_testing
