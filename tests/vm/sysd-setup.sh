#!/bin/sh
# First boot of a systemd-guest image: the guest's own configuration, written into the
# new root (the overlay's upper layer) by sysd-init.sh before systemd starts.
#
#   sysd-setup.sh NEWROOT
#
# Boots to multi-user.target; /tmp and /var/tmp are fresh tmpfs (so systemd-tmpfiles never
# works through the host's files); sandcap-vm-harness.service runs tests/vm/sysd-harness.sh.
# Builtins only where it can: every fork costs in user-mode Linux.
set -eu
r=$1
V=/dev/sandcap-vm

# A machine-id of its own (the host's may be empty or shared); a fixed hostname.
read -r id < /proc/sys/kernel/random/uuid
IFS=- read -r a b c d e <<EOT
$id
EOT
echo "$a$b$c$d$e" > "$r/etc/machine-id"
echo sandcap-vm > "$r/etc/hostname"

cat > "$r/etc/fstab" <<'EOT'
# sandcap systemd guest (tests/vm/sysd-setup.sh): the root is an overlay made by the init shim.
tmpfs /tmp tmpfs mode=1777,size=128m,nosuid,nodev 0 0
tmpfs /var/tmp tmpfs mode=1777,size=128m,nosuid,nodev 0 0
EOT

# This host may be a container image: its policy-rc.d forbids maintainer scripts to start
# services, and man-db's trigger re-indexes every manual page on each install.  A Debian
# host booted by systemd has neither; the guest neither (whiteouts in the upper layer).
rm -f "$r/usr/sbin/policy-rc.d" "$r/var/lib/man-db/auto-update"

# The guest is offline: apt reads no package lists (an empty source list).  With the host's
# lists every apt-get call parsed them afresh, 60-80 s in a loaded guest against 7 s without;
# the package and its dependencies come from the .deb and the installed packages anyway.
mkdir -p "$r/etc/apt/apt.conf.d" "$r/etc/apt/sandcap-vm-sources.d"
: > "$r/etc/apt/sandcap-vm-sources.list"
cat > "$r/etc/apt/apt.conf.d/99sandcap-vm" <<'EOT'
// sandcap systemd guest (tests/vm/sysd-setup.sh): offline, no package lists to read.
Dir::Etc::SourceList "/etc/apt/sandcap-vm-sources.list";
Dir::Etc::SourceParts "/etc/apt/sandcap-vm-sources.d";
EOT

u=$r/etc/systemd/system
# Nothing the host happened to enable that needs a network, a terminal or hours of uptime.
systemctl --root="$r" --quiet mask getty@tty1.service serial-getty@tty0.service \
	console-getty.service getty.target systemd-timesyncd.service apt-daily.timer \
	apt-daily-upgrade.timer dpkg-db-backup.timer e2scrub_all.timer e2scrub_reap.service \
	fstrim.timer man-db.timer logrotate.timer postgresql.service remote-fs.target \
	systemd-networkd-wait-online.service cron.service ssh.service systemd-pstore.service \
	systemd-firstboot.service systemd-binfmt.service proc-sys-fs-binfmt_misc.automount
mkdir -p "$r/etc/systemd/system.conf.d"
cat > "$r/etc/systemd/system.conf.d/sandcap-vm.conf" <<'EOT'
# sandcap systemd guest: no status animation on the console log; a stuck unit does not
# hold a clean power-off for 90 s.
[Manager]
ShowStatus=no
DefaultTimeoutStopSec=20s
EOT
ln -sf /lib/systemd/system/multi-user.target "$u/default.target"
cat > "$u/sandcap-vm-harness.service" <<EOT
# The VM suite's harness in the systemd guest (tests/vm/sysd-harness.sh).
[Unit]
Description=sandcap VM suite harness
After=multi-user.target

[Service]
Type=exec
ExecStart=/bin/sh $V/src/tests/vm/sysd-harness.sh $V/results
StandardOutput=journal+console
StandardError=journal+console
TimeoutStartSec=infinity

[Install]
WantedBy=multi-user.target
EOT
mkdir -p "$u/multi-user.target.wants"
ln -s ../sandcap-vm-harness.service "$u/multi-user.target.wants/sandcap-vm-harness.service"
