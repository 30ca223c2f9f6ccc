#!/bin/sh
# sandcap run asks over the policy's ceilings (tests/vm/policy.ini: memory 192M, cpu 200%, pids
# 256, disk 64M in [limits]): refused with exit 125 before anything runs, and the message
# names the ceiling and the section that set it.
# vm-timeout: 30
# vm-cost: 3
# shellcheck source=tests/vm/lib.sh
. "$VMLIB"
R=$SCRATCH

refused() {     # refused OPTION VALUE CEILING-WORD
	rm -f "$R/ran"
	run_rc "$SANDCAP" run "$1" "$2" -- sh -c "touch $R/ran" 2> "$R/err"
	is "$rc" 125 "$1 $2 over the ceiling: exit 125"
	like "$(cat "$R/err")" "$3.*\\[limits\\]" "$1 $2: the message names the ceiling ($3) and [limits]"
	check_fails "$1 $2: the command did not run" test -e "$R/ran"
}
refused --memory 1G '192 ?M'
refused --pids 1000 '256'
refused --disk 1G '64 ?M'
refused --cpu 300% '200 ?%'
diag "$(cat "$R/err")"

run_rc "$SANDCAP" run -q --memory 192M --report "$R/at.json" -- true
is "$rc" 0 "--memory 192M, at the ceiling: allowed"
is "$(json_get "$R/at.json" .limits.memory)" $((192 * 1048576)) "at the ceiling: limits.memory is 192M"
done_testing
