#!/bin/sh
# Lines of code the file-capability helper trusts: non-blank, non-comment lines of every
# source file linked into sandcap-helper, read from its link map (BUILD/sandcap-helper.map:
# BUILD/helper/main.o and each archive member the linker pulled in) and each object's dependency
# file (BUILD/**/NAME.d: the headers it was compiled with).  Prints the helper's own share
# (helper/), the lib/ and policy/ code it links, the stage's share, the total and the
# external archives; exits 1 when helper/ is over its budget.  `make tcb-size` and
# `make lint` run it.
#   tools/tcb-size.sh [BUILD]
set -u
BUDGET=2000             # helper/ lines; raising it is a reviewed one-line commit
build=${1:-build}
cd "$(dirname "$0")/.." || exit 2
map=$build/sandcap-helper.map
[ -s "$map" ] || { echo "tcb-size: no $map: link the helper again (rm $build/sandcap-helper; make)" >&2; exit 2; }

count() {       # count FILE...: strip /* */ and // comments and blank lines
	cat "$@" | sed -e ':a' -e 's|/\*[^*]*\*\+\([^/*][^*]*\*\+\)*/||g' -e '/\/\*/{N;ba' -e '}' |
		sed -e 's|^[[:space:]]*//.*||' | grep -cv '^[[:space:]]*$'
}

# The objects: BUILD/helper/main.o, then "ARCHIVE(MEMBER.o)" lines of the map's first section
# (archive members included to satisfy a reference).  Our archives hold build/DIR/NAME.o
# for DIR/NAME.c; any other archive is external.
objs="$build/helper/main.o"
ext=""
for m in $(sed -n '/^Archive member included/,/^[A-Z][a-z]/s/^\([^ (]*\.a\)(\([^)]*\.o\)).*/\1:\2/p' "$map" | sort -u); do
	a=${m%%:*} o=${m#*:}
	case "$a" in
	"$build"/libhelper.a) objs="$objs $build/helper/$o" ;;
	"$build"/libsandcap.a)
		for d in lib policy; do [ -f "$d/${o%.o}.c" ] && objs="$objs $build/$d/$o"; done ;;
	*) ext="$ext $(basename "$a")" ;;
	esac
done
# Each object's source and local headers, from its .d file (its first rule).
files=$(for o in $objs; do
	sed -e ':a' -e '/\\$/{N;s/\\\n//;ba' -e '}' -e 'q' "${o%.o}.d" | cut -d: -f2- | tr ' ' '\n'
done | grep -E '^(helper|lib|policy)/' | sort -u)
own=$(printf '%s\n' $files | grep '^helper/')
linked=$(printf '%s\n' $files | grep -v '^helper/')
h=$(count $own)
l=$(count $linked)
st=$(count $(printf '%s\n' $linked | grep '^lib/stage.*'))
printf '  helper/ (%d files):               %5d  (budget %d)\n' "$(echo $own | wc -w)" "$h" "$BUDGET"
printf '  lib/ + policy/ linked (%d files): %5d  (%s)\n' "$(echo $linked | wc -w)" "$l" \
	"$(echo $linked)"
# The stage (lib/stage*): what the sandbox's first process runs after it has dropped
# every capability (helper/op_spawn.c); linked into the helper, run without privilege.
printf '  of which lib/stage*, run only after the capability drop: %5d\n' "$st"
printf '  total:                             %5d\n' $((h + l))
printf '  external, not counted: %s%s\n' "$(printf '%s\n' $ext | sort -u | tr '\n' ' ')" \
	"$(readelf -d "$build/sandcap-helper" 2>/dev/null | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | tr '\n' ' ')"
if [ "$h" -gt "$BUDGET" ]; then
	echo "tcb-size: helper/ has $h lines of its own, over its budget of $BUDGET" >&2
	exit 1
fi
