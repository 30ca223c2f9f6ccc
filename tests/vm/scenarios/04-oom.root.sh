#!/bin/sh
# A process that outgrows a 32 MiB cgroup is OOM-killed by the memcg OOM killer, and the
# kill is visible in memory.events (oom and oom_kill), the evidence sandcap's verdict uses.
# vm-timeout: 60
# vm-cost: 4
# shellcheck source=tests/vm/lib.sh
. "$VMLIB"
L=/sys/fs/cgroup/sandcap/vm-04-oom

check "leaf created" mkdir $L
echo 33554432 > $L/memory.max
echo 0 > $L/memory.swap.max 2>/dev/null
echo 1 > $L/memory.oom.group
is "$(cat $L/memory.max)" 33554432 "memory.max is 32 MiB"
sh -c 'echo $$ > '$L'/cgroup.procs && exec python3 -c "
a = bytearray(b\"x\" * (96 << 20))
print(\"survived\")"' > /dev/null 2>&1
rc=$?
is "$rc" 137 "the hog died of SIGKILL (exit 137)"
ev=$(cat $L/memory.events)
diag "memory.events: $(echo $ev)"
ge "$(echo "$ev" | awk '$1 == "oom" { print $2 }')" 1 "memory.events oom >= 1"
ge "$(echo "$ev" | awk '$1 == "oom_kill" { print $2 }')" 1 "memory.events oom_kill >= 1"
peak=$(cat $L/memory.peak)
ge "$peak" 16777216 "memory.peak shows the growth ($peak)"
check "memory.peak stayed within the limit" test "$peak" -le 33554432
is "$(awk '$1 == "populated" { print $2 }' $L/cgroup.events)" 0 "leaf is empty afterwards"
check "leaf removed" rmdir $L
done_testing
