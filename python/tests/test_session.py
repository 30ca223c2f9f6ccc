"""sandcap.Session against the built sandcap (rlimit mode): calls in one workspace, the same
Result as sandcap.run, ceilings and the CPU-time budget refused as SandcapError, the report,
and nothing left once the session ends."""

from __future__ import annotations

import asyncio
import os

import pytest

import sandcap


@pytest.fixture(autouse=True)
def xdg(rundir, monkeypatch):
    monkeypatch.setenv("XDG_RUNTIME_DIR", rundir)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/status") as f:
            return not any(line.startswith("State:") and "Z" in line.split()[1:2] for line in f)
    except FileNotFoundError:
        return False


def test_calls_share_the_workspace(sandcap_bin, rundir):
    with sandcap.Session(ttl=120, timeout=30, name="py", sandcap=sandcap_bin) as s:
        r = s.run(["sh", "-c", "pwd; echo 42 > answer"])
        assert isinstance(r, sandcap.Result) and r.verdict == "ok"
        assert r.stdout_text.strip() == s.workspace
        r = s.run(["cat", "answer"])
        assert r.stdout == b"42\n"
        r = s.run(["sh", "-c", "exit 3"])
        assert r.verdict == "exit" and r.exit_code == 3
        rep = s.report()
        assert rep["ended"] is None and rep["totals"]["calls"] == 3
        assert os.path.isdir(s.workspace)
    final = s.report()
    assert final["ended"] == "end"
    assert [c["verdict"] for c in final["calls"]] == ["ok", "ok", "exit"]
    assert not os.path.exists(s.workspace)
    assert not os.listdir(os.path.join(rundir, "sandcap", "sessions"))
    assert not _alive(s.keeper_pid) or _wait_gone(s.keeper_pid)


def _wait_gone(pid: int) -> bool:
    import time
    for _ in range(100):
        if not _alive(pid):
            return True
        time.sleep(0.05)
    return False


def test_limits_reached_are_verdicts(sandcap_bin, rundir):
    with sandcap.Session(ttl=120, timeout=30, sandcap=sandcap_bin) as s:
        r = s.run(["sleep", "30"], timeout=0.5)
        assert r.verdict == "timeout"
        with pytest.raises(sandcap.SandcapError) as e:
            s.run(["true"], timeout=60)
        assert "per-call ceiling of 30s" in str(e.value)


def test_budget_spent_across_calls(sandcap_bin, rundir):
    with sandcap.Session(ttl=120, cpu_time=1, sandcap=sandcap_bin) as s:
        refused = None
        for _ in range(5):
            try:
                r = s.run(["sh", "-c", "while :; do :; done"], timeout=60)
            except sandcap.SandcapError as e:
                refused = e
                break
            assert r.verdict == "cpu-time"
        assert refused is not None and "CPU-time budget of 1s is spent" in str(refused)
        assert s.report()["totals"]["cpu_left_ms"] == 0


def test_run_async(sandcap_bin, rundir):
    async def go(s):
        return await asyncio.gather(s.run_async(["echo", "a"]), s.run_async(["echo", "b"]))

    with sandcap.Session(ttl=120, sandcap=sandcap_bin) as s:
        a, b = asyncio.run(go(s))
        assert (a.stdout, b.stdout) == (b"a\n", b"b\n")
        assert s.report()["totals"]["calls"] == 2


def test_refused_at_start(sandcap_bin, rundir):
    with pytest.raises(sandcap.SandcapError) as e:
        sandcap.Session(memory="1G", sandcap=sandcap_bin)
    assert "--memory" in str(e.value) and e.value.returncode == 125
    assert not os.path.exists(os.path.join(rundir, "sandcap", "sessions")) or \
        not os.listdir(os.path.join(rundir, "sandcap", "sessions"))


def test_ended_session_refuses_calls(sandcap_bin, rundir):
    s = sandcap.Session(ttl=120, sandcap=sandcap_bin)
    assert s.end()["ended"] == "end"
    assert s.end() is s.report()                 # idempotent
    with pytest.raises(sandcap.SandcapError):
        s.run(["true"])


def test_rw_paths_for_every_call(sandcap_bin, rundir, tmp_path):
    """rw= is the session's --rw: with fs="ro" every call may write there, nowhere else."""
    try:
        sandcap.run(["true"], fs="ro", no_cgroup=True, sandcap=sandcap_bin)
    except sandcap.SandcapError as e:
        pytest.skip(f"--fs ro: this kernel has no usable Landlock ({e})")
    shared, other = tmp_path / "shared", tmp_path / "other"
    shared.mkdir()
    other.mkdir()
    with sandcap.Session(ttl=120, fs="ro", rw=[shared], sandcap=sandcap_bin) as s:
        assert s.rw == [str(shared)]
        s.run(["sh", "-c", f"echo a > {shared}/f; echo b > {other}/g"])
        assert (shared / "f").read_text() == "a\n" and not (other / "g").exists()
    with pytest.raises(TypeError):
        sandcap.Session(rw=str(shared), sandcap=sandcap_bin)
