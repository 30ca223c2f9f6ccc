#!/bin/sh
# The VM suite: boot user-mode Linux (a real 6.1 kernel with cgroup v2) on the host's
# read-only root, run the scenarios of tests/vm/scenarios as an unprivileged user, bring
# the TAP back, and record "vm PASSED FAILED SKIPPED" in BUILD/results/vm.
#
#   tests/vm/run.sh BUILD [--only PATTERN] [--keep-going] [--shell] [--exec SCRIPT]
#                   [--policy FILE] [--root]
#
#   --only PATTERN   run only the scenarios whose name contains PATTERN
#   --keep-going     run every scenario even after one failed (default: stop at the first)
#   --shell          boot the prepared guest and give an interactive root shell
#   --exec SCRIPT    run one script as sctest in the prepared guest; its output goes to
#                    stdout and its exit status is ours (tests/vm/guest-exec.sh uses this)
#   --policy FILE    with --exec: install FILE as the guest's policy instead of policy.ini
#   --root           with --exec: run SCRIPT as root (in the scenario leaf, like a *.root.sh
#                    scenario); it reaches the test user through vm-as-user (bench/)
#
# Scenarios whose names contain "systemd" run afterwards in the second guest, booted by
# systemd with a writable root (tests/vm/sysd-run.sh; SANDCAP_VM_PENDING=1 passes it
# --pending); the counts of both guests go into BUILD/results/vm.
#
# Environment: SANDCAP_VM_MEM (guest memory, default 384M), SANDCAP_VM_TIMEOUT (hard bound of one
# boot in seconds; default: 300 + the sum of the scenarios' timeouts + 15 s each).
# A guest that does not finish in time is killed with its whole process group and counted
# as a failure.  See tests/vm/README.md.
set -u

die() { echo "vm: $*" >&2; exit 2; }

[ $# -ge 1 ] || die "usage: tests/vm/run.sh BUILD [--only PATTERN] [--keep-going] [--shell] [--exec SCRIPT]"
build=$1; shift
mode=run only="" keep_going=0 exec_script="" exec_policy="" exec_root=0
while [ $# -gt 0 ]; do
	case $1 in
	--only) [ $# -ge 2 ] || die "--only needs a PATTERN"; only=$2; shift 2 ;;
	--keep-going) keep_going=1; shift ;;
	--shell) mode=shell; shift ;;
	--exec) [ $# -ge 2 ] || die "--exec needs a SCRIPT"; mode="exec"; exec_script=$2; shift 2 ;;
	--policy) [ $# -ge 2 ] || die "--policy needs a FILE"; exec_policy=$2; shift 2 ;;
	--root) exec_root=1; shift ;;
	*) die "unknown option '$1'; see the header of tests/vm/run.sh" ;;
	esac
done

srcdir=$(cd "$(dirname "$0")/../.." && pwd -P) || die "cannot find the source tree"
mkdir -p "$build/results" || die "cannot create $build/results"
build=$(cd "$build" && pwd -P) || die "cannot enter the build directory"
vmres=$build/vm-results

record() {              # record PASSED FAILED [SKIPPED] (only for the scenario run)
	[ "$mode" = run ] && echo "vm $1 $2 ${3:-0}" > "$build/results/vm"
	return 0
}
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

uml=$(command -v linux.uml 2>/dev/null) ||
	fail_setup "linux.uml not found: install Debian's user-mode-linux package (make deps)"
for f in sandcap sandcap-helper; do
	[ -x "$build/$f" ] || fail_setup "$build/$f is missing: run 'make all' first"
done

# Scenarios named *systemd* run in the systemd guest (tests/vm/sysd-run.sh), the rest here.
n_plain=0 n_sysd=0
for f in "$srcdir"/tests/vm/scenarios/[0-9]*.sh; do
	[ -f "$f" ] || continue
	case $(basename "$f" .sh) in
	*systemd*) case $(basename "$f" .sh) in *"$only"*) n_sysd=$((n_sysd + 1)) ;; esac ;;
	*"$only"*) n_plain=$((n_plain + 1)) ;;
	esac
done
sysd_args="--only systemd"
[ -n "$only" ] && sysd_args="--only $only"
[ "$keep_going" = 1 ] && sysd_args="$sysd_args --keep-going"
[ "${SANDCAP_VM_PENDING:-0}" = 1 ] && sysd_args="$sysd_args --pending"
run_sysd() {            # run_sysd: the systemd guest's scenarios; adds to passed/failed
	# shellcheck disable=SC2086
	SANDCAP_VM_LOCKED=1 sh "$srcdir/tests/vm/sysd-run.sh" "$build" $sysd_args
	sp=0 sf=1
	[ -f "$build/vm-systemd/done" ] && read -r sp sf < "$build/vm-systemd/done"
	passed=$((passed + sp)) failed=$((failed + sf))
}

# Bound of one boot: boot + setup, plus every selected scenario's own timeout and margin.
# Boot and setup take about 20 s on an idle machine and were seen to take 150 s on 2 busy
# cores: the bound only catches a hung guest, so it is generous.
if [ -z "${SANDCAP_VM_TIMEOUT:-}" ]; then
	bound=300
	if [ "$mode" = run ]; then
		for f in "$srcdir"/tests/vm/scenarios/[0-9]*.sh; do
			[ -f "$f" ] || continue
			case $(basename "$f" .sh) in *systemd*) continue ;; *"$only"*) ;; *) continue ;; esac
			t=$(sed -n 's/^# *vm-timeout: *\([0-9][0-9]*\).*/\1/p' "$f" | head -n 1)
			bound=$((bound + ${t:-60} + 15))
		done
	elif [ "$mode" = exec ]; then
		bound=$((bound + ${SANDCAP_VM_EXEC_TIMEOUT:-300} + 15))
	fi
else
	bound=$SANDCAP_VM_TIMEOUT
fi

# One boot at a time per build directory (BUILD/vm-results is shared): wait for the other.
exec 9> "$build/.vm-lock"
if command -v flock > /dev/null 2>&1 && ! flock -w 1800 9; then
	fail_setup "another tests/vm/run.sh has used $build for 30 minutes"
fi
rm -rf "$vmres"
mkdir -p "$vmres" || fail_setup "cannot create $vmres"
if [ "$mode" = run ] && [ "$n_plain" -eq 0 ] && [ "$n_sysd" -gt 0 ]; then
	passed=0 failed=0
	run_sysd
	record "$passed" "$failed"
	[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
	exit
fi
cat > "$vmres/config" <<EOF
VM_MODE=$mode
VM_ONLY='$(printf '%s' "$only" | sed "s/'/'\\\\''/g")'
VM_KEEP_GOING=$keep_going
VM_HOST_SRCDIR=$srcdir
VM_HOST_BUILD=$build
VM_EXEC_ROOT=$exec_root
VM_EXEC_TIMEOUT=${SANDCAP_VM_EXEC_TIMEOUT:-300}
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
	# linux.uml leads its own process group (setsid): kill every UML process, the helper
	# threads and the guest's process address spaces included.
	[ -n "$uml_pid" ] && kill -KILL "-$uml_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap 'stop_all; exit 130' INT TERM HUP
trap 'stop_all' EXIT

kcmd="mem=${SANDCAP_VM_MEM:-384M} rootfstype=hostfs rootflags=/ ro quiet
init=$srcdir/tests/vm/guest-init.sh sandcap_src=$srcdir sandcap_build=$build sandcap_results=$vmres
con=null con0=fd:0,fd:1"

start=$(date +%s)
if [ "$mode" = shell ]; then
	# Interactive: the console is this terminal; no bound (exit the shell to power off).
	# shellcheck disable=SC2086
	TMPDIR=$tmp setsid "$uml" $kcmd
	exit 0
fi

# shellcheck disable=SC2086
TMPDIR=$tmp setsid "$uml" $kcmd < /dev/null > "$vmres/console.log" 2>&1 &
uml_pid=$!
(
	trap 'kill $sp 2>/dev/null; exit 0' TERM
	sleep "$bound" & sp=$!
	wait $sp
	echo "$bound" > "$tmp/timed-out"
	kill -KILL "-$uml_pid" 2>/dev/null
) &
wd_pid=$!
wait "$uml_pid" 2>/dev/null
uml_rc=$?
timed_out=0
[ -f "$tmp/timed-out" ] && timed_out=1
kill "$wd_pid" 2>/dev/null
wait "$wd_pid" 2>/dev/null
wd_pid=""
kill -KILL "-$uml_pid" 2>/dev/null
uml_pid=""
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
	echo "# last console lines ($vmres/console.log):"
	tail -n 40 "$vmres/console.log" | sed 's/^/#   /'
fi
[ "$n_sysd" -gt 0 ] && run_sysd
record "$passed" "$failed" "$skipped"
echo "vm: $passed passed, $failed failed, $skipped skipped in ${secs}s (bound ${bound}s); logs in $vmres"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
