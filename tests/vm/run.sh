#!/bin/sh
# The VM suite: boot user-mode Linux (a real kernel with cgroup v2) on the host's
# read-only root, run the scenarios of tests/vm/scenarios as an unprivileged user, bring
# the TAP back, and record "vm PASSED FAILED SKIPPED" in BUILD/results/vm.
#
# Two kernels: Debian 12's 6.1 (the user-mode-linux package; the floor sandcap supports)
# and 6.12 built from linux-source-6.12 with Landlock (tests/vm/kernel-build.sh, cached).
# A scenario's header says where it runs: "# vm-kernel: 6.12", "# vm-kernel: both", or
# nothing (6.1).  The 6.12 guest (results in BUILD/vm-results-6.12, counts in
# BUILD/results/vm-6.12) and then the systemd guest, which boots 6.12 (its counts go with
# the kernel it booted), run beside the 6.1 guest from the moment the 6.12 kernel is there
# (from the cache: at once; else when its build ends); their output is kept and printed
# after the 6.1 guest's, the 6.12 guest's TAP numbered on, as if they had run after it.
# SANDCAP_VM_612_SERIAL=1 or SANDCAP_CHECK_SERIAL=1: they run after the 6.1 guest, one
# guest at a time (to measure one guest alone).  When this machine cannot have the
# 6.12 kernel (no network and nothing cached), each 6.12 scenario is one "# SKIP" line
# with the reason; when its source was there but a patch or the build failed, each is a
# failure, with the build log's tail.
#
#   tests/vm/run.sh BUILD [--only PATTERN] [--keep-going] [--no-systemd] [--record NAME]
#                   [--kernel 6.1|6.12] [--shell] [--exec SCRIPT] [--policy FILE] [--root]
#
#   --only PATTERN   run only the scenarios whose name contains PATTERN
#   --kernel K       only the guest of kernel K (6.1: the 6.1 guest; 6.12: the 6.12 guest
#                    and the systemd guest); with --shell or --exec: boot K (default 6.1)
#   --keep-going     run every scenario even after one failed (default: stop at the first)
#   --no-systemd     leave out the systemd guest's scenarios (run them apart with
#                    --only systemd; side by side two guests are slower, tests/vm/README.md)
#   --record NAME    record the counts as BUILD/results/NAME (default: vm; with
#                    --kernel 6.12: vm-6.12) and the 6.12 guest's as NAME-6.12
#   --shell          boot the prepared guest and give an interactive root shell
#   --exec SCRIPT    run one script as sctest in the prepared guest; its output goes to
#                    stdout and its exit status is ours (tests/vm/guest-exec.sh uses this)
#   --policy FILE    with --exec: install FILE as the guest's policy instead of policy.ini
#   --root           with --exec: run SCRIPT as root (in the scenario leaf, like a *.root.sh
#                    scenario); it reaches the test user through vm-as-user (bench/)
#   --lane N         internal (the lanes below): boot one guest for the scenarios named in
#                    SANDCAP_VM_LIST, results in BUILD/vm-results (N=1) or BUILD/vm-results-N,
#                    counts in its file "lane-counts"; lane 2 then runs the systemd guest
#
# Lanes (SANDCAP_VM_LANES=2): the scenarios are split in two lanes that run side by side:
# lane 1 boots a guest for one share of the scenarios, lane 2 boots a guest for the rest
# and then runs the systemd guest. The shares are balanced by each scenario's
# "# vm-cost: SECONDS" header (its time on an idle machine; 5 s when absent). Selections
# that add up to less than 90 s run in one lane. The default is one lane (see below).
#
# Scenarios whose names contain "systemd" run in the systemd guest, after the 6.12 guest,
# booted by systemd with a writable root (tests/vm/sysd-run.sh; SANDCAP_VM_PENDING=1 passes
# it --pending); its counts go with the kernel it booted (above).
#
# SANDCAP_VM_PACKAGE_MARK: see wait_package below (make check sets it).
# Environment: SANDCAP_VM_MEM (guest memory, default 384M), SANDCAP_VM_TIMEOUT (hard bound of one
# boot in seconds; default: 300 + the sum of the scenarios' timeouts + 15 s each).
# A guest that does not finish in time is killed with its whole process group and counted
# as a failure.  See tests/vm/README.md.
set -u

die() { echo "vm: $*" >&2; exit 2; }

[ $# -ge 1 ] || die "usage: tests/vm/run.sh BUILD [--only PATTERN] [--keep-going] [--no-systemd] [--record NAME] [--shell] [--exec SCRIPT]; see its header"
build=$1; shift
mode=run only="" keep_going=0 exec_script="" exec_policy="" exec_root=0 lane=""
no_sysd=0 record_as="" kernel=""
while [ $# -gt 0 ]; do
	case $1 in
	--only) [ $# -ge 2 ] || die "--only needs a PATTERN"; only=$2; shift 2 ;;
	--keep-going) keep_going=1; shift ;;
	--no-systemd) no_sysd=1; shift ;;
	--record)
		[ $# -ge 2 ] || die "--record needs a NAME"
		case $2 in *[!A-Za-z0-9._-]* | "" | .*) die "--record takes a plain NAME (letters, digits, . - and _), not '$2'" ;; esac
		record_as=$2; shift 2 ;;
	--shell) mode=shell; shift ;;
	--exec) [ $# -ge 2 ] || die "--exec needs a SCRIPT"; mode="exec"; exec_script=$2; shift 2 ;;
	--policy) [ $# -ge 2 ] || die "--policy needs a FILE"; exec_policy=$2; shift 2 ;;
	--root) exec_root=1; shift ;;
	--lane) [ $# -ge 2 ] || die "--lane needs a number"; lane=$2; shift 2 ;;
	--kernel)
		[ $# -ge 2 ] || die "--kernel needs 6.1 or 6.12"
		case $2 in 6.1 | 6.12) kernel=$2 ;; *) die "--kernel takes 6.1 or 6.12, not '$2'" ;; esac
		shift 2 ;;
	*) die "unknown option '$1'; see the header of tests/vm/run.sh" ;;
	esac
done

srcdir=$(cd "$(dirname "$0")/../.." && pwd -P) || die "cannot find the source tree"
. "$srcdir/tests/vm/boot-lib.sh"
mkdir -p "$build/results" || die "cannot create $build/results"
build=$(cd "$build" && pwd -P) || die "cannot enter the build directory"
# boot_kernel: the kernel this process boots; also_612: then the 6.12 guest (a second run
# of this script with --kernel 6.12).
boot_kernel=${kernel:-6.1} also_612=0
[ -z "$kernel" ] && [ "$mode" = run ] && [ -z "$lane" ] && also_612=1
if [ -z "$record_as" ]; then
	record_as=vm
	[ "$boot_kernel" = 6.12 ] && record_as=vm-6.12
fi
vmres=$build/vm-results
[ "$boot_kernel" = 6.12 ] && vmres=$build/vm-results-6.12
case $lane in
"" | 1) ;;
[2-9]) vmres=$build/vm-results-$lane ;;
*) die "--lane takes 1 to 9, not '$lane'" ;;
esac

record() {              # record PASSED FAILED [SKIPPED] (only for the scenario run)
	if [ -n "$lane" ]; then
		mkdir -p "$vmres" && echo "$1 $2 ${3:-0}" > "$vmres/lane-counts"
	elif [ "$mode" = run ] && [ "${SANDCAP_VM_RECORD_ADD:-0}" = 1 ]; then
		add_record "$record_as" "$@"
	elif [ "$mode" = run ]; then
		echo "$record_as $1 $2 ${3:-0}" > "$build/results/$record_as"
	fi
	return 0
}
add_record() {          # add_record NAME PASSED FAILED [SKIPPED]: add to BUILD/results/NAME
	ap=0 af=0 as=0
	[ -s "$build/results/$1" ] && read -r _ ap af as < "$build/results/$1"
	echo "$1 $((ap + $2)) $((af + $3)) $((${as:-0} + ${4:-0}))" > "$build/results/$1"
}
# The record of what ran on 6.12 (the 6.12 guest, the systemd guest when it booted 6.12).
rec612=$record_as-6.12
[ "$boot_kernel" = 6.12 ] && rec612=$record_as
fail_setup() {
	echo "vm: $*" >&2
	echo "not ok 1 - vm: $*"
	record 0 1
	exit 1
}

# Paths go on the kernel command line and into a hostfs mount option: keep them plain.
for p in "$srcdir" "$build"; do
	case $p in
	*[!A-Za-z0-9/._+-]*) fail_setup "path '$p' has characters the guest cannot take (space, comma...); use a plain path" ;;
	esac
done
if [ "$mode" = exec ] && [ ! -r "$exec_script" ]; then
	fail_setup "cannot read the script '$exec_script'"
fi
if [ -n "$exec_policy" ] && { [ "$mode" != exec ] || [ ! -r "$exec_policy" ]; }; then
	fail_setup "--policy goes with --exec and must name a readable file ('$exec_policy')"
fi

if [ "$boot_kernel" = 6.1 ]; then
	uml=$(command -v linux.uml 2>/dev/null) ||
		fail_setup "linux.uml not found: install Debian's user-mode-linux package (make deps)"
fi
for f in sandcap sandcap-helper; do
	[ -x "$build/$f" ] || fail_setup "$build/$f is missing: run 'make all' first"
done

# Scenarios named *systemd* run in the systemd guest (tests/vm/sysd-run.sh), the rest here.
# A lane (--lane) runs the plain scenarios named in SANDCAP_VM_LIST, and the systemd guest
# only when SANDCAP_VM_LANE_SYSD=1.
list=" ${SANDCAP_VM_LIST:-} "
kernel_of() {           # kernel_of NAME: the scenario's "# vm-kernel:" (6.1 when absent)
	k=$(sed -n 's/^# *vm-kernel: *\([^ ]*\).*/\1/p' "$srcdir/tests/vm/scenarios/$1.sh" | head -n 1)
	echo "${k:-6.1}"
}
on_kernel() {           # on_kernel NAME K: the plain scenario NAME runs on kernel K
	case $1 in *systemd*) return 1 ;; *"$only"*) ;; *) return 1 ;; esac
	case $(kernel_of "$1") in
	both) return 0 ;;
	"$2") return 0 ;;
	6.1 | 6.12) return 1 ;;
	*) fail_setup "$1: '# vm-kernel: $(kernel_of "$1")' is not 6.1, 6.12 or both" ;;
	esac
}
in_run() {              # in_run NAME: this boot runs the plain scenario NAME
	on_kernel "$1" "$boot_kernel" || return 1
	[ -z "$lane" ] && return 0
	case $list in *" $1 "*) return 0 ;; esac
	return 1
}
# One lane unless asked: on this project's 2-vCPU machine two guests side by side ran their
# CPU-bound scenarios 2 to 3.4 times slower each (Dask 302 s against 89 s alone), so two
# lanes took longer than one; only scenarios that mostly sleep gained.
lanes=${SANDCAP_VM_LANES:-1}
cost_of() {             # cost_of FILE: its "# vm-cost:" seconds, 5 when absent
	c=$(sed -n 's/^# *vm-cost: *\([0-9][0-9]*\).*/\1/p' "$1" | head -n 1)
	echo "${c:-5}"
}
# Count what this run selects; with two lanes, also each scenario's cost (plain_costs:
# "NAME SECONDS" lines; sysd_cost: the systemd guest's scenarios).
n_plain=0 n_sysd=0 n_612=0 sysd_cost=0 plain_costs="" boot_list=""
# The systemd guest boots 6.12: it is not part of a run of the 6.1 guest alone.
[ "$kernel" = 6.1 ] && no_sysd=1
for f in "$srcdir"/tests/vm/scenarios/[0-9]*.sh; do
	[ -f "$f" ] || continue
	name=$(basename "$f" .sh)
	[ "$also_612" = 1 ] && on_kernel "$name" 6.12 && n_612=$((n_612 + 1))
	case $name in
	*systemd*)
		[ "$no_sysd" = 1 ] && continue
		case $name in *"$only"*) ;; *) continue ;; esac
		n_sysd=$((n_sysd + 1))
		[ "$lanes" -ge 2 ] && sysd_cost=$((sysd_cost + $(cost_of "$f"))) ;;
	*)
		in_run "$name" || continue
		n_plain=$((n_plain + 1)) boot_list="$boot_list $name"
		[ "$lanes" -ge 2 ] && plain_costs="$plain_costs$name $(cost_of "$f")
" ;;
	esac
done
[ -n "$lane" ] && [ "${SANDCAP_VM_LANE_SYSD:-0}" != 1 ] && n_sysd=0
sysd_args="--only systemd"
[ -n "$only" ] && sysd_args="--only $only"
[ "$keep_going" = 1 ] && sysd_args="$sysd_args --keep-going"
[ "${SANDCAP_VM_PENDING:-0}" = 1 ] && sysd_args="$sysd_args --pending"
sysd_pid=""
# SANDCAP_VM_PACKAGE_MARK=NAME (make check): the package suite, which builds the .deb that
# the package scenarios install, runs beside this suite and leaves BUILD/NAME when it is
# done; a scenario with "# vm-needs: package" and the systemd guest wait for it (at most
# 20 minutes; then a missing .deb fails them).
pkg_mark=${SANDCAP_VM_PACKAGE_MARK:-}
case $pkg_mark in "" | [A-Za-z0-9._-]*) ;; *) die "SANDCAP_VM_PACKAGE_MARK is a file name in BUILD" ;; esac
case $pkg_mark in */*) die "SANDCAP_VM_PACKAGE_MARK is a file name in BUILD" ;; esac
wait_package() {
	[ -n "$pkg_mark" ] || return 0
	w=0
	while [ ! -e "$build/$pkg_mark" ] && [ $w -lt 1200 ]; do sleep 1; w=$((w + 1)); done
}
run_sysd() {            # run_sysd: the systemd guest's scenarios; adds to passed/failed
	wait_package        # (6.1 boot) or to the 6.12 record
	wait_kernel
	# In the background and waited for, so that a TERM reaches stop_all at once.  It takes
	# the systemd guest's own lock (BUILD/.vm-systemd-lock).
	# shellcheck disable=SC2086
	SANDCAP_VM_LOCKED=0 sh "$srcdir/tests/vm/sysd-run.sh" "$build" $sysd_args &
	sysd_pid=$!
	wait "$sysd_pid"
	sysd_pid=""
	sp=0 sf=1
	[ -f "$build/vm-systemd/done" ] && read -r sp sf < "$build/vm-systemd/done"
	sk=6.1
	[ -f "$build/vm-systemd/kernel" ] && read -r sk < "$build/vm-systemd/kernel"
	if [ "$sk" = 6.12 ] && [ "$rec612" != "$record_as" ]; then
		[ "$mode" = run ] && add_record "$rec612" "$sp" "$sf"
		[ "$sf" -eq 0 ] || failed_612=1
	else
		passed=$((passed + sp)) failed=$((failed + sf))
	fi
}

# The 6.12 kernel (tests/vm/kernel-build.sh): built, or taken from its cache, in the
# background while the 6.1 guest runs; the 6.12 guest and the systemd guest wait for it.
# SANDCAP_VM_UML_612 names it for a run of this script (or sysd-run.sh) as a child, or
# SANDCAP_VM_UML_612_MISSING says why this machine cannot have it (kernel-build.sh exit 2:
# each 6.12 scenario skips), or SANDCAP_VM_UML_612_FAILED why its build failed (any other
# exit: a bug of ours, each 6.12 scenario fails; the log's tail is in vm-kernel-612.log).
kb_pid="" failed_612=0
start_kernel() {
	[ -n "${SANDCAP_VM_UML_612:-}${SANDCAP_VM_UML_612_MISSING:-}${SANDCAP_VM_UML_612_FAILED:-}" ] && return 0
	# setsid: the build leads its own process group, so a TERM ends make and the compilers.
	setsid sh "$srcdir/tests/vm/kernel-build.sh" > "$build/.vm-kernel-612" \
		2> "$build/vm-kernel-612.log" < /dev/null &
	kb_pid=$!
}
wait_kernel() {         # sets SANDCAP_VM_UML_612, SANDCAP_VM_UML_612_MISSING or _FAILED
	[ -n "${SANDCAP_VM_UML_612:-}${SANDCAP_VM_UML_612_MISSING:-}${SANDCAP_VM_UML_612_FAILED:-}" ] && return 0
	[ -z "$kb_pid" ] && start_kernel
	echo "vm: waiting for the 6.12 kernel (tests/vm/kernel-build.sh; log: $build/vm-kernel-612.log)"
	t0=$(date +%s)
	wait "$kb_pid"; kb_rc=$?
	kb_pid=""
	# The reason: kernel-build.sh's "FAILED:" line, else its last unindented one (the
	# indented ones are a log's tail).
	why=$(sed -n 's/^kernel-build: FAILED: //p' "$build/vm-kernel-612.log" | tail -n 1)
	[ -n "$why" ] || why=$(sed -n 's/^kernel-build: \([^ ]\)/\1/p' "$build/vm-kernel-612.log" | tail -n 1)
	if [ "$kb_rc" -eq 0 ] && [ -s "$build/.vm-kernel-612" ]; then
		SANDCAP_VM_UML_612=$(cat "$build/.vm-kernel-612")
		echo "vm: 6.12 kernel $SANDCAP_VM_UML_612 ($(($(date +%s) - t0)) s waited)"
	elif [ "$kb_rc" -eq 2 ]; then
		SANDCAP_VM_UML_612_MISSING=${why:-"tests/vm/kernel-build.sh found no way to the kernel"}
		echo "vm: no 6.12 kernel on this machine: $SANDCAP_VM_UML_612_MISSING"
	else
		SANDCAP_VM_UML_612_FAILED="tests/vm/kernel-build.sh failed (exit $kb_rc)${why:+: $why}"
		echo "vm: $SANDCAP_VM_UML_612_FAILED (log: $build/vm-kernel-612.log)"
	fi
	export SANDCAP_VM_UML_612 SANDCAP_VM_UML_612_MISSING SANDCAP_VM_UML_612_FAILED
}
# The 6.12 guest: this script again with --kernel 6.12; its TAP continues our numbering.
run_612() {             # run_612 N: N = the TAP lines printed so far
	[ "$n_612" -gt 0 ] || return 0
	wait_kernel
	guest_612
	print_612 "$1"
}
guest_612() {           # the 6.12 guest, its output in BUILD/vm-612.out
	kg=""
	[ "$keep_going" = 1 ] && kg=--keep-going
	SANDCAP_VM_LOCKED=1 SANDCAP_VM_RECORD_ADD=1 sh "$0" "$build" --kernel 6.12 --no-systemd \
		--only "$only" --record "$rec612" $kg > "$build/vm-612.out" 2>&1 &
	sysd_pid=$!
	wait "$sysd_pid" || failed_612=1
	sysd_pid=""
}
print_612() {           # print_612 N: its output, the TAP numbered on from N
	awk -v n="$1" '/^(not )?ok [0-9]+/ { n++; sub(/^ok [0-9]+/, "ok " n)
		sub(/^not ok [0-9]+/, "not ok " n) } { print }' "$build/vm-612.out"
}

# The 6.12 part beside the 6.1 guest: a UML guest runs its processes one at a time, so the
# 6.1 guest leaves one of two CPUs to the rest of make check, mostly idle now the host
# suites are short.  Once this run holds the build directory's lock, a background subshell
# takes the 6.12 kernel (at once from the cache, else when its build ends), then runs the
# 6.12 guest and then the systemd guest, each into a file of its own; after the 6.1 guest
# they are printed in a serial run's order, the 6.12 guest's TAP numbered on, and the
# counts it leaves in BUILD/.vm-part-counts are added.  SANDCAP_VM_612_SERIAL=1 (and
# SANDCAP_CHECK_SERIAL=1, make check's "one thing at a time") runs them after it instead.
part_pid=""
start_part() {
	rm -f "$build/vm-part-kernel.out" "$build/vm-612.out" "$build/vm-part-sysd.out" \
		"$build/.vm-part-counts"
	(
		# Ended by stop_all's TERM: it ends the guest or the kernel build it waits for and
		# waits for them, so their own traps remove what they made.
		trap - EXIT
		trap '[ -n "$sysd_pid" ] && kill "$sysd_pid" 2>/dev/null
			[ -n "$kb_pid" ] && kill -TERM "-$kb_pid" 2>/dev/null; wait; exit 130' TERM HUP
		passed=0 failed=0
		wait_kernel > "$build/vm-part-kernel.out"
		[ "$n_612" -gt 0 ] && guest_612
		[ "$n_sysd" -gt 0 ] && run_sysd > "$build/vm-part-sysd.out" 2>&1
		echo "$failed_612 $passed $failed" > "$build/.vm-part-counts"
	) < /dev/null &
	part_pid=$!
}
finish_part() {         # finish_part N: the part's output after the 6.1 guest's N TAP lines
	wait "$part_pid"
	part_pid=""
	cat "$build/vm-part-kernel.out" 2> /dev/null
	[ "$n_612" -gt 0 ] && [ -f "$build/vm-612.out" ] && print_612 "$1"
	cat "$build/vm-part-sysd.out" 2> /dev/null
	if [ -s "$build/.vm-part-counts" ]; then
		read -r pf612 pp pf < "$build/.vm-part-counts"
		[ "$pf612" = 0 ] || failed_612=1
		passed=$((passed + pp)) failed=$((failed + pf))
	else
		echo "vm: the 6.12 and systemd guests' run left no counts: one failure"
		failed_612=1
		add_record "$rec612" 0 1
	fi
}

# One plain guest at a time per build directory (its results are shared); the systemd
# guest has its own lock (tests/vm/sysd-run.sh), so the two may run side by side.
lock_build() {
	[ "${SANDCAP_VM_LOCKED:-0}" = 1 ] && return 0
	exec 9> "$build/.vm-lock"
	if command -v flock > /dev/null 2>&1 && ! flock -w 1800 9; then
		fail_setup "another tests/vm/run.sh has used $build for 30 minutes"
	fi
}

# The lanes (see the header): split the plain scenarios by cost, lane 2 also carries the
# systemd guest (its scenarios' costs and two boots of about 30 s); start both, wait, then
# print both lanes' output with the TAP renumbered, and record the sums.
lane_pids=""
run_lanes() {
	lock_build
	[ "$n_sysd" -gt 0 ] && sysd_cost=$((sysd_cost + 60))
	# Longest first, each to the lane that has less so far.
	printf '%s' "$plain_costs" | sort -k2,2nr -k1,1 | awk -v b="$sysd_cost" '
		{ if (a <= b) { a += $2; A = A " " $1 } else { b += $2; B = B " " $1 } }
		END { print a + 0, b + 0; print A; print B }' > "$build/.vm-split"
	{ read -r cost1 cost2; read -r list1; read -r list2; } < "$build/.vm-split"
	rm -f "$build/.vm-split"
	rm -rf "$build/vm-results" "$build/vm-results-2" "$build/vm-systemd"
	n1=$(echo "$list1" | wc -w) n2=$(echo "$list2" | wc -w)
	then_sysd=""
	[ "$n_sysd" -gt 0 ] && then_sysd=" and then the systemd guest for $n_sysd"
	echo "vm: two lanes side by side (SANDCAP_VM_LANES=2): lane 1 boots a guest for" \
		"$n1 scenarios (about ${cost1} s on an idle machine), lane 2 for $n2$then_sysd" \
		"(about ${cost2} s); output when both are done"
	trap 'for p in $lane_pids; do kill "$p" 2> /dev/null; done
		[ -n "$kb_pid" ] && kill -TERM "-$kb_pid" 2>/dev/null; wait; exit 130' INT TERM HUP
	rm -f "$build/results/$rec612"
	[ "$n_612" -gt 0 ] && start_kernel
	kg=""
	[ "$keep_going" = 1 ] && kg=--keep-going
	SANDCAP_VM_LOCKED=1 SANDCAP_VM_LIST=$list1 SANDCAP_VM_LANE_SYSD=0 \
		sh "$0" "$build" --lane 1 --only "$only" $kg > "$build/vm-lane-1.out" 2>&1 &
	lane_pids=$!
	SANDCAP_VM_LOCKED=1 SANDCAP_VM_LIST=$list2 SANDCAP_VM_LANE_SYSD=$((n_sysd > 0)) \
		sh "$0" "$build" --lane 2 --only "$only" $kg > "$build/vm-lane-2.out" 2>&1 &
	lane_pids="$lane_pids $!"
	for p in $lane_pids; do wait "$p"; done
	lane_pids=""
	awk '/^(not )?ok [0-9]+/ { n++; sub(/^ok [0-9]+/, "ok " n); sub(/^not ok [0-9]+/, "not ok " n) }
		{ print }' "$build/vm-lane-1.out" "$build/vm-lane-2.out"
	passed=0 failed=0 skipped=0
	for d in "$build/vm-results" "$build/vm-results-2"; do
		lp=0 lf=1 ls=0
		[ -f "$d/lane-counts" ] && read -r lp lf ls < "$d/lane-counts"
		[ -f "$d/lane-counts" ] || echo "vm: the lane of $d recorded no counts: one failure"
		passed=$((passed + lp)) failed=$((failed + lf)) skipped=$((skipped + ls))
	done
	record "$passed" "$failed" "$skipped"
	echo "vm: $passed passed, $failed failed, $skipped skipped in two lanes; outputs in" \
		"$build/vm-lane-1.out and vm-lane-2.out"
	run_612 "$((passed + failed + skipped))"
	[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ] && [ "$failed_612" -eq 0 ]
}
# Worth two lanes: two or more guests' worth of work adding up to 90 s or more (a boot and
# its setup take about 20 s on an idle machine).
if [ "$mode" = run ] && [ -z "$lane" ] && [ "$lanes" -ge 2 ] &&
	[ $((n_plain + (n_sysd > 0))) -ge 2 ]; then
	total=$(printf '%s' "$plain_costs" | awk -v t="$sysd_cost" '{ t += $2 } END { print t }')
	if [ "$total" -ge 90 ]; then
		run_lanes
		exit
	fi
fi

# Bound of one boot: boot + setup, plus every selected scenario's own timeout and margin.
# Boot and setup take about 20 s on an idle machine and were seen to take 150 s on 2 busy
# cores: the bound only catches a hung guest, so it is generous.
if [ -z "${SANDCAP_VM_TIMEOUT:-}" ]; then
	bound=300
	if [ "$mode" = run ]; then
		for f in "$srcdir"/tests/vm/scenarios/[0-9]*.sh; do
			[ -f "$f" ] || continue
			in_run "$(basename "$f" .sh)" || continue
			t=$(sed -n 's/^# *vm-timeout: *\([0-9][0-9]*\).*/\1/p' "$f" | head -n 1)
			bound=$((bound + ${t:-60} + 15))
		done
	elif [ "$mode" = exec ]; then
		bound=$((bound + ${SANDCAP_VM_EXEC_TIMEOUT:-300} + 15))
	fi
else
	bound=$SANDCAP_VM_TIMEOUT
fi

# Only the systemd guest: no plain guest, its lock and results untouched (a plain guest
# may be running beside this one).
if [ "$mode" = run ] && [ "$n_plain" -eq 0 ] && [ $((n_sysd + n_612)) -gt 0 ]; then
	trap '[ -n "$sysd_pid" ] && kill "$sysd_pid" 2>/dev/null
		[ -n "$kb_pid" ] && kill -TERM "-$kb_pid" 2>/dev/null; exit 130' INT TERM HUP
	passed=0 failed=0
	[ "$also_612" = 1 ] && rm -f "$build/results/$rec612"
	[ "$n_612" -gt 0 ] && lock_build
	run_612 0
	[ "$n_sysd" -gt 0 ] && run_sysd
	[ "$passed$failed" = 00 ] || record "$passed" "$failed"
	[ "$failed" -eq 0 ] && [ "$failed_612" -eq 0 ]
	exit
fi
# The 6.12 guest's kernel: a run of this script as that guest gets its path from the run
# that started it, or fetches and builds it now; without it, each scenario is a skip.
if [ "$boot_kernel" = 6.12 ]; then
	wait_kernel
	if [ -n "${SANDCAP_VM_UML_612_FAILED:-}" ]; then
		[ "$mode" = run ] || fail_setup "$SANDCAP_VM_UML_612_FAILED"
		n=0
		for name in $boot_list; do
			n=$((n + 1))
			echo "not ok $n - vm-6.12: $name: not run: $SANDCAP_VM_UML_612_FAILED"
		done
		echo "# the build's last lines ($build/vm-kernel-612.log):"
		tail -n 30 "$build/vm-kernel-612.log" | sed 's/^/#   /'
		record 0 "$n" 0
		exit 1
	fi
	if [ -z "${SANDCAP_VM_UML_612:-}" ]; then
		[ "$mode" = run ] || fail_setup "no 6.12 kernel: $SANDCAP_VM_UML_612_MISSING"
		n=0
		for name in $boot_list; do
			n=$((n + 1))
			echo "ok $n - vm-6.12: $name # SKIP no 6.12 kernel: $SANDCAP_VM_UML_612_MISSING"
		done
		record 0 0 "$n"
		exit 0
	fi
	uml=$SANDCAP_VM_UML_612
fi
# While the 6.1 guest runs: the 6.12 kernel (built once, then from the cache), and by
# default the 6.12 and systemd guests (start_part, below).
beside=0
if [ "$also_612" = 1 ]; then
	rm -f "$build/results/$rec612"
	if [ "$n_612" -gt 0 ] || [ "$n_sysd" -gt 0 ]; then
		if [ "${SANDCAP_VM_612_SERIAL:-0}" = 1 ] || [ "${SANDCAP_CHECK_SERIAL:-0}" = 1 ]; then
			start_kernel
		else
			beside=1
		fi
	fi
fi
lock_build
rm -rf "$vmres"
mkdir -p "$vmres" || fail_setup "cannot create $vmres"
cat > "$vmres/config" <<EOF
VM_MODE=$mode
VM_ONLY='$(printf '%s' "$only" | sed "s/'/'\\\\''/g")'
VM_LIST='$boot_list'
VM_KERNEL=$boot_kernel
VM_KEEP_GOING=$keep_going
VM_HOST_SRCDIR=$srcdir
VM_HOST_BUILD=$build
VM_EXEC_ROOT=$exec_root
VM_EXEC_TIMEOUT=${SANDCAP_VM_EXEC_TIMEOUT:-300}
VM_PACKAGE_MARK=$pkg_mark
EOF
if [ "$mode" = exec ]; then
	cp "$exec_script" "$vmres/exec-script.sh" || fail_setup "cannot copy '$exec_script'"
	if [ -n "$exec_policy" ]; then
		cp "$exec_policy" "$vmres/exec-policy.ini" || fail_setup "cannot copy '$exec_policy'"
	fi
fi

# UML keeps the guest's memory in a file under TMPDIR (best on tmpfs): a private
# directory, removed afterwards.
tmpbase=${TMPDIR:-/tmp}
[ -d /dev/shm ] && [ -w /dev/shm ] && tmpbase=/dev/shm
tmp=$(mktemp -d "$tmpbase/sandcap-vm.XXXXXX") || fail_setup "mktemp in $tmpbase failed"
uml_pid="" wd_pid=""
stop_all() {
	[ -n "$wd_pid" ] && kill "$wd_pid" 2>/dev/null
	[ -n "$sysd_pid" ] && kill "$sysd_pid" 2>/dev/null
	[ -n "$kb_pid" ] && kill -TERM "-$kb_pid" 2>/dev/null
	[ -n "$part_pid" ] && kill "$part_pid" 2>/dev/null && wait "$part_pid"
	part_pid=""
	# linux.uml leads its own process group (setsid): kill every UML process, the helper
	# threads and the guest's process address spaces included.
	[ -n "$uml_pid" ] && kill -KILL "-$uml_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap 'stop_all; exit 130' INT TERM HUP
trap 'stop_all' EXIT

kcmd="mem=${SANDCAP_VM_MEM:-384M} log_buf_len=1M rootfstype=hostfs rootflags=/ ro quiet
init=$srcdir/tests/vm/guest-init.sh sandcap_src=$srcdir sandcap_build=$build sandcap_results=$vmres
con=null con0=fd:0,fd:1"

start=$(date +%s)
[ "$beside" = 1 ] && start_part
if [ "$mode" = shell ]; then
	# Interactive: the console is this terminal; no bound (exit the shell to power off).
	# shellcheck disable=SC2086
	TMPDIR=$tmp setsid "$uml" $kcmd
	exit 0
fi

: > "$vmres/console.log"
uml_boot "$vmres/console.log"
timed_out=0
[ -f "$tmp/timed-out" ] && timed_out=1
secs=$(($(date +%s) - start))

if [ "$mode" = exec ]; then
	[ -f "$vmres/exec.out" ] && cat "$vmres/exec.out"
	if [ ! -f "$vmres/exec.rc" ]; then
		[ $timed_out -eq 1 ] && echo "vm: guest killed after ${bound}s (hung)" >&2
		echo "vm: the guest did not finish (exit $uml_rc); console: $vmres/console.log" >&2
		tail -n 30 "$vmres/console.log" >&2
		exit 125
	fi
	exit "$(cat "$vmres/exec.rc")"
fi

[ -f "$vmres/tap" ] && cat "$vmres/tap"
passed=0 failed=0 skipped=0
touch "$vmres/tap"
if [ -f "$vmres/done" ]; then
	read -r passed failed skipped < "$vmres/done"
	skipped=${skipped:-0}
else
	n=$(grep -c '^\(not \)\{0,1\}ok ' "$vmres/tap" 2>/dev/null)
	skipped=$(grep -ci '^ok [^#]*# *skip' "$vmres/tap" 2>/dev/null)
	passed=$(( $(grep -c '^ok ' "$vmres/tap" 2>/dev/null) - skipped ))
	failed=$(( $(grep -c '^not ok ' "$vmres/tap" 2>/dev/null) + 1 ))
	if [ $timed_out -eq 1 ]; then
		echo "not ok $((n + 1)) - vm: guest hung: killed after ${bound}s, no results"
	else
		echo "not ok $((n + 1)) - vm: guest ended (exit $uml_rc) without finishing: crash or panic"
	fi
	n=$((n + 1))
	# Every selected scenario the guest did not finish (the one it died in and those after
	# it) is a failure of its own, so a crash loses no scenario silently.
	for name in $boot_list; do
		grep -q "^$name " "$vmres/times" 2>/dev/null && continue
		n=$((n + 1)) failed=$((failed + 1))
		echo "not ok $n - $name: lost: the guest ended before it finished"
	done
	echo "# last console lines ($vmres/console.log):"
	tail -n 40 "$vmres/console.log" | sed 's/^/#   /'
fi
echo "vm: the $boot_kernel guest: $passed passed, $failed failed, $skipped skipped in ${secs}s (bound ${bound}s); logs in $vmres"
if [ "$beside" = 1 ]; then
	finish_part "$((passed + failed + skipped))"
else
	[ "$also_612" = 1 ] && run_612 "$((passed + failed + skipped))"
	[ "$n_sysd" -gt 0 ] && run_sysd
fi
record "$passed" "$failed" "$skipped"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ] && [ "$failed_612" -eq 0 ]
