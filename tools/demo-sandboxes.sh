#!/bin/sh
# The sandboxes `make demo` runs (see tools/demo.sh).  $SANDCAP is the sandcap to use.
# SANDCAP_DEMO_REPORTS=DIR keeps each JSON report as DIR/1.json ... DIR/4.json (the VM
# scenario 63-demo.sh checks that each sandbox shows what its title says).
set -u
SANDCAP=${SANDCAP:-sandcap}
# In the VM suite's guest (make demo on a host without cgroup v2) the environment is the
# test harness's: keep only what a login would have, so that each report's env array lists
# what a user would see.
if [ -n "${VMLIB:-}" ]; then
	for v in $(env | sed -n 's/^\([A-Za-z_][A-Za-z0-9_]*\)=.*/\1/p'); do
		case $v in
		PATH | HOME | USER | LOGNAME | SHELL | LANG | LC_* | TERM | TMPDIR | SANDCAP | \
		SANDCAP_HELPER | SANDCAP_DEMO_REPORTS) ;;
		*) unset "$v" 2>/dev/null ;;
		esac
	done
fi
keep=${SANDCAP_DEMO_REPORTS:-}
pretty() { if command -v jq >/dev/null 2>&1; then jq .; else cat; fi; }
# The arguments as one shell-quoted line: pasted into a shell, it runs exactly the command
# shown, sandboxed (printed unquoted, step 2 read as a fork bomb outside the sandbox).
shquote() {
	out=""
	for a in "$@"; do
		case $a in
		"" | *[!A-Za-z0-9_./:=%@,+-]*)
			a="'$(printf '%s' "$a" | sed "s/'/'\\\\''/g")'" ;;
		esac
		out="$out${out:+ }$a"
	done
	printf '%s\n' "$out"
}
show() {
	num=$1 title=$2; shift 2
	echo
	echo "================================================================"
	echo "== $num. $title"
	printf "== \$ sandcap run %s\n" "$(shquote "$@")"
	echo "================================================================"
	rep=$(mktemp)
	"$SANDCAP" run --report "$rep" "$@"
	echo "== exit status $?; the report:"
	pretty < "$rep"
	if [ -n "$keep" ]; then cp "$rep" "$keep/$num.json"; fi
	rm -f "$rep"
}
id -un 2>/dev/null | sed 's/^/== running as user: /'
# The --timeout is only a backstop: the memory limit ends it (in a busy user-mode Linux
# guest, where every page fault is slow, that can take half a minute).
show 1 "a memory hog, stopped by --memory 64M (tail /dev/zero keeps everything it reads)" \
	--memory 64M --timeout 300 -- tail /dev/zero
echo "== why: peak rss counts every page the process maps, its program and libraries too (in the page cache, charged to whoever read them first), so it can exceed memory.max; oom_kills counts the kernel's kill events, the victim once alone and once with its group (memory.oom.group), not processes"
# Every process forks two more, waits for them and does it again.  A fork fails only at
# the limit, and a shell whose fork failed ends ("Cannot fork", sent to /dev/null): so the
# bomb reaches --pids 32 and is held there, until the command's own shell is refused a fork
# and ends the sandbox (verdict pids), or the --timeout 10 backstop ends it first (then
# limits_hit names both).
show 2 "a fork bomb, held by --pids 32 (--timeout 10 as a backstop)" \
	--pids 32 --timeout 10 --grace 0 -- \
	sh -c 'exec 2>/dev/null; bomb() { while :; do bomb & bomb & wait; done; }; bomb'
show 3 "a command that runs too long, ended by --timeout 1" \
	--timeout 1 --grace 1 -- sh -c 'trap "" TERM; sleep 10'
show 4 "a well-behaved job in its tmpfs workspace, under every limit" \
	--memory 128M --cpu 50% --pids 64 --disk 16M --timeout 30 -- \
	sh -c 'cd "$TMPDIR" && seq 1 100000 > numbers && wc -l numbers'
