#!/bin/sh
# A policy requiring both net and fs (42-policy-requirements.ini: [limits] fs = ro,
# [user:sctest] net = none): a run that misses both is refused naming both at once, each
# with the section that set it, by the helper (cgroup mode) and by sandcap itself
# (--no-cgroup, rlimit mode).
# vm-timeout: 30
# vm-cost: 2
# shellcheck source=tests/vm/lib.sh
. "$VMLIB"
R=$SCRATCH
both='requires --net none or stricter \(set by \[user:sctest\]\) and --fs ro or stricter \(set by \[limits\]\)'

run_rc "$SANDCAP" run -- sh -c "touch $R/ran" 2> "$R/err"
is "$rc" 125 "cgroup mode, --net host --fs none under net = none and fs = ro: exit 125"
like "$(cat "$R/err")" "$both" "... the helper names both requirements and their sections at once"
check_fails "... the command did not run" test -e "$R/ran"
diag "$(cat "$R/err")"

run_rc "$SANDCAP" run --no-cgroup -- sh -c "touch $R/ran" 2> "$R/err"
is "$rc" 125 "rlimit mode, the same run: exit 125"
like "$(cat "$R/err")" "$both" "... sandcap names both requirements and their sections at once"
check_fails "... the command did not run" test -e "$R/ran"

run_rc "$SANDCAP" run --no-cgroup --net none -- sh -c "touch $R/ran" 2> "$R/err"
like "$(cat "$R/err")" 'requires --fs ro or stricter \(set by \[limits\]\) for you' \
	"one requirement met: only the other is named"
done_testing
