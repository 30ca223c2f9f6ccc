#!/bin/sh
# Privilege in one place: only helper/caps.c (the capability sets) and helper/priv.c (one
# function per privileged system call), both declared in helper/priv.h, may raise a
# capability.  Fails, naming each line, when a raise appears anywhere else in the helper,
# lib/ or policy/: caps_raise*(), capng_update(CAPNG_ADD, ...), capng_apply(), WITH_CAP or
# a PRIV() bracket.  `make lint` runs it.
set -u
cd "$(dirname "$0")/.." || exit 2
pattern='caps_raise|WITH_CAP|PRIV[[:space:]]*\(|capng_update[[:space:]]*\([[:space:]]*CAPNG_ADD|capng_apply|capset[[:space:]]*\('
hits=$(grep -nE "$pattern" helper/*.[ch] lib/*.[ch] policy/*.[ch] reaper/*.c |
	grep -vE '^helper/(caps\.c|priv\.[ch]):')
if [ -n "$hits" ]; then
	echo "check-privilege: capabilities raised outside helper/caps.c and helper/priv.c:"
	printf '%s\n' "$hits"
	exit 1
fi
echo "check-privilege: every raise is in helper/caps.c or helper/priv.c"
