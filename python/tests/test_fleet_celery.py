"""Issue #20, Celery: 2 workers (prefork, concurrency 2 = sandbox slots) on a broker that
needs no daemon (kombu's filesystem transport; examples/celery/sandcap_tasks.py) run the 24
tool calls of fleet_calls.py; the verdicts come back exactly, no worker process dies,
nothing is left behind; and a task killed by Celery's own time_limit leaves nothing of its
sandbox 2 s later."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import uuid

import pytest

import fleet_calls

celery = pytest.importorskip("celery", reason="python3-celery is not installed (make deps)")
pytest.importorskip("kombu.transport.filesystem", reason="kombu's filesystem transport")

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(os.path.dirname(HERE), "src")
EXAMPLE = os.path.join(os.path.dirname(os.path.dirname(HERE)), "examples", "celery")


def children(pid: int):
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat", "rb") as f:
                    if int(f.read().rsplit(b")", 1)[1].split()[1]) == pid:
                        out.append(int(d))
            except OSError:
                pass
    return sorted(out)


def wait_until(cond, what, deadline=60.0):
    end = time.monotonic() + deadline
    while not cond():
        if time.monotonic() > end:
            pytest.fail(f"gave up waiting for: {what}")
        time.sleep(0.1)


@pytest.fixture(scope="module")
def workers(tmp_path_factory, sandcap_bin):
    d = tmp_path_factory.mktemp("celery")
    env = dict(os.environ, SANDCAP=sandcap_bin, SANDCAP_CELERY_DIR=str(d), SANDCAP_SLOTS="2",
               PYTHONPATH=os.pathsep.join([EXAMPLE, SRC]))
    os.environ.update(SANDCAP_CELERY_DIR=str(d), SANDCAP_SLOTS="2")
    sys.path[:0] = [EXAMPLE]
    import sandcap_tasks  # noqa: E402  (the client side of the same app)

    procs = []
    for n in ("w1", "w2"):
        log = open(d / f"{n}.log", "wb")
        procs.append(subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "sandcap_tasks", "worker", "-n",
             f"{n}@127.0.0.1", "--pool", "prefork", "--without-gossip", "--without-mingle",
             "--without-heartbeat", "-l", "info"],
            cwd=str(d), env=env, stdout=log, stderr=subprocess.STDOUT))
    try:
        # Up when each worker has its 2 pool processes.
        wait_until(lambda: all(len(children(p.pid)) >= 2 or p.poll() is not None
                               for p in procs), "2 pool processes per worker",
                   deadline=fleet_calls.GUARD)
        for p in procs:
            assert p.poll() is None, (d / "w1.log").read_text() + (d / "w2.log").read_text()
        yield sandcap_tasks, procs, d
    finally:
        for p in procs:
            p.send_signal(signal.SIGTERM)
        for p in procs:
            try:
                p.wait(30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        sys.path.remove(EXAMPLE)


def pool(procs):
    return {p.pid: children(p.pid) for p in procs}


def test_24_tool_calls(workers, mode):
    tasks, procs, d = workers
    before = pool(procs)
    assert all(len(c) == 2 for c in before.values()), before
    # The filesystem broker has no port of its own: the "engine's port" the network call
    # aims at is a listener of ours on 127.0.0.1.
    lsn = socket.socket()
    lsn.bind(("127.0.0.1", 0))
    lsn.listen(8)
    port = lsn.getsockname()[1]
    mark = f"sandcap-accept-celery-{uuid.uuid4().hex}"
    calls = fleet_calls.calls(mark, port, mode)
    try:
        t0 = time.monotonic()
        pending = [tasks.tool_call.delay(argv, opts) for _, argv, opts in calls]
        end = t0 + fleet_calls.GUARD
        results = [p.get(timeout=max(1.0, end - time.monotonic())) for p in pending]
        took = time.monotonic() - t0
        print(f"\n24 tool calls: {took:.1f} s")
    finally:
        lsn.close()
    assert all("error" not in r for r in results), results
    reports = [r["report"] for r in results]
    print(fleet_calls.summary([k for k, _, _ in calls], reports))
    fleet_calls.check([k for k, _, _ in calls], reports, mode)
    # A hang guard, not a speed target (those live in make bench); issue #20 asks for 60 s.
    print(f"the 24 calls took {took:.1f}s")
    assert took < fleet_calls.GUARD, f"the 24 calls took {took:.1f}s: something hangs"
    assert len({r["id"] for r in reports}) == 24
    assert all(p.poll() is None for p in procs)
    assert pool(procs) == before  # no pool process died or was replaced
    assert fleet_calls.leftovers(reports, mark) == []


# Before the time-limit test: a pool process that Celery killed is replaced, and a task sent
# right then was seen to wait past its timeout once (kombu 5.2 filesystem transport).
def test_refusal_returns_the_setup_error_report(workers):
    tasks, _, _ = workers
    r = tasks.tool_call.delay(["/nonexistent/sandcap-accept-tool"], {}).get(timeout=120)
    assert r["report"]["verdict"] == "setup-error" and r["report"]["sandcap_exit"] == 127
    assert "error" in r


def test_time_limit_kills_the_sandbox(workers, mode):
    tasks, procs, d = workers
    mark = f"sandcap-accept-celery-limit-{uuid.uuid4().hex}"
    res = tasks.tool_call_limited.delay(
        [sys.executable, "-c", "import time; time.sleep(300)", mark], {})
    # The command must be up before Celery's limit fires, or this proves nothing: the
    # limit is 3 s, longer where a sandbox takes seconds to start (the VM sets it).
    limit = float(os.environ.get("SANDCAP_CELERY_TIME_LIMIT", "3"))
    wait_until(lambda: fleet_calls.procs_with(mark), "the sandboxed command to start",
               deadline=limit)
    with pytest.raises(Exception) as ei:
        res.get(timeout=limit + 120)
    assert "TimeLimitExceeded" in type(ei.value).__name__ + repr(ei.value)
    # Celery killed the pool process; sandcap died with it (PDEATHSIG) and its command with
    # sandcap: 2 s is issue #20's bound, not a timing target.
    # In cgroup mode the helper, left without its client, also removes the leaf and the
    # workspace mount (this user runs no other sandbox now, so any leaf or mount of the
    # user's is this one's).
    ws = os.path.join(os.environ.get("SANDCAP_TEST_WORKSPACE_ROOT", "/run/sandcap"),
                      str(os.getuid()))

    def remains():
        left = [f"process {p}" for p in fleet_calls.procs_with(mark)]
        if mode == "cgroup":
            left += [f"leaf {x}" for x in fleet_calls.leaves()]
            left += [f"mount {m}" for m in fleet_calls.mounts_under(ws)]
        return left

    end = time.monotonic() + 2
    left = remains()
    while left and time.monotonic() < end:
        time.sleep(0.05)
        left = remains()  # each look begins before the deadline
    assert left == []
    assert all(p.poll() is None for p in procs)  # the workers themselves live on
