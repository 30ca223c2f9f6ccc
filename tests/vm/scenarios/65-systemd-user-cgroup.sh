#!/bin/sh
# user-cgroup mode (#18), in the systemd guest before the package is installed: no helper,
# a user with a real login (logind session, user@.service) gets cgroup limits from their
# own systemd user manager: every cgroup verdict, nothing left in their subtree, the policy's
# ceilings applied by the front-end, doctor names the mode.  On a kernel with Landlock (the
# 6.12 this guest boots) the sandbox tries to rewrite its own limits, escape its scope and
# make a sibling, all refused, and the report says the limits bind hostile code; without
# Landlock (the 6.1 fallback) the report must say they bind runaway code, not hostile code.
# vm-timeout: 500
# vm-cost: 35
. "$VMLIB"
. "$SRCDIR/tests/vm/sysd-lib.sh"
ucg_setup
le() {
	case $1 in ''|*[!0-9]*) fail "$3" "got '$1', not an integer"; return 0 ;; esac
	if [ "$1" -le "$2" ]; then ok "$3"; else fail "$3" "got $1, want <= $2"; fi
}

run_rc u run -q --report "$R/true.json" -- true
is "$rc" 0 "sandcap run -- true as a logged-in user without a helper"
is "$(json_get "$R/true.json" .mode)" user-cgroup "the report's mode is user-cgroup"
like "$(json_get "$R/true.json" .enforcement.helper)" "not used: .*not installed" \
	"enforcement.helper says why the helper was not used"
# The kernel's own answer: landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION).
ll_abi=$(python3 -c 'import ctypes
print(max(ctypes.CDLL(None, use_errno=True).syscall(444, None, 0, 1), 0))' 2> /dev/null)
has_landlock=0
[ "${ll_abi:-0}" -ge 1 ] && has_landlock=1
diag "guest kernel $(uname -r), Landlock ABI ${ll_abi:-0}"
if [ "$has_landlock" = 1 ]; then
	like "$(json_get "$R/true.json" .enforcement.cgroup_files)" \
		"^landlock \(ABI $ll_abi\): the sandbox cannot write the cgroup files; the limits bind hostile code$" \
		"Landlock here: the report says the cgroup files are protected and the limits bind hostile code"
else
	like "$(json_get "$R/true.json" .enforcement.cgroup_files)" "^not protected \(no Landlock\): the limits bind runaway code, not hostile code$" \
		"no Landlock here: the report says the limits bind runaway code, not hostile code"
fi
check "the scope is gone after the run" wait_for 10 no_leftovers

# The hostile sandbox: its own scope's files are the user's, so only the Landlock layer keeps
# it from raising memory.max, moving itself out, enabling controllers or making a sibling.
# EACCES is Landlock's answer (cgroup's own rules would say EBUSY, or let it through).
hostile='cg=/sys/fs/cgroup$(sed -n "s/^0:://p" /proc/self/cgroup); up=${cg%/*}
try() { n=$1; shift; if e=$( (eval "$*") 2>&1); then echo "$n: WRITTEN"; else echo "$n: refused: $e"; fi; }
try memory.max "echo max > $cg/memory.max"
try cgroup.procs "echo \$\$ > $up/cgroup.procs"
try subtree_control "echo +pids > $cg/cgroup.subtree_control"
try sibling "mkdir $up/sandcap-sibling-$$"
echo "memory.max now: $(cat $cg/memory.max)"'
if [ "$has_landlock" = 1 ]; then
	run_rc u run -q --memory 48M --timeout 60 --report "$R/hostile.json" -- sh -c "$hostile" \
		> "$R/hostile.out" 2>&1
	diag "$(tr '\n' ';' < "$R/hostile.out")"
	for t in memory.max cgroup.procs subtree_control sibling; do
		like "$(sed -n "s/^$t: //p" "$R/hostile.out")" '^refused: .*Permission denied' \
			"the sandbox cannot write its own cgroup's $t (EACCES: Landlock, not the cgroup's rules)"
	done
	is "$(sed -n 's/^memory.max now: //p' "$R/hostile.out")" $((48 * MiB)) \
		"... and its memory.max is still 48M"
	is "$(json_get "$R/hostile.json" .verdict)" ok "... its run ends ok (the attempts just fail)"
	check "no sibling was made in the user's tree" sh -c "! find '$UCG' -name 'sandcap-sibling-*' | grep -q ."
else
	for t in memory.max cgroup.procs subtree_control sibling 'memory.max kept' verdict sibling-gone; do
		skip "a hostile sandbox rewriting its cgroup ($t)" "this guest's kernel $(uname -r) has no Landlock"
	done
fi

run_rc u run -q --memory 48M --timeout 30 --report "$R/mem.json" -- tail /dev/zero
is "$(json_get "$R/mem.json" .verdict)" memory "memory hog under --memory 48M: verdict memory"
is "$(json_get "$R/mem.json" .enforcement.memory)" user-cgroup "enforcement.memory is user-cgroup"
peak=$(json_get "$R/mem.json" .usage.memory_peak)
le "$peak" $((48 * MiB)) "memory hog: memory_peak ($peak) not above 48M"
ge "$(json_get "$R/mem.json" .usage.oom_kills)" 1 "memory hog: oom_kills >= 1"

run_rc u run -q --pids 16 --timeout 3 --grace 0 --report "$R/bomb.json" -- \
	sh -c 'b() { b & b & wait; }; b' 2> "$R/bomb.err"
le "$(json_get "$R/bomb.json" .usage.pids_peak)" 16 "fork bomb under --pids 16: pids_peak <= 16"
like "$(json_get "$R/bomb.json" '[.verdict] + .limits_hit | join(" ")')" '(^| )pids( |$)' \
	"fork bomb: verdict or limits_hit names pids"

run_rc u run -q --cpu 50% --timeout 2 --grace 0 --report "$R/cpu.json" -- sh -c 'while :; do :; done'
c=$(($(json_get "$R/cpu.json" .usage.cpu_user_ms) + $(json_get "$R/cpu.json" .usage.cpu_system_ms)))
# cpu.max 50000/100000: at most half the wall time plus one period.  The wall time is the
# sandbox's own (a loaded host fires the 2 s timer late), so the bound holds at any load.
w=$(json_get "$R/cpu.json" .usage.wall_ms)
le "$c" $((w / 2 + 100)) "--cpu 50% spinner: at most half its ${w} ms wall time plus one period ($c ms)"
ge "$(json_get "$R/cpu.json" .usage.cpu_throttled_ms)" 1 "--cpu 50%: cpu_throttled_ms > 0"

run_rc u run -q --cpu-time 1 --timeout 30 --report "$R/ct.json" -- \
	sh -c 'while :; do :; done & while :; do :; done'
is "$(json_get "$R/ct.json" .verdict)" cpu-time "--cpu-time 1 over two spinners: verdict cpu-time (whole sandbox)"

run_rc u run -q --timeout 2 --grace 0 --report "$R/to.json" -- sh -c 'setsid sleep 1000.61 & sleep 1000.62'
is "$(json_get "$R/to.json" .verdict)" timeout "--timeout 2 with a setsid'd escapee: verdict timeout"
check_fails "the setsid'd escapee is gone" pgrep -f 'sleep 1000.61'

# SIGKILL of sandcap (the pid the caller knows): the second supervisor ends the sandbox.
vm-login sctest env SANDCAP_HELPER=/nonexistent "$S" run -q -- sh -c 'sleep 1000.64' \
	> /dev/null 2>&1 &
check "the sandbox of the SIGKILL case runs" wait_for 60 pgrep -f '^sleep 1000[.]64'
kill -KILL "$(pgrep -o -u sctest -x sandcap)"
check "after SIGKILL of sandcap its sandbox is gone within 10 s" \
	wait_for 10 sh -c '! pgrep -f "^sleep 1000[.]64"'
# Both supervisors killed at once: the scope's RuntimeMaxSec (timeout + grace + 10 s), which
# the user manager enforces, still ends it.  The command leaves a file when it starts (a
# loaded guest can miss a process that lives for the timeout alone), and the timeout, 8 s,
# leaves room to kill sandcap before it would end the sandbox itself.
rm -f /tmp/sandcap-65.ready
vm-login sctest env SANDCAP_HELPER=/nonexistent "$S" run -q --timeout 8 --grace 0 -- \
	sh -c 'touch /tmp/sandcap-65.ready; exec sleep 1000.63' > /dev/null 2>&1 &
check "the sandbox of the backstop case runs" wait_for 60 test -e /tmp/sandcap-65.ready
pkill -KILL -u sctest -x sandcap
check "with every sandcap process killed the user manager ends the sandbox by its backstop" \
	wait_for 60 sh -c '! pgrep -f "^sleep 1000[.]63"'
check "nothing of any run is left in sctest's subtree" wait_for 20 no_leftovers

# The policy applies in this mode too, by the front-end: a ceiling refuses, allow = no
# leaves rlimit mode.
mkdir -p /etc/sandcap
printf '[limits]\nmemory = 64M\n' > /etc/sandcap/sandbox.ini
chmod 0644 /etc/sandcap/sandbox.ini
run_rc u run -q --memory 128M -- true
is "$rc" 125 "--memory 128M over the policy's 64M ceiling: refused (125)"
run_rc u run -q --report "$R/dflt.json" -- true
is "$(json_get "$R/dflt.json" .limits.memory)" $((64 * MiB)) "not asking: the ceiling applies (64M)"
printf '[sandcap]\nallow_users = root\n' > /etc/sandcap/sandbox.ini
run_rc u run -q --report "$R/deny.json" -- true
is "$(json_get "$R/deny.json" .mode)" rlimit "a user the policy does not allow: rlimit mode, not user-cgroup"
rm -rf /etc/sandcap

out=$(u doctor 2>&1)
like "$out" "until fixed, sandcap run works in user-cgroup mode" "sandcap doctor names user-cgroup mode"
done_testing
