#!/bin/sh
# The job interface in cgroup mode (issue 16): --chdir @workspace starts the command in the
# workspace, where --disk bounds what it writes (and the current directory is not bounded:
# the documented limit of --disk); the report lists the environment's names with TMPDIR.
# vm-timeout: 60
# vm-cost: 3
# shellcheck source=tests/vm/lib.sh
. "$VMLIB"
R=$SCRATCH

run_rc "$SANDCAP" run -q --chdir @workspace --report "$R/cd.json" -- sh -c 'pwd; echo "T=$TMPDIR"' \
	> "$R/cd.out"
is "$rc" 0 "--chdir @workspace: exit 0"
is "$(json_get "$R/cd.json" .mode)" cgroup "... in cgroup mode"
is "$(head -1 "$R/cd.out")" "$(sed -n 's/^T=//p' "$R/cd.out")" "--chdir @workspace: the command starts in \$TMPDIR, the workspace"

# 4 MiB into the current directory under --disk 1M: with @workspace it is bounded.
run_rc "$SANDCAP" run -q --disk 1M --chdir @workspace --report "$R/d1.json" -- \
	sh -c 'head -c 4194304 /dev/zero > big'
check "--disk 1M --chdir @workspace, 4 MiB into ./big: the write fails (exit $rc)" test "$rc" -ne 0
is "$(json_get "$R/d1.json" .verdict)" disk "... verdict disk"
# Without it, the current directory is the caller's and --disk does not bound it (as
# documented in sandcap run --help and sandcap(1)).
mkdir -p "$R/cwd"
(cd "$R/cwd" && "$SANDCAP" run -q --disk 1M --report "$R/d2.json" -- \
	sh -c 'head -c 4194304 /dev/zero > big')
is "$(json_get "$R/d2.json" .verdict)" ok "--disk 1M without --chdir @workspace: ./big is outside the workspace (ok)"
is "$(stat -c %s "$R/cwd/big")" 4194304 "... and the 4 MiB file is in the caller's directory"

# The environment: names only, TMPDIR set by sandcap included, secrets dropped.
run_rc env SECRET_TOKEN=hunter2 "$SANDCAP" run -q --env-clear --env A=1 --report "$R/env.json" -- env \
	> "$R/env.out"
is "$rc" 0 "--env-clear in cgroup mode: exit 0"
check_fails "--env-clear: SECRET_TOKEN does not reach the command" grep -q SECRET_TOKEN "$R/env.out"
like "$(json_get "$R/env.json" .env)" "TMPDIR" "report env lists TMPDIR (set to the workspace)"
check_fails "report env holds no value" grep -q hunter2 "$R/env.json"
done_testing
