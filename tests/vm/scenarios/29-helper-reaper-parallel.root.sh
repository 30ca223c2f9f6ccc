#!/bin/sh
# sandcap-reaper kills every expired sandbox at once and waits for them side by side: one
# user's sandboxes that will not die quickly never delay the kill of another user's.
# sctest's three sandboxes A1-A3 expire first and never empty after the kill (root moved a
# kernel thread into each leaf, which cgroup.kill skips: the slowest teardown there is,
# the reaper gives up on it after 3 s); scother's B expires 1.5 s later, while those teardowns are still
# pending (root sets both deadlines in the records, as it may, so the overlap is sure).  The
# evidence for B is its kill time against its recorded deadline: the reaper's own figure
# ("past its deadline by N ms") and B's leaf seen empty, each with a generous bound (a
# reaper that tore A1-A3 down one after another would kill B 4.5 s or more late).
# Runs as root (to run the reaper, set the records and fill the leaves).
# vm-timeout: 400
# vm-cost: 20
. "$VMLIB"
REAPER=$(dirname "$SANDCAP_HELPER")/sandcap-reaper
DL=/run/sandcap-deadlines
wait_for() { i=0; while [ $i -lt 100 ] && ! grep -q "$1" "$2"; do sleep 0.1; i=$((i + 1)); done; }
uptime_ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }   # CLOCK_BOOTTIME
leaf_of() { sed -n 's/^cgroup //p' "$DL/$1"; }
deadline_of() { sed -n 's/^boottime_ms //p' "$DL/$1"; }
populated() { sed -n 's/^populated //p' "$1/cgroup.events" 2>/dev/null; }
start() {       # start USER NAME TIMEOUT_MS: a sandbox whose child sleeps long
	env SANDCAP_HELPER="$SANDCAP_HELPER" vm-as-user "$1" "$TESTS/probe-client" \
		-t "$3" -a child -s 300 > "$SCRATCH/$2" 2>&1 &
	eval "client_$2=\$!"
	wait_for "spawn ok" "$SCRATCH/$2"
	eval "id_$2=\$(sed -n 's/^id //p' \"$SCRATCH/$2\")"
	eval "helper_$2=\$(sed -n 's/^helper //p' \"$SCRATCH/$2\")"
	eval "vm-as-user $1 kill -STOP \"\$helper_$2\" \"\$client_$2\"" ||
		fail "$1 stops $2's helper and client"
	eval "leaf_$2=\$(leaf_of \"\$id_$2\")"
	eval "diag \"sandbox $2: \$id_$2, deadline \$(deadline_of \"\$id_$2\")\""
}
# A temporary an older helper left when killed before its rename, two minutes ago.
mkdir -p -m 0700 "$DL"
printf 'sandcap-deadline 1\n' > "$DL/.new-$SCTEST_UID-00000000deadbeef"
touch -d "@$(($(date +%s) - 120))" "$DL/.new-$SCTEST_UID-00000000deadbeef"
"$REAPER" > "$SCRATCH/reaper.log" 2>&1 &
reaper=$!
wait_for "watching" "$SCRATCH/reaper.log"
i=0; while [ $i -lt 100 ] && [ -e "$DL/.new-$SCTEST_UID-00000000deadbeef" ]; do sleep 0.1; i=$((i + 1)); done
check_fails "the reaper removed the stale temporary of an older helper" \
	test -e "$DL/.new-$SCTEST_UID-00000000deadbeef"
# Long timeouts: the deadlines that count are set below, by root's hand, in the records.
start sctest A1 300000
start sctest A2 300000
start sctest A3 300000
start scother B 300000
# Each of A's leaves gets a kernel thread (root may move one; cgroup.kill skips kernel
# threads), so A's leaves stay populated after the kill: a teardown as slow as can be.
kthreads=""
for a in A1 A2 A3; do
	eval "l=\$leaf_$a"
	for st in /proc/[0-9]*/stat; do
		k=${st#/proc/}; k=${k%/stat}
		# Its parent is kthreadd (2).  read, not cut: a fork per process adds up here.
		pp=""; { read -r _ _ _ pp _ < "$st"; } 2>/dev/null
		[ "$pp" = 2 ] || continue
		case " $kthreads " in *" $k "*) continue ;; esac
		if echo "$k" > "$l/cgroup.procs" 2>/dev/null; then
			kthreads="$kthreads $k"; break
		fi
	done
done
diag "kernel threads moved into A1-A3: $kthreads"
if [ "$(echo $kthreads | wc -w)" -ne 3 ]; then
	skip "a reaper's wait for slow leaves" "this kernel let root move no kernel thread into a leaf"
	for k in $kthreads; do echo "$k" > /sys/fs/cgroup/cgroup.procs; done
	for x in A1 A2 A3 B; do eval "kill -KILL \$client_$x; kill -CONT \$helper_$x"; done
	kill -TERM "$reaper"; wait "$reaper"
	done_testing
fi
# A1-A3 expire together in 5 s, B 1.5 s later: while the reaper still waits for A's leaves
# (3 s each, side by side; one after another, B would come 4.5 s late or more).
set_deadline() {        # set_deadline ID MS: the record rewritten as root may, renamed in
	sed "s/^boottime_ms .*/boottime_ms $2/" "$DL/$1" > "$DL/.new-test" && mv "$DL/.new-test" "$DL/$1"
}
now=$(uptime_ms)
dA=$((now + 5000)); dB=$((now + 6500))
for x in A1 A2 A3; do eval "set_deadline \"\$id_$x\" $dA"; done
set_deadline "$id_B" "$dB"
is "$(deadline_of "$id_B")" "$dB" "B's record says its deadline, 1.5 s after A1-A3's"
check "B's deadline is still ahead" test "$dB" -gt "$(uptime_ms)"
# B's leaf seen empty: the first look at or after it was killed.  The looks are builtins
# (NOW, P): a fork every tenth of a second would take the CPU the reaper needs.
now_ms() { read -r NOW _ < /proc/uptime; NOW=${NOW%.*}${NOW#*.}0; NOW=${NOW#"${NOW%%[!0]*}"}; }
pop_of() { P=""; { while read -r k v; do [ "$k" = populated ] && P=$v; done < "$1/cgroup.events"; } 2>/dev/null; }
bdead=""
now_ms
while [ "${NOW:-0}" -lt $((dB + 15000)) ]; do
	pop_of "$leaf_B"
	if [ "$P" != 1 ]; then now_ms; bdead=$NOW; break; fi
	sleep 0.1
	now_ms
done
diag "B's leaf seen empty at ${bdead:-never} ms (deadline $dB)"
# A's teardowns were given up on by now, or soon: the reaper's log says so.
i=0
while [ $i -lt 100 ] && [ "$(grep -c 'did not empty' "$SCRATCH/reaper.log")" -lt 3 ]; do
	sleep 0.1; i=$((i + 1))
done
for k in $kthreads; do echo "$k" > /sys/fs/cgroup/cgroup.procs; done
sed 's/^/# reaper: /' "$SCRATCH/reaper.log"
check "B was killed" test -n "$bdead"
lateB=$(sed -n "s/.*sandbox $id_B: past its deadline (timeout + backstop) by \([0-9]*\) ms.*/\1/p" \
	"$SCRATCH/reaper.log")
diag "the reaper killed B $lateB ms after its deadline"
check "the reaper says it killed B" test -n "$lateB"
check "B killed within 2 s of its deadline (by the reaper's clock) while A's teardowns wait" \
	test "${lateB:-99999}" -le 2000
check "B's leaf seen empty within 4 s of its deadline" test "${bdead:-99999999}" -le $((dB + 4000))
for a in A1 A2 A3; do
	eval "id=\$id_$a"
	like "$(cat "$SCRATCH/reaper.log")" "sandbox $id: past its deadline .* killed" \
		"the reaper killed $a"
done
is "$(grep -c 'did not empty' "$SCRATCH/reaper.log")" 3 \
	"A1-A3 never emptied: the reaper gave up on each and left it to its helper"

# Clean up: the kernel threads went back to the root cgroup; the helpers tear down.
for x in A1 A2 A3 B; do
	eval "kill -KILL \$client_$x; kill -CONT \$helper_$x"
done
for x in A1 A2 A3 B; do
	eval "l=\$leaf_$x"
	i=0; while [ $i -lt 100 ] && [ -e "$l" ]; do sleep 0.1; i=$((i + 1)); done
	check_fails "$x's helper, resumed, tore its sandbox down" test -e "$l"
done
kill -TERM "$reaper"; wait "$reaper"
is "$?" 0 "the reaper exits 0 on SIGTERM"
is "$(ls -A "$DL" | tr '\n' ' ')" "" "no record is left"
done_testing
