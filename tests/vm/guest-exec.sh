#!/bin/sh
# Boot the prepared VM guest (cgroup v2, delegated parent, setcap'd helper, test policy)
# and run one script there as the unprivileged user sctest, from its own cgroup, with the
# scenario environment (SANDCAP, SANDCAP_HELPER, SCRATCH, ...; see tests/vm/README.md).
# The script's output (stdout and stderr) is printed here afterwards; its exit status is
# ours (125 if the guest did not finish).  `make demo` uses this on hosts without a helper.
#
#   tests/vm/guest-exec.sh [--root] [--policy FILE] [--kernel 6.1|6.12] BUILD SCRIPT
#
#   --root          run SCRIPT as root instead (it reaches sctest with vm-as-user; the
#                   user's environment is in /opt/sandcap/user.env); make bench uses this
#   --policy FILE   install FILE as /etc/sandcap/sandbox.ini instead of tests/vm/policy.ini
#   --kernel K      boot the 6.1 guest (default) or the 6.12 one (tests/vm/kernel-build.sh)
# SANDCAP_VM_EXEC_TIMEOUT bounds SCRIPT (seconds, default 300).
opts=""
while [ $# -gt 2 ]; do
	case $1 in
	--root) opts="$opts --root"; shift ;;
	--policy) opts="$opts --policy $2"; shift 2 ;;
	--kernel) opts="$opts --kernel $2"; shift 2 ;;
	*) break ;;
	esac
done
[ $# -eq 2 ] || { echo "usage: tests/vm/guest-exec.sh [--root] [--policy FILE] [--kernel 6.1|6.12] BUILD SCRIPT" >&2; exit 2; }
# shellcheck disable=SC2086
exec sh "$(dirname "$0")/run.sh" "$1" --exec "$2" $opts
