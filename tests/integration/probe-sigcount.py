#!/usr/bin/env python3
# Count how many times each process of a sandbox gets signal SIG (sandcap kill --signal SIG),
# without depending on when the signals arrive: SIG is a real-time signal, blocked from
# the start, so every delivery is queued (standard signals pending together merge into one,
# and a test counting them with a trap passes or fails by the scheduler's choice).
#
#   probe-sigcount.py DIR SIG
#
# Three processes: the main one (its own process group, as sandcap makes it), a child in
# the same group, and a child in a group of its own (setpgid).  Each creates DIR/ready.NAME,
# waits for DIR/go (the test creates it once `sandcap kill` has returned, i.e. once the
# supervisor has sent everything), then takes what is queued and writes the count to
# DIR/n.NAME.
import os
import signal
import sys
import time

d, sig = sys.argv[1], int(sys.argv[2])
signal.pthread_sigmask(signal.SIG_BLOCK, {sig})


def count(name):
    open(os.path.join(d, "ready." + name), "w").close()
    deadline = time.monotonic() + 60
    while not os.path.exists(os.path.join(d, "go")) and time.monotonic() < deadline:
        time.sleep(0.02)
    n = 0
    while signal.sigtimedwait({sig}, 0) is not None:
        n += 1
    with open(os.path.join(d, "n." + name), "w") as f:
        f.write("%d\n" % n)


kids = []
for name, own_group in (("child", False), ("other", True)):
    pid = os.fork()
    if pid == 0:
        if own_group:
            os.setpgid(0, 0)
        count(name)
        os._exit(0)
    kids.append(pid)
count("main")
for pid in kids:
    os.waitpid(pid, 0)
