#!/bin/sh
# README's admin quick start, word for word: the commands of the fenced block of that
# section, read from README.md by this test, run one by one as root in the directory
# holding the .deb, on a guest where the package is not installed, for a new user alice.
# vm-timeout: 900
# vm-cost: 48
. "$VMLIB"
. "$SRCDIR/tests/vm/sysd-lib.sh"
[ -n "$DEB" ] || { fail "a .deb in \$BUILD/deb"; done_testing; }
awk '/^### Admin quick start/ { s = 1; next } s && /^#/ { exit }
	s && /^```sh$/ { f = 1; next } s && f && /^```$/ { exit } f' "$SRCDIR/README.md" > "$SCRATCH/qs"
ge "$(grep -c . "$SCRATCH/qs")" 5 "README's admin quick start has its fenced commands ($(grep -c . "$SCRATCH/qs") lines)"
# A host without the package, and the user the quick start names.
env DEBIAN_FRONTEND=noninteractive apt-get purge -y sandcap > /dev/null 2>&1
getent passwd alice > /dev/null || useradd -m -s /bin/sh alice
cp "$DEB" "$SCRATCH/" && cd "$SCRATCH" || exit 1
n=0
while IFS= read -r line; do
	case $line in ''|'#'*) continue ;; esac
	n=$((n + 1))
	DEBIAN_FRONTEND=noninteractive sh -c "$line" < /dev/null > "$SCRATCH/qs.$n.out" 2>&1
	rc=$?
	cp "$SCRATCH/qs.$n.out" "$VM_RESULTS/line-$n.txt"
	is "$rc" 0 "quick start: '$line' exits 0"
	[ "$rc" -eq 0 ] || sed 's/^/#   /' "$SCRATCH/qs.$n.out" | tail -n 15
done < "$SCRATCH/qs"
# The last line is alice's sandbox with --report -: its report is the output.
grep -v '^[^{ }]' "$SCRATCH/qs.$n.out" | sed -n '/^{/,$p' > "$SCRATCH/report.json"
is "$(json_get "$SCRATCH/report.json" .mode)" cgroup "alice's sandbox ran in cgroup mode"
is "$(json_get "$SCRATCH/report.json" .enforcement.memory)" cgroup "its memory limit was enforced by the cgroup"
done_testing
