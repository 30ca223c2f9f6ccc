#!/bin/sh
# Malformed frames, wrong header fields, wrong fd counts and requests out of order: the helper drops the session (no reply, exit 1) and leaves nothing behind.
# Each line of hostile-client is one case with a fresh helper (tests/vm/hostile-client.c).
# vm-timeout: 120
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
hostile frames
done_testing
