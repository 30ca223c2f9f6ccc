"""sandcap-mcp --rw DIR: every call may write DIR (the session's --rw, under --fs ro), and the
file tools reach it by absolute path, walked from an fd opened at start one component at a
time with no link followed.  From the attacker's side: links a call plants in DIR, '..',
a sibling whose name begins like DIR, a hard link to a file outside, a directory on the
way renamed and replaced by a link after the server started."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from test_mcp import SRC, Client, _sessions


@pytest.fixture
def landlock(sandcap_bin):
    p = subprocess.run([sandcap_bin, "run", "-q", "--no-cgroup", "--fs", "ro", "--", "true"],
                       stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
    if p.returncode != 0:
        pytest.skip("--fs ro (which --rw needs): this kernel has no usable Landlock: "
                    + p.stderr.decode("utf-8", "replace").strip())


def _refused(c: Client, tool: str, **args) -> str:
    r = c.call(tool, **args)
    assert r["isError"] is True, (tool, args, r)
    return r["content"][0]["text"]


def test_rw_reached_by_calls_and_file_tools(sandcap_bin, rundir, tmp_path, landlock):
    shared, outside = tmp_path / "shared", tmp_path / "outside"
    (shared / "sub").mkdir(parents=True)
    outside.mkdir()
    secret = outside / "secret"
    secret.write_text("no")
    sibling = tmp_path / "shared2"  # begins like shared: not inside it
    sibling.mkdir()
    c = Client(sandcap_bin, rundir, "--ttl", "5m", "--timeout", "20s", "--fs", "ro",
               "--rw", str(shared), "--rw", str(shared / "sub"))
    try:
        init = c.initialize()
        assert str(shared) in init["instructions"]
        # Written by a call (its --rw), read by the tool; written by the tool, read by a call.
        r = c.call("run", shell=f"echo from-call > {shared}/a; echo x > {outside}/b")
        assert "Permission denied" in r["structuredContent"]["stderr"]
        assert not (outside / "b").exists()
        assert c.call("read_file", path=f"{shared}/a")["content"][0]["text"] == "from-call\n"
        assert c.call("write_file", path=f"{shared}/d/t.txt", content="tool")["isError"] is False
        assert c.call("run", shell=f"cat {shared}/d/t.txt")["structuredContent"]["stdout"] == \
            "tool"
        names = {e["name"] for e in c.call("list_dir", path=str(shared))["structuredContent"][
            "entries"]}
        assert {"a", "d", "sub"} <= names
        r = c.call("run", shell="pwd", cwd=f"{shared}/d")
        assert r["structuredContent"]["stdout"] == f"{shared}/d\n"
        # The workspace is still where relative paths go.
        assert c.call("write_file", path="w.txt", content="ws")["isError"] is False
        assert not (shared / "w.txt").exists()

        # Outside: a sibling named like it, '..', the parent, a file elsewhere.
        for path in (f"{sibling}/x", f"{shared}/../outside/secret", str(tmp_path / "x"),
                     str(secret), f"{shared}/d/../../outside/secret"):
            assert "outside" in _refused(c, "read_file", path=path) or ".." in path
            _refused(c, "write_file", path=path, content="x")
        _refused(c, "list_dir", path=str(tmp_path))
        assert not (sibling / "x").exists() and not (tmp_path / "x").exists()

        # Links a call plants in the --rw directory are never followed.
        c.call("run", shell=f"ln -s {outside} {shared}/esc; ln -s {secret} {shared}/f")
        for path in (f"{shared}/esc/secret", f"{shared}/f"):
            _refused(c, "read_file", path=path)
            _refused(c, "write_file", path=path, content="x")
        _refused(c, "write_file", path=f"{shared}/esc/new", content="x")
        _refused(c, "list_dir", path=f"{shared}/esc")
        # A hard link to a file outside (made where no Landlock stood in the way).
        os.link(secret, shared / "hard")
        assert "hard links" in _refused(c, "read_file", path=f"{shared}/hard")
        _refused(c, "write_file", path=f"{shared}/hard", content="x")
        assert secret.read_text() == "no" and not (outside / "new").exists()

        # A call moves the nested --rw directory away and puts a link to outside in its
        # place: the tools still write into the directory they opened at start.
        c.call("run", shell=f"mv {shared}/sub {shared}/sub.old && ln -s {outside} {shared}/sub")
        assert os.path.islink(shared / "sub")
        assert c.call("write_file", path=f"{shared}/sub/moved", content="m")["isError"] is False
        assert not (outside / "moved").exists()
        assert (shared / "sub.old" / "moved").read_text() == "m"
    finally:
        assert c.close() == 0
    assert _sessions(rundir) == []


def test_rw_refused_without_fs_or_missing(sandcap_bin, rundir, tmp_path):
    env = dict(os.environ, SANDCAP=sandcap_bin, XDG_RUNTIME_DIR=rundir, PYTHONPATH=SRC)
    for args, why in ((["--rw", str(tmp_path)], "add --fs ro or --fs strict"),
                      (["--fs", "ro", "--rw", str(tmp_path / "missing")],
                       "No such file or directory")):
        p = subprocess.run([sys.executable, "-m", "sandcap.mcp", *args], env=env,
                           stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
        assert p.returncode == 125, p
        assert why in p.stderr.decode(), p.stderr
    assert _sessions(rundir) == []
