#!/bin/sh
# The VM runner's bookkeeping of what it could not run, with fakes instead of a kernel
# build and a guest (nothing here compiles a kernel or boots one):
#  - tests/vm/kernel-build.sh tells "this machine cannot have the 6.12 kernel" (exit 2:
#    the Debian archive unreachable, nothing cached) from "its source was there and our
#    patch, configuration or build failed" (exit 1, naming what failed, the log's tail);
#  - tests/vm/run.sh makes the first a skip of each 6.12 scenario and the second a failure
#    of each, with the build log's tail, never a skip, and so does sysd-run.sh;
#  - tests/vm/sysd-run.sh counts a scenario that asked for a reboot as lost when the next
#    boot never ran it again.
. "$(dirname "$0")/libtest.sh"
VM=$SRCDIR/tests/vm
SC=84-landlock-cgroup                   # a scenario of the 6.12 guest
grep -q '^# vm-kernel: 6.12' "$VM/scenarios/$SC.sh" || { notok "$SC is a 6.12 scenario"; done_testing; }

tools=1
for t in make gcc flex bison bc xz dpkg-deb patch; do
	command -v "$t" > /dev/null 2>&1 || tools=0
done

# A fake Linux tree: the guest patches apply to it (each file made of the patches' own
# context), `make allnoconfig` writes the fragment as .config less the options named in
# DROP, and `make linux` fails the way a compiler does.
fake_tree() {           # fake_tree DIR DROP
	mkdir -p "$1"
	for p in "$VM"/kernel-6.12-*.patch; do
		f=$(sed -n 's|^+++ b/||p' "$p" | head -n 1)
		mkdir -p "$1/$(dirname "$f")"
		awk '/^@@/ { h = 1; next } h && /^[ -]/ { print substr($0, 2) }' "$p" > "$1/$f"
	done
	printf '%s\n' 'allnoconfig:' "	grep -v -e '^CONFIG_NONE=' $2 \$(KCONFIG_ALLCONFIG) > .config" \
		'olddefconfig:' '	@:' \
		'linux:' '	@echo "fake-cc: error: arch/um/kernel/tlb.c:1: the compiler broke here" >&2; exit 1' \
		> "$1/Makefile"
}
# kb NAME ENV...: kernel-build.sh with a cache of its own; exit status in $rc, stderr in $T/NAME.err
kb() {
	name=$1; shift
	env SANDCAP_VM_KERNEL_CACHE="$T/cache-$name" "$@" sh "$VM/kernel-build.sh" \
		> "$T/$name.out" 2> "$T/$name.err" < /dev/null
	rc=$?
}

if [ "$tools" = 1 ]; then
	fake_tree "$T/tree-make" ""
	kb make SANDCAP_VM_KERNEL_SOURCE="$T/tree-make"
	eq "kernel-build: a failed make is exit 1 (our bug), not 2 (unavailable)" 1 "$rc"
	contains "... it says what failed" "FAILED: make linux failed" "$(cat "$T/make.err")"
	contains "... with the log's tail" "fake-cc: error: arch/um/kernel/tlb.c:1: the compiler broke here" \
		"$(cat "$T/make.err")"
	expect "... and keeps the whole log" sh -c "ls '$T'/cache-make/build-failed-*.log > /dev/null"
	eq "... and prints no kernel path" "" "$(cat "$T/make.out")"

	fake_tree "$T/tree-drop" "-e '^CONFIG_SECURITY_LANDLOCK=' -e '^CONFIG_CGROUP_BPF='"
	kb drop SANDCAP_VM_KERNEL_SOURCE="$T/tree-drop"
	eq "kernel-build: options Kconfig dropped are exit 1" 1 "$rc"
	contains "... naming the first" "CONFIG_SECURITY_LANDLOCK=y" "$(cat "$T/drop.err")"
	contains "... and the second" "CONFIG_CGROUP_BPF=y" "$(cat "$T/drop.err")"

	mkdir -p "$T/tree-patch"
	echo 'all:' > "$T/tree-patch/Makefile"
	kb patch SANDCAP_VM_KERNEL_SOURCE="$T/tree-patch"
	eq "kernel-build: a patch that does not apply is exit 1" 1 "$rc"
	contains "... naming the patch" "does not apply" "$(cat "$T/patch.err")"
else
	skip "kernel-build's failures are exit 1: a build tool is missing (make deps)"
fi

# Debian's archive out of reach (a mirror nothing listens on) and nothing cached.
kb offline SANDCAP_VM_KERNEL_MIRROR=http://127.0.0.1:9
eq "kernel-build: no archive and no cache is exit 2 (this machine cannot have it)" 2 "$rc"
contains "... saying so" "cannot resolve linux-source-6.12" "$(cat "$T/offline.err")"

# run.sh's 6.12 guest: a fake build directory (run.sh only checks that the binaries exist).
B=$T/build
mkdir -p "$B"
printf '#!/bin/sh\nexit 0\n' > "$B/sandcap"
cp "$B/sandcap" "$B/sandcap-helper"
chmod 0755 "$B/sandcap" "$B/sandcap-helper"
vm612() {               # vm612 NAME ENV...: run.sh --kernel 6.12 --only $SC, output in $T/NAME.tap
	name=$1; shift
	env SANDCAP_VM_KERNEL_CACHE="$T/cache-run-$name" "$@" sh "$VM/run.sh" "$B" --kernel 6.12 \
		--only "$SC" --no-systemd --keep-going > "$T/$name.tap" 2>&1 < /dev/null
	rc=$?
}
if [ "$tools" = 1 ]; then
	vm612 runfail SANDCAP_VM_KERNEL_SOURCE="$T/tree-make"
	tap=$(cat "$T/runfail.tap")
	expect "run.sh: a failed build fails the run" test "$rc" -ne 0
	contains "... each 6.12 scenario is a failure naming the build's failure" \
		"not ok 1 - vm-6.12: $SC: not run: tests/vm/kernel-build.sh failed (exit 1): make linux failed" "$tap"
	contains "... followed by the log's tail" "#   kernel-build:   fake-cc: error" "$tap"
	expect "... and never a skip" sh -c "! grep -qi '# *skip' '$T/runfail.tap'"
	eq "... recorded as a failure" "vm-6.12 0 1 0" "$(cat "$B/results/vm-6.12")"
else
	skip "run.sh fails the 6.12 scenarios when the build fails: a build tool is missing"
fi
vm612 runoffline SANDCAP_VM_KERNEL_MIRROR=http://127.0.0.1:9
tap=$(cat "$T/runoffline.tap")
eq "run.sh: a kernel this machine cannot have does not fail the run" 0 "$rc"
contains "... each 6.12 scenario is a skip with the reason" \
	"ok 1 - vm-6.12: $SC # SKIP no 6.12 kernel: cannot resolve linux-source-6.12" "$tap"
eq "... recorded as a skip" "vm-6.12 0 0 1" "$(cat "$B/results/vm-6.12")"

# The systemd guest (sysd-run.sh) checks for the host's systemd before anything else.
missing=""
for t in /lib/systemd/systemd /usr/sbin/insmod /usr/sbin/mkfs.ext4 /usr/bin/dbus-daemon \
	/lib/x86_64-linux-gnu/security/pam_systemd.so; do
	[ -e "$t" ] || missing="$missing $t"
done
if [ -n "$missing" ]; then
	skip "sysd-run.sh's bookkeeping: missing$missing (make deps)"
	done_testing
fi
mkdir -p "$T/bin"
printf '#!/bin/sh\nexit 1\n' > "$T/bin/linux.uml"    # found on PATH, never booted here
chmod 0755 "$T/bin/linux.uml"

PATH=$T/bin:$PATH SANDCAP_VM_UML_612_FAILED="tests/vm/kernel-build.sh failed (exit 1): fake" \
	sh "$VM/sysd-run.sh" "$B" --only systemd-reboot > "$T/sysdfail.tap" 2>&1 < /dev/null
rc=$?
tap=$(cat "$T/sysdfail.tap")
expect "sysd-run.sh: a failed 6.12 build fails the run" test "$rc" -ne 0
contains "... each scenario is a failure with the reason" \
	"not ok 2 - vm-systemd: 77-systemd-reboot: not run: tests/vm/kernel-build.sh failed (exit 1): fake" "$tap"
expect "... it does not fall back to 6.1" sh -c "! grep -q 'booting 6.1' '$T/sysdfail.tap'"
eq "... counted: 0 passed, 2 failed" "0 2" "$(cat "$B/vm-systemd/done")"

# sysd-run.sh with a fake kernel: boot 1 runs 70 and the first half of 77-systemd-reboot,
# which asks for a reboot; boot 2 ends at once, before the harness starts.
cat > "$T/fake-kernel" << 'EOF'
#!/bin/sh
for a; do case $a in sandcap_results=*) R=${a#*=} ;; esac; done
b=$(($(cat "$R/fake-boots" 2> /dev/null || echo 0) + 1))
echo $b > "$R/fake-boots"
[ $b = 1 ] || exit 0
cat >> "$R/tap" << 'TAP'
# vm-systemd: boot 1: harness starts at 9.1 s
ok 1 - harness: boot 1: systemd is PID 1
# --- 70-systemd-install (boot 1, exit 0, 20 s) ---
ok 2 - 70-systemd-install: the package is installed
# --- 77-systemd-reboot (boot 1, exit 0, 9 s) ---
ok 3 - 77-systemd-reboot: boot 1: the package is installed
# vm-systemd: 77-systemd-reboot asked for a reboot: powering off cleanly
TAP
: > "$R/reboot-requested"
EOF
chmod 0755 "$T/fake-kernel"
PATH=$T/bin:$PATH SANDCAP_VM_UML_612=$T/fake-kernel SANDCAP_VM_SYSD_BOOT=60 \
	sh "$VM/sysd-run.sh" "$B" --only systemd-reboot > "$T/sysd.tap" 2>&1 < /dev/null
rc=$?
tap=$(cat "$T/sysd.tap")
expect "sysd-run.sh: a second boot that never ran the harness fails the run" test "$rc" -ne 0
eq "... after two boots" 2 "$(cat "$B/vm-systemd/fake-boots")"
contains "... the boot is a failure" "not ok 4 - vm-systemd: boot 2 ended" "$tap"
contains "... and the scenario that waited for it is lost, by name" \
	"not ok 5 - vm-systemd: 77-systemd-reboot: lost: the guest ended before it finished" "$tap"
expect "... the scenario that finished in boot 1 is not" \
	sh -c "! grep -q '70-systemd-install: lost' '$T/sysd.tap'"
eq "... counted: 3 passed, 2 failed" "3 2" "$(cat "$B/vm-systemd/done")"
done_testing
