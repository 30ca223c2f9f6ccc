#!/bin/sh
# Issue #15: the helper's cgroup BPF programs stay attached across fork and exec and die with
# the leaf.  As root, through bpf(2) (tests/vm/bpf-progs.py: BPF_PROG_QUERY on the leaf,
# BPF_PROG_GET_NEXT_ID for what is loaded): while sctest's sandbox runs, each of its nine
# hooks holds one program of its own, and a grandchild of the sandbox's first process (after
# two fork+exec) is in the leaf and still refused what --net loopback forbids; after the
# sandbox ends (DESTROY; sandcap run's own end; sandcap killed with SIGKILL) those programs
# no longer exist.  The programs are freed when the kernel releases the removed cgroup,
# which it does asynchronously: "gone" is polled with a deadline.
# vm-timeout: 240
# vm-cost: 15
# shellcheck source=tests/vm/lib.sh
. "$VMLIB"
R=$SCRATCH
P=/sys/fs/cgroup/sandcap/$SCTEST_UID
BP="python3 $SRCDIR/tests/vm/bpf-progs.py"
PROBE="python3 $SRCDIR/tests/vm/net-probe.py"
chmod 0777 "$R"
wait_file() { i=0; while [ $i -lt 300 ] && ! [ -s "$1" ]; do sleep 0.1; i=$((i + 1)); done; [ -s "$1" ]; }
# progs_gone ID...: up to 20 s for every listed program to be freed
progs_gone() { i=0; while [ $i -lt 200 ] && [ -n "$($BP alive "$@")" ]; do sleep 0.1; i=$((i + 1)); done
	[ -z "$($BP alive "$@")" ]; }
# leaf_progs ID: the program ids attached to the leaf, one per line; checks one per hook
leaf_progs() {
	$BP query "$P/$1" > "$R/q.$1" 2>&1
	is "$(awk 'NF == 2 { n++ } END { print n + 0 }' "$R/q.$1")" 9 \
		"$2: each of the 9 hooks of leaf $1 holds exactly one program"
	awk 'NF >= 2 { for (i = 2; i <= NF; i++) print $i }' "$R/q.$1" | sort -n > "$R/p.$1"
	is "$(comm -12 "$R/p.$1" "$R/ids0" | wc -l)" 0 "$2: they were loaded for this sandbox"
}

python3 "$SRCDIR/tests/vm/net-server.py" 200 > "$R/srv" 2>&1 &
srv=$!
i=0; while ! grep -q '^ready' "$R/srv" && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
T=$(sed -n 's/^tcp //p' "$R/srv")
check "loopback server is up (tcp $T)" test -n "$T"
$BP ids | awk '{ print $1 }' | sort -n > "$R/ids0"
check "bpf(2) lists the loaded programs as root" test -f "$R/ids0"
v() { sed -n "s/^$1: //p" "$2"; }

# ---- 1. probe-client: the first process forks a shell (exec), which forks the probe. ------
cat > "$R/outer.sh" <<EOS
sh $R/inner.sh > $R/gc.out 2>&1
echo outer done
EOS
cat > "$R/inner.sh" <<EOS
echo \$\$ > $R/gc.pid
i=0; while [ ! -e $R/go ] && [ \$i -lt 1200 ]; do sleep 0.1; i=\$((i + 1)); done
$PROBE --tcp $T
echo inner done
EOS
env SANDCAP_HELPER="$SANDCAP_HELPER" TMPDIR=/tmp vm-as-user sctest \
	"$TESTS/probe-client" -N loopback -- sh "$R/outer.sh" > "$R/pc.out" 2>&1 &
pc=$!
check "probe-client: the grandchild started" wait_file "$R/gc.pid"
id=$(sed -n 's/^id //p' "$R/pc.out")
gc=$(cat "$R/gc.pid")
like "$id" "^$SCTEST_UID-" "probe-client: the sandbox has an id ($id)"
is "$(cat "/proc/$gc/cgroup" 2>&1)" "0::/sandcap/$SCTEST_UID/$id" \
	"the forked and exec'd shell is in the leaf"
leaf_progs "$id" "probe-client"
ids1=$(cat "$R/p.$id")
touch "$R/go"
wait "$pc"
is "$(v tcp4_lo "$R/gc.out")" OK "grandchild: TCP to 127.0.0.1 works"
is "$(v tcp4_ext "$R/gc.out")" EPERM "grandchild: TCP to 192.0.2.1 refused by the programs (EPERM)"
is "$(v bind4_any "$R/gc.out")" EPERM "grandchild: bind 0.0.0.0 refused"
is "$(v socket_udplite4 "$R/gc.out")" EPERM "grandchild: UDP-Lite refused (sock_create)"
like "$(cat "$R/pc.out")" "destroy ok" "probe-client: DESTROY done"
check_fails "probe-client: the leaf is gone" test -e "$P/$id"
# shellcheck disable=SC2086
check "probe-client: its 9 programs are freed (within 20 s)" progs_gone $ids1

# ---- 2. sandcap run: the programs die with the sandbox when it ends normally. -------------
rm -f "$R/go" "$R/ws"
env SANDCAP_HELPER="$SANDCAP_HELPER" TMPDIR=/tmp vm-as-user sctest "$SANDCAP" run -q \
	--net loopback -- sh -c 'echo "$TMPDIR" > '"$R"'/ws
		i=0; while [ ! -e '"$R"'/go ] && [ $i -lt 1200 ]; do sleep 0.1; i=$((i + 1)); done' &
sc=$!
check "sandcap run: the sandbox started" wait_file "$R/ws"
id=$(basename "$(cat "$R/ws")")
leaf_progs "$id" "sandcap run"
ids2=$(cat "$R/p.$id")
touch "$R/go"
wait "$sc"
is "$?" 0 "sandcap run: exit 0"
check_fails "sandcap run: the leaf is gone" test -e "$P/$id"
# shellcheck disable=SC2086
check "sandcap run: its 9 programs are freed (within 20 s)" progs_gone $ids2

# ---- 3. sandcap killed with SIGKILL: the helper tears down; the programs go too. ----------
rm -f "$R/ws"
env SANDCAP_HELPER="$SANDCAP_HELPER" TMPDIR=/tmp vm-as-user sctest "$SANDCAP" run -q \
	--net loopback --timeout 120 -- sh -c 'echo "$TMPDIR" > '"$R"'/ws; exec sleep 100.821' &
sc=$!                      # env, vm-as-user and setpriv exec: this is sandcap itself
check "SIGKILL: the sandbox started" wait_file "$R/ws"
id=$(basename "$(cat "$R/ws")")
leaf_progs "$id" "SIGKILL"
ids3=$(cat "$R/p.$id")
like "$(tr '\0' ' ' < "/proc/$sc/cmdline")" "^$SANDCAP run" "SIGKILL: the pid we kill is sandcap"
kill -KILL "$sc"
wait "$sc" 2>/dev/null
i=0; while [ $i -lt 100 ] && [ -e "$P/$id" ]; do sleep 0.1; i=$((i + 1)); done
check_fails "SIGKILL: the leaf is gone within 10 s" test -e "$P/$id"
# shellcheck disable=SC2086
check "SIGKILL: its 9 programs are freed (within 20 s)" progs_gone $ids3
check_fails "SIGKILL: the sandboxed sleep is dead" pgrep -f 'sleep 100[.]821'

cp "$R"/q.* "$R"/*.out "$VM_RESULTS/" 2>/dev/null
kill "$srv" 2>/dev/null
wait "$srv" 2>/dev/null
done_testing
