#!/bin/sh
# ATTACH of fds that are not the caller's fresh child (socket, file, cgroup dir, /proc dirfd, reaped child, thread, the caller) is refused with the leaf left empty; a child that exits and is reaped during ATTACH, raced 40 times, is attached or refused and always torn down.
# Each line of hostile-client is one case with a fresh helper (tests/vm/hostile-client.c).
# vm-timeout: 150
. "$VMLIB"
H=$TESTS/hostile-client
hostile() {
	SBX_HELPER=$SBX_HELPER "$H" "$1" > "$SCRATCH/h.out" 2> "$SCRATCH/h.err"
	hrc=$?
	while IFS= read -r l; do
		case $l in
		"ok - "*) ok "${l#ok - }" ;;
		"not ok - "*) d=${l#not ok - }; fail "${d%% # *}" "${d#* # }" ;;
		"#"*) echo "$l" ;;
		esac
	done < "$SCRATCH/h.out"
	[ "$hrc" -le 1 ] || { fail "hostile-client $1 ran to the end" "exit $hrc"; sed 's/^/# /' "$SCRATCH/h.err"; }
}
hostile attach
done_testing
