#!/bin/sh
# A user in many groups stays bound by its [group:] sections in rlimit mode
# (38-sandcap-run-manygroups.ini: [group:scdev] requires --net none and caps the timeout at
# 3 s).  sandcap looked up at most 128 groups and, past that, judged the user as in none
# (hostile review: a run without --net none went through with the default 7 s).  Past the
# 1024 it can match, sandcap refuses, as the helper does.  /etc/group is restored after.
# vm-timeout: 60
# vm-cost: 3
# shellcheck source=tests/vm/lib.sh
. "$VMLIB"
R=$SCRATCH
chmod 0777 "$R"
cp /etc/group "$R/group.orig"
trap 'cp "$R/group.orig" /etc/group' EXIT

add_groups() {          # add_groups FROM TO: groups scmany<N>, sctest a member of each
	i=$1
	while [ "$i" -lt "$2" ]; do
		echo "scmany$i:x:$((30000 + i)):sctest"
		i=$((i + 1))
	done >> /etc/group
}

add_groups 0 130
ge "$(id -G sctest | wc -w)" 131 "sctest is in more than 128 groups"
run_rc vm-as-user sctest "$SANDCAP" run -q --no-cgroup --report "$R/host.json" -- true
is "$rc" 125 "in 131 groups: a run without --net none is refused ([group:scdev] requires it)"
like "$(json_get "$R/host.json" .message)" "group:scdev" "... naming the section"
run_rc vm-as-user sctest "$SANDCAP" run -q --no-cgroup --net none --report "$R/none.json" -- true
is "$rc" 0 "in 131 groups: with --net none it runs"
is "$(json_get "$R/none.json" .limits.timeout_ms)" 3000 "... capped by [group:scdev] (3 s), not 7 s"

add_groups 130 1030
run_rc vm-as-user sctest "$SANDCAP" run -q --no-cgroup --net none --report "$R/many.json" -- true
is "$rc" 125 "in 1031 groups: refused rather than judged by some of them"
like "$(json_get "$R/many.json" .message)" "more groups than sandcap matches" "... saying why"
done_testing
