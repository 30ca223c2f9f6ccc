#!/bin/sh
# PID 1 shim of the systemd guest (booted by tests/vm/run.sh with init=THIS; see
# tests/vm/README.md, "The systemd guest").
#
# Builds a writable Debian root and hands PID 1 to Debian's systemd:
#   lower  the host's / (hostfs, read-only: "ro" on the command line; refused otherwise)
#   upper  an ext4 filesystem on /dev/ubda, an image file in the run's private directory on
#          the host, so a second boot of the same image sees what the first one did
#   root   overlay(lower, upper) on /mnt, then pivot_root into it and exec systemd
# The views of the host (src, build read-only; results writable) are mounted on
# /dev/sandcap-vm/ exactly as in the shell guest and move into the new root with /dev.
# On the first boot of an image the shim also writes the guest's own configuration into
# the upper layer (sysd-setup.sh): the harness unit, masks, machine-id.
#
# The kernel passes unknown "name=value" boot parameters to init as environment variables:
#   sandcap_src, sandcap_build, sandcap_results   as for guest-init.sh
PATH=/usr/sbin:/usr/bin:/sbin:/bin
export PATH

die() {
	echo "vm: FATAL: $*" >&2
	echo "$*" > /dev/sandcap-vm/results/init-failed 2>/dev/null
	sync
	echo o > /proc/sysrq-trigger
	while :; do sleep 1; done
}

mount -n -t proc proc /proc
mount -n -t sysfs sysfs /sys

if (: > /.sandcap-vm-write-probe) 2>/dev/null; then
	rm -f /.sandcap-vm-write-probe
	die "the host's root is writable in the guest; refusing to run"
fi
case ${sandcap_results:-}:${sandcap_src:-}:${sandcap_build:-} in
/*:/*:/*) ;;
*) die "sandcap_results, sandcap_src, sandcap_build missing from the kernel command line" ;;
esac

V=/dev/sandcap-vm
mkdir -p $V/src $V/build $V/results $V/rw || die "mkdir $V"
mount -n -t hostfs -o ro,"$sandcap_src" none $V/src || die "hostfs $sandcap_src"
mount -n -t hostfs -o ro,"$sandcap_build" none $V/build || die "hostfs $sandcap_build"
mount -n -t hostfs -o "$sandcap_results" none $V/results || die "hostfs $sandcap_results"

t() { echo "# vm: shim: $* at $(cut -d" " -f1 /proc/uptime) s" >> $V/results/console-notes; }
t "views mounted"
# Debian's 6.1 has overlayfs as a module; the 6.12 kernel (kernel-6.12.config) builds it in.
if ! grep -qw overlay /proc/filesystems; then
	mod=$(ls -d /usr/lib/uml/modules/"$(uname -r)" 2>/dev/null)
	[ -n "$mod" ] || die "no modules for $(uname -r) in /usr/lib/uml/modules"
	insmod "$mod/kernel/fs/overlayfs/overlay.ko" || die "cannot load overlay.ko"
fi
# sandcap decides a UNIX connect() through sock_diag: unix_diag is a module on 6.1.
_ud=/usr/lib/uml/modules/$(uname -r)/kernel/net/unix/unix_diag.ko
[ -f "$_ud" ] && { insmod "$_ud" || die "cannot load unix_diag.ko"; }
[ -b /dev/ubda ] || die "no /dev/ubda (run.sh passes ubd0=IMAGE)"
mount -n -t ext4 /dev/ubda $V/rw || die "cannot mount the upper layer /dev/ubda"
t "overlay.ko and ext4 ready"
first=0
[ -d $V/rw/upper ] || first=1
mkdir -p $V/rw/upper $V/rw/work
# /mnt of the host is only the mount point; the overlay's own /mnt becomes the old root.
mount -n -t overlay -o lowerdir=/,upperdir=$V/rw/upper,workdir=$V/rw/work sandcap-root /mnt ||
	die "cannot mount the overlay root"
t "overlay mounted"
boot=$(($(cat $V/rw/boots 2>/dev/null || echo 0) + 1))
echo $boot > $V/rw/boots
if [ $first = 1 ]; then
	sh $V/src/tests/vm/sysd-setup.sh /mnt || die "sysd-setup.sh failed"
fi
echo "# vm: systemd guest boot $boot, shim done at $(cut -d" " -f1 /proc/uptime) s" \
	>> $V/results/console-notes

for m in /dev /proc /sys; do
	mount -n --move $m /mnt$m || die "cannot move $m into the new root"
done
cd /mnt || die "cd /mnt"
mkdir -p mnt
pivot_root . mnt || die "pivot_root"
# The old root (the host's / through hostfs) stays only as the overlay's lower layer.
exec chroot . /bin/sh -c 'umount -l /mnt; exec /lib/systemd/systemd' \
	< /dev/console > /dev/console 2>&1
