#!/bin/sh
# `make demo` shows what it announces (tools/demo-sandboxes.sh, run here as the test user
# exactly as tools/demo.sh runs it in this guest): the memory hog ends on the memory limit
# and its message names no miscounted number of processes; the fork bomb reaches --pids and
# is refused forks there (verdict or limits_hit names pids, pids_peak at the limit); the
# slow command ends on its timeout; the well-behaved job is ok.
# The bomb's forks fail only at the limit, so it reaches it (within a few dozen forks; its
# 10 s timeout is a backstop: whether the bomb's own shell or the timer ends it, pids is
# named); the memory hog's --timeout is a 300 s backstop, not a race.
# vm-timeout: 400
# vm-cost: 20
# shellcheck source=tests/vm/lib.sh
. "$VMLIB"
R=$SCRATCH
MiB=1048576
SANDCAP_DEMO_REPORTS=$R SANDCAP=$SANDCAP sh "$SRCDIR/tools/demo-sandboxes.sh" > "$R/demo.out" 2>&1
for i in 1 2 3 4; do
	check "sandbox $i left its report" test -s "$R/$i.json"
done

# In the guest the demo drops the harness's variables: the reports list a login's.
is "$(json_get "$R/4.json" .env | grep -c 'VMLIB\|SCRATCH\|VM_RESULTS')" 0 \
	"the demo's reports list no variable of the test harness"

# 1. the memory hog: one process, ended by the memory limit.
is "$(json_get "$R/1.json" .verdict)" memory "memory hog: verdict memory"
is "$(json_get "$R/1.json" .limits.memory)" $((64 * MiB)) "memory hog: limits.memory is 64M"
is "$(json_get "$R/1.json" .usage.pids_peak)" 1 "memory hog: one process (pids_peak 1)"
ge "$(json_get "$R/1.json" .usage.oom_kills)" 1 "memory hog: memory.events oom_kill > 0"
is "$(json_get "$R/1.json" .message)" \
	"memory limit hit (limit 64 MiB): the kernel's OOM killer ended the sandbox" \
	"memory hog: the message counts no processes (oom_kill is no process count)"
like "$(cat "$R/demo.out")" "sandcap: memory: memory limit hit \(limit 64 MiB\): the kernel's OOM killer ended the sandbox" \
	"memory hog: sandcap's verdict line says the same"
like "$(cat "$R/demo.out")" "^== why: peak rss counts every page the process maps.*can exceed memory.max; oom_kills counts the kernel's kill events" \
	"memory hog: one line says why peak rss can exceed memory.max and what oom_kills counts"

# 2. the fork bomb: held at the limit.
is "$(json_get "$R/2.json" .limits.pids)" 32 "fork bomb: limits.pids is 32"
is "$(json_get "$R/2.json" .usage.pids_peak)" 32 "fork bomb: pids_peak is the limit (32)"
lh=$(json_get "$R/2.json" .limits_hit | tr -d ' \n')
like "$lh" '"pids"' "fork bomb: limits_hit names pids ($lh)"
like "$(json_get "$R/2.json" .verdict)" '^(pids|timeout)$' \
	"fork bomb: verdict pids (its shell refused a fork) or timeout (the backstop)"

# 3. and 4.
is "$(json_get "$R/3.json" .verdict)" timeout "slow command: verdict timeout"
is "$(json_get "$R/4.json" .verdict)" ok "well-behaved job: verdict ok"
like "$(cat "$R/demo.out")" "^100000 numbers\$" "well-behaved job: its output"
done_testing
