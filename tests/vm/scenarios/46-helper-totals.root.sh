#!/bin/sh
# #14 item 5: leaves live at <cgroup_root>/<uid>/<id>; the per-user level is root-owned and
# carries the policy's totals (46-helper-totals.ini: total_memory 100M, total_pids 48,
# total_cpu 150%).  A sandbox ended by a total gets a verdict naming it (total-memory,
# total-pids), never the host's OOM killer or its own limit.  Two sandboxes of sctest that each stay under their own 96M cannot
# together use more than 100M; the level stays (root 0755) after the user's last sandbox
# and follows a changed policy.
# vm-timeout: 180
# vm-cost: 18
# shellcheck source=tests/vm/lib.sh
. "$VMLIB"
P=/sys/fs/cgroup/sandcap
U=$P/$SCTEST_UID
MiB=1048576
as() { u=$1; shift; env SANDCAP_HELPER="$SANDCAP_HELPER" vm-as-user "$u" "$@"; }
wait_file() { i=0; while [ $i -lt 150 ] && ! [ -e "$1" ]; do sleep 0.1; i=$((i + 1)); done; [ -e "$1" ]; }
chmod 0777 "$SCRATCH"

as sctest "$SANDCAP" run -q --timeout 30 -- sh -c "touch $SCRATCH/a.up; while [ ! -e $SCRATCH/a.stop ]; do sleep 0.1; done" &
a=$!
wait_file "$SCRATCH/a.up"
is "$(stat -c '%U %a' "$U")" "root 755" "the per-user level $U is root-owned 0755"
is "$(stat -c %U "$U/memory.max") $(stat -c %U "$U/cgroup.procs")" "root root" "its files are root's"
is "$(cat "$U/memory.max")" $((100 * MiB)) "memory.max of the level is total_memory"
is "$(cat "$U/pids.max")" 48 "pids.max of the level is total_pids"
is "$(cat "$U/cpu.max")" "150000 100000" "cpu.max of the level is total_cpu"
is "$(find "$U" -mindepth 1 -maxdepth 1 -type d | wc -l)" 1 "the leaf sits under the level"
check_fails "sctest cannot raise its total" as sctest sh -c "echo max > $U/memory.max"
touch "$SCRATCH/a.stop"; wait "$a"

# Two hogs of 70 MiB each, both within their own 96M: together over the 100M total.  Each
# holds its memory until root makes hogs.stop (at most 50 s): that is once one of them has
# ended (killed at the total), or both printed "ready", holding 140 MiB at once (then the
# total did not bind, and both complete).
hog() {
	as sctest "$SANDCAP" run -q --timeout 60 --report "$SCRATCH/$1.json" -- sh -c \
		"touch $SCRATCH/$1.up; $TESTS/probe-workload -m 70 -c 1 -s 50000 -S $SCRATCH/hogs.stop" \
		> "$SCRATCH/$1.out" 2>&1
	r=$?; echo "$r" > "$SCRATCH/$1.rc"; return "$r"
}
hog b & pb=$!
hog c & pc=$!
wait_file "$SCRATCH/b.up"; wait_file "$SCRATCH/c.up"
peak=0 i=0
while [ $i -lt 300 ] && ! { [ -e "$SCRATCH/b.rc" ] && [ -e "$SCRATCH/c.rc" ]; }; do
	[ -e "$U/memory.peak" ] && v=$(cat "$U/memory.peak" 2>/dev/null) && [ -n "$v" ] && peak=$v
	if [ -e "$SCRATCH/b.rc" ] || [ -e "$SCRATCH/c.rc" ] ||
		{ grep -q ready "$SCRATCH/b.out" && grep -q ready "$SCRATCH/c.out"; } 2>/dev/null; then
		touch "$SCRATCH/hogs.stop"
	fi
	sleep 0.2; i=$((i + 1))
done
touch "$SCRATCH/hogs.stop"
wait "$pb"; rb=$?
wait "$pc"; rc2=$?
[ -e "$U/memory.peak" ] && v=$(cat "$U/memory.peak" 2>/dev/null) && [ -n "$v" ] && [ "$v" -gt "$peak" ] && peak=$v
diag "exits $rb $rc2; verdicts $(json_get "$SCRATCH/b.json" .verdict) $(json_get "$SCRATCH/c.json" .verdict); level memory.peak $peak"
if [ "$rb" -ne 0 ] || [ "$rc2" -ne 0 ]; then ok "two 70 MiB sandboxes cannot both complete under total_memory 100M"
else fail "two 70 MiB sandboxes cannot both complete under total_memory 100M" "both exited 0"; fi
if [ "$peak" -le $((100 * MiB)) ]; then ok "the level's memory.peak stayed within 100M ($peak)"
else fail "the level's memory.peak stayed within 100M" "$peak"; fi
# It stays after the user's last sandbox (#19: making it again cost every run ~90 system
# calls), root-owned, empty, and still carrying the totals.
is "$(stat -c '%U %a' "$U") $(find "$U" -mindepth 1 -type d | wc -l) $(cat "$U/pids.max")" \
	"root 755 0 48" "the per-user level stays after the last sandbox: root 0755, no leaf, totals kept"
# The one killed was killed by the level's OOM (oom_memcg=/sandcap/UID): the verdict names
# the total, not the host's global OOM killer and not the sandbox's own 96M.
for j in b c; do
	v=$(json_get "$SCRATCH/$j.json" .verdict)
	[ "$v" = ok ] && continue
	is "$v" total-memory "a sandbox killed at the user's total: verdict total-memory ($j)"
	like "$(json_get "$SCRATCH/$j.json" '.limits_hit | join(",")')" '^total-memory$' \
		"... limits_hit says total-memory, not memory ($j)"
	msg=$(json_get "$SCRATCH/$j.json" .message)
	like "$msg" 'total_memory was reached \(100 MiB .*set by \[limits\]\)' \
		"... the message names total_memory, its value and its section ($j)"
	is "$(json_get "$SCRATCH/$j.json" .oom_at.limit):$(json_get "$SCRATCH/$j.json" .oom_at.memory_max)" \
		"total-memory:$((100 * MiB))" "... its evidence, oom_at: the per-user level's memory.max ($j)"
	like "$(json_get "$SCRATCH/$j.json" .oom_at.cgroup)" "/${U##*/}\$" \
		"... names that level, read by sandcap from a root-owned cgroup ($j)"
	if printf '%s' "$msg" | grep -q 'global OOM'; then
		fail "... and never the host's global OOM killer ($j)" "$msg"
	else ok "... and never the host's global OOM killer ($j)"; fi
done
# The sandbox's own limit is still its own: memory.
run_rc vm-as-user sctest env SANDCAP_HELPER="$SANDCAP_HELPER" "$SANDCAP" run -q --memory 32M \
	--report "$SCRATCH/own.json" -- "$TESTS/probe-workload" -m 70
is "$(json_get "$SCRATCH/own.json" .verdict) $(json_get "$SCRATCH/own.json" '.limits_hit | join(",")')" \
	"memory memory" "a sandbox over its own --memory 32M: verdict memory, limits_hit memory"

# A changed policy reaches the level at the next run, although it exists already.  The new
# total comes from a user section, and the verdict below names the section (from CREATE's
# reply: the helper's resolution).
printf '[user:sctest]\ntotal_pids = 40\n' >> /etc/sandcap/sandbox.ini
run_rc vm-as-user sctest env SANDCAP_HELPER="$SANDCAP_HELPER" "$SANDCAP" run -q -- true
is "$rc" 0 "a run after the policy changed"
is "$(cat "$U/pids.max")" 40 "the level's pids.max follows the changed total_pids"

# total_pids 40: one sandbox holds 33 processes until told to stop; another, far below its
# own --pids 64, is refused forks by the level.  Its verdict names total_pids, not its own
# pids limit.
as sctest "$SANDCAP" run -q --timeout 120 --pids 64 -- sh -c "$TESTS/probe-workload -c 30 \
	-s 100000 & while [ ! -e $SCRATCH/hold.stop ]; do sleep 0.1; done; kill -9 0" \
	> "$SCRATCH/hold.out" 2>&1 &
ph=$!
i=0; while [ $i -lt 300 ] && ! grep -q ready "$SCRATCH/hold.out" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
run_rc vm-as-user sctest env SANDCAP_HELPER="$SANDCAP_HELPER" "$SANDCAP" run -q --pids 64 \
	--report "$SCRATCH/tp.json" -- "$TESTS/probe-workload" -c 20
touch "$SCRATCH/hold.stop"; wait "$ph"
diag "total_pids run: $(json_get "$SCRATCH/tp.json" .message)"
is "$(json_get "$SCRATCH/tp.json" .verdict) $(json_get "$SCRATCH/tp.json" '.limits_hit | join(",")')" \
	"total-pids total-pids" "a fork refused at the user's total_pids: verdict total-pids, not pids"
like "$(json_get "$SCRATCH/tp.json" .message)" \
	'total_pids was reached \(40 processes .*set by \[user:sctest\]\).*of its own limit 64' \
	"... the message names total_pids, its value, its section and the sandbox's own limit"
# Its own --pids is still its own: pids.
run_rc vm-as-user sctest env SANDCAP_HELPER="$SANDCAP_HELPER" "$SANDCAP" run -q --pids 8 \
	--report "$SCRATCH/op.json" -- "$TESTS/probe-workload" -c 20
is "$(json_get "$SCRATCH/op.json" .verdict) $(json_get "$SCRATCH/op.json" '.limits_hit | join(",")')" \
	"pids pids" "a sandbox over its own --pids 8: verdict pids, limits_hit pids"

# tmpfs rounds a workspace up to whole pages, which must never pass the ceiling: 1000000
# bytes is 244.1 pages, so 244 (999424 bytes), asked for or by default; under a ceiling
# below one page no workspace fits, and the run is refused, saying so.
printf 'disk = 1000000\n' >> /etc/sandcap/sandbox.ini       # into [user:sctest], the last section
for ask in "--disk 1000000" "--disk 999999" ""; do
	# shellcheck disable=SC2086 # $ask is zero or two words
	run_rc vm-as-user sctest env SANDCAP_HELPER="$SANDCAP_HELPER" "$SANDCAP" run -q $ask \
		--report "$SCRATCH/disk.json" -- true
	is "$rc $(json_get "$SCRATCH/disk.json" .limits.disk)" "0 999424" \
		"disk ceiling 1000000 bytes, ${ask:-no --disk}: the workspace is 244 pages, within it"
done
sed -i 's/^disk = 1000000$/disk = 1000/' /etc/sandcap/sandbox.ini
out=$(vm-as-user sctest env SANDCAP_HELPER="$SANDCAP_HELPER" "$SANDCAP" run -q --disk 1000 -- \
	true 2>&1); rc=$?
is "$rc" 125 "a disk ceiling under one page: the run is refused"
like "$out" "less than one page" "... and the message says why"
done_testing
