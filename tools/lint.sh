#!/bin/sh
# make lint: static analysis over the tree; any finding fails.
#   cppcheck, gcc -fanalyzer, clang-tidy (.clang-tidy), the hardening of the built binaries,
#   the files comments and documents name (tools/check-refs.sh), privilege raised only in
#   helper/priv.c (tools/check-privilege.sh), the helper's size budget (tools/tcb-size.sh),
#   the subjects of the commits made since the commit rule (tools/check-commits.sh), the
#   direction of every dependency between the layers (tools/check-layers.sh), the
#   length of functions and files (tools/check-size.sh), and the layout of the C files
#   changed since the tree was formatted (tools/check-format.sh).
# Writes "lint PASSED FAILED SKIPPED" (one count per tool) into $BUILD/results/lint.  A tool
# that is not installed (`make deps` installs them all) is a skip naming it, or a failure
# when SANDBOX_TESTS_MUST_RUN=1.
set -u
build=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
mkdir -p "$build/results" "$build/lint"
pass=0 fail=0 skipped=0
SRC=$(ls lib/*.c policy/*.c frontend/*.c frontend/*/*.c helper/*.c reaper/*.c tools/*.c)
DEFS="-D_GNU_SOURCE -DSC_VERSION=\"0\" -DSC_HELPER_PATH=\"/x\" -DSC_POLICY_PATH=\"/x\" -DSC_PROFILES_DIR=\"/x\"
	-DSC_DEADLINE_DIR=\"/x/y\" -DSC_SETUP_PATH=\"/x\""
PKGF=$(pkg-config --cflags inih libbsd-overlay libseccomp)

inc_for() {
	case "$1" in
	lib/*) echo "-Ilib" ;;
	policy/*) echo "-Ilib -Ipolicy" ;;
	frontend/*) echo "-Ilib -Ipolicy -Ifrontend" ;;
	helper/*) echo "-Ilib -Ipolicy -Ihelper" ;;
	reaper/*) echo "-Ilib" ;;
	tools/*) echo "-Ilib -Ipolicy -Ifrontend" ;;   # build-time generators (seccomp-gen.c)
	esac
}

# have TOOL: true if TOOL is installed; otherwise records the skip (or failure) of TOOL.
have() {
	command -v "$1" >/dev/null 2>&1 && return 0
	if [ "${SANDBOX_TESTS_MUST_RUN:-0}" = 1 ]; then
		fail=$((fail + 1)); echo "lint: $1: not installed (make deps; SANDBOX_TESTS_MUST_RUN=1)"
	else
		skipped=$((skipped + 1)); echo "lint: $1: SKIP, not installed (make deps installs it)"
	fi
	return 1
}

result() { # name rc logfile
	if [ "$2" -eq 0 ]; then pass=$((pass + 1)); echo "lint: $1: clean"
	else fail=$((fail + 1)); echo "lint: $1: FINDINGS (see $3)"; tail -40 "$3"; fi
}

# 1-3 run side by side (each tool is single-threaded; their results are read in order):
# cppcheck, then gcc -fanalyzer in the background, and clang-tidy in this shell.
# 2. gcc -fanalyzer, in the background: its exit status goes to analyzer.rc.  It compiles
#    (-c): the analyzer is a pass of the compiler proper and never runs under -fsyntax-only,
#    which this step used until 2026-11-26 (it reported "clean" without analysing).  Leak
#    reports are off: gcc 12's analyzer reports a pointer stored into a caller's struct
#    (profile words, output buffers) as leaked; LeakSanitizer checks leaks at run time in the
#    sanitize suite.  fd leaks likewise (the sanitize suite and t-run-fds check fds).
alog="$build/lint/analyzer.log"; : >"$alog"; rm -f "$build/lint/analyzer.rc"
(
	rc=0
	for f in $SRC; do
		# shellcheck disable=SC2046,SC2086
		gcc -std=gnu11 -fanalyzer -Werror -Wno-analyzer-fd-leak -Wno-analyzer-malloc-leak \
			-c -o /dev/null $DEFS $PKGF $(inc_for "$f") "$f" >>"$alog" 2>&1 || rc=1
	done
	echo "$rc" >"$build/lint/analyzer.rc"
) &
analyzer=$!

# 1. cppcheck
log="$build/lint/cppcheck.log"
if have cppcheck; then
	# shellcheck disable=SC2086
	cppcheck --quiet --error-exitcode=1 --enable=warning,performance --inline-suppr \
		--std=c11 --library=posix -D_GNU_SOURCE -Ilib -Ipolicy -Ifrontend -Ihelper \
		--suppress=missingIncludeSystem --suppress=unknownMacro \
		--suppress=resourceLeak --suppress=memleak \
		$SRC >"$log" 2>&1
	result cppcheck $? "$log"
fi

# 3. clang-tidy
log="$build/lint/clang-tidy.log"; : >"$log"; rc=0
if have clang-tidy; then
	for f in $SRC; do
		# shellcheck disable=SC2046,SC2086
		clang-tidy --quiet "$f" -- -std=gnu11 $DEFS $PKGF $(inc_for "$f") >>"$log" 2>&1 || rc=1
	done
	result clang-tidy $rc "$log"
fi

wait "$analyzer"
rc=1
[ -s "$build/lint/analyzer.rc" ] && read -r rc <"$build/lint/analyzer.rc"
[ -s "$build/lint/analyzer.rc" ] || echo "lint: gcc -fanalyzer ended without a result" >>"$alog"
result gcc-fanalyzer "$rc" "$alog"

# 4. hardening of the built binaries (readelf: PIE, full RELRO, BIND_NOW, NX stack,
#    stack protector and fortified calls present)
log="$build/lint/hardening.log"; : >"$log"; rc=0
for b in "$build/sandcap" "$build/sandcap-helper" "$build/sandcap-reaper"; do
	if [ ! -x "$b" ]; then echo "$b: not built" >>"$log"; rc=1; continue; fi
	h=$(readelf -h "$b"); d=$(readelf -d "$b"); l=$(readelf -lW "$b"); s=$(readelf -sW --dyn-syms "$b")
	echo "$h" | grep -q 'Type:.*DYN' || { echo "$b: not PIE" >>"$log"; rc=1; }
	echo "$l" | grep -q 'GNU_RELRO' || { echo "$b: no RELRO" >>"$log"; rc=1; }
	echo "$d" | grep -Eq 'BIND_NOW|FLAGS.*NOW' || { echo "$b: no BIND_NOW" >>"$log"; rc=1; }
	echo "$l" | grep 'GNU_STACK' | grep -q 'RWE' && { echo "$b: executable stack" >>"$log"; rc=1; }
	echo "$s" | grep -q '__stack_chk_fail' || { echo "$b: no stack protector" >>"$log"; rc=1; }
	echo "$s" | grep -Eq '_chk(@|$)' || { echo "$b: no fortified calls" >>"$log"; rc=1; }
done
# sandcap scans only its own task for its children (frontend/supervise/tree.c): it must
# never start a thread, so it imports no function that starts one.
if readelf -sW "$build/sandcap" 2>/dev/null | grep -Eq ' (pthread_create|thrd_create)(@|$)'; then
	echo "$build/sandcap: links pthread_create (supervise/tree.c assumes one thread)" >>"$log"; rc=1
fi
result hardening $rc "$log"

# 5. references: every file a comment or a document names exists (tools/check-refs.sh).
log="$build/lint/refs.log"
sh tools/check-refs.sh >"$log" 2>&1
result references $? "$log"

# 6. privilege in one place: no capability raised outside helper/caps.c and
#    helper/priv.[ch] (tools/check-privilege.sh).
log="$build/lint/privilege.log"
sh tools/check-privilege.sh >"$log" 2>&1
result privilege $? "$log"

# 7. the helper's own code within its budget, counted from what it links (tools/tcb-size.sh).
log="$build/lint/tcb-size.log"
sh tools/tcb-size.sh "$build" >"$log" 2>&1
result tcb-size $? "$log"

# 8. commit messages made since the rule was set (CONTRIBUTING.md): subject lines that read
#    as history.  Outside a git checkout there is none to check: a skip with its reason.
log="$build/lint/commits.log"
sh tools/check-commits.sh >"$log" 2>&1; rc=$?
if [ "$rc" -eq 77 ]; then
	skipped=$((skipped + 1)); echo "lint: commit-subjects: SKIP, $(sed -n 's/.*# SKIP //p' "$log")"
else
	result commit-subjects "$rc" "$log"
fi

# 9. layers: every include and symbol runs one way through the tree (tools/check-layers.sh).
log="$build/lint/layers.log"
sh tools/check-layers.sh "$build" >"$log" 2>&1
result layers $? "$log"

# 10. size: no function over 100 lines, no file over 600 (400 in helper/), but the known
#    offenders of tools/size-allowlist, which may only shrink (tools/check-size.sh).
log="$build/lint/size.log"
sh tools/check-size.sh >"$log" 2>&1
result size $? "$log"

# 11. format: every C file changed since the tree was formatted once is as .clang-format lays
#    it out (tools/check-format.sh).
log="$build/lint/format.log"
sh tools/check-format.sh >"$log" 2>&1; rc=$?
if [ "$rc" -eq 77 ]; then
	if [ "${SANDBOX_TESTS_MUST_RUN:-0}" = 1 ]; then
		fail=$((fail + 1)); echo "lint: format: $(cat "$log") (SANDBOX_TESTS_MUST_RUN=1)"
	else
		skipped=$((skipped + 1)); echo "lint: format: SKIP, $(cat "$log")"
	fi
else
	result format "$rc" "$log"
fi

echo "lint $pass $fail $skipped" > "$build/results/lint"
echo "lint: $pass passed, $fail failed, $skipped skipped"
[ "$fail" -eq 0 ]
