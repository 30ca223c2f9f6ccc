"""Issue #20, Dask: a local cluster (scheduler + 2 worker processes on 127.0.0.1, 2 sandbox
slots each) runs the 24 tool calls of fleet_calls.py through sandcap.dask; the verdicts
come back exactly, no worker dies or is paused, nothing of any sandbox is left behind."""

from __future__ import annotations

import os
import time
import uuid

import pytest

import fleet_calls

distributed = pytest.importorskip(
    "distributed", reason="python3-distributed is not installed (make deps)")

import sandcap.dask  # noqa: E402


@pytest.fixture(scope="module")
def cluster(tmp_path_factory, sandcap_bin):
    os.environ["SANDCAP"] = sandcap_bin  # the workers' sandcap.run finds it there
    d = tmp_path_factory.mktemp("dask")
    lc = distributed.LocalCluster(
        n_workers=2, threads_per_worker=2, processes=True, host="127.0.0.1",
        dashboard_address=None, local_directory=str(d),
        resources=sandcap.dask.worker_resources(2))
    client = distributed.Client(lc)
    try:
        yield lc, client
    finally:
        client.close()
        lc.close()


def worker_state(client):
    info = client.scheduler_info()["workers"]
    pids = client.run(os.getpid)
    return {a: (pids[a], w.get("status", "running")) for a, w in info.items()}


def test_two_workers_with_two_slots(cluster):
    _, client = cluster
    info = client.scheduler_info()["workers"]
    assert len(info) == 2
    assert all(w["resources"] == {"sandcap": 2} for w in info.values())


def test_24_tool_calls(cluster, mode):
    lc, client = cluster
    before = worker_state(client)
    assert all(st == "running" for _, st in before.values()), before
    mark = f"sandcap-accept-dask-{uuid.uuid4().hex}"
    port = int(lc.scheduler_address.rsplit(":", 1)[1])
    calls = fleet_calls.calls(mark, port, mode)

    t0 = time.monotonic()
    futures = [sandcap.dask.submit(client, argv, **opts) for _, argv, opts in calls]
    # The hang guard (below) must also hold when a call never comes back: gather alone
    # would wait for ever.  Raises TimeoutError.
    distributed.wait(futures, timeout=fleet_calls.GUARD)
    results = client.gather(futures, errors="raise")
    took = time.monotonic() - t0
    print(f"\n24 tool calls: {took:.1f} s")

    reports = [r.report for r in results]
    print(fleet_calls.summary([k for k, _, _ in calls], reports))
    fleet_calls.check([k for k, _, _ in calls], reports, mode)
    # A hang guard, not a speed target (those live in make bench); issue #20 asks for 60 s.
    print(f"the 24 calls took {took:.1f}s")
    assert took < fleet_calls.GUARD, f"the 24 calls took {took:.1f}s: something hangs"
    # Each call ran in a sandbox of its own on one of the two workers, 2 at a time at most
    # per worker (the resource), and every worker process is the one it was.
    assert len({r["id"] for r in reports}) == 24
    after = worker_state(client)
    assert after == before, (before, after)
    assert fleet_calls.leftovers(reports, mark) == []


def test_refusal_comes_back_as_sandcap_error(cluster):
    _, client = cluster
    f = sandcap.dask.submit(client, ["/nonexistent/sandcap-accept-tool"])
    with pytest.raises(sandcap.SandcapError) as ei:
        f.result()
    assert ei.value.returncode == 127
    assert ei.value.report is not None and ei.value.report["verdict"] == "setup-error"
