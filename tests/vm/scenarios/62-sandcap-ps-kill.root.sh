#!/bin/sh
# sandcap ps and sandcap kill (issue 10), and what another user can do (issue 5): sctest's sandcap ps
# shows its two live sandboxes and not scother's; scother can neither see, signal nor sandcap
# kill them; sandcap kill ends one, whose leaf and workspace disappear, the other lives on.
# vm-timeout: 240
# vm-cost: 10
# shellcheck source=tests/vm/lib.sh
. "$VMLIB"
R=$SCRATCH
chmod 0777 "$R"
P=/sys/fs/cgroup/sandcap
u() { env -i PATH="$PATH" HOME="/home/$1" SANDCAP_HELPER="$SANDCAP_HELPER" TMPDIR=/tmp vm-as-user "$@"; }
wait_file() { i=0; while [ $i -lt 100 ] && ! [ -s "$1" ]; do sleep 0.1; i=$((i + 1)); done; [ -s "$1" ]; }
wait_gone() { i=0; while [ $i -lt 50 ] && [ -e "$1" ]; do sleep 0.1; i=$((i + 1)); done; ! [ -e "$1" ]; }
# start USER NAME: a sandbox that records its workspace in $R/NAME.ws and sleeps
start() {
	u "$1" "$SANDCAP" run -q --timeout 120 --report "$R/$2.json" -- \
		sh -c "echo \$TMPDIR > $R/$2.ws.tmp; mv $R/$2.ws.tmp $R/$2.ws; exec sleep 100.62" &
}
start sctest a; a=$!
start sctest b; b=$!
start scother o; o=$!
if wait_file "$R/a.ws" && wait_file "$R/b.ws" && wait_file "$R/o.ws"; then
	ok "three sandboxes started"
else
	fail "three sandboxes started"
fi
ida=$(basename "$(cat "$R/a.ws")"); idb=$(basename "$(cat "$R/b.ws")"); ido=$(basename "$(cat "$R/o.ws")")
diag "a=$ida b=$idb o=$ido"

u sctest "$SANDCAP" ps --json > "$R/ps.json" 2> "$R/ps.err"
is "$?" 0 "sctest: sandcap ps --json exits 0"
is "$(jq -r '[.[].id] | sort | join(" ")' "$R/ps.json")" "$(printf '%s\n' "$ida" "$idb" | sort | tr '\n' ' ' | sed 's/ $//')" \
	"sctest: sandcap ps lists exactly its two sandboxes"
is "$(jq -r '[.[] | select(.mode == "cgroup")] | length' "$R/ps.json")" 2 "sctest: both in cgroup mode"
like "$(jq -r ".[] | select(.id == \"$ida\") | .command_line" "$R/ps.json")" "sleep 100.62" \
	"sctest: sandcap ps shows the command line"
ge "$(jq -r ".[] | select(.id == \"$ida\") | .memory_current" "$R/ps.json")" 1 "sctest: sandcap ps shows current memory"
is "$(jq -r ".[] | select(.id == \"$ida\") | .pids_current" "$R/ps.json")" 1 "sctest: sandcap ps shows one process"
out=$(u sctest "$SANDCAP" ps)
like "$out" "^ID " "sctest: plain sandcap ps has a header"
is "$(printf '%s\n' "$out" | grep -c "^$SCTEST_UID-")" 2 "sctest: plain sandcap ps shows two rows"
check_fails "sctest: sandcap ps does not show scother's sandbox" sh -c "printf '%s\n' '$out' | grep -q '$ido'"
is "$(u scother "$SANDCAP" ps --json | jq -r '[.[].id] | join(" ")')" "$ido" "scother: sandcap ps shows only its own"

# scother against sctest's sandbox
pa=$(head -n 1 "$P/$SCTEST_UID/$ida/cgroup.procs")
like "$pa" '^[0-9]+$' "sctest's sandboxed process is in its leaf"
check_fails "scother cannot signal it (kill -TERM)" u scother kill -TERM "$pa"
check_fails "scother cannot signal it (kill -0)" u scother kill -0 "$pa"
run_rc u scother "$SANDCAP" kill "$ida"
check "scother: sandcap kill of sctest's sandbox fails (exit $rc)" test "$rc" -ne 0
run_rc u scother "$SANDCAP" kill --signal TERM "$ida"
check "scother: sandcap kill --signal TERM of it fails too (exit $rc)" test "$rc" -ne 0
# Without XDG_RUNTIME_DIR each run's socket is /tmp/sandcap-ID.sock, mode 0700 (#14 item 8).
sock=/tmp/sandcap-$ida.sock
check "sctest's control socket is $sock, sctest's, mode 0700" \
	test "$(stat -c '%F %a %u' "$sock" 2>/dev/null)" = "socket 700 $SCTEST_UID"
check_fails "scother cannot connect to sctest's control socket" \
	u scother python3 -c "import socket,sys; s=socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET); s.connect(sys.argv[1])" \
	"$sock"
check "sctest's sandbox is still alive" kill -0 "$pa"
check "its leaf is still there" test -d "$P/$SCTEST_UID/$ida"

# sandcap kill by the owner
run_rc u sctest "$SANDCAP" kill "$ida"
is "$rc" 0 "sctest: sandcap kill ID exits 0"
wait "$a"
is "$?" 137 "the killed sandbox's sandcap ends with 137"
is "$(json_get "$R/a.json" .signal)" 9 "its report: killed by signal 9"
is "$(json_get "$R/a.json" .verdict)" killed "its report: verdict killed"
is "$(json_get "$R/a.json" .killed_by.uid)" "$SCTEST_UID" "its report: killed_by names sctest's uid"
is "$(json_get "$R/a.json" .killed_by.by)" "sandcap kill" "its report: killed_by sandcap kill"
check_fails "its process is gone" kill -0 "$pa"
check "its leaf is gone" wait_gone "$P/$SCTEST_UID/$ida"
check "its workspace is gone" wait_gone "$(cat "$R/a.ws")"
is "$(u sctest "$SANDCAP" ps --json | jq -r '[.[].id] | join(" ")')" "$idb" "sandcap ps now shows only the other one"
check "the other sandbox still runs" test -d "$P/$SCTEST_UID/$idb"
run_rc u sctest "$SANDCAP" kill "$ida"
check "sandcap kill of an ended sandbox fails (exit $rc)" test "$rc" -ne 0 -a "$rc" -ne 125

run_rc u sctest "$SANDCAP" kill --signal TERM "$idb"
is "$rc" 0 "sandcap kill --signal TERM ID exits 0"
wait "$b"
is "$?" 143 "the TERMed sandbox's sandcap ends with 143"
check "its workspace is gone" wait_gone "$(cat "$R/b.ws")"
run_rc u scother "$SANDCAP" kill "$ido"
is "$rc" 0 "scother: sandcap kill of its own sandbox"
wait "$o"
is "$?" 137 "scother's sandbox ended"
is "$(u sctest "$SANDCAP" ps --json | jq -r 'length')" 0 "sandcap ps: nothing left"
done_testing
