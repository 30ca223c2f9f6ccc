#!/bin/sh
# The size habit: no function a reader has to scroll through twice, no file too long to
# read in one sitting.
#   a function over 100 lines fails (over 60 is a warning, printed, not failed);
#   a file over 400 lines fails in helper/ (the privileged part), over 600 elsewhere
#   (lib/, policy/, reaper/, frontend/).
# A function is counted the rough way, which the house style makes exact: from its name at
# column 0 (the return type is on the line above) through the next "}" at column 0.
# Known offenders are in tools/size-allowlist, one per line, "FILE LINES" or
# "FILE:FUNCTION() LINES", LINES being its size when it was listed: an offender may shrink,
# never grow past that, and an entry no longer over its limit fails too (remove it), so
# the list only shrinks.
# Usage: check-size.sh
set -u
cd "$(dirname "$0")/.." || exit 1
FN_WARN=60 FN_MAX=100 FILE_MAX=600 HELPER_MAX=400
allow=tools/size-allowlist
sizes=$(mktemp); trap 'rm -f "$sizes"' EXIT

# One line per file ("FILE LINES") and per function ("FILE:NAME() LINES").
for f in lib/*.[ch] policy/*.[ch] helper/*.[ch] reaper/*.[ch] frontend/*.[ch] frontend/*/*.[ch]; do
	[ -f "$f" ] || continue
	echo "$f $(wc -l <"$f")"
	awk '
	FNR == 1 { name = ""; body = 0 }
	!body && /^[A-Za-z_][A-Za-z0-9_]*\(/ {          # a name at column 0 ...
		name = ""
		if ($0 ~ /;[ \t]*$/) next                # ... of a declaration
		name = $0; sub(/\(.*/, "", name); start = FNR; next
	}
	name != "" && !body && /^\{/ { body = 1; next }
	name != "" && !body && (/;[ \t]*$/ || FNR - start > 12) { name = ""; next }
	body && /^\}/ { print FILENAME ":" name "() " FNR - start + 1; name = ""; body = 0 }
	' "$f"
done >"$sizes"

# Each size against its limit and the allowlist; then the entries that name nothing in the
# tree (renamed, removed or miswritten), no longer needed either.
awk -v fn_warn="$FN_WARN" -v fn_max="$FN_MAX" -v file_max="$FILE_MAX" \
	-v helper_max="$HELPER_MAX" -v allow="$allow" '
FILENAME == allow {
	if ($0 ~ /^#/ || NF == 0) next
	if (NF != 2 || $2 !~ /^[0-9]+$/) {
		print "check-size: " allow ": \"" $0 "\": want FILE[:FUNCTION()] LINES"; bad = 1; next
	}
	listed[$1] = $2; nlisted++; next
}
{
	entry = $1; n = $2 + 0; seen[entry] = 1
	if (entry ~ /:/) { max = fn_max; nfn++ } else { max = entry ~ /^helper\// ? helper_max : file_max; nfile++ }
	if (entry ~ /:/ && n > fn_warn && n <= fn_max) {
		print "check-size: warning: " entry " is " n " lines (over " fn_warn ")"; warned++
	}
	if (entry in listed) {
		if (n <= max) { print "check-size: " entry " is " n " lines, within " max ": remove it from " allow; bad = 1 }
		else if (n > listed[entry]) { print "check-size: " entry " grew to " n " lines (listed at " listed[entry] "; the limit is " max ")"; bad = 1 }
	} else if (n > max) {
		print "check-size: " entry " is " n " lines, over " max ": split it"; bad = 1
	}
}
END {
	for (e in listed)
		if (!(e in seen)) { print "check-size: " e " (in " allow ") is not in the tree: remove it"; bad = 1 }
	if (bad) exit 1
	printf "check-size: %d functions and %d files, none over its limit but the %d in %s; " \
		"%d functions over %d lines\n", nfn, nfile, nlisted, allow, warned, fn_warn
}' "$allow" "$sizes"
