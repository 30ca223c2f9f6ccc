#!/bin/sh
# The layers, checked: every dependency runs one way (docs/design.md, "Where the code is").
#   lib/ -> lib/;  policy/ -> lib/;  helper/ -> itself, lib/, policy/;  reaper/ -> lib/
#   frontend/GROUP/ -> itself, the groups after it in FE_GROUPS, frontend/exit.h, lib/, policy/
#   frontend/main.c -> anything in frontend/
# Two ways a dependency shows: an #include line (how the compiler would resolve it: the
# file's own folder first, then lib/, policy/, frontend/) and, in the built objects, a
# symbol a group uses that a group before it defines.  No include may climb with "../".
# Known exceptions, one per line, are in tools/layers-allowlist ("FILE -> TARGET" or
# "SYMBOL GROUP -> GROUP"); the list may only shrink: an entry no longer needed fails too.
# Usage: check-layers.sh [BUILD]   (the symbol check needs the built front-end archives)
set -u
build=${1:-build}
cd "$(dirname "$0")/.." || exit 1
groups=$(sed -n 's/^FE_GROUPS *:= *//p' Makefile)
allow=tools/layers-allowlist
found=$(mktemp); trap 'rm -f "$found"' EXIT

rank() {        # rank GROUP: its position in FE_GROUPS (1 = highest), 0 if none
	i=0
	for g in $groups; do i=$((i + 1)); [ "$g" = "$1" ] && { echo $i; return; }; done
	echo 0
}

# layer FILE: the layer a source file belongs to (lib, policy, helper, reaper, fe-GROUP, fe-top)
layer() {
	case "$1" in
	frontend/*/*) g=${1#frontend/}; echo "fe-${g%%/*}" ;;
	frontend/*) echo fe-top ;;
	*) echo "${1%%/*}" ;;
	esac
}

# resolve FILE NAME: the file an #include "NAME" in FILE names, as the compiler finds it
resolve() {
	dir=$(dirname "$1")
	for d in "$dir" lib policy frontend helper; do
		case "$d" in helper) [ "$(layer "$1")" = helper ] || continue ;; esac
		[ -f "$d/$2" ] && { echo "$d/$2"; return; }
	done
	echo "?$2"
}

# may FROM TO: can layer FROM depend on layer TO?
may() {
	[ "$1" = "$2" ] && return 0
	case "$1:$2" in
	lib:*) return 1 ;;
	policy:lib) return 0 ;;
	helper:lib | helper:policy | reaper:lib) return 0 ;;
	fe-*:lib | fe-*:policy) return 0 ;;
	fe-top:fe-*) return 0 ;;
	fe-*:fe-top) return 0 ;;        # frontend/exit.h (checked below: nothing else is there)
	fe-*:fe-*)
		a=$(rank "${1#fe-}"); b=$(rank "${2#fe-}")
		[ "$a" -gt 0 ] && [ "$b" -gt "$a" ] ;;
	*) return 1 ;;
	esac
}

for f in $(git ls-files 'lib/*.[ch]' 'policy/*.[ch]' 'helper/*.[ch]' 'reaper/*.[ch]' \
		'frontend/*.[ch]' 'frontend/*/*.[ch]'); do
	from=$(layer "$f")
	grep -o '^#include "[^"]*"' "$f" | sed 's/^#include "\(.*\)"/\1/' | while read -r name; do
		case "$name" in
		../* | */../*) echo "$f -> $name" >>"$found"; continue ;;
		esac
		target=$(resolve "$f" "$name")
		case "$target" in
		\?*) echo "$f -> $name (not found)" >>"$found"; continue ;;
		frontend/*/*) ;;
		frontend/*) [ "$target" = frontend/exit.h ] || [ "$from" = fe-top ] ||
			{ echo "$f -> $target" >>"$found"; continue; } ;;
		esac
		may "$from" "$(layer "$target")" || echo "$f -> $target" >>"$found"
	done
done

# Symbols: what each group's objects use that a group before it defines.
if [ -d "$build/frontend" ]; then
	defs=$(mktemp); trap 'rm -f "$found" "$defs"' EXIT
	for g in $groups; do
		for c in frontend/"$g"/*.c; do
			o="$build/${c%.c}.o"
			[ -f "$o" ] && nm -g --defined-only "$o" | awk -v g="$g" 'NF == 3 { print $3, g }'
		done
	done | sort -u >"$defs"
	for g in $groups; do
		for c in frontend/"$g"/*.c; do
			o="$build/${c%.c}.o"
			[ -f "$o" ] || { echo "check-layers: $o not built" >&2; echo "$c not built" >>"$found"; continue; }
			nm -u "$o" | awk '{ print $NF }'
		done | sort -u | join - "$defs" | while read -r sym owner; do
			a=$(rank "$g"); b=$(rank "$owner")
			[ "$owner" = "$g" ] || [ "$b" -gt "$a" ] || echo "$sym $g -> $owner" >>"$found"
		done
	done
else
	echo "check-layers: $build/frontend not built: the symbol check did not run" >&2
	exit 1
fi

sort -u "$found" -o "$found"
rc=0
if grep -v '^#' "$allow" | grep -v '^$' | sort -u | comm -23 "$found" - | grep .; then
	echo "check-layers: the dependencies above run against the layers (docs/design.md)"
	rc=1
fi
if grep -v '^#' "$allow" | grep -v '^$' | sort -u | comm -13 "$found" - | grep .; then
	echo "check-layers: the allowlist entries above are no longer needed: remove them"
	rc=1
fi
[ "$rc" -eq 0 ] && echo "check-layers: $(echo $groups | wc -w) front-end groups, no dependency against the layers" \
	"($(grep -cv '^#\|^$' "$allow") allowed exceptions)"
exit "$rc"
