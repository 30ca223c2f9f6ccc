#!/bin/sh
# Lines of code the file-capability helper trusts: non-blank, non-comment lines of
# helper/ and of the lib/ and policy/ files sandcap-helper links (found from its objects'
# includes: every lib/ and policy/ NAME.c and NAME-*.c whose NAME.h a helper/ file includes,
# plus lib/log.c).
# Prints both counts, the stage's share and the total; `make tcb-size` calls it.  Budget: helper/ <= 1500.
set -u
cd "$(dirname "$0")/.." || exit 1

count() {       # count FILE...: strip /* */ and // comments and blank lines
	cat "$@" | sed -e ':a' -e 's|/\*[^*]*\*\+\([^/*][^*]*\*\+\)*/||g' -e '/\/\*/{N;ba' -e '}' |
		sed -e 's|^[[:space:]]*//.*||' | grep -cv '^[[:space:]]*$'
}

helper=$(ls helper/*.c helper/*.h)
hdrs=$(grep -ho '#include "[^"]*"' $helper | sed 's/#include "\(.*\)"/\1/' | sort -u)
libs=""
for h in $hdrs; do
	for d in lib policy; do
		[ -f "$d/$h" ] && libs="$libs $d/$h"
		# stage.h is implemented by stage.c and stage-wire.c: NAME.c and NAME-*.c.
		for c in "$d/${h%.h}.c" "$d/${h%.h}"-*.c; do
			[ -f "$c" ] && libs="$libs $c"
		done
	done
done
# policy.h is implemented in several files; all but describe.c (front-end only: nothing
# the helper calls is in it, so the archive member is never pulled in) are linked.
# What those files include from lib/ (the strict INI reader, group names) is linked too.
case "$libs" in *policy/policy.h*)
	pol=$(ls policy/*.c | grep -v '^policy/describe\.c$')
	libs="$libs $pol"
	for h in $(grep -ho '#include "[^"]*"' $pol | sed 's/#include "\(.*\)"/\1/' | sort -u); do
		for c in "lib/$h" "lib/${h%.h}.c"; do
			[ -f "$c" ] && libs="$libs $c"
		done
	done ;;
esac
libs=$(printf '%s\n' $libs | sort -u)

h=$(count $helper)
l=$(count $libs)
printf '  helper/ (%d files):            %5d  (budget 1500)\n' "$(echo $helper | wc -w)" "$h"
printf '  lib/ + policy/ linked (%d files): %5d  (%s)\n' "$(echo $libs | wc -w)" "$l" \
	"$(echo $libs | tr '\n' ' ')"
# The stage (lib/stage*): what the sandbox's first process runs after it has dropped
# every capability (helper/op_spawn.c); linked into the helper, run without privilege.
st=$(count lib/stage.c lib/stage-wire.c lib/stage.h)
printf '  of which lib/stage*, run only after the capability drop: %5d\n' "$st"
printf '  total:                          %5d\n' $((h + l))
