#!/bin/sh
# cgroup.kill empties a cgroup (forked children included) and cgroup.events then reports
# "populated 0"; the leaf can be removed.  pids.peak saw every process.
# vm-timeout: 30
# vm-cost: 2
# shellcheck source=tests/vm/lib.sh
. "$VMLIB"
L=/sys/fs/cgroup/sandcap/vm-05-kill

check "leaf created" mkdir $L
echo 32 > $L/pids.max
sh -c 'echo $$ > '$L'/cgroup.procs || exit 1; sleep 300 & sleep 300 & sleep 300 & wait' &
bg=$!
i=0
while [ "$(wc -l < $L/cgroup.procs)" -lt 4 ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
ge "$(wc -l < $L/cgroup.procs)" 4 "four processes in the leaf"
is "$(awk '$1 == "populated" { print $2 }' $L/cgroup.events)" 1 "cgroup.events: populated 1"
ge "$(cat $L/pids.peak)" 4 "pids.peak counted them"
check "write 1 to cgroup.kill" sh -c "echo 1 > $L/cgroup.kill"
wait $bg
is "$?" 137 "the leaf's shell died of SIGKILL"
i=0
while grep -q 'populated 1' $L/cgroup.events && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
is "$(awk '$1 == "populated" { print $2 }' $L/cgroup.events)" 0 "cgroup.events: populated 0"
is "$(cat $L/cgroup.procs)" "" "cgroup.procs is empty"
check "leaf removed" rmdir $L
done_testing
