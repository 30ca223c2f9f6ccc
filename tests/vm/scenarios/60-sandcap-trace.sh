#!/bin/sh
# sandcap trace (issue 10) on a workload of known shape (probe-workload: 48 MiB touched, 10
# children alive at once, 10 MiB + 2 MiB written to the workspace): the figures are within
# 10% of the truth, the suggested flags make a later sandcap run succeed, and each binding flag
# (memory, pids, disk) made 30% tighter makes it fail on that limit.  No --fsize is suggested
# (RLIMIT_FSIZE applies to files outside the workspace too, which trace does not see).
# The suggested --timeout and --cpu-time come from this run's wall and CPU time, which a
# busy 2-core machine can stretch by more than any headroom: they are checked against the
# measured times (the headroom is there), and the later runs go without them, so that no
# assertion depends on whether a timer or the limit under test fires first.
# vm-timeout: 480
# vm-cost: 12
# shellcheck source=tests/vm/lib.sh
. "$VMLIB"
R=$SCRATCH
MiB=1048576
W="$TESTS/probe-workload -m 48 -c 10 -s 300 -w 10 -f 2"
le() {
	case $1 in ''|*[!0-9]*) fail "$3" "got '$1', not an integer"; return 0 ;; esac
	if [ "$1" -le "$2" ]; then ok "$3"; else fail "$3" "got $1, want <= $2"; fi
}
# within GOT TRUTH DESC: GOT within 10% of TRUTH
within() { ge "$1" $(($2 * 9 / 10)) "$3 (>= 90% of $2)"; le "$1" $(($2 * 11 / 10)) "$3 (<= 110% of $2)"; }

# shellcheck disable=SC2086
run_rc "$SANDCAP" trace --report "$R/t.json" -- $W > "$R/t.out" 2> "$R/t.err"
is "$rc" 0 "sandcap trace of the workload: exit 0"
diag "$(grep -A1 "limits that fit" "$R/t.err" | tail -1)"
is "$(json_get "$R/t.json" .sandcap_trace)" 1 "the trace report is {\"sandcap_trace\": 1, ...}"
is "$(json_get "$R/t.json" .run.mode)" cgroup "the traced run was in cgroup mode"
is "$(json_get "$R/t.json" .run.limits.memory)" $((192 * MiB)) "the traced run asked for the memory ceiling (192M)"
is "$(json_get "$R/t.json" .run.verdict)" ok "the traced run: verdict ok"

# The truth: pids 1 + 10; memory.peak counts the 48 MiB touched and the 12 MiB of tmpfs
# pages written; the workspace holds 12 MiB, the largest file 10 MiB.  (Sizes kept small:
# in user-mode Linux each page touched costs about 0.25 ms, and the workload runs 5 times.)
pk=$(json_get "$R/t.json" .used.pids_peak)
ge "$pk" 10 "used.pids_peak ($pk) >= 90% of 11"
le "$pk" 12 "used.pids_peak ($pk) <= 110% of 11"
within "$(json_get "$R/t.json" .used.memory_peak)" $((60 * MiB)) "used.memory_peak"
within "$(json_get "$R/t.json" .used.disk_used)" $((12 * MiB)) "used.disk_used"
within "$(json_get "$R/t.json" .used.largest_file)" $((10 * MiB)) "used.largest_file"
is "$(json_get "$R/t.json" .run.usage.memory_peak)" "$(json_get "$R/t.json" .used.memory_peak)" \
	"used.memory_peak is the run's memory.peak"

wall=$(json_get "$R/t.json" .used.wall_ms)
cpu=$(json_get "$R/t.json" .used.cpu_ms)
ge "$(json_get "$R/t.json" .suggested.timeout_ms)" $((wall * 125 / 100)) \
	"suggested timeout >= 125% of the traced wall time ($wall ms)"
ge "$(json_get "$R/t.json" .suggested.cpu_time_ms)" $((cpu * 125 / 100)) \
	"suggested CPU time >= 125% of the traced CPU time ($cpu ms)"
sm=$(json_get "$R/t.json" .suggested.memory)
sp=$(json_get "$R/t.json" .suggested.pids)
sd=$(json_get "$R/t.json" .suggested.disk)
is "$(json_get "$R/t.json" .suggested.fsize)" null "no --fsize suggested (it would apply to every file, not only the workspace's)"
flags=$(json_get "$R/t.json" .suggested.flags)
like "$flags" "--memory [0-9]+[KMG] --pids $sp " "suggested.flags carry the suggested memory and pids"
like "$flags" "--cpu-time [0-9]+m?s --timeout [0-9]+m?s " "suggested.flags carry a CPU time and a timeout"
# The later runs: the suggested size and count limits, no timers (see the header).
flags=$(printf '%s\n' "$flags" | sed 's/--cpu-time [^ ]* //; s/--timeout [^ ]* //')
# 25% headroom over the measured peak (the truth above plus the process's own pages and
# its children's page tables, a few MiB), rounded up to whole MiB.
mp=$(json_get "$R/t.json" .used.memory_peak)
ge "$sm" $((60 * MiB)) "suggested memory ($sm) >= the workload's 60 MiB"
ge "$sm" $((mp * 125 / 100)) "suggested memory ($sm) >= 125% of the peak ($mp)"
le "$sm" $((mp * 125 / 100 + MiB)) "suggested memory ($sm) <= 125% of the peak + 1 MiB (rounding)"
ge "$sp" 12 "suggested pids ($sp) > the 11 used"
ge "$sd" $((12 * MiB)) "suggested disk ($sd) >= the 12 MiB written"
check_fails "the flags carry no --fsize" sh -c "echo '$flags' | grep -q -- --fsize"

# shellcheck disable=SC2086
run_rc "$SANDCAP" run -q $flags --report "$R/s.json" -- $W > /dev/null 2> "$R/s.err"
is "$rc" 0 "sandcap run with the suggested flags succeeds"
[ "$rc" = 0 ] || diag "$(cat "$R/s.err"; json_get "$R/s.json" .message)"

# tighter NAME WORD VERDICT: the suggested flags with --NAME WORD appended (the last wins)
tighter() {
	# shellcheck disable=SC2086
	run_rc "$SANDCAP" run -q $flags "--$1" "$2" --report "$R/$1.json" -- $W > /dev/null 2> "$R/$1.err"
	check "--$1 $2 (30% tighter): the run fails (exit $rc)" test "$rc" -ne 0
	is "$(json_get "$R/$1.json" .verdict)" "$3" "--$1 $2 (30% tighter): verdict $3"
	lh=$(json_get "$R/$1.json" .limits_hit | tr -d ' \n')
	case $3:$lh in
	exit:*) ;;
	*\"$3\"*) ok "--$1 $2 (30% tighter): limits_hit names $3 ($lh)" ;;
	*) fail "--$1 $2 (30% tighter): limits_hit names $3" "got $lh" ;;
	esac
	diag "$(cat "$R/$1.err")"
}
tighter memory "$((sm * 7 / 10 / 1024))K" memory
tighter pids "$((sp * 7 / 10))" pids
tighter disk "$((sd * 7 / 10 / 1024))K" disk
like "$(cat "$R/disk.err")" "probe-workload: write: No space left on device" "--disk 30% tighter: the writer gets ENOSPC"
like "$(cat "$R/pids.err")" "probe-workload: fork: Resource temporarily unavailable" "--pids 30% tighter: fork fails"
done_testing
