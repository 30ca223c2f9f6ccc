#!/bin/sh
# #14 item 4: the helper hands out no workspace descriptor, and teardown empties and shrinks
# the workspace before detaching it: descriptors held from outside cannot store more than a
# page afterwards, and what the sandbox wrote is no longer charged to any cgroup.
# vm-timeout: 180
# vm-cost: 3
# shellcheck source=tests/vm/lib.sh
. "$VMLIB"
P=/sys/fs/cgroup/sandcap
MiB=1048576
as() { u=$1; shift; env SANDCAP_HELPER="$SANDCAP_HELPER" vm-as-user "$u" "$@"; }
wait_file() { i=0; while [ $i -lt 100 ] && ! [ -e "$1" ]; do sleep 0.1; i=$((i + 1)); done; [ -e "$1" ]; }

as sctest "$TESTS/hostile-client" workspace > "$SCRATCH/ws.out" 2>&1
hostile_tap "$SCRATCH/ws.out"

# Written from inside the sandbox (charged to its leaf), held open from outside.
sync; echo 1 > /proc/sys/vm/drop_caches 2>/dev/null
base=$(cat $P/memory.current)
chmod 0777 "$SCRATCH"
as sctest "$SANDCAP" run -q --timeout 30 -- sh -c \
	"dd if=/dev/zero of=\$TMPDIR/data bs=1M count=12 2>/dev/null; echo \$TMPDIR > $SCRATCH/ws; while [ ! -e $SCRATCH/go ]; do sleep 0.1; done" &
run=$!
wait_file "$SCRATCH/ws"
ws=$(cat "$SCRATCH/ws")
during=$(cat $P/memory.current)
# A process of sctest outside the sandbox holds the file open for reading and writing.
as sctest sh -c "exec 3<>'$ws/data'; touch $SCRATCH/holding; while [ ! -e $SCRATCH/done ]; do sleep 0.1; done; dd if=/dev/zero bs=64k count=16 >&3 2>/dev/null; stat -L -c %s /proc/self/fd/3 > $SCRATCH/size" &
holder=$!
wait_file "$SCRATCH/holding"
touch "$SCRATCH/go"
wait "$run"
is "$?" 0 "the sandbox ends cleanly although a file of its workspace is held open"
after=$(cat $P/memory.current)
diag "memory.current of $P: before $base, during $during, after $after"
ge "$((during - base))" $((10 * MiB)) "the 12 MiB written in the workspace were charged while it ran"
if [ "$after" -le $((base + 2 * MiB)) ]; then ok "after teardown the charge is back to the baseline (within 2 MiB)"
else fail "after teardown the charge is back to the baseline (within 2 MiB)" "before $base after $after"; fi
touch "$SCRATCH/done"
wait "$holder"
sz=$(cat "$SCRATCH/size" 2>/dev/null)
diag "the held file's size after 1 MiB written through the held fd: $sz"
if [ -n "$sz" ] && [ "$sz" -le 4096 ]; then ok "the held fd stored at most one page after teardown"
else fail "the held fd stored at most one page after teardown" "size '$sz'"; fi
done_testing
