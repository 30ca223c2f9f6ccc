#!/bin/sh
# sandcap run in cgroup mode, the figures behind each limit (issue 5): a memory hog peaks at the
# limit, a fork bomb is contained and the guest stays responsive, --cpu 50% throttles,
# --cpu-time ends two busy processes near the budget, a writer past --disk sees ENOSPC.
# vm-timeout: 180
# vm-cost: 11
# shellcheck source=tests/vm/lib.sh
. "$VMLIB"
R=$SCRATCH
P=/sys/fs/cgroup/sandcap
MiB=1048576
# le GOT MAX DESC: the integer GOT <= MAX
le() {
	case $1 in ''|*[!0-9]*) fail "$3" "got '$1', not an integer"; return 0 ;; esac
	if [ "$1" -le "$2" ]; then ok "$3"; else fail "$3" "got $1, want <= $2"; fi
}
cpu_ms() { echo $(($(json_get "$1" .usage.cpu_user_ms) + $(json_get "$1" .usage.cpu_system_ms))); }

# ---- memory hog: killed by the OOM killer with the peak at the limit ----
# The --timeout is a backstop only: in a busy guest, where page faults are slow, the hog
# may need tens of seconds to reach 48M; the memory limit must decide, not a race.
run_rc "$SANDCAP" run -q --memory 48M --timeout 120 --report "$R/mem.json" -- tail /dev/zero
is "$rc" 137 "memory hog under --memory 48M: killed (137)"
is "$(json_get "$R/mem.json" .verdict)" memory "memory hog: verdict memory"
ge "$(json_get "$R/mem.json" .usage.oom_kills)" 1 "memory hog: oom_kills >= 1"
peak=$(json_get "$R/mem.json" .usage.memory_peak)
ge "$peak" $((48 * MiB * 9 / 10)) "memory hog: memory_peak ($peak) at least 90% of 48M"
le "$peak" $((48 * MiB)) "memory hog: memory_peak ($peak) not above 48M"
is "$(json_get "$R/mem.json" .limits.memory)" $((48 * MiB)) "memory hog: limits.memory is 48M"

# ---- fork bomb under --pids 32: contained, and the guest stays responsive ----
run_rc "$SANDCAP" run -q --pids 32 --timeout 3 --grace 0 --report "$R/bomb.json" -- \
	sh -c 'b() { b & b & wait; }; b' 2> "$R/bomb.err"      # "Cannot fork": not into the TAP
ppeak=$(json_get "$R/bomb.json" .usage.pids_peak)
le "$ppeak" 32 "fork bomb: pids_peak ($ppeak) <= 32"
ge "$ppeak" 30 "fork bomb: pids_peak ($ppeak) reached the limit"
like "$(json_get "$R/bomb.json" '[.verdict] + .limits_hit | join(" ")')" '(^| )pids( |$)' \
	"fork bomb: verdict or limits_hit names pids"
check_fails "fork bomb: its leaf is gone" test -e "$P/$SCTEST_UID/$(json_get "$R/bomb.json" .id)"
run_rc "$SANDCAP" run -q -- true
is "$rc" 0 "after the bomb: a fresh sandcap run -- true succeeds"
check "after the bomb: the shell forks normally" sh -c 'for i in 1 2 3 4 5; do /bin/true & done; wait'

# ---- --cpu 50%: a spinner for 2 s of wall time gets about 1 s of CPU and is throttled ----
run_rc "$SANDCAP" run -q --cpu 50% --timeout 2 --grace 0 --report "$R/cpu50.json" -- \
	sh -c 'while :; do :; done'
is "$(json_get "$R/cpu50.json" .verdict)" timeout "--cpu 50% spinner: ended by the 2 s timeout"
c=$(cpu_ms "$R/cpu50.json")
# cpu.max 50000/100000: at most half the sandbox's own wall time plus one period (a loaded
# host fires the 2 s timer late, and gives the guest less than the quota: no lower bound
# beyond "it ran").
w=$(json_get "$R/cpu50.json" .usage.wall_ms)
le "$c" $((w / 2 + 100)) "--cpu 50% spinner: at most half its ${w} ms wall time plus one period ($c ms)"
ge "$c" 1 "--cpu 50% spinner: it did run ($c ms of CPU)"
ge "$(json_get "$R/cpu50.json" .usage.cpu_throttled_ms)" 1 "--cpu 50% spinner: cpu_throttled_ms > 0"
is "$(json_get "$R/cpu50.json" .limits.cpu_percent)" 50 "limits.cpu_percent is 50"

# ---- --cpu-time 1 over two busy processes: ends near 1 s of total CPU ----
run_rc "$SANDCAP" run -q --cpu-time 1 --cpu 200% --timeout 30 --report "$R/ct.json" -- \
	sh -c 'while :; do :; done & while :; do :; done'
is "$(json_get "$R/ct.json" .verdict)" cpu-time "--cpu-time 1, two spinners: verdict cpu-time"
c=$(cpu_ms "$R/ct.json")
ge "$c" 900 "--cpu-time 1: at least 0.9 s of CPU in the report ($c ms)"
le "$c" 1500 "--cpu-time 1: at most 1.5 s of CPU in the report ($c ms)"

# ---- writing past --disk: ENOSPC inside, disk_used near the size ----
run_rc "$SANDCAP" run -q --disk 2M --report "$R/disk.json" -- \
	sh -c 'head -c 4000000 /dev/zero > "$TMPDIR/x"' 2> "$R/disk.err"
like "$(cat "$R/disk.err")" "No space left on device" "--disk 2M: the writer sees ENOSPC"
is "$(json_get "$R/disk.json" .verdict)" disk "--disk 2M: verdict disk"
du=$(json_get "$R/disk.json" .usage.disk_used)
ge "$du" $((2 * MiB * 9 / 10)) "--disk 2M: disk_used ($du) at least 90% of 2M"
le "$du" $((2 * MiB)) "--disk 2M: disk_used ($du) not above 2M"

done_testing
