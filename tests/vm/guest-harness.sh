#!/bin/sh
# The VM suite's harness, run as root inside the user-mode Linux guest by guest-init.sh.
#
#   guest-harness.sh RESULTS_DIR
#
# RESULTS_DIR is the hostfs mount of $BUILD/vm-results; run.sh left "config" in it.
# guest-init.sh mounted read-only views of the source tree and the build directory on
# /dev/sandcap-vm/src and /dev/sandcap-vm/build.
# Prepares the guest (tmpfs over every place anything writes, cgroup2 with the delegated
# parent, test users, the setcap'd helper, the policy), then, by VM_MODE:
#   run    every scenario (or those matching VM_ONLY), TAP into RESULTS_DIR/tap,
#          one line "PASSED FAILED SKIPPED" into RESULTS_DIR/done
#   shell  an interactive root shell on the console
#   exec   RESULTS_DIR/exec-script.sh (copied there by run.sh) as sctest (as root with
#          VM_EXEC_ROOT=1), under RESULTS_DIR/exec-policy.ini if run.sh left one;
#          output to RESULTS_DIR/exec.out, status to exec.rc
# See tests/vm/README.md.
set -u
PATH=/usr/sbin:/usr/bin:/sbin:/bin
export PATH
umask 022

R=$1
VM_EXEC_ROOT=0 VM_EXEC_TIMEOUT=300
. "$R/config"           # VM_MODE VM_ONLY VM_LIST VM_KEEP_GOING VM_HOST_SRCDIR VM_HOST_BUILD VM_EXEC_*
VM_SRCDIR=/dev/sandcap-vm/src
VM_BUILD=/dev/sandcap-vm/build

CG=/sys/fs/cgroup
PARENT=$CG/sandcap
OPT=/opt/sandcap
SCTEST_UID=4201
SCOTHER_UID=4202
SCDEV_GID=4203
CONTROLLERS="+cpu +memory +pids +io"
DEFAULT_TIMEOUT=60

tapn=0 passed=0 failed=0 skipped=0
. "$VM_SRCDIR/tests/vm/harness-lib.sh"
setup_check() {         # setup_check DESCRIPTION CMD... : a harness assertion
	desc=$1; shift
	if "$@"; then tap ok "harness: $desc"; else tap not-ok "harness: $desc"; setup_ok=0; fi
}
must() {                # must DESCRIPTION CMD... : a setup step; reported only if it fails
	desc=$1; shift
	"$@" || { tap not-ok "harness: setup: $desc"; setup_ok=0; }
}
finish() {
	echo "# vm: finished at $(cut -d" " -f1 /proc/uptime) s"
	echo "$passed $failed $skipped" > "$R/done"
	echo "vm: guest done: $passed passed, $failed failed, $skipped skipped"
	exit 0
}
write_fails() {         # the file cannot be created (read-only filesystem)
	if (: > "$1") 2>/dev/null; then rm -f "$1"; return 1; fi
	return 0
}

: > "$R/tap"
echo "# vm: setup starts at $(cut -d" " -f1 /proc/uptime) s of guest uptime"
echo "# vm: kernel $(uname -r) (${VM_KERNEL:-6.1} guest)"
setup_ok=1

# ---- 1. The host's root is read-only; tmpfs over every place that is written. --------
setup_check "host / is mounted read-only (writing /etc/sandcap-vm-probe fails)" \
	write_fails /etc/sandcap-vm-probe
[ "$setup_ok" -eq 1 ] || finish

for d in /mnt /run /tmp /var/tmp /home /root /opt; do
	must "tmpfs on $d" mount -t tmpfs -o mode=0755,size=128m "sandcap-vm${d}" "$d"
done
chmod 1777 /tmp /var/tmp
HT=/mnt/harness         # the harness's private scratch
mkdir -m 0700 $HT
chmod 0700 /root
must "copy /etc to a tmpfs" cp -a /etc/. /mnt/etc/
must "bind the copy over /etc" mount --bind /mnt/etc /etc
# The guest has no network device but lo: nothing it sends can leave it.  The --net
# scenarios need lo up, IPv6 where the module loads, and names in (the guest's) /etc/hosts.
ip link set lo up 2>/dev/null || ifconfig lo up 2>/dev/null
_m=/usr/lib/uml/modules/$(uname -r)/kernel
[ -f $_m/net/ipv6/ipv6.ko ] && { insmod $_m/lib/crc-ccitt.ko 2>/dev/null; insmod $_m/net/ipv6/ipv6.ko 2>/dev/null; }
# sandcap decides a UNIX connect() through sock_diag (unix_diag: a module in Debian's 6.1,
# which this guest cannot autoload; built in on 6.12, kernel-6.12.config).
[ -f $_m/net/unix/unix_diag.ko ] && insmod $_m/net/unix/unix_diag.ko 2>/dev/null
printf '127.0.0.1 allowed.sandcap.test other.sandcap.test\n::1 v6.sandcap.test\n' >> /etc/hosts
mkdir -p /dev/shm && mount -t tmpfs -o mode=1777,size=32m sandcap-vm-shm /dev/shm

# ---- 2. Test users and groups (in the tmpfs copy of /etc). ---------------------------
rm -rf /etc/sandcap
{
	echo "sctest:x:$SCTEST_UID:$SCTEST_UID:sandcap VM test user:/home/sctest:/bin/sh"
	echo "scother:x:$SCOTHER_UID:$SCOTHER_UID:sandcap VM second user:/home/scother:/bin/sh"
} >> /etc/passwd
{
	echo "sctest:x:$SCTEST_UID:"
	echo "scother:x:$SCOTHER_UID:"
	echo "scdev:x:$SCDEV_GID:sctest"
} >> /etc/group
for u in sctest scother; do
	must "home of $u" sh -c "mkdir -m 0700 /home/$u && chown $u:$u /home/$u"
done
# What the packages' tmpfiles.d and sandcap-setup make (the helper never does).
mkdir -m 0755 /run/sandcap
mkdir -m 0700 /run/sandcap/.locks /run/sandcap-deadlines

# ---- 3. cgroup2: controllers top-down, the delegated parent, user and harness leaves. --
must "mount cgroup2" mount -t cgroup2 -o nsdelegate cgroup2 $CG
must "enable $CONTROLLERS in the root" sh -c "echo '$CONTROLLERS' > $CG/cgroup.subtree_control"
must "create the harness, scenario, users and sandcap cgroups" \
	mkdir $CG/harness $CG/scenario $CG/users $CG/users/sctest $CG/users/scother $PARENT
# The harness and PID 1 live in a leaf: nothing of ours stays in the root.
must "move the harness into its leaf" sh -c "echo $$ > $CG/harness/cgroup.procs"
must "move PID 1 into the harness leaf" sh -c "echo 1 > $CG/harness/cgroup.procs"
chmod 0700 $PARENT
must "enable $CONTROLLERS in $PARENT" \
	sh -c "echo '$CONTROLLERS' > $PARENT/cgroup.subtree_control"

# ---- 4. The freshly built binaries on a tmpfs, with file capabilities. ----------------
mkdir -p $OPT/bin $OPT/libexec $OPT/tests
must "copy sandcap" cp "$VM_BUILD/sandcap" $OPT/bin/sandcap
must "copy sandcap-helper" cp "$VM_BUILD/sandcap-helper" $OPT/libexec/sandcap-helper
must "copy sandcap-reaper" cp "$VM_BUILD/sandcap-reaper" $OPT/libexec/sandcap-reaper
for p in "$VM_BUILD"/tests/probe-* "$VM_BUILD"/tests/hostile-*; do
	case $p in *.d|*.o|*'*'*) continue ;; esac
	[ -f "$p" ] && cp "$p" $OPT/tests/
done
chmod 0755 $OPT/bin/* $OPT/libexec/* 2>/dev/null
must "setcap sandcap-helper" setcap cap_dac_override,cap_chown,cap_sys_admin,cap_net_admin,cap_bpf=p \
	$OPT/libexec/sandcap-helper
must "setcap probe-capcg" setcap cap_dac_override,cap_chown=p $OPT/tests/probe-capcg

# vm-as-user USER CMD...: run CMD as USER (and its groups) from the user's own cgroup.
cat > $OPT/bin/vm-as-user <<'EOF'
#!/bin/sh
u=$1; shift
echo $$ > /sys/fs/cgroup/users/$u/cgroup.procs || exit 125
exec setpriv --reuid="$u" --regid="$u" --init-groups "$@"
EOF
chmod 0700 $OPT/bin/vm-as-user

# ---- 5. Harness self-checks: these are the suite's promises, asserted every run. ------
rw_hostfs=$(awk '$3 == "hostfs" && $4 ~ /(^|,)rw(,|$)/ { print $2 }' /proc/mounts)
setup_check "the only writable hostfs mount is the results directory ($rw_hostfs)" \
	[ "$rw_hostfs" = /dev/sandcap-vm/results ]
setup_check "writing to the host's /usr fails" write_fails /usr/sandcap-vm-probe
setup_check "/etc /run /tmp /var/tmp /home /root /opt /mnt are tmpfs in the guest" \
	sh -c 'for d in /etc /run /tmp /var/tmp /home /root /opt /mnt; do
		[ "$(stat -f -c %T $d)" = tmpfs ] || exit 1; done'
setup_check "cgroup2 at $CG with cpu memory pids io in $PARENT" \
	sh -c 'for c in cpu memory pids io; do
		grep -qw $c '"$PARENT"'/cgroup.subtree_control || exit 1; done'
setup_check "$PARENT is root:root 0700" [ "$(stat -c '%u:%g %a' $PARENT)" = "0:0 700" ]
setup_check "test users resolve (sctest in scdev)" \
	sh -c '[ "$(id -u sctest)" = '$SCTEST_UID' ] && [ "$(id -u scother)" = '$SCOTHER_UID' ] &&
		id -Gn sctest | grep -qw scdev'
setup_check "sandcap-helper carries file capabilities" \
	sh -c "getcap $OPT/libexec/sandcap-helper | grep -q cap_sys_admin"
setup_check "sctest can read the scenarios and the build" \
	setpriv --reuid=sctest --regid=sctest --init-groups \
		test -r "$VM_SRCDIR/tests/vm/lib.sh" -a -x "$VM_BUILD"
[ "$setup_ok" -eq 1 ] || { tap not-ok "harness: guest setup failed (see console.log)"; finish; }

# ---- Per-scenario state, leftovers and cleanup. ---------------------------------------
# Between two scenarios the harness forks as little as it can: in user-mode Linux a fork
# and exec cost about 35 ms (every guest process runs under ptrace), and this part runs
# some 50 times.  Hence builtins, globs and one find/awk where a pipeline of small tools
# would do.
install_policy() {      # install_policy SCENARIO_BASENAME
	ini=$VM_SRCDIR/tests/vm/scenarios/$1.ini
	[ -f "$ini" ] || ini=$VM_SRCDIR/tests/vm/policy.ini
	[ "$1" = exec ] && [ -f "$R/exec-policy.ini" ] && ini=$R/exec-policy.ini
	rm -rf /etc/sandcap
	install -D -m 0644 -o 0 -g 0 "$ini" /etc/sandcap/sandbox.ini
}

# leftovers: one line per leftover; empty output = clean.
#  - cgroups: only leaves below the per-user levels are left over; the per-user levels stay
#    (root 0755, #19);
#  - mounts under /run/sandcap, processes in the test users' and the scenario's cgroups, and
#    live processes whose real, effective, saved or fs uid is a test user;
#  - /run/sandcap: .locks stays (root 0700, made by the harness) holding only per-user lock files; the
#    per-user dirs stay too (root 0755, #19), empty.
leftovers() {
	find $PARENT -mindepth 1 -type d \( -path "$PARENT/*/*" -printf 'cgroup left: %p\n' -o \
		\! \( -user root -perm 0755 \) -printf 'per-user level not root 0755: %p\n' \) \
		2>/dev/null
	for e in /run/sandcap/* /run/sandcap/.[!.]* /run/sandcap/..?*; do
		[ -e "$e" ] || [ -L "$e" ] || continue
		case ${e#/run/sandcap/} in
		.locks)
			for l in "$e"/* "$e"/.[!.]* "$e"/..?*; do
				[ -e "$l" ] || [ -L "$l" ] || continue
				case ${l#"$e"/} in user-[0-9]*.lock) ;; *) echo "workspace left: $l" ;; esac
			done ;;
		*[!0-9]*) echo "workspace left: $e" ;;
		*)
			for l in "$e"/* "$e"/.[!.]* "$e"/..?*; do
				[ -e "$l" ] || [ -L "$l" ] && echo "workspace left: $l"
			done ;;
		esac
	done
	# One awk: the mounts, the cgroups' processes and the test users' processes (the status
	# files come through cat: a process may end between the glob and the read).
	cat /proc/[0-9]*/status 2>/dev/null | awk -v a=$SCTEST_UID -v b=$SCOTHER_UID '
		FILENAME == "-" || FILENAME == "" {
			if (/^Name:/) z = 0
			else if (/^State:/ && $2 == "Z") z = 1
			else if (/^Pid:/) pid = $2
			else if (/^Uid:/ && !z) for (i = 2; i <= 5; i++)
				if ($i == a || $i == b) { users = users " " pid; break }
			next
		}
		FILENAME == "/proc/mounts" {
			if ($2 == "/run/sandcap" || $2 ~ "^/run/sandcap/") print "mount left: " $2
			next
		}
		{ procs[FILENAME] = procs[FILENAME] " " $0 }
		END {
			for (f in procs) { c = f; sub(/\/cgroup.procs$/, "", c)
				print "processes left in " c ":" procs[f] }
			if (users != "") print "test-user processes left:" users
		}' - /proc/mounts $CG/users/sctest/cgroup.procs $CG/users/scother/cgroup.procs \
		$CG/scenario/cgroup.procs
}

test_user_pids() {      # live processes whose real, effective, saved or fs uid is a test user
	cat /proc/[0-9]*/status 2>/dev/null | awk -v a=$SCTEST_UID -v b=$SCOTHER_UID '
		/^Name:/ { z = 0 }
		/^State:/ && $2 == "Z" { z = 1 }
		/^Pid:/ { pid = $2 }
		/^Uid:/ && !z { for (i = 2; i <= 5; i++) if ($i == a || $i == b) { print pid; break } }'
}

cleanup() {
	for c in $(find $PARENT -mindepth 1 -type d) $CG/users/sctest $CG/users/scother \
		$CG/scenario; do
		echo 1 > $c/cgroup.kill 2>/dev/null
	done
	for p in $(test_user_pids); do kill -KILL "$p" 2>/dev/null; done
	i=0
	while [ $i -lt 50 ] && find $PARENT $CG/users $CG/scenario -name cgroup.events \
		-exec grep -l 'populated 1' {} + 2>/dev/null | grep -q .; do
		sleep 0.1; i=$((i + 1))
	done
	find $PARENT -mindepth 1 -depth -type d -exec rmdir {} + 2>/dev/null
	awk '$2 == "/run/sandcap" || $2 ~ "^/run/sandcap/" { print $2 }' /proc/mounts | sort -r |
		while read -r m; do umount -l "$m"; done
	rm -rf /run/sandcap
	rm -rf /run/sandcap-deadlines   # records of sandboxes a scenario killed with their helper
	mkdir -m 0755 /run/sandcap
	mkdir -m 0700 /run/sandcap/.locks /run/sandcap-deadlines
}

settle_leftovers() {    # give exiting processes (a helper tearing down) up to 3 s
	i=0
	while :; do
		out=$(leftovers)
		[ -z "$out" ] || [ $i -ge 30 ] && break
		sleep 0.1; i=$((i + 1))
	done
	printf '%s' "$out"
}

scenario_env() {        # scenario_env HOME USER NAME: sets SENV, the environment every
	SENV="PATH=$OPT/bin:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin HOME=$1 USER=$2
LOGNAME=$2 LANG=C.UTF-8 TMPDIR=/tmp SANDCAP=$OPT/bin/sandcap SANDCAP_HELPER=$OPT/libexec/sandcap-helper
SCTEST_UID=$SCTEST_UID SCOTHER_UID=$SCOTHER_UID SCDEV_GID=$SCDEV_GID
VM_RESULTS=$R/$3 SCRATCH=/var/tmp/scratch SRCDIR=$VM_SRCDIR BUILD=$VM_BUILD
TESTS=$OPT/tests VMLIB=$VM_SRCDIR/tests/vm/lib.sh"       # scenario gets (for env -i)
}

prepare_scenario() {    # fresh scratch, artifact dir and policy
	name=$1 owner=$2
	rm -rf /var/tmp/scratch "${R:?}/$name"
	install -d -m 0700 -o "$owner" -g "$owner" /var/tmp/scratch
	install -d -m 0755 -o "$owner" -g "$owner" "$R/$name"
	install_policy "${name%.root}"
}

uptime_ms() {           # sets MS: the guest's uptime in ms (/proc/uptime has 2 decimals)
	read -r MS _ < /proc/uptime
	MS=${MS%.*}${MS#*.}0
	MS=${MS#"${MS%%[!0]*}"}
	MS=${MS:-0}
}

run_scenario() {        # run_scenario FILE: run, parse the TAP, check leftovers
	f=$1
	name=${f##*/}; name=${name%.sh}
	t=$DEFAULT_TIMEOUT needs=""
	while IFS= read -r l; do
		case $l in
		"# vm-timeout:"*) l=${l#"# vm-timeout:"}; l=${l#"${l%%[! ]*}"}; t=${l%%[!0-9]*}
			t=${t:-$DEFAULT_TIMEOUT} ;;
		"# vm-needs: package"*) needs=package ;;
		"#"* | "") ;;
		*) break ;;
		esac
	done < "$f"
	log=$R/$name.log
	# The .deb of a package suite running beside this one on the host (run.sh's
	# SANDCAP_VM_PACKAGE_MARK): waited for, at most 20 minutes, outside the scenario's time.
	if [ "$needs" = package ] && [ -n "${VM_PACKAGE_MARK:-}" ]; then
		w=0
		while [ ! -e "$VM_BUILD/$VM_PACKAGE_MARK" ] && [ $w -lt 1200 ]; do sleep 1; w=$((w + 1)); done
		echo "# vm: waited ${w} s for the package suite's .deb"
	fi
	read -r _ _ _ _ idle0 _ < /proc/stat   # the guest's idle time, in 1/100 s
	uptime_ms; t0=$MS
	case $name in
	*.root)
		prepare_scenario "$name" root
		scenario_env /root root "$name"
		# shellcheck disable=SC2086
		timeout -k 5 "$t" sh -c 'echo $$ > '$CG'/scenario/cgroup.procs && exec "$@"' sh \
			env -i $SENV sh "$f" > "$log" 2>&1 < /dev/null
		rc=$? ;;
	*)
		prepare_scenario "$name" sctest
		scenario_env /home/sctest sctest "$name"
		# shellcheck disable=SC2086
		timeout -k 5 "$t" $OPT/bin/vm-as-user sctest env -i $SENV sh "$f" \
			> "$log" 2>&1 < /dev/null
		rc=$? ;;
	esac

	uptime_ms; ms=$((MS - t0))
	read -r _ _ _ _ idle _ < /proc/stat
	idle=$(((idle - idle0) * 10))
	# The time the guest's CPU was idle during the scenario: its waits (sleeps, deadlines).
	echo "$name $ms $idle" >> "$R/times"
	echo "# --- $name (exit $rc, ${ms} ms, guest idle ${idle} ms) ---"
	# One awk pass (forks are slow in UML): the log, indented, to the console; the
	# scenario's TAP lines renumbered into the suite's stream (console and $R/tap); the
	# counts "OK NOTOK SKIPPED PLAN" into $HT/counts.
	awk -v name="$name" -v n=$tapn -v tapf="$R/tap" -v cf="$HT/counts" '
		{ print "#   " $0 }
		/^ok / && /# *[Ss][Kk][Ii][Pp]/ { sub(/^ok *[0-9]* *-? */, ""); skip++
			t[++k] = "ok " ++n " - " name ": " $0; next }
		/^ok / { sub(/^ok *[0-9]* *-? */, ""); ok++; t[++k] = "ok " ++n " - " name ": " $0; next }
		/^not ok/ { sub(/^not ok *[0-9]* *-? */, ""); nok++
			t[++k] = "not ok " ++n " - " name ": " $0; next }
		/^1\.\.[0-9]+/ && plan == "" { plan = substr($0, 4) + 0 }
		END {
			for (i = 1; i <= k; i++) { print t[i]; print t[i] >> tapf }
			print ok + 0, nok + 0, skip + 0, (plan == "" ? "-" : plan) > cf
		}
	' "$log"
	read -r nok nnot nskip plan < "$HT/counts"
	[ "$plan" = - ] && plan=
	tapn=$((tapn + nok + nnot + nskip)) passed=$((passed + nok)) failed=$((failed + nnot))
	skipped=$((skipped + nskip))
	bad=$nnot
	if { [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; } && [ "$ms" -ge $((t * 1000)) ]; then
		tap not-ok "$name: timed out after ${t}s"; bad=$((bad + 1))
	elif [ "$rc" -ne 0 ] && [ "$nnot" -eq 0 ]; then
		tap not-ok "$name: exited $rc"; bad=$((bad + 1))
	fi
	if [ "$nok" -eq 0 ] && [ "$bad" -eq 0 ]; then
		tap not-ok "$name: printed no 'ok' line"; bad=$((bad + 1))
	fi
	if [ -n "$plan" ] && [ "$plan" -ne $((nok + nnot + nskip)) ] && [ "$bad" -eq 0 ]; then
		tap not-ok "$name: planned $plan tests, ran $((nok + nnot + nskip))"; bad=$((bad + 1))
	fi
	left=$(settle_leftovers)
	if [ -n "$left" ]; then
		tap not-ok "$name: left things behind: $(echo "$left" | tr '\n' ';')"
		bad=$((bad + 1))
		cleanup
	fi
	[ "$bad" -eq 0 ]
}

case $VM_MODE in
shell)
	install_policy default
	mkdir -m 0755 /var/tmp/scratch && chown sctest:sctest /var/tmp/scratch
	mkdir -m 0755 "$R/shell" && chown sctest:sctest "$R/shell"
	scenario_env /home/sctest sctest shell; echo "$SENV" > $OPT/user.env
	cat <<EOF
vm: debug shell (root).  The host's / is read-only; /etc /run /tmp /home /opt are tmpfs.
    A shell as the test user, with the scenario environment:
        vm-as-user sctest env -i \$(cat $OPT/user.env) sh -i
    sandcap: $OPT/bin/sandcap  helper: $OPT/libexec/sandcap-helper  policy: /etc/sandcap/sandbox.ini
    Scenarios: $VM_SRCDIR/tests/vm/scenarios   Results (host, writable): $R
    Exit the shell to power off.
EOF
	PATH=$OPT/bin:$PATH SANDCAP_HELPER=$OPT/libexec/sandcap-helper HOME=/root \
		setsid -c /bin/sh -i < /dev/console > /dev/console 2>&1
	finish ;;
exec)
	if [ "$VM_EXEC_ROOT" = 1 ]; then
		prepare_scenario exec root
		scenario_env /home/sctest sctest exec; echo "$SENV" > $OPT/user.env
		scenario_env /root root exec
		# shellcheck disable=SC2086
		timeout -k 5 "$VM_EXEC_TIMEOUT" sh -c 'echo $$ > '$CG'/scenario/cgroup.procs && exec "$@"' \
			sh env -i $SENV sh "$R/exec-script.sh" \
			> "$R/exec.out" 2>&1 < /dev/null
	else
		prepare_scenario exec sctest
		scenario_env /home/sctest sctest exec
		# shellcheck disable=SC2086
		timeout -k 5 "$VM_EXEC_TIMEOUT" $OPT/bin/vm-as-user sctest \
			env -i $SENV sh "$R/exec-script.sh" \
			> "$R/exec.out" 2>&1 < /dev/null
	fi
	echo $? > "$R/exec.rc"
	cleanup
	finish ;;
esac

echo "# vm: setup done at $(cut -d" " -f1 /proc/uptime) s"
nrun=0 stop=0
one() {                 # one FILE: run the scenario FILE if selected; stop=1 to end the run
	[ -f "$1" ] || return 0
	name=$(basename "$1" .sh)
	case $name in *systemd*) return 0 ;; esac      # the systemd guest's (sysd-run.sh)
	if [ -n "$VM_ONLY" ]; then
		case $name in *$VM_ONLY*) ;; *) return 0 ;; esac
	fi
	if [ -n "${VM_LIST:-}" ]; then       # a lane of run.sh: only the scenarios named
		case " $VM_LIST " in *" $name "*) ;; *) return 0 ;; esac
	fi
	nrun=$((nrun + 1))
	if ! run_scenario "$1" && [ "$VM_KEEP_GOING" != 1 ]; then
		echo "# stopping after the first failed scenario (run.sh --keep-going runs all)" |
			tee -a "$R/tap"
		stop=1
	fi
}
# Scenarios with a "# vm-early: REASON" line run first, then the rest in name order.  In
# make check this guest runs beside the host suites and then alone: a scenario that mostly
# waits (a time limit waited in full) costs little while the host suites can use the CPU,
# and its whole wait once the guest is alone.  Paths are plain (run.sh checks them).
early=$(grep -l '^# *vm-early:' "$VM_SRCDIR"/tests/vm/scenarios/[0-9]*.sh 2> /dev/null)
for f in $early; do
	one "$f"
	[ "$stop" = 1 ] && break
done
for f in "$VM_SRCDIR"/tests/vm/scenarios/[0-9]*.sh; do
	[ "$stop" = 1 ] && break
	case $early in *"$f"*) continue ;; esac
	one "$f"
done
[ "$nrun" -gt 0 ] || tap not-ok "no scenario matched '${VM_ONLY}'"
finish
