"""The Dask and Celery helpers for tasks that make several calls: each task's calls run in one
sandcap.Session on the worker (one workspace kept across them, one CPU-time budget, one
report), the session ends with the task, also when the task raises, and nothing of it is
left.  Dask runs on a local in-process cluster, Celery eagerly (task.apply): what is tested
is the helpers, the engines' own scheduling is test_fleet_dask.py's and
test_fleet_celery.py's."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(autouse=True)
def xdg(rundir, monkeypatch, sandcap_bin):
    monkeypatch.setenv("XDG_RUNTIME_DIR", rundir)
    monkeypatch.setenv("SANDCAP", sandcap_bin)


def _sessions(rundir: str):
    d = os.path.join(rundir, "sandcap", "sessions")
    return os.listdir(d) if os.path.isdir(d) else []


def build(session, word):
    """A task of two calls: the second reads what the first left in the workspace."""
    session.run(["sh", "-c", f"echo {word} > made"])
    return session.run(["cat", "made"]).stdout_text.strip()


def fails(session):
    session.run(["sh", "-c", "echo half > done"])
    raise RuntimeError("the task failed")


def ttl_of(session):
    return session.info["ttl_ms"]


SPIN = ["sh", "-c", "while :; do :; done"]


# --- Dask
@pytest.fixture(scope="module")
def client():
    distributed = pytest.importorskip(
        "distributed", reason="python3-distributed is not installed (make deps)")
    import sandcap.dask

    lc = distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None,
                                  resources=sandcap.dask.worker_resources(2))
    c = distributed.Client(lc)
    try:
        yield c
    finally:
        c.close()
        lc.close()


def test_dask_session_task(client, rundir):
    import sandcap.dask

    out = sandcap.dask.submit_session(client, build, "kept",
                                      session={"ttl": "5m", "timeout": "30s"}).result(120)
    assert out["value"] == "kept"
    assert out["report"]["ended"] == "end" and out["report"]["totals"]["calls"] == 2
    assert _sessions(rundir) == []


def test_dask_session_ends_when_the_task_raises(client, rundir):
    import sandcap.dask

    f = sandcap.dask.submit_session(client, fails, session={"ttl": "5m"})
    with pytest.raises(RuntimeError, match="the task failed"):
        f.result(120)
    assert _sessions(rundir) == []


def test_dask_calls_share_one_budget(client, rundir):
    import sandcap.dask

    out = sandcap.dask.submit_calls(client, [SPIN] * 5, session={"cpu_time": "1s",
                                                                 "timeout": "60s"}).result(300)
    assert out["results"] and all(r.verdict == "cpu-time" for r in out["results"])
    assert out["refused"] is not None and "CPU-time budget of 1s is spent" in out["refused"]
    assert out["report"]["totals"]["cpu_ms"] >= 900
    assert _sessions(rundir) == []


# --- Celery
@pytest.fixture(scope="module")
def app():
    celery = pytest.importorskip("celery", reason="python3-celery is not installed (make deps)")
    a = celery.Celery("sandcap-session-test")
    a.conf.task_always_eager = True
    a.conf.task_eager_propagates = True
    return a


def test_celery_session_calls(app, rundir):
    import sandcap.celery

    calls = sandcap.celery.register_session_calls(app, session={"ttl": "5m"}, time_limit=120)
    out = calls.apply(args=([["sh", "-c", "echo a > f"], ["cat", "f"]],),
                      kwargs={"options": {"timeout": 30}}).get()
    assert [r["report"]["verdict"] for r in out["results"]] == ["ok", "ok"]
    assert out["results"][1]["stdout"] == "a\n"
    assert out["refused"] is None and out["report"]["totals"]["calls"] == 2
    out = calls.apply(args=([SPIN] * 5, {"cpu_time": "1s", "timeout": "60s"})).get()
    assert out["refused"] is not None
    assert "CPU-time budget of 1s is spent" in out["refused"]["error"]
    assert _sessions(rundir) == []


def test_celery_session_task_decorator(app, rundir):
    import sandcap.celery

    task = sandcap.celery.session_task(app, session={"timeout": "30s"}, time_limit=300)(build)
    out = task.apply(args=("celery",)).get()
    assert out["value"] == "celery" and out["report"]["totals"]["calls"] == 2
    # The session's TTL is the task's time_limit.
    ttl = sandcap.celery.session_task(app, name="t.ttl", time_limit=300)(ttl_of)
    assert ttl.apply().get()["value"] == 300000
    failing = sandcap.celery.session_task(app, name="t.fails")(fails)
    with pytest.raises(RuntimeError, match="the task failed"):
        failing.apply().get()
    assert _sessions(rundir) == []
