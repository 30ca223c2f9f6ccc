#!/usr/bin/env python3
"""Root-side view of the delegated cgroup parent for tests that run as the test user.

The parent (/sys/fs/cgroup/sandcap) is root:root 0700, so a test running as sctest cannot
see whether a sandbox's leaf is still there.  A root scenario starts this lister; it writes,
about every 0.1 s, one JSON snapshot {"t": <CLOCK_MONOTONIC seconds when the walk began>,
"leaves": ["<uid>/<id>", ...]} to OUT (mode 0644, replaced atomically by rename).  A reader
that wants "the leaves now" waits for a snapshot whose t is later than its own now
(python/tests/fleet_calls.py: leaves()).  Only lists; never writes under the cgroup tree.

    leaf-lister.py PARENT OUT     (runs until killed; removes OUT on SIGTERM)
"""

import json
import os
import signal
import sys
import time


def walk(parent):
    out = []
    try:
        users = os.listdir(parent)
    except OSError:
        return None
    for u in users:
        p = os.path.join(parent, u)
        if not os.path.isdir(p):
            continue
        try:
            out += [f"{u}/{d}" for d in os.listdir(p) if os.path.isdir(os.path.join(p, d))]
        except FileNotFoundError:
            continue  # the per-user level went away during the walk
    return sorted(out)


def main():
    parent, out = sys.argv[1], sys.argv[2]
    tmp = out + ".tmp"
    signal.signal(signal.SIGTERM, lambda *_: (os.path.exists(out) and os.unlink(out),
                                              sys.exit(0)))
    os.umask(0o022)
    while True:
        t = time.monotonic()
        leaves = walk(parent)
        snap = {"t": t, "leaves": leaves} if leaves is not None else \
            {"t": t, "error": f"cannot list {parent}"}
        with open(tmp, "w") as f:
            json.dump(snap, f)
        os.rename(tmp, out)
        time.sleep(0.1)


if __name__ == "__main__":
    main()
