# Shell library for VM scenarios: `. "$VMLIB"` at the top of a scenario.
#
#   plan N              print the TAP plan (optional; done_testing prints one at the end)
#   ok DESC             a passing test          fail DESC [DETAIL]   a failing test
#   check DESC CMD...   passes when CMD exits 0
#   check_fails DESC CMD...   passes when CMD exits non-zero
#   is GOT WANT DESC    passes when the strings are equal (prints both otherwise)
#   like GOT ERE DESC   passes when GOT matches the extended regex ERE
#   ge GOT MIN DESC     passes when the integer GOT >= MIN
#   run_rc CMD...       runs CMD, sets $rc (never aborts the scenario)
#   json_get FILE EXPR  prints a jq expression of a JSON file (e.g. .verdict, .usage.wall_ms)
#   diag MSG            a TAP comment
#   skip DESC REASON    a skipped test (the harness does not count it as passed)
#   run_hostile GROUP   runs $TESTS/hostile-client GROUP against a fresh helper per case and
#                       turns its lines into TAP (tests/vm/hostile-client.c)
#   hostile_tap FILE    the same for hostile-client output a scenario ran itself
#   done_testing        prints "1..N" if plan was not called; exit status 1 if anything failed
#
# The harness counts "ok"/"not ok" lines, so a scenario that crashes part-way still
# reports what it ran; a scenario with no "ok" line at all fails.
_tap_n=0
_tap_failed=0
_tap_planned=0

plan() { _tap_planned=1; echo "1..$1"; }
diag() { echo "# $*"; }
ok() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n - $1"; }
fail() {
	_tap_n=$((_tap_n + 1)); _tap_failed=$((_tap_failed + 1))
	echo "not ok $_tap_n - $1"
	[ $# -ge 2 ] && diag "$2"
	return 0
}
skip() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n - $1 # SKIP ${2:-}"; }
check() {
	_d=$1; shift
	if "$@"; then ok "$_d"; else fail "$_d" "command failed ($?): $*"; fi
}
check_fails() {
	_d=$1; shift
	if "$@"; then fail "$_d" "command unexpectedly succeeded: $*"; else ok "$_d"; fi
}
is() {
	if [ "$1" = "$2" ]; then ok "$3"; else fail "$3" "got '$1', want '$2'"; fi
}
like() {
	if printf '%s\n' "$1" | grep -Eq -- "$2"; then ok "$3"; else fail "$3" "got '$1', want /$2/"; fi
}
ge() {
	case $1 in ''|*[!0-9]*) fail "$3" "got '$1', not an integer"; return 0 ;; esac
	if [ "$1" -ge "$2" ]; then ok "$3"; else fail "$3" "got $1, want >= $2"; fi
}
# shellcheck disable=SC2034 # rc is for the scenario
run_rc() { "$@"; rc=$?; }
json_get() {
	if command -v jq > /dev/null 2>&1; then
		jq -r "$2" "$1" 2>/dev/null
	else
		python3 -c 'import json, sys
v = json.load(open(sys.argv[1]))
for k in [k for k in sys.argv[2].split(".") if k]:
    v = v.get(k) if isinstance(v, dict) else None
print("null" if v is None else (str(v).lower() if isinstance(v, bool) else v))' "$1" "$2" 2>/dev/null
	fi
}
done_testing() {
	[ "$_tap_planned" -eq 1 ] || echo "1..$_tap_n"
	[ "$_tap_failed" -eq 0 ]
	exit $?
}

# hostile_tap FILE: hostile-client's lines in FILE ("ok - D", "not ok - D # why", "# ...")
# as TAP.
hostile_tap() {
	while IFS= read -r l; do
		case $l in
		"ok - "*) ok "${l#ok - }" ;;
		"not ok - "*) d=${l#not ok - }; fail "${d%% # *}" "${d#* # }" ;;
		"#"*) echo "$l" ;;
		esac
	done < "$1"
}
# run_hostile GROUP: each line of hostile-client is one case with a fresh helper; its exit
# status is 0 or 1 (a case failed), anything else means it did not run to the end.
run_hostile() {
	SANDCAP_HELPER=$SANDCAP_HELPER "$TESTS/hostile-client" "$1" > "$SCRATCH/h.out" 2> "$SCRATCH/h.err"
	hrc=$?
	hostile_tap "$SCRATCH/h.out"
	[ "$hrc" -le 1 ] || { fail "hostile-client $1 ran to the end" "exit $hrc"; sed 's/^/# /' "$SCRATCH/h.err"; }
}
