#!/bin/sh
# make demo: the main job of sandcap, for real.
#  - With a usable helper on this host (sandcap doctor passes), run the demo here.
#  - Otherwise (this machine's cgroups are v1, say) boot the user-mode Linux guest of the
#    VM suite, which has cgroup v2 and a setcap'd helper, and run it there as an
#    unprivileged user.
# The demo: a memory hog stopped by --memory, a fork bomb held by --pids, a timeout; each
# prints sandcap's verdict line and its JSON report.
set -u
build=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
demo="$top/tools/demo-sandboxes.sh"

if "$top/$build/sandcap" doctor >/dev/null 2>&1; then
	echo "== sandcap doctor: this host supports cgroup mode; running the demo here"
	SANDCAP="$top/$build/sandcap" sh "$demo"
	exit $?
fi
echo "== this host lacks what cgroup mode needs (see: $build/sandcap doctor);"
echo "== booting the user-mode Linux guest (cgroup v2, setcap'd helper) to run the demo as"
echo "== the unprivileged user 'sctest' ..."
sh "$top/tests/vm/guest-exec.sh" "$build" "$demo"
