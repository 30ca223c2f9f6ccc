#!/bin/sh
# Boot the prepared VM guest (cgroup v2, delegated parent, setcap'd helper, test policy)
# and run one script there as the unprivileged user sbxtest, from its own cgroup, with the
# scenario environment (SBX, SBX_HELPER, SCRATCH, ...; see tests/vm/README.md).
# The script's output (stdout and stderr) is printed here afterwards; its exit status is
# ours (125 if the guest did not finish).  `make demo` uses this on hosts without a helper.
#
#   tests/vm/guest-exec.sh BUILD SCRIPT
[ $# -eq 2 ] || { echo "usage: tests/vm/guest-exec.sh BUILD SCRIPT" >&2; exit 2; }
exec sh "$(dirname "$0")/run.sh" "$1" --exec "$2"
