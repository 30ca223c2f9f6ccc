#!/bin/sh
# A uid without a passwd entry, under a policy that names users (38-sandcap-run-nameless.ini):
# in rlimit mode sandcap judges it by what applies to every user (the default timeout, 7 s)
# and to its process's groups ([group:scdev] caps it at 3 s), never by no policy at all
# (hostile reviews: it ran with no timeout, then escaped its group's section).  Named users get their
# own (sctest: its section caps the default at 5 s).
# vm-timeout: 30
# vm-cost: 1
# shellcheck source=tests/vm/lib.sh
. "$VMLIB"
R=$SCRATCH
chmod 0777 "$R"

uid=4242
if getent passwd "$uid" > /dev/null; then
	skip "a uid without a passwd entry: the default timeout" "uid $uid has an entry here"
else
	run_rc setpriv --reuid="$uid" --regid="$uid" --clear-groups -- "$SANDCAP" run -q --no-cgroup \
		--report "$R/nameless.json" -- true
	is "$rc" 0 "a uid without a passwd entry: runs in rlimit mode"
	is "$(json_get "$R/nameless.json" .limits.timeout_ms)" 7000 \
		"... with the policy's default timeout (7 s), not none"
	# Its group has a name: [group:scdev] binds it (hostile review: it escaped group rules).
	gid=$(getent group scdev | cut -d: -f3)
	run_rc setpriv --reuid="$uid" --regid="$gid" --clear-groups -- "$SANDCAP" run -q \
		--no-cgroup --report "$R/nameless-g.json" -- true
	is "$rc" 0 "a uid without a passwd entry in group scdev: runs in rlimit mode"
	is "$(json_get "$R/nameless-g.json" .limits.timeout_ms)" 3000 \
		"... with the default capped by [group:scdev] (3 s)"
fi
run_rc env SANDCAP_HELPER="$SANDCAP_HELPER" vm-as-user sctest "$SANDCAP" run -q --no-cgroup \
	--report "$R/sctest.json" -- true
is "$rc" 0 "sctest: runs in rlimit mode"
is "$(json_get "$R/sctest.json" .limits.timeout_ms)" 5000 "... with the default capped by its own section (5 s)"
done_testing
