#!/usr/bin/env python3
"""Interleaved launch timing, for the VM guest (bench/vm-bench.sh).

    launch.py RUNS NAME=COMMAND...

Runs every COMMAND (split on blanks, no shell; leading VAR=VALUE words go into its
environment) RUNS times, one run of each per round, so a drift of the machine (UML slows
down as it ages) hits every command alike, after 3 warm-up rounds.  Each round runs them
in a new shuffled order (seeded: the same orders on every run of the bench): in a fixed
order a command profits from the one before it, and `sandcap run` right after
`sandcap --version`, the same program with its pages still cached, took 0.14 ms less on
the host than in a shuffled order.  Each run is posix_spawnp + waitpid, timed with the
monotonic clock; stdout/stderr go to /dev/null.  Prints one JSON object {NAME: [ms...]};
a command that exits non-zero gets the string "failed: exit N" instead.  "_minflt" holds
the median minor page faults per command (wait4's rusage: the command and every
descendant it reaped, e.g. sandcap's helper and sandboxed child)."""
import json
import os
import random
import sys
import time


def run(argv, env, devnull):
    t0 = time.perf_counter_ns()
    pid = os.posix_spawnp(argv[0], argv, env,
                         file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1),
                                       (os.POSIX_SPAWN_DUP2, devnull, 2)])
    _, status, ru = os.wait4(pid, 0)
    t1 = time.perf_counter_ns()
    return (t1 - t0) / 1e6, os.waitstatus_to_exitcode(status), ru.ru_minflt


def main():
    runs = int(sys.argv[1])
    cmds = []
    for a in sys.argv[2:]:
        name, words = a.split("=", 1)[0], a.split("=", 1)[1].split()
        env = dict(os.environ)
        while words and "=" in words[0] and not words[0].startswith("/"):
            k, v = words.pop(0).split("=", 1)
            env[k] = v
        cmds.append((name, words, env))
    out = {name: [] for name, _, _ in cmds}
    devnull = os.open(os.devnull, os.O_WRONLY)
    faults = {}
    order = random.Random(19)
    for i in range(runs + 3):
        this_round = cmds[:]
        order.shuffle(this_round)
        for name, argv, env in this_round:
            if isinstance(out[name], str):
                continue
            ms, rc, flt = run(argv, env, devnull)
            if rc != 0:
                out[name] = "failed: exit %d" % rc
            elif i >= 3:
                out[name].append(round(ms, 3))
                faults.setdefault(name, []).append(flt)
    out["_minflt"] = {k: sorted(v)[len(v) // 2] for k, v in faults.items()}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
