#!/bin/sh
# make bench, guest half: cgroup mode of sandcap inside the user-mode Linux guest of tests/vm.
# Run by bench/bench.py through
#   tests/vm/guest-exec.sh --root --policy bench/vm-policy.ini BUILD SCRIPT
# as root in the prepared guest (setcap'd helper, delegated cgroup2 parent): root only
# observes (smaps of the non-dumpable helper, leftovers); every sandbox is started by the
# unprivileged test user sctest through vm-as-user, exactly as in the VM scenarios.
# Prints one line "BENCH <key> <json>" per measurement (launch, concurrency, cputime,
# idle; see bench/bench.py) and "# ..." notes.  Exit status 0 unless setup failed.
#
# bench.py may prepend assignments to override these:
: "${LAUNCH_RUNS:=40}"          # sequential runs per command (hyperfine -N)
: "${CONC_N:=200}"              # sandboxes started at once
: "${CONC_SLEEP:=1}"            # each sleeps this long, then exits
: "${CPU_RUNS:=20}"             # --cpu-time 0.5 runs
: "${IDLE_S:=10}"               # idle sandbox length
set -u
export LC_ALL=C
SANDCAP=/opt/sandcap/bin/sandcap
P=/sys/fs/cgroup/sandcap
W=/var/tmp/bench                # the test user's scratch
LIM="--memory 64M --cpu 100% --pids 32 --disk 8M"

rm -rf $W
mkdir -m 0755 $W && chown sctest:sctest $W || exit 125

as_user() {             # as_user CMD...: as sctest, from its cgroup, scenario environment
	# shellcheck disable=SC2046
	vm-as-user sctest env -i $(cat /opt/sandcap/user.env) "$@"
}

private_kib() {         # private_kib PID: Private_Clean + Private_Dirty of PID, in KiB
	awk '/^Private_(Clean|Dirty|Hugetlb):/ { s += $2 } END { print s + 0 }' \
		"/proc/$1/smaps_rollup" 2>/dev/null
}

counters() {            # counters PID: "CTXSW CPU_MS" summed over PID's threads
	awk -v hz="$(getconf CLK_TCK)" '
		FILENAME ~ /status$/ && /ctxt_switches:/ { cs += $2 }
		FILENAME ~ /stat$/ { sub(/.*\) /, ""); split($0, f, " "); t += f[12] + f[13] }
		END { printf "%d %d\n", cs, t * 1000 / hz }' \
		/proc/"$1"/task/*/status /proc/"$1"/task/*/stat 2>/dev/null
}

leftovers() {           # how many leaves, mounts, workspaces, processes of sctest are left
	n=0 i=0
	while [ $i -lt 30 ]; do
		# The per-user level and dir stay (root-owned, empty): only what is below them counts.
		n=$(( $(find $P -mindepth 2 -type d | wc -l) +
			$(awk '$2 ~ "^/run/sandcap/" { n++ } END { print n + 0 }' /proc/mounts) +
			$(find /run/sandcap -mindepth 2 -maxdepth 2 \! -path '/run/sandcap/.locks/*' | wc -l) +
			$(pgrep -u sctest | wc -l) ))
		[ "$n" -eq 0 ] && break
		sleep 0.1; i=$((i + 1))
	done
	echo "$n"
}

echo "# guest: $(uname -sr), $(nproc) CPU, $(awk '/MemTotal/ { print $2 }' /proc/meminfo) KiB"
as_user "$SANDCAP" run -q $LIM -- /bin/true || { echo "# sandcap run in cgroup mode fails"; exit 125; }

# ---- 1. Launch: bare vs sandcap run (cgroup mode, full lifecycle) vs rlimit mode vs bwrap. --
bw="bwrap --ro-bind / / --dev /dev --proc /proc --unshare-all /bin/true"
if as_user $bw > $W/bwrap.err 2>&1; then
	have_bwrap=1
else
	have_bwrap=0
	echo "# bwrap --unshare-all does not run in the guest: $(head -c 200 $W/bwrap.err)"
fi
set -- bare=/bin/true "sandcap_cgroup=$SANDCAP run -q $LIM -- /bin/true" \
	"sandcap_rlimit=$SANDCAP run -q --no-cgroup -- /bin/true" \
	"timeout_prlimit=timeout 10 prlimit --nofile=256 --as=1073741824 /bin/true"
[ $have_bwrap = 1 ] && set -- "$@" "bwrap=$bw"
if as_user python3 /dev/sandcap-vm/src/bench/launch.py "$LAUNCH_RUNS" "$@" > $W/launch.json 2> $W/launch.err
then
	[ $have_bwrap = 1 ] || sed -i 's/}$/, "bwrap": []}/' $W/launch.json
	echo "BENCH launch $(cat $W/launch.json)"
else
	echo "# launch timing failed: $(tail -n 3 $W/launch.err)"
fi

# ---- 1b. What things cost in this kernel: a syscall, a page fault; and how many syscalls
# each process of one cgroup-mode sandbox makes (strace -f, one run, as the test user).
python3 - <<'EOF'
import json, mmap, os, time
n = 20000
t = time.perf_counter(); [os.getppid() for _ in range(n)]; d = time.perf_counter() - t
t = time.perf_counter(); [None for _ in range(n)]; e = time.perf_counter() - t
m = mmap.mmap(-1, 4096 * 2000)
t = time.perf_counter()
for i in range(2000):
    m[i * 4096] = 1
f = time.perf_counter() - t
# Pages of a cached file read through a mapping: how many faults (a host kernel maps up to
# 16 neighbours per fault, "fault-around"; this one may not).
import resource
lib = "/usr/lib/x86_64-linux-gnu/libc.so.6"
fault_pages = None
if os.path.exists(lib) and os.path.getsize(lib) >= 256 * 4096:
    with open(lib, "rb") as fh:
        fh.read()
        fm = mmap.mmap(fh.fileno(), 256 * 4096, prot=mmap.PROT_READ)
        r0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        s = sum(fm[i * 4096] for i in range(256))
        fault_pages = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - r0
        fm.close()
print("BENCH uml " + json.dumps({"syscall_us": round((d - e) / n * 1e6, 1),
                                 "fault_us": round(f / 2000 * 1e6, 1),
                                 "file_256_faults": fault_pages}))
EOF
cat > $W/one.sh <<EOF
echo \$\$ > /sys/fs/cgroup/users/sctest/cgroup.procs
exec setpriv --reuid=sctest --regid=sctest --init-groups $SANDCAP run -q $LIM -- /bin/true
EOF
mkdir -m 0700 $W/st
if strace -ff -qq -o $W/st/t sh $W/one.sh && strace -ff -qq -o $W/st/b /bin/true; then
	python3 - $W/st <<'EOF'
# One file per pid (strace -ff).  Counted per process: the
# helper and sandcap from their own exec to their exit; the sandboxed child (sandcap's
# clone) from the clone up to and including its exec of /bin/true; bare /bin/true whole.
import collections, glob, json, os, re, sys
CHILD = "sandbox child (clone to exec of /bin/true)"
out, top = {}, {}
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*"))):
    lines = [l for l in open(f).read().splitlines()
             if not l.startswith("+++") and not l.startswith("---")]
    execs = [i for i, l in enumerate(lines) if l.startswith("execve(") and "= -1" not in l]
    prog = re.match(r'execve\("([^"]+)"', lines[execs[-1]]).group(1) if execs else ""
    if os.path.basename(f).startswith("b."):
        name, span = "bare /bin/true", lines
    elif os.path.basename(prog) == "true":
        name, span = CHILD, lines[:execs[-1] + 1]
    elif os.path.basename(prog) in ("sandcap", "sandcap-helper"):
        name, span = os.path.basename(prog), lines[execs[-1]:]
    else:
        continue        # sh, setpriv: the harness's, not sandcap's
    out[name] = len(span)
    c = collections.Counter(re.match(r"[a-z0-9_]+", l).group(0) for l in span
                            if re.match(r"[a-z0-9_]+\(", l))
    top[name] = c.most_common(6)
print("BENCH syscalls " + json.dumps(out))
print("BENCH syscalls_top " + json.dumps(top))
EOF
else
	echo "# strace failed: no syscall counts"
fi
# Minor page faults per process, from BSD process accounting (the guest kernel has
# CONFIG_BSD_PROCESS_ACCT; strace would change them): 5 runs of the same sandbox, median per
# program.  The helper's record counts from sandcap's clone of it to its exit, the child's
# from sandcap's clone of it to the exit of /bin/true.
python3 - "$W/one.sh" "$W/acct" <<'EOF'
import ctypes, json, statistics, struct, subprocess, sys
libc = ctypes.CDLL(None, use_errno=True)
open(sys.argv[2], "wb").close()
if libc.acct(sys.argv[2].encode()) != 0:
    print("# acct(2) failed (errno %d): no page fault counts" % ctypes.get_errno())
    sys.exit(0)
for i in range(5):
    subprocess.run(["sh", sys.argv[1]])
libc.acct(None)
comp = lambda v: (v & 0x1fff) << (3 * (v >> 13))     # comp_t: 13-bit mantissa, base-8 exponent
rows = {}
d = open(sys.argv[2], "rb").read()
for off in range(0, len(d) - 63, 64):                 # struct acct v2 (linux/acct.h), 64 bytes
    comm = d[off + 36:off + 53].split(b"\0")[0].decode(errors="replace")
    rows.setdefault(comm, []).append(comp(struct.unpack_from("<H", d, off + 24)[0]))
names = {"sandcap-helper": "sandcap-helper", "true": "sandbox child (clone to exit of /bin/true)"}
print("BENCH faults " + json.dumps({names[k]: int(statistics.median(v))
                                    for k, v in rows.items() if k in names}))
EOF

# ---- 2. Concurrency: CONC_N sandboxes started at once.  Each blocks opening a FIFO for
# reading, so all of them are alive together (peak memory, the sandboxes cap); once all
# run, root opens and closes the write end, every one reads EOF and exits.
mkfifo -m 0644 $W/gate
cat > $W/conc.sh <<EOF
i=0
while [ \$i -lt $CONC_N ]; do
	"$SANDCAP" run -q --memory 16M --cpu 50% --pids 8 --disk 1M -- cat $W/gate \
		> /dev/null 2>> $W/conc.err || echo \$? >> $W/conc.fail &
	i=\$((i + 1))
done
wait
EOF
t0=$(date +%s%N)
as_user sh $W/conc.sh &
spawner=$!
hmax=0 smax=0 up=0 i=0
while [ $i -lt 600 ]; do        # at most ~3 min for all to come up
	up=$(pgrep -u sctest -x cat | wc -l)
	nf=0; [ -f $W/conc.fail ] && nf=$(wc -l < $W/conc.fail)
	[ $((up + nf)) -ge "$CONC_N" ] && break
	sleep 0.3; i=$((i + 1))
done
t_up=$(date +%s%N)
mem_avail=$(awk '/MemAvailable/ { print $2 }' /proc/meminfo)
for p in $(pgrep -x sandcap-helper | head -n 5); do
	v=$(private_kib "$p"); [ "${v:-0}" -gt $hmax ] && hmax=$v
done
for p in $(pgrep -u sctest -x sandcap | head -n 5); do
	v=$(private_kib "$p"); [ "${v:-0}" -gt $smax ] && smax=$v
done
nleaves=$(find $P -mindepth 2 -maxdepth 2 -type d | wc -l)     # <cgroup_root>/<uid>/<id>
# Open the write end and close it: EOF for every reader.  Again while sandboxes remain (a
# late one that opens after the close would wait for the next writer).
while kill -0 $spawner 2>/dev/null; do timeout 2 sh -c ": > $W/gate" 2>/dev/null; done
wait $spawner
t1=$(date +%s%N)
failed=0
[ -f $W/conc.fail ] && failed=$(wc -l < $W/conc.fail)
[ -s $W/conc.err ] && echo "# concurrency errors: $(sort $W/conc.err | uniq -c | head -n 5)"
left=$(leftovers)
echo "BENCH concurrency {\"n\": $CONC_N, \"failed\": $failed, \"seconds\": $(echo "$t0 $t1" |
	awk '{ printf "%.3f", ($2 - $1) / 1e9 }'), \"start_seconds\": $(echo "$t0 $t_up" |
	awk '{ printf "%.3f", ($2 - $1) / 1e9 }'), \"alive_together\": $up,
	\"leaves_together\": $nleaves, \"mem_available_kib\": $mem_avail,
	\"helper_private_kib\": $hmax, \"sandcap_private_kib\": $smax, \"leftovers\": $left}" |
	tr -d '\n\t'
echo

# ---- 3. --cpu-time 0.5 in cgroup mode: CPU used past the budget. ---------------------
vals=""
i=0
while [ $i -lt "$CPU_RUNS" ]; do
	as_user "$SANDCAP" run -q $LIM --cpu-time 0.5 --timeout 20 --report $W/cpu.json -- \
		sh -c 'while :; do :; done' > /dev/null 2>&1
	v=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))
u=r["usage"]; print(u["cpu_user_ms"] + u["cpu_system_ms"] - 500 if r["verdict"] == "cpu-time" else "")' \
		$W/cpu.json 2>/dev/null)
	[ -n "$v" ] && vals="$vals${vals:+, }$v"
	i=$((i + 1))
done
echo "BENCH cputime [$vals]"

# ---- 4. Idle: a sandbox sleeping IDLE_S s; wake-ups of sandcap and its helper. ------------
as_user "$SANDCAP" run -q $LIM -- sleep "$IDLE_S" &
i=0
while [ $i -lt 100 ] && ! pgrep -u sctest -x sleep > /dev/null; do sleep 0.05; i=$((i + 1)); done
sleep 0.3
sp=$(pgrep -u sctest -x sandcap | head -n 1) hp=$(pgrep -x sandcap-helper | head -n 1)
if [ -n "$sp" ] && [ -n "$hp" ]; then
	a0=$(date +%s%N)
	# shellcheck disable=SC2046
	set -- $(counters "$sp") $(counters "$hp")
	sleep $((IDLE_S - 2))
	# shellcheck disable=SC2046
	set -- "$@" $(counters "$sp") $(counters "$hp")
	a1=$(date +%s%N)
	echo "# idle: absolute counters (context switches, CPU ms) sandcap $1 $2 -> $5 $6, helper $3 $4 -> $7 $8"
	echo "BENCH idle {\"sandcap_cs\": $(($5 - $1)), \"sandcap_cpu_ms\": $(($6 - $2)),"\
		"\"helper_cs\": $(($7 - $3)), \"helper_cpu_ms\": $(($8 - $4)),"\
		"\"window_s\": $(echo "$a0 $a1" | awk '{ printf "%.2f", ($2 - $1) / 1e9 }')}"
else
	echo "# idle: no sandcap/helper process found (sandcap $sp, helper $hp)"
fi
wait
echo "# leftovers at the end: $(leftovers)"
exit 0
