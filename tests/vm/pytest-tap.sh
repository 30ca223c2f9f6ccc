# Shell functions for VM scenarios that run a pytest module (source after lib.sh):
#   junit_tap JUNIT.xml   one TAP line per test case of pytest's junit file, through lib.sh's
#                         ok / fail / skip (a failure's message goes into the diagnostic);
#                         fails once if the file is missing or empty.
# shellcheck shell=sh
junit_tap() {
	if [ ! -s "$1" ]; then
		fail "pytest ran" "no junit file $1"
		return 0
	fi
	/usr/bin/python3 - "$1" > "$1.tap" <<'PY'
import sys, xml.etree.ElementTree as ET
for tc in ET.parse(sys.argv[1]).getroot().iter("testcase"):
    name = f"pytest {tc.get('classname', '').rsplit('.', 1)[-1]}::{tc.get('name')}"
    bad = tc.find("failure")
    if bad is None:
        bad = tc.find("error")
    skipped = tc.find("skipped")
    if bad is not None:
        print(f"F\t{name}\t{' '.join((bad.get('message') or '').split())[:400]}")
    elif skipped is not None:
        print(f"S\t{name}\t{' '.join((skipped.get('message') or '').split())[:200]}")
    else:
        print(f"P\t{name}\t")
PY
	while IFS="$(printf '\t')" read -r _st _name _msg; do
		case $_st in
		P) ok "$_name" ;;
		S) skip "$_name" "$_msg" ;;
		*) fail "$_name" "$_msg" ;;
		esac
	done < "$1.tap"
}
