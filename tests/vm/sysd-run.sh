#!/bin/sh
# The systemd guest of the VM suite: user-mode Linux booting Debian's systemd as PID 1 on a
# writable root (an overlay: the host's / read-only below, an ext4 image above), with
# D-Bus, logind and user@.service.  Runs the scenarios whose names contain "systemd"
# (tests/vm/run.sh calls this for them; it can also run alone), prints their TAP and
# leaves "PASSED FAILED" in BUILD/vm-systemd/done.
#
#   tests/vm/sysd-run.sh BUILD [--only PATTERN] [--keep-going] [--pending] [--shell]
#
#   --only PATTERN   only the systemd scenarios whose name also contains PATTERN
#   --keep-going     run every scenario even after one failed
#   --pending        also run the scenarios marked "# vm-pending: REASON" (they wait for
#                    another branch; by default each is one "# SKIP pending" line)
#   --shell          boot the guest (first-boot setup done, no scenario) and give a root
#                    shell on this terminal; exit it to power off
#
# One image per run, in a private directory under /dev/shm: a scenario may ask for a
# reboot (vm_reboot in lib.sh); the guest then powers off cleanly and this script boots
# the same image again (at most 3 boots).  Environment: SANDCAP_VM_SYSD_MEM (default
# 512M), SANDCAP_VM_SYSD_BOOT (seconds allowed for one boot and the harness's own setup,
# default 420: a loaded 2-core machine boots systemd in UML in 20 s to several minutes).
# The kernel is the 6.12 one (tests/vm/kernel-build.sh; run.sh passes it in
# SANDCAP_VM_UML_612, or SANDCAP_VM_UML_612_MISSING with the reason there is none): what
# users of Debian 13 and Ubuntu 24.04 run, with Landlock.  When this machine cannot have
# it the guest boots Debian 12's 6.1 (user-mode-linux) and says so; what needs Landlock
# then skips.  When its build failed (SANDCAP_VM_UML_612_FAILED, or kernel-build.sh
# exiting other than 0 or 2), every selected scenario fails with the reason.
# SANDCAP_VM_SYSD_KERNEL=6.1 boots 6.1 on purpose.  The kernel booted is left in
# BUILD/vm-systemd/kernel (6.1 or 6.12).
# See tests/vm/README.md, "The systemd guest".
set -u

die() { echo "vm-systemd: $*" >&2; exit 2; }
[ $# -ge 1 ] || die "usage: tests/vm/sysd-run.sh BUILD [--only PATTERN] [--keep-going] [--pending] [--shell]"
build=$1; shift
mode=run only="" keep_going=0 pending=0
while [ $# -gt 0 ]; do
	case $1 in
	--only) [ $# -ge 2 ] || die "--only needs a PATTERN"; only=$2; shift 2 ;;
	--keep-going) keep_going=1; shift ;;
	--pending) pending=1; shift ;;
	--shell) mode=shell; shift ;;
	*) die "unknown option '$1'; see the header of tests/vm/sysd-run.sh" ;;
	esac
done

srcdir=$(cd "$(dirname "$0")/../.." && pwd -P) || die "cannot find the source tree"
. "$srcdir/tests/vm/boot-lib.sh"
mkdir -p "$build" || die "cannot create $build"
build=$(cd "$build" && pwd -P) || die "cannot enter the build directory"
R=$build/vm-systemd

fail_setup() {
	echo "vm-systemd: $*" >&2
	mkdir -p "$R" && echo "not ok 1 - vm-systemd: $*" > "$R/tap" && echo "0 1" > "$R/done"
	echo "not ok 1 - vm-systemd: $*"
	exit 1
}
for p in "$srcdir" "$build"; do
	case $p in
	*[!A-Za-z0-9/._+-]*) fail_setup "path '$p' has characters the guest cannot take; use a plain path" ;;
	esac
done
uml=$(command -v linux.uml 2>/dev/null) ||
	fail_setup "linux.uml not found: install Debian's user-mode-linux package (make deps)"
ukernel=6.1 why_61="SANDCAP_VM_SYSD_KERNEL=6.1"
case ${SANDCAP_VM_SYSD_KERNEL:-6.12} in
6.1) ;;
6.12)
	if [ -z "${SANDCAP_VM_UML_612:-}${SANDCAP_VM_UML_612_MISSING:-}${SANDCAP_VM_UML_612_FAILED:-}" ]; then
		SANDCAP_VM_UML_612=$(sh "$srcdir/tests/vm/kernel-build.sh" 2> "$build/vm-kernel-612.log")
		case $? in
		0) ;;
		2) SANDCAP_VM_UML_612_MISSING=$(sed -n 's/^kernel-build: //p' "$build/vm-kernel-612.log" | tail -n 1) ;;
		*) SANDCAP_VM_UML_612_FAILED="tests/vm/kernel-build.sh failed: $(sed -n 's/^kernel-build: FAILED: //p' "$build/vm-kernel-612.log" | tail -n 1)" ;;
		esac
	fi
	if [ -n "${SANDCAP_VM_UML_612_FAILED:-}" ]; then
		# A build that failed is a bug of ours: the scenarios fail (below), never fall back.
		ukernel=failed
	elif [ -n "${SANDCAP_VM_UML_612:-}" ]; then
		uml=$SANDCAP_VM_UML_612 ukernel=6.12
	else
		why_61="no 6.12 kernel: ${SANDCAP_VM_UML_612_MISSING:-tests/vm/kernel-build.sh failed}"
	fi ;;
*) fail_setup "SANDCAP_VM_SYSD_KERNEL takes 6.1 or 6.12, not '$SANDCAP_VM_SYSD_KERNEL'" ;;
esac
# The guest runs the host's own programs: these come from tools/deps.sh.
for t in /lib/systemd/systemd /usr/sbin/insmod /usr/sbin/mkfs.ext4 /usr/bin/dbus-daemon \
	/lib/x86_64-linux-gnu/security/pam_systemd.so; do
	[ -e "$t" ] || fail_setup "$t is missing: run 'make deps' (systemd, dbus, libpam-systemd, kmod, e2fsprogs)"
done
[ "$ukernel" = 6.1 ] && ! ls -d /usr/lib/uml/modules/*/kernel/fs/overlayfs/overlay.ko > /dev/null 2>&1 &&
	fail_setup "overlay.ko for the UML kernel is missing (user-mode-linux package)"

# Bound of one boot: boot and setup, plus every selected scenario's timeout and margin.
per_boot=${SANDCAP_VM_SYSD_BOOT:-420}
bound=$per_boot selected=""
with_install=0     # a selection of a scenario after 70-systemd-install runs it too
for f in "$srcdir"/tests/vm/scenarios/7[1-9]*systemd*.sh; do
	case $(basename "$f" .sh) in *"$only"*) with_install=1 ;; esac
done
for f in "$srcdir"/tests/vm/scenarios/[0-9]*systemd*.sh; do
	[ -f "$f" ] || continue
	case $(basename "$f" .sh) in
	*"$only"*) ;;
	70-systemd-install) [ "$with_install" = 1 ] || continue ;;
	*) continue ;;
	esac
	t=$(sed -n 's/^# *vm-timeout: *\([0-9][0-9]*\).*/\1/p' "$f" | head -n 1)
	bound=$((bound + ${t:-60} + 15))
	selected="$selected $(basename "$f" .sh)"
done

# One systemd guest at a time per build directory (BUILD/vm-systemd is its own); a plain
# guest (tests/vm/run.sh, lock .vm-lock) may run beside it.  SANDCAP_VM_LOCKED=1: the
# caller holds this lock already.
if [ "${SANDCAP_VM_LOCKED:-0}" != 1 ]; then
	exec 9> "$build/.vm-systemd-lock"
	if command -v flock > /dev/null 2>&1 && ! flock -w 1800 9; then
		fail_setup "another systemd guest has used $build for 30 minutes"
	fi
fi
rm -rf "$R"
mkdir -p "$R" || fail_setup "cannot create $R"
if [ "$ukernel" = failed ]; then
	# Each selected scenario fails with the reason, and the build log's tail follows.
	echo 6.12 > "$R/kernel"
	n=0
	for name in $selected; do
		n=$((n + 1))
		echo "not ok $n - vm-systemd: $name: not run: $SANDCAP_VM_UML_612_FAILED" >> "$R/tap"
	done
	cat "$R/tap"
	echo "# the build's last lines ($build/vm-kernel-612.log):"
	tail -n 30 "$build/vm-kernel-612.log" | sed 's/^/#   /'
	echo "0 $n" > "$R/done"
	exit 1
fi
echo "$ukernel" > "$R/kernel"
echo "# vm-systemd: the guest boots $ukernel ($uml)"
[ "$ukernel" = 6.1 ] && echo "# vm-systemd: booting 6.1: $why_61"
cat > "$R/config" <<EOF
VM_MODE=$mode
VM_ONLY='$(printf '%s' "$only" | sed "s/'/'\\\\''/g")'
VM_KEEP_GOING=$keep_going
VM_PENDING=$pending
VM_HOST_SRCDIR=$srcdir
VM_HOST_BUILD=$build
EOF

tmpbase=${TMPDIR:-/tmp}
[ -d /dev/shm ] && [ -w /dev/shm ] && tmpbase=/dev/shm
tmp=$(mktemp -d "$tmpbase/sandcap-vm-sysd.XXXXXX") || fail_setup "mktemp in $tmpbase failed"
uml_pid="" wd_pid=""
stop_all() {
	[ -n "$wd_pid" ] && kill "$wd_pid" 2>/dev/null
	[ -n "$uml_pid" ] && kill -KILL "-$uml_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap 'stop_all; exit 130' INT TERM HUP
trap 'stop_all' EXIT

# The writable layer: a sparse ext4 image (only what the guest writes takes memory).
truncate -s 3G "$tmp/root.img" && mkfs.ext4 -q -F -L sandcap-vm "$tmp/root.img" ||
	fail_setup "cannot make the ext4 image in $tmp"

kcmd="mem=${SANDCAP_VM_SYSD_MEM:-512M} ubd0=$tmp/root.img rootfstype=hostfs rootflags=/ ro quiet
init=$srcdir/tests/vm/sysd-init.sh sandcap_src=$srcdir sandcap_build=$build sandcap_results=$R
con=null con0=fd:0,fd:1"

if [ "$mode" = shell ]; then
	# shellcheck disable=SC2086
	TMPDIR=$tmp setsid "$uml" $kcmd
	exit 0
fi

start=$(date +%s)
boot=0 hung=0 uml_rc=0
while :; do
	boot=$((boot + 1))
	rm -f "$R/reboot-requested"
	uml_boot "$R/console.log"
	[ -f "$tmp/timed-out" ] && { hung=1; break; }
	[ -f "$R/reboot-requested" ] && [ ! -f "$R/done" ] && [ "$boot" -lt 3 ] && continue
	break
done
secs=$(($(date +%s) - start))

touch "$R/tap"
cat "$R/tap"
if [ -f "$R/done" ]; then
	read -r passed failed < "$R/done"
else
	n=$(grep -c '^\(not \)\{0,1\}ok ' "$R/tap")
	passed=$(grep -c '^ok ' "$R/tap")
	failed=$(($(grep -c '^not ok ' "$R/tap") + 1))
	if [ $hung -eq 1 ]; then
		echo "not ok $((n + 1)) - vm-systemd: guest hung in boot $boot: killed after ${bound}s, no results"
	elif [ -f "$R/init-failed" ]; then
		echo "not ok $((n + 1)) - vm-systemd: the init shim failed: $(cat "$R/init-failed")"
	else
		echo "not ok $((n + 1)) - vm-systemd: boot $boot ended (exit $uml_rc) without finishing"
	fi
	n=$((n + 1))
	# Every selected scenario the guest did not finish (the one it died in and those after
	# it) is a failure of its own, so a crash loses no scenario silently.  A scenario that
	# asked for a reboot finished its first half only: it is done once a later boot has run
	# it again (its header after its reboot line).
	finished=$(awk '
		/^# --- / { sub(/^# --- /, ""); sub(/ \(.*/, ""); done[$0] = 1; next }
		/^# vm-systemd: .* asked for a reboot/ { sub(/^# vm-systemd: /, ""); sub(/ .*/, "")
			done[$0] = 0; next }
		/^ok [0-9]+ - [^ ]+ # SKIP/ { done[$4] = 1 }
		END { for (s in done) if (done[s]) printf " %s", s; print " " }' "$R/tap")
	for name in $selected; do
		case $finished in *" $name "*) continue ;; esac
		n=$((n + 1)) failed=$((failed + 1))
		echo "not ok $n - vm-systemd: $name: lost: the guest ended before it finished"
	done
	echo "# last console lines ($R/console.log):"
	tail -n 40 "$R/console.log" | sed 's/^/#   /'
	echo "$passed $failed" > "$R/done"
fi
echo "vm-systemd: $passed passed, $failed failed in ${secs}s, $boot boot(s) (bound ${bound}s each); logs in $R"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
