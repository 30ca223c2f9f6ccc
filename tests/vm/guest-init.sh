#!/bin/sh
# PID 1 of the user-mode Linux guest (booted by tests/vm/run.sh with init=THIS).
#
# Keeps PID 1 trivial: mount what the harness needs to start, refuse to go on unless the
# host's root is read-only, run tests/vm/guest-harness.sh as a child (while waiting for it,
# this shell reaps every orphan re-parented to PID 1), then power the guest off.  Whatever
# happens to the harness, the guest powers off; the host treats a missing "done" file in
# the results directory as a failure.
#
# The kernel passes unknown "name=value" boot parameters to init as environment variables:
#   sandcap_src      absolute host path of the source tree
#   sandcap_build    absolute host path of the build directory
#   sandcap_results  absolute host path of BUILD/vm-results (the only writable hostfs mount)
PATH=/usr/sbin:/usr/bin:/sbin:/bin
export PATH

poweroff_now() {
	sync
	umount /dev/sandcap-vm/results 2>/dev/null
	echo o > /proc/sysrq-trigger
	# sysrq power-off is asynchronous; never return to the kernel (PID 1 exiting panics).
	while :; do sleep 1; done
}

mount -t proc proc /proc
mount -t sysfs sysfs /sys
# devtmpfs is mounted on /dev by the kernel (CONFIG_DEVTMPFS_MOUNT).

# By construction: the root (the host's /, hostfs) must be read-only.  If the kernel
# command line lost "ro", stop before anything else can run.
if (: > /.sandcap-vm-write-probe) 2>/dev/null; then
	rm -f /.sandcap-vm-write-probe
	echo "vm: FATAL: the host's root is writable in the guest; refusing to run" >&2
	poweroff_now
fi

case ${sandcap_results:-}:${sandcap_src:-}:${sandcap_build:-} in
/*:/*:/*) ;;
*) echo "vm: FATAL: sandcap_results, sandcap_src, sandcap_build missing from the kernel command line" >&2
	poweroff_now ;;
esac

# Views of the host, mounted before the harness covers /tmp /home /opt... with tmpfs (so a
# source tree or build directory under one of those stays visible).  They live in /dev,
# the kernel's devtmpfs: guest memory, and never a place a clone lives.
#   /dev/sandcap-vm/src      the source tree, read-only
#   /dev/sandcap-vm/build    the build directory, read-only
#   /dev/sandcap-vm/results  BUILD/vm-results: the one writable view of the host
V=/dev/sandcap-vm
mkdir -p $V/src $V/build $V/results || poweroff_now
mount -t hostfs -o ro,"$sandcap_src" none $V/src || poweroff_now
mount -t hostfs -o ro,"$sandcap_build" none $V/build || poweroff_now
mount -t hostfs -o "$sandcap_results" none $V/results || poweroff_now

sh $V/src/tests/vm/guest-harness.sh $V/results > /dev/console 2>&1 < /dev/console &
wait
poweroff_now
