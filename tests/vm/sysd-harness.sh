#!/bin/sh
# The VM suite's harness in the systemd guest: sandcap-vm-harness.service (written by
# sysd-setup.sh) runs it as root once multi-user.target is up, on every boot of the image.
#
#   sysd-harness.sh RESULTS_DIR
#
# RESULTS_DIR is the hostfs mount of BUILD/vm-systemd (sysd-run.sh left "config" there).
# First boot: self-checks, test users.  Every boot: runs the scenarios named *systemd*
# (matching VM_ONLY) in name order, as root, each with a timeout, TAP into RESULTS_DIR/tap.
# A scenario that calls vm_reboot (sysd-lib.sh) ends its first half; the harness saves its
# place in RESULTS_DIR/resume (on the host: hostfs writes reach the host's file at once,
# whatever becomes of the guest's page cache at power-off), syncs the image, powers the
# guest off cleanly and asks sysd-run.sh for another boot, where the same scenario runs
# again with VM_BOOT=2 and the run goes on; a later boot without that record is a failure,
# never a silent restart from the first scenario.  At the end: "PASSED FAILED" into
# RESULTS_DIR/done, the journal of each boot into RESULTS_DIR/journal-N.txt, power off.
set -u
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH
umask 022

R=$1
VM_MODE=run VM_ONLY="" VM_KEEP_GOING=0 VM_PENDING=0
. "$R/config"
V=/dev/sandcap-vm
VM_SRCDIR=$V/src
VM_BUILD=$V/build
ST=/var/lib/sandcap-vm          # the harness's scratch on the image
RESUME=$R/resume                # where a reboot resumes: on the host, read by the next boot
SCTEST_UID=4201 SCOTHER_UID=4202
DEFAULT_TIMEOUT=120
read -r VM_BOOT < $V/rw/boots
mkdir -p $ST

tapn=0 passed=0 failed=0 resume=""
if [ -f "$RESUME" ]; then . "$RESUME"; rm -f "$RESUME"; fi
. "$VM_SRCDIR/tests/vm/harness-lib.sh"
save_journal() {
	journalctl -b --no-pager -o short-monotonic > "$R/journal-$VM_BOOT.txt" 2>&1
	systemd-analyze blame --no-pager > "$R/blame-$VM_BOOT.txt" 2>&1
}
poweroff_now() {
	save_journal
	sync
	echo o > /proc/sysrq-trigger
	exit 0
}
finish() {
	echo "# vm-systemd: finished at $(cut -d" " -f1 /proc/uptime) s of boot $VM_BOOT" >> "$R/tap"
	echo "$passed $failed" > "$R/done"
	poweroff_now
}
check() {               # check DESCRIPTION CMD... : a harness assertion
	desc=$1; shift
	if "$@"; then tap ok "harness: $desc"; else tap not-ok "harness: $desc"; setup_ok=0; fi
}

echo "# vm-systemd: boot $VM_BOOT: harness starts at $(cut -d" " -f1 /proc/uptime) s" >> "$R/tap"
# The boot must finish: every unit of the initial transaction started (or failed).
state=$(timeout 300 systemctl is-system-running --wait 2>&1)
echo "# vm-systemd: boot $VM_BOOT: system $state at $(cut -d" " -f1 /proc/uptime) s" >> "$R/tap"

if [ "$VM_BOOT" -gt 1 ] && [ -z "$resume" ] && [ "$VM_MODE" != shell ]; then
	tap not-ok "harness: boot $VM_BOOT of the image found no record of where to resume ($RESUME)"
	finish
fi
setup_ok=1
if [ "$VM_BOOT" = 1 ] || [ -z "$resume" ]; then
	check "boot $VM_BOOT: systemd is PID 1" [ "$(cat /proc/1/comm)" = systemd ]
	check "boot $VM_BOOT finished without failed units (systemctl is-system-running: $state)" \
		[ "$state" = running ]
	[ "$state" = running ] || systemctl --failed --no-pager | sed 's/^/# /' >> "$R/tap"
	check "the root is the overlay, writable (a file in /usr can be made)" \
		sh -c '[ "$(stat -f -c %T /)" = overlayfs ] && : > /usr/.vm-probe && rm /usr/.vm-probe'
	rw=$(awk '$3 == "hostfs" && $4 ~ /(^|,)rw(,|$)/ { print $2 }' /proc/mounts)
	check "the only writable view of the host is the results directory ($rw)" \
		[ "$rw" = $V/results ]
	check "cgroup v2 at /sys/fs/cgroup" [ "$(stat -f -c %T /sys/fs/cgroup)" = cgroup2fs ]
	check "D-Bus and logind are active" systemctl -q is-active dbus.service systemd-logind.service
	# Test users with real logins (su -l: PAM, pam_systemd, a logind session, user@.service).
	check "test users sctest ($SCTEST_UID) and scother ($SCOTHER_UID)" sh -c "
		useradd -m -u $SCTEST_UID -U -s /bin/sh sctest &&
		useradd -m -u $SCOTHER_UID -U -s /bin/sh scother"
	cat > /usr/local/sbin/vm-login <<'EOF'
#!/bin/sh
# vm-login USER CMD [ARG...]: run CMD as USER through a real login (su -l: PAM with
# pam_systemd, so logind opens a session and starts user@UID.service).
# "--" first: su must not take CMD's own options (-q, --memory...) for its own.
u=$1; shift
exec su -l -s /bin/sh -c 'exec "$0" "$@"' -- "$u" "$@"
EOF
	chmod 0755 /usr/local/sbin/vm-login
	out=$(vm-login sctest sh -c 'cat /proc/self/cgroup; echo "$XDG_RUNTIME_DIR"; systemctl --user is-system-running --wait' 2>&1)
	check "a login of sctest gets a logind session, a runtime dir and a running user@.service ($(echo "$out" | tr '\n' ' '))" \
		sh -c "echo '$out' | grep -q '^0::/user.slice/user-$SCTEST_UID.slice/session-.*\.scope$' &&
			echo '$out' | grep -qx '/run/user/$SCTEST_UID' && echo '$out' | grep -qx running"
	[ "$setup_ok" -eq 1 ] || { tap not-ok "harness: guest setup failed (journal-$VM_BOOT.txt)"; finish; }
fi

if [ "$VM_MODE" = shell ]; then
	cat <<EOF > /dev/console
vm-systemd: debug shell (root), boot $VM_BOOT.  systemd is PID 1; the root is an overlay
    (host's / read-only below, /dev/ubda above).  Users: sctest, scother ('vm-login USER CMD').
    The .deb: $VM_BUILD/deb/.  Scenarios: $VM_SRCDIR/tests/vm/scenarios/*systemd*.
    Exit the shell to power off.
EOF
	setsid -c /bin/sh -i < /dev/console > /dev/console 2>&1
	poweroff_now
fi

scenario_env() {        # the environment every scenario gets (as arguments for env -i)
	echo "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root USER=root
LOGNAME=root LANG=C.UTF-8 TMPDIR=/tmp SCTEST_UID=$SCTEST_UID SCOTHER_UID=$SCOTHER_UID
VM_RESULTS=$R/$1 SCRATCH=/var/tmp/scratch SRCDIR=$VM_SRCDIR BUILD=$VM_BUILD VM_BOOT=$2
VM_REBOOT=$ST/reboot VMLIB=$VM_SRCDIR/tests/vm/lib.sh"
}

leftovers() {           # sandboxes or workspaces still there after a scenario
	find /sys/fs/cgroup -mindepth 2 -path '*sandcap*' -type d -name '[0-9]*-*' 2>/dev/null |
		sed 's/^/cgroup left: /'
	awk '$2 ~ "^/run/sandcap/" { print "mount left: " $2 }' /proc/mounts
}

run_scenario() {        # run_scenario FILE BOOT: run, parse the TAP; 1 if it failed
	f=$1 sboot=$2
	name=$(basename "$f" .sh)
	t=$(sed -n 's/^# *vm-timeout: *\([0-9][0-9]*\).*/\1/p' "$f" | head -n 1)
	t=${t:-$DEFAULT_TIMEOUT}
	pend=$(sed -n 's/^# *vm-pending: *//p' "$f" | head -n 1)
	if [ -n "$pend" ] && [ "$VM_PENDING" != 1 ]; then
		tapn=$((tapn + 1))
		echo "ok $tapn - $name # SKIP pending: $pend" | tee -a "$R/tap"
		return 0
	fi
	log=$R/$name.log
	[ "$sboot" -gt 1 ] && log=$R/$name.boot$sboot.log
	rm -rf /var/tmp/scratch "$ST/reboot"
	mkdir -m 0755 /var/tmp/scratch
	mkdir -p "$R/$name"
	t0=$(date +%s)
	# shellcheck disable=SC2046
	timeout -k 5 "$t" env -i $(scenario_env "$name" "$sboot") sh "$f" > "$log" 2>&1 < /dev/null
	rc=$?
	secs=$(($(date +%s) - t0))
	echo "# --- $name (boot $sboot, exit $rc, ${secs} s) ---" >> "$R/tap"
	label=$name
	[ "$sboot" -gt 1 ] && label="$name (boot $sboot)"
	awk -v name="$label" -v n=$tapn '
		/^ok / && /# *[Ss][Kk][Ii][Pp]/ { skip++; print "# skipped: " name ": " $0; next }
		/^ok / { sub(/^ok *[0-9]* *-? */, ""); ok++; print "ok " ++n " - " name ": " $0; next }
		/^not ok/ { sub(/^not ok *[0-9]* *-? */, ""); nok++
			print "not ok " ++n " - " name ": " $0; next }
		/^#/ { print }
		END { print "@@ " ok + 0 " " nok + 0 }
	' "$log" > $ST/parsed
	grep -v '^@@ ' $ST/parsed | tee -a "$R/tap"
	# shellcheck disable=SC2046
	set -- $(sed -n 's/^@@ //p' $ST/parsed)
	tapn=$((tapn + $1 + $2)) passed=$((passed + $1)) failed=$((failed + $2))
	bad=$2
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		tap not-ok "$label: timed out after ${t}s"; bad=$((bad + 1))
	elif [ "$rc" -ne 0 ] && [ "$2" -eq 0 ]; then
		tap not-ok "$label: exited $rc"; bad=$((bad + 1))
	fi
	if [ "$1" -eq 0 ] && [ "$bad" -eq 0 ]; then
		tap not-ok "$label: printed no 'ok' line"; bad=$((bad + 1))
	fi
	i=0
	while left=$(leftovers) && [ -n "$left" ] && [ $i -lt 30 ]; do sleep 0.1; i=$((i + 1)); done
	if [ -n "$left" ]; then
		tap not-ok "$label: left things behind: $(echo "$left" | tr '\n' ';')"
		bad=$((bad + 1))
	fi
	[ "$bad" -eq 0 ]
}

# The scenarios after 70-systemd-install use the package it installs: a selection of any
# of them (--only 74) runs it first.
with_install=0
for f in "$VM_SRCDIR"/tests/vm/scenarios/7[1-9]*systemd*.sh; do
	case $(basename "$f" .sh) in *$VM_ONLY*) with_install=1 ;; esac
done
stop=0
for f in "$VM_SRCDIR"/tests/vm/scenarios/[0-9]*systemd*.sh; do
	[ -f "$f" ] || continue
	name=$(basename "$f" .sh)
	case $name in
	*$VM_ONLY*) ;;
	70-systemd-install) [ "$with_install" = 1 ] || continue ;;
	*) continue ;;
	esac
	sboot=1
	if [ -n "$resume" ]; then
		# Scenarios before the one that asked for the reboot ran in an earlier boot.
		[ "$name" = "$resume" ] || continue
		resume="" sboot=$VM_BOOT
	fi
	run_scenario "$f" "$sboot" || { [ "$VM_KEEP_GOING" = 1 ] || stop=1; }
	if [ -f "$ST/reboot" ] && [ "$stop" = 0 ]; then
		printf 'tapn=%s passed=%s failed=%s resume=%s\n' $tapn $passed $failed "$name" \
			> "$RESUME"
		echo "# vm-systemd: $name asked for a reboot: powering off cleanly" >> "$R/tap"
		: > "$R/reboot-requested"
		save_journal
		sync
		systemctl poweroff --no-block
		exit 0
	fi
	if [ "$stop" = 1 ]; then
		echo "# stopping after the first failed scenario (--keep-going runs all)" | tee -a "$R/tap"
		break
	fi
done
finish
