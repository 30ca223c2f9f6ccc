# Shell library for the systemd guest's scenarios (after lib.sh):
#   . "$VMLIB"; . "$SRCDIR/tests/vm/sysd-lib.sh"
#
#   DEB                   the .deb the package suite built (BUILD/deb/sandcap_*.deb), or ""
#   UNIT_CG               the cgroup of sandcap.service, as a path under /sys/fs/cgroup
#   wait_for SECS CMD...  polls CMD every 0.2 s until it succeeds; 1 after SECS seconds
#   parent_right DESC     TAP: sandcap.service is active, its main process alive, and its
#                         delegated parent <unit cgroup>/sandboxes is root:root 0700 with
#                         cpu, memory and pids, and is the policy's cgroup_root
#   bg_start USER TAG     starts, through a real login of USER, a cgroup-mode sandbox that
#                         waits for a go file (--timeout 600s); its report: $SCRATCH/TAG.json
#   bg_alive TAG          the sandbox TAG still runs (its start file exists, not its report)
#   bg_finish TAG         lets it end and waits for its report (up to 120 s)
#   vm_reboot             end this half; the scenario runs again after
#                         a reboot of the same image with VM_BOOT one higher
#   ucg_setup             for user-cgroup mode (no helper): sets S (the build's sandcap),
#                         MiB, R ($SCRATCH, opened to sctest) and UCG (sctest's
#                         user@.service cgroup); defines u ARGS... (sandcap ARGS as sctest
#                         through a real login, with no helper to be found), leftovers
#                         (sandcap-* cgroups under UCG) and no_leftovers
DEB=$(ls "$BUILD"/deb/sandcap_*.deb 2>/dev/null | head -n 1)
CGFS=/sys/fs/cgroup

wait_for() {
	_w=$(($1 * 5)); shift
	while ! "$@" 2> /dev/null; do
		_w=$((_w - 1))
		[ $_w -gt 0 ] || return 1
		sleep 0.2
	done
}
unit_cg() { echo "$CGFS$(systemctl show -p ControlGroup --value sandcap.service)"; }
parent_right() {
	_cg=$(unit_cg)
	is "$(systemctl is-active sandcap.service)" active "$1: sandcap.service is active"
	_pid=$(systemctl show -p MainPID --value sandcap.service)
	if [ -n "$_pid" ] && [ "$_pid" != 0 ] && kill -0 "$_pid" 2> /dev/null; then
		ok "$1: its main process ($_pid) is alive"
	else
		fail "$1: its main process is alive" "MainPID=$_pid"
	fi
	is "$(stat -c '%U:%G %a' "$_cg/sandboxes" 2>&1)" "root:root 700" \
		"$1: the delegated parent $_cg/sandboxes is root:root 0700"
	_ctl=$(cat "$_cg/sandboxes/cgroup.subtree_control" 2> /dev/null)
	like "$_ctl" "cpu.*memory.*pids" "$1: with cpu, memory and pids enabled ($_ctl)"
	_root=$(sed -n 's/^[[:space:]]*cgroup_root[[:space:]]*=[[:space:]]*//p' /etc/sandcap/sandbox.ini)
	is "$_root" "$_cg/sandboxes" "$1: the policy's cgroup_root is that parent"
}
vm_reboot() { : > "$VM_REBOOT"; }

ucg_setup() {
	S=$BUILD/sandcap
	MiB=1048576
	chmod 0777 "$SCRATCH"
	R=$SCRATCH
	UCG=/sys/fs/cgroup/user.slice/user-$SCTEST_UID.slice/user@$SCTEST_UID.service
	u() { vm-login sctest env SANDCAP_HELPER=/nonexistent/sandcap-helper "$S" "$@"; }
	leftovers() { find "$UCG" -depth -type d -name 'sandcap-*' 2> /dev/null; }
	no_leftovers() { [ -z "$(leftovers)" ]; }
}

bg_start() {            # bg_start USER TAG
	_h=$(getent passwd "$1" | cut -d: -f6)
	rm -f "$_h/$2.started" "$_h/$2.go" "$SCRATCH/$2.json"
	chmod 0777 "$SCRATCH"
	eval "bg_home_$2=$_h"
	vm-login "$1" sandcap run --memory 64M --timeout 600s --report "$SCRATCH/$2.json" -- \
		sh -c ": > $_h/$2.started; while [ ! -e $_h/$2.go ]; do sleep 0.2; done" \
		> "$SCRATCH/$2.out" 2>&1 &
	eval "bg_pid_$2=$!"
	wait_for 120 test -e "$_h/$2.started"
}
bg_alive() {
	eval "_h=\$bg_home_$1 _p=\$bg_pid_$1"
	kill -0 "$_p" 2> /dev/null && [ ! -s "$SCRATCH/$1.json" ]
}
bg_finish() {
	eval "_h=\$bg_home_$1 _p=\$bg_pid_$1"
	: > "$_h/$1.go"
	wait_for 120 test -s "$SCRATCH/$1.json"
	wait "$_p"
}
