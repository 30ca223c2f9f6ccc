#!/bin/sh
# #14 item 9: [limits] sandboxes = 2 (45-helper-cap-race.ini).  Eight sessions of sctest
# CREATE at once, each holding its sandbox until all have tried, five rounds: never more
# than two get a sandbox (count-and-create is serialized per user).
# vm-timeout: 300
# vm-cost: 5
# shellcheck source=tests/vm/lib.sh
. "$VMLIB"
worst=0 least=99
for round in 1 2 3 4 5; do
	SANDCAP_HELPER=$SANDCAP_HELPER "$TESTS/hostile-client" cap 8 > "$SCRATCH/cap" 2>&1
	n=$(sed -n 's/^# created \([0-9]*\) .*/\1/p' "$SCRATCH/cap")
	diag "round $round: $(cat "$SCRATCH/cap")"
	[ -n "$n" ] || n=99
	[ "$n" -gt "$worst" ] && worst=$n
	[ "$n" -lt "$least" ] && least=$n
done
ge 2 "$worst" "at most 2 sandboxes alive at once in every round (most: $worst)"
ge "$least" 1 "every round got at least one sandbox"
done_testing
