#!/bin/sh
# A policy that requires --fs ro of one user by name ([user:sctest] fs = ro,
# 42-fs-policy-user.ini), in cgroup mode: sandcap refuses what the helper would refuse, and
# with --fallback, where only sandcap itself can see that this kernel cannot enforce the
# requirement, it refuses too (hostile review).
# vm-timeout: 30
# vm-cost: 1
# shellcheck source=tests/vm/lib.sh
. "$VMLIB"
R=$SCRATCH

run_rc "$SANDCAP" run --fs none -- sh -c "touch $R/ran" 2> "$R/err"
is "$rc" 125 "--fs none where the policy requires ro of sctest: exit 125"
like "$(cat "$R/err")" 'requires (--fs ro|--fs ro or stricter)' "... the message names the requirement"
check_fails "... the command did not run" test -e "$R/ran"
if grep -qw landlock /sys/kernel/security/lsm 2>/dev/null; then
	skip "--fs ro --fallback without Landlock: refused" "this kernel has Landlock"
else
	run_rc "$SANDCAP" run --fs ro --fallback -- sh -c "touch $R/ran" 2> "$R/err"
	is "$rc" 125 "--fs ro --fallback on a kernel without Landlock, the policy requiring ro: exit 125"
	like "$(cat "$R/err")" 'fallback: the policy requires --fs ro for you and this kernel has no Landlock' \
		"... the message says the kernel cannot enforce what the policy requires"
	check_fails "... the command did not run" test -e "$R/ran"
fi
done_testing
