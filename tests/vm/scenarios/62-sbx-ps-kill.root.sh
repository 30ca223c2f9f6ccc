#!/bin/sh
# sbx ps and sbx kill (issue 10), and what another user can do (issue 5): sbxtest's sbx ps
# shows its two live sandboxes and not sbxother's; sbxother can neither see, signal nor sbx
# kill them; sbx kill ends one, whose leaf and workspace disappear, the other lives on.
# vm-timeout: 60
# shellcheck source=tests/vm/lib.sh
. "$VMLIB"
R=$SCRATCH
chmod 0777 "$R"
P=/sys/fs/cgroup/sbx
u() { env -i PATH="$PATH" HOME="/home/$1" SBX_HELPER="$SBX_HELPER" TMPDIR=/tmp vm-as-user "$@"; }
wait_file() { i=0; while [ $i -lt 100 ] && ! [ -s "$1" ]; do sleep 0.1; i=$((i + 1)); done; [ -s "$1" ]; }
wait_gone() { i=0; while [ $i -lt 50 ] && [ -e "$1" ]; do sleep 0.1; i=$((i + 1)); done; ! [ -e "$1" ]; }
# start USER NAME: a sandbox that records its workspace in $R/NAME.ws and sleeps
start() {
	u "$1" "$SBX" run -q --timeout 40 --report "$R/$2.json" -- \
		sh -c "echo \$TMPDIR > $R/$2.ws.tmp; mv $R/$2.ws.tmp $R/$2.ws; exec sleep 100.62" &
}
start sbxtest a; a=$!
start sbxtest b; b=$!
start sbxother o; o=$!
if wait_file "$R/a.ws" && wait_file "$R/b.ws" && wait_file "$R/o.ws"; then
	ok "three sandboxes started"
else
	fail "three sandboxes started"
fi
ida=$(basename "$(cat "$R/a.ws")"); idb=$(basename "$(cat "$R/b.ws")"); ido=$(basename "$(cat "$R/o.ws")")
diag "a=$ida b=$idb o=$ido"

u sbxtest "$SBX" ps --json > "$R/ps.json" 2> "$R/ps.err"
is "$?" 0 "sbxtest: sbx ps --json exits 0"
is "$(jq -r '[.[].id] | sort | join(" ")' "$R/ps.json")" "$(printf '%s\n' "$ida" "$idb" | sort | tr '\n' ' ' | sed 's/ $//')" \
	"sbxtest: sbx ps lists exactly its two sandboxes"
is "$(jq -r '[.[] | select(.mode == "cgroup")] | length' "$R/ps.json")" 2 "sbxtest: both in cgroup mode"
like "$(jq -r ".[] | select(.id == \"$ida\") | .command_line" "$R/ps.json")" "sleep 100.62" \
	"sbxtest: sbx ps shows the command line"
ge "$(jq -r ".[] | select(.id == \"$ida\") | .memory_current" "$R/ps.json")" 1 "sbxtest: sbx ps shows current memory"
is "$(jq -r ".[] | select(.id == \"$ida\") | .pids_current" "$R/ps.json")" 1 "sbxtest: sbx ps shows one process"
out=$(u sbxtest "$SBX" ps)
like "$out" "^ID " "sbxtest: plain sbx ps has a header"
is "$(printf '%s\n' "$out" | grep -c "^$SBXTEST_UID-")" 2 "sbxtest: plain sbx ps shows two rows"
check_fails "sbxtest: sbx ps does not show sbxother's sandbox" sh -c "printf '%s\n' '$out' | grep -q '$ido'"
is "$(u sbxother "$SBX" ps --json | jq -r '[.[].id] | join(" ")')" "$ido" "sbxother: sbx ps shows only its own"

# sbxother against sbxtest's sandbox
pa=$(head -n 1 "$P/$ida/cgroup.procs")
like "$pa" '^[0-9]+$' "sbxtest's sandboxed process is in its leaf"
check_fails "sbxother cannot signal it (kill -TERM)" u sbxother kill -TERM "$pa"
check_fails "sbxother cannot signal it (kill -0)" u sbxother kill -0 "$pa"
run_rc u sbxother "$SBX" kill "$ida"
check "sbxother: sbx kill of sbxtest's sandbox fails (exit $rc)" test "$rc" -ne 0
run_rc u sbxother "$SBX" kill --signal TERM "$ida"
check "sbxother: sbx kill --signal TERM of it fails too (exit $rc)" test "$rc" -ne 0
check_fails "sbxother cannot connect to sbxtest's control socket" \
	u sbxother python3 -c "import socket,sys; s=socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET); s.connect(sys.argv[1])" \
	"/tmp/sbx-$SBXTEST_UID/$ida.sock"
check "sbxtest's sandbox is still alive" kill -0 "$pa"
check "its leaf is still there" test -d "$P/$ida"

# sbx kill by the owner
run_rc u sbxtest "$SBX" kill "$ida"
is "$rc" 0 "sbxtest: sbx kill ID exits 0"
wait "$a"
is "$?" 137 "the killed sandbox's sbx ends with 137"
is "$(json_get "$R/a.json" .signal)" 9 "its report: killed by signal 9"
check_fails "its process is gone" kill -0 "$pa"
check "its leaf is gone" wait_gone "$P/$ida"
check "its workspace is gone" wait_gone "$(cat "$R/a.ws")"
is "$(u sbxtest "$SBX" ps --json | jq -r '[.[].id] | join(" ")')" "$idb" "sbx ps now shows only the other one"
check "the other sandbox still runs" test -d "$P/$idb"
run_rc u sbxtest "$SBX" kill "$ida"
check "sbx kill of an ended sandbox fails (exit $rc)" test "$rc" -ne 0 -a "$rc" -ne 125

run_rc u sbxtest "$SBX" kill --signal TERM "$idb"
is "$rc" 0 "sbx kill --signal TERM ID exits 0"
wait "$b"
is "$?" 143 "the TERMed sandbox's sbx ends with 143"
check "its workspace is gone" wait_gone "$(cat "$R/b.ws")"
run_rc u sbxother "$SBX" kill "$ido"
is "$rc" 0 "sbxother: sbx kill of its own sandbox"
wait "$o"
is "$?" 137 "sbxother's sandbox ended"
is "$(u sbxtest "$SBX" ps --json | jq -r 'length')" 0 "sbx ps: nothing left"
done_testing
