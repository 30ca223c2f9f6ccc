#!/bin/sh
# The workspace and signals in cgroup mode (an outside test's findings): each process gets
# a signal once; the workspace has an inode per 4 KiB of --disk, and running out of them is
# a disk hit named as such; limits.disk is the tmpfs's real size (pages); a workspace over
# --memory is warned about (naming the policy or profile that set a value not typed), and an
# OOM kill it caused says so.
# vm-timeout: 120
# vm-cost: 12
# shellcheck source=tests/vm/lib.sh
. "$VMLIB"
R=$SCRATCH
MiB=1048576

# ---- sandcap kill --signal: once per process (the group kill, then every descendant
# again, gave the group's members two).  A blocked real-time signal queues, so the count
# does not depend on scheduling (tests/integration/probe-sigcount.py). ----
D=$R/sigcount
mkdir -p "$D"
ready3() { [ -e "$D/ready.main" ] && [ -e "$D/ready.child" ] && [ -e "$D/ready.other" ]; }
"$SANDCAP" run -q --timeout 60 --report "$R/sig.json" -- \
	python3 "$SRCDIR/tests/integration/probe-sigcount.py" "$D" 40 > "$R/sig.out" 2>&1 &
pid=$!
i=0; while [ $i -lt 600 ] && ! ready3; do sleep 0.1; i=$((i + 1)); done
id=$("$SANDCAP" ps --json 2>/dev/null | jq -r '.[0].id' 2>/dev/null)
run_rc "$SANDCAP" kill --signal 40 "$id"
is "$rc" 0 "sandcap kill --signal 40 $id: exit 0"
touch "$D/go"
wait $pid
is "$?" 0 "... the sandbox then ends on its own: exit 0"
for p in main child other; do
	is "$(cat "$D/n.$p" 2>/dev/null)" 1 "... the $p process got signal 40 once"
done

# ---- many small files: the inodes outlast the blocks (one per 16 KiB ran out at ~500) ----
mkfiles='import os, sys
n = 0
try:
    for n in range(int(sys.argv[1])):
        with open(os.path.join(os.environ["TMPDIR"], "f%d" % n), "w") as f:
            f.write(sys.argv[2])
    n += 1
except OSError as e:
    print("made %d: %s" % (n, e.strerror), file=sys.stderr)
    sys.exit(1)
print("made %d" % n)'
run_rc "$SANDCAP" run -q --disk 32M --report "$R/files.json" -- python3 -c "$mkfiles" 5000 x \
	> "$R/files.out" 2> "$R/files.err"
is "$rc" 0 "--disk 32M: 5000 one-byte files fit ($(cat "$R/files.out" "$R/files.err"))"
is "$(json_get "$R/files.json" .verdict)" ok "... verdict ok"

# ---- out of inodes before the blocks: verdict disk, and the message says inodes ----
run_rc "$SANDCAP" run -q --disk 4M --report "$R/inodes.json" -- python3 -c "$mkfiles" 10000 "" \
	> "$R/inodes.out" 2> "$R/inodes.err"
is "$rc" 1 "--disk 4M, 10000 empty files: the command fails ($(cat "$R/inodes.err"))"
like "$(cat "$R/inodes.err")" "^made 409[0-9]: No space left on device" \
	"... at about 4096 files (the floor), with ENOSPC"
is "$(json_get "$R/inodes.json" .verdict)" disk "... verdict disk"
is "$(json_get "$R/inodes.json" '.limits_hit | join(" ")')" disk "... limits_hit [disk]"
like "$(json_get "$R/inodes.json" .message)" "^the workspace is out of inodes: 409[0-9] files" \
	"... the message names the inodes"

# ---- --disk 1K: the tmpfs is one page, and limits.disk says so ----
run_rc "$SANDCAP" run -q --disk 1K --report "$R/1k.json" -- sh -c 'printf abc > "$TMPDIR/x"'
is "$rc" 0 "--disk 1K, 3 bytes written: exit 0"
is "$(json_get "$R/1k.json" .limits.disk)" 4096 "... limits.disk is the page the tmpfs has (4096)"
is "$(json_get "$R/1k.json" .usage.disk_used)" 4096 "... disk_used 4096: the one page, full"

# ---- --disk over --memory: a warning; filling it is an OOM kill that names the workspace ----
run_rc "$SANDCAP" run --disk 64M --memory 32M --timeout 60 --report "$R/oom.json" -- \
	sh -c 'head -c 60000000 /dev/zero > "$TMPDIR/x"' > "$R/oom.out" 2> "$R/oom.err"
like "$(cat "$R/oom.err")" "warning: --disk 64 MiB is more than --memory 32 MiB" \
	"--disk 64M --memory 32M: a warning at start"
is "$(json_get "$R/oom.json" .verdict)" memory "... filling the workspace: verdict memory"
like "$(json_get "$R/oom.json" .message)" "the workspace's files held [0-9.]+ MiB of it: they are memory" \
	"... and the message says the workspace's files held it"
run_rc "$SANDCAP" run -q --disk 64M --memory 32M -- true > "$R/q.out" 2> "$R/q.err"
is "$(cat "$R/q.err")" "" "... no warning with -q"
# A value the user did not type is named with where it came from: the policy's default
# (tests/vm/policy.ini: [defaults] disk = 16M), a profile.
run_rc "$SANDCAP" run --memory 8M -- true > "$R/dflt.out" 2> "$R/dflt.err"
like "$(cat "$R/dflt.err")" "warning: --disk 16 MiB \\(the policy's default, \\[defaults\\]\\) is more than --memory 8 MiB:" \
	"--memory 8M, no --disk: the warning names the policy's default disk"
mkdir -p "$R/xdg/sandcap"
printf '[big-disk]\ndisk = 48M\n' > "$R/xdg/sandcap/profiles.ini"
run_rc env XDG_CONFIG_HOME="$R/xdg" "$SANDCAP" run --profile big-disk --memory 32M -- true \
	> "$R/prof.out" 2> "$R/prof.err"
like "$(cat "$R/prof.err")" "warning: --disk 48 MiB \\(from profile big-disk\\) is more than --memory 32 MiB:" \
	"--profile big-disk --memory 32M: the warning names the profile"
run_rc env XDG_CONFIG_HOME="$R/xdg" "$SANDCAP" run --profile big-disk --disk 48M --memory 32M \
	-- true > "$R/prof2.out" 2> "$R/prof2.err"
like "$(cat "$R/prof2.err")" "warning: --disk 48 MiB is more than --memory 32 MiB:" \
	"... and no origin when the command line gives --disk itself"
done_testing
