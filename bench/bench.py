#!/usr/bin/env python3
"""sbx benchmarks: launch overhead, timeout precision, idle cost (host, rlimit mode) and the
cgroup-mode lifecycle, concurrency and idle cost inside the user-mode Linux guest.

Ratios measured in the same run are the headline; absolute times only with context.
Writes a Markdown report (bench/RESULTS.md) and prints it."""
import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def q(values, p):
    """Nearest-rank percentile of a non-empty list."""
    v = sorted(values)
    k = max(0, min(len(v) - 1, int(round(p / 100.0 * len(v) + 0.5)) - 1))
    return v[k]


def machine():
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {"kernel": platform.release(), "cpus": os.cpu_count(), "cpu": cpu,
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}


def hyperfine(cmds, runs, warmup):
    """cmds: list of (name, argv).  Returns {name: [seconds...]}; missing tools are skipped."""
    out = {}
    for name, argv in cmds:
        if shutil.which(argv[0]) is None and not os.path.exists(argv[0]):
            out[name] = None
            continue
        with tempfile.NamedTemporaryFile(suffix=".json") as tf:
            cmdline = " ".join(sh_quote(a) for a in argv)
            r = subprocess.run(["hyperfine", "-N", "--style", "none", "--runs", str(runs),
                                "--warmup", str(warmup), "--export-json", tf.name, cmdline],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            if r.returncode != 0:
                out[name] = "failed: " + r.stderr.strip().splitlines()[-1] if r.stderr else "failed"
                continue
            data = json.load(open(tf.name))
            out[name] = data["results"][0]["times"]
    return out


def sh_quote(s):
    if s and all(c.isalnum() or c in "-_./=,%:" for c in s):
        return s
    return "'" + s.replace("'", "'\\''") + "'"


def fmt_ms(s):
    return "%.2f ms" % (s * 1000.0)


def launch_section(args, sbx, hello):
    cmds = [
        ("bare /bin/true", ["/bin/true"]),
        ("bare hello (C)", [hello]),
        ("sbx run (rlimit mode) /bin/true", [sbx, "run", "-q", "--no-cgroup", "--", "/bin/true"]),
        ("sbx run (rlimit mode) hello", [sbx, "run", "-q", "--no-cgroup", "--", hello]),
        ("sbx run --timeout 10 --nofile 256 --as 1G", [sbx, "run", "-q", "--no-cgroup", "--timeout", "10",
                                                       "--nofile", "256", "--as", "1G", "--", "/bin/true"]),
        ("prlimit /bin/true", ["prlimit", "--nofile=256", "--as=1073741824", "/bin/true"]),
        ("timeout+prlimit /bin/true", ["timeout", "10", "prlimit", "--nofile=256", "--as=1073741824", "/bin/true"]),
        ("bwrap --unshare-all /bin/true", ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                                           "--unshare-all", "/bin/true"]),
        ("firejail --noprofile /bin/true", ["firejail", "--quiet", "--noprofile", "/bin/true"]),
    ]
    res = hyperfine(cmds, args.runs, 10)
    bare = statistics.median(res["bare /bin/true"])
    rows = []
    for name, _ in cmds:
        t = res[name]
        if t is None:
            rows.append((name, "not installed: skipped", "", "", ""))
            continue
        if isinstance(t, str):
            rows.append((name, t, "", "", ""))
            continue
        med = statistics.median(t)
        rows.append((name, fmt_ms(med), "%s – %s" % (fmt_ms(q(t, 10)), fmt_ms(q(t, 90))),
                     fmt_ms(med - bare), "%.1f×" % (med / bare)))
    return res, rows


def timeout_section(args, sbx):
    delays = []
    with tempfile.TemporaryDirectory() as d:
        rep = os.path.join(d, "r.json")
        for _ in range(args.timeout_runs):
            subprocess.run([sbx, "run", "-q", "--no-cgroup", "--report", rep, "--timeout", "0.2",
                            "--", "sleep", "10"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            r = json.load(open(rep))
            delays.append(r["usage"]["wall_ms"] - 200)
    return delays


def proc_counters(pid):
    vol = nonvol = 0
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("voluntary_ctxt_switches"):
                vol = int(line.split()[1])
            elif line.startswith("nonvoluntary_ctxt_switches"):
                nonvol = int(line.split()[1])
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12])
    return vol + nonvol, ticks * 1000.0 / os.sysconf("SC_CLK_TCK")


def idle_section(sbx, seconds=10):
    p = subprocess.Popen([sbx, "run", "-q", "--no-cgroup", "--", "sleep", str(seconds)])
    time.sleep(0.5)
    c0, t0 = proc_counters(p.pid)
    time.sleep(seconds - 1.0)
    c1, t1 = proc_counters(p.pid)
    p.wait()
    return c1 - c0, t1 - t0, seconds - 1.0


def vm_section(args):
    """Runs bench/vm-bench.sh in the user-mode Linux guest as the unprivileged test user."""
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    guest = os.path.join(top, "tests", "vm", "guest-exec.sh")
    if not os.path.exists(guest):
        return None, "tests/vm/guest-exec.sh not found"
    r = subprocess.run(["sh", guest, args.build, os.path.join(top, "bench", "vm-bench.sh")],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=1800)
    data = {}
    for line in r.stdout.splitlines():
        if line.startswith("BENCH "):
            k, v = line[6:].split(" ", 1)
            data[k] = json.loads(v)
    if not data:
        return None, "the guest produced no results (exit %d): %s" % (r.returncode, r.stderr.strip()[-400:])
    return data, None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--timeout-runs", type=int, default=50)
    ap.add_argument("--no-vm", action="store_true")
    args = ap.parse_args()
    sbx = os.path.join(args.build, "sbx")
    hello = os.path.join(args.build, "bench-hello")
    m = machine()
    lines = ["# sbx benchmark results", "",
             "Produced by `make bench` (bench/run.sh, bench/bench.py) on %s." % m["date"], "",
             "Machine: %s, %s CPUs, kernel %s (host); the cgroup-mode figures come from the "
             "user-mode Linux guest of tests/vm (Linux 6.1 UML), where every syscall is far "
             "slower than on the host: compare ratios within one environment, never across." %
             (m["cpu"], m["cpus"], m["kernel"]), "",
             "Run as %s. Medians with the 10th–90th percentile spread; %d runs each (hyperfine -N)." %
             ("root" if os.geteuid() == 0 else "uid %d" % os.geteuid(), args.runs), ""]
    targets = []

    res, rows = launch_section(args, sbx, hello)
    lines += ["## 1. Launch overhead on the host (rlimit mode and peers)", "",
              "| command | median | p10 – p90 | added vs bare | ratio to bare |",
              "|---|---|---|---|---|"]
    lines += ["| %s |" % " | ".join(r) for r in rows]
    sbx_med = statistics.median(res["sbx run --timeout 10 --nofile 256 --as 1G"])
    tp = res.get("timeout+prlimit /bin/true")
    if isinstance(tp, list):
        tp_med = statistics.median(tp)
        targets.append(("sbx (rlimit mode, timeout+rlimits) no slower than timeout+prlimit",
                        "%s vs %s" % (fmt_ms(sbx_med), fmt_ms(tp_med)), sbx_med <= tp_med * 1.05))
    lines.append("")

    delays = timeout_section(args, sbx)
    lines += ["## 3. Timeout precision (host, rlimit mode)", "",
              "`sbx run --timeout 0.2 -- sleep 10`, %d runs; delay = the report's `usage.wall_ms` − 200 "
              "(millisecond resolution)." % len(delays), "",
              "| median | p99 | max |", "|---|---|---|",
              "| %d ms | %d ms | %d ms |" % (statistics.median(delays), q(delays, 99), max(delays)), ""]
    targets.append(("timeout kill within 10 ms of the deadline at p99 (host)", "%d ms" % q(delays, 99),
                    q(delays, 99) <= 10))

    cs, cpu_ms, window = idle_section(sbx)
    lines += ["## 4. Idle cost (host, rlimit mode)", "",
              "`sbx run -- sleep 10`: context switches and CPU time of the sbx process over %.0f s of "
              "the sandbox's idle life." % window, "",
              "| context switches | CPU time |", "|---|---|", "| %d | %.0f ms |" % (cs, cpu_ms), ""]
    targets.append(("fewer than 5 wake-ups of sbx over an idle sandbox (host)", "%d" % cs, cs < 5))

    if not args.no_vm:
        data, err = vm_section(args)
        lines += ["## 2. cgroup mode inside the VM (helper, cgroup, workspace: full lifecycle)", ""]
        if data is None:
            lines += ["Not measured: %s." % err, ""]
            targets.append(("cgroup-mode lifecycle measured", err, False))
        else:
            lines += vm_lines(data, targets)

    lines += ["## Targets", "", "| target | measured | met |", "|---|---|---|"]
    for name, got, ok in targets:
        lines.append("| %s | %s | %s |" % (name, got, "yes" if ok else "**no**"))
    lines.append("")
    text = "\n".join(lines) + "\n"
    with open(args.out, "w") as f:
        f.write(text)
    sys.stdout.write(text)


def vm_lines(d, targets):
    out = []
    if "launch" in d:
        L = d["launch"]
        out += ["Sequential runs of `/bin/true` in the guest, bare and through `sbx run` with "
                "`--memory 64M --cpu 100% --pids 32 --disk 8M` (helper start, cgroup create, "
                "attach, run, kill, remove, unmount), and `bwrap --unshare-all` where it runs.", "",
                "| command | median | p10 – p90 | ratio to bare |", "|---|---|---|---|"]
        bare = statistics.median(L["bare"])
        for k in ("bare", "sbx_cgroup", "sbx_rlimit", "bwrap"):
            if k in L and L[k]:
                med = statistics.median(L[k])
                out.append("| %s | %.2f ms | %.2f – %.2f ms | %.1f× |" % (
                    k, med, q(L[k], 10), q(L[k], 90), med / bare))
            elif k in L:
                out.append("| %s | not available in the guest | | |" % k)
        out.append("")
        med = statistics.median(L["sbx_cgroup"])
        targets.append(("cgroup-mode lifecycle at most 4× a bare /bin/true (VM)",
                        "%.1f×" % (med / bare), med / bare <= 4))
        if L.get("bwrap"):
            targets.append(("cgroup mode faster than bwrap --unshare-all (VM)",
                            "%.2f vs %.2f ms" % (med, statistics.median(L["bwrap"])),
                            med < statistics.median(L["bwrap"])))
    if "concurrency" in d:
        c = d["concurrency"]
        out += ["### Concurrency", "",
                "%d sandboxes started at once (each `sleep 0.5`), cgroup mode: %d failed, %.1f s in all "
                "(%.1f sandboxes/s); private RSS of one helper %d KiB, of one sbx %d KiB; leftovers "
                "afterwards: %d." % (c["n"], c["failed"], c["seconds"], c["n"] / c["seconds"],
                                     c["helper_private_kib"], c["sbx_private_kib"], c["leftovers"]), ""]
        targets.append(("%d concurrent sandboxes with zero failures" % c["n"], "%d failed" % c["failed"],
                        c["failed"] == 0 and c["leftovers"] == 0))
        targets.append(("helper private RSS under 1 MiB", "%d KiB" % c["helper_private_kib"],
                        c["helper_private_kib"] < 1024))
    if "cputime" in d:
        v = d["cputime"]
        out += ["### --cpu-time precision (cgroup mode)", "",
                "`--cpu-time 0.5` over a busy loop, %d runs: CPU used beyond the budget median %d ms, "
                "p99 %d ms, max %d ms." % (len(v), statistics.median(v), q(v, 99), max(v)), ""]
    if "idle" in d:
        i = d["idle"]
        out += ["### Idle cost (cgroup mode)", "",
                "A sandbox sleeping 10 s: sbx %d context switches / %.0f ms CPU, helper %d / %.0f ms "
                "over %.0f s." % (i["sbx_cs"], i["sbx_cpu_ms"], i["helper_cs"], i["helper_cpu_ms"],
                                  i["window_s"]), ""]
        targets.append(("fewer than 5 wake-ups of sbx and the helper over an idle sandbox (VM)",
                        "%d + %d" % (i["sbx_cs"], i["helper_cs"]), i["sbx_cs"] + i["helper_cs"] < 5))
    return out


if __name__ == "__main__":
    main()
