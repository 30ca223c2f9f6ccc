#!/bin/sh
# The sandboxes `make demo` runs (see tools/demo.sh).  $SANDCAP is the sandcap to use.
set -u
SANDCAP=${SANDCAP:-sandcap}
pretty() { if command -v jq >/dev/null 2>&1; then jq .; else cat; fi; }
show() {
	title=$1; shift
	echo
	echo "================================================================"
	echo "== $title"
	echo "== \$ sandcap run $*"
	echo "================================================================"
	rep=$(mktemp)
	"$SANDCAP" run --report "$rep" "$@"
	echo "== exit status $?; the report:"
	pretty < "$rep"
	rm -f "$rep"
}
id -un 2>/dev/null | sed 's/^/== running as user: /'
show "1. a memory hog, stopped by --memory 64M (tail /dev/zero keeps everything it reads)" \
	--memory 64M --timeout 20 -- tail /dev/zero
show "2. a fork bomb, held by --pids 32 and ended by --timeout 3" \
	--pids 32 --timeout 3 --grace 0 -- sh -c 'bomb() { bomb | bomb & }; bomb; wait'
show "3. a command that runs too long, ended by --timeout 1" \
	--timeout 1 --grace 1 -- sh -c 'trap "" TERM; sleep 10'
show "4. a well-behaved job in its tmpfs workspace, under every limit" \
	--memory 128M --cpu 50% --pids 64 --disk 16M --timeout 30 -- \
	sh -c 'cd "$TMPDIR" && seq 1 100000 > numbers && wc -l numbers'
