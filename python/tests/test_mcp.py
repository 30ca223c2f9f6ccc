"""sandcap-mcp driven by a small MCP client of our own (JSON-RPC 2.0 over stdio, one message a
line): the handshake, the tools, limits reached as tool results with isError, file tools
confined to the workspace, the report resource, and nothing left after stdin closes.  The
official TypeScript SDK drives it too (tests/mcp/, the mcp suite)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")


class Client:
    def __init__(self, sandcap_bin: str, rundir: str, *args: str) -> None:
        env = dict(os.environ, SANDCAP=sandcap_bin, XDG_RUNTIME_DIR=rundir, PYTHONPATH=SRC)
        self.p = subprocess.Popen([sys.executable, "-m", "sandcap.mcp", *args], env=env,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE)
        self.n = 0

    def send(self, obj) -> None:
        self.p.stdin.write((json.dumps(obj) + "\n").encode())
        self.p.stdin.flush()

    def request(self, method: str, params=None):
        self.n += 1
        self.send({"jsonrpc": "2.0", "id": self.n, "method": method, "params": params or {}})
        line = self.p.stdout.readline()
        assert line, self.p.stderr.read().decode()
        msg = json.loads(line)
        assert msg["id"] == self.n and msg["jsonrpc"] == "2.0"
        return msg

    def call(self, name: str, **args):
        msg = self.request("tools/call", {"name": name, "arguments": args})
        assert "result" in msg, msg
        return msg["result"]

    def initialize(self, version: str = "2025-06-18"):
        r = self.request("initialize", {"protocolVersion": version, "capabilities": {},
                                        "clientInfo": {"name": "pytest", "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return r["result"]

    def close(self) -> int:
        self.p.stdin.close()
        rc = self.p.wait(60)
        self.p.stdout.close()
        self.p.stderr.close()
        return rc


def _sessions(rundir: str):
    d = os.path.join(rundir, "sandcap", "sessions")
    return os.listdir(d) if os.path.isdir(d) else []


def test_session_through_mcp(sandcap_bin, rundir, tmp_path):
    c = Client(sandcap_bin, rundir, "--ttl", "5m", "--timeout", "20s", "--cpu-time", "30s",
               "--as", "1G", "--output-limit", "64K")
    try:
        init = c.initialize()
        assert init["protocolVersion"] == "2025-06-18"
        assert init["serverInfo"]["name"] == "sandcap-mcp"
        tools = {t["name"] for t in c.request("tools/list")["result"]["tools"]}
        assert tools == {"run", "read_file", "write_file", "list_dir"}

        r = c.call("run", argv=["sh", "-c", "echo hello; echo err >&2"])
        assert r["isError"] is False
        sc = r["structuredContent"]
        assert (sc["verdict"], sc["exit_code"], sc["stdout"], sc["stderr"]) == \
            ("ok", 0, "hello\n", "err\n")
        assert "wall_ms" in sc["usage"]

        r = c.call("run", shell="cat", stdin="from stdin")
        assert r["structuredContent"]["stdout"] == "from stdin"

        r = c.call("run", shell="sleep 30", timeout="500ms")
        assert r["isError"] is True and r["structuredContent"]["verdict"] == "timeout"

        # --as: the allocation fails in the command, which exits non-zero (rlimit mode).
        r = c.call("run", argv=[sys.executable, "-c", "b = bytearray(256 << 20)"],
                   address_space="128M")
        assert r["isError"] is True and r["structuredContent"]["verdict"] == "exit"
        assert "MemoryError" in r["structuredContent"]["stderr"]

        r = c.call("run", shell="head -c 200000 /dev/zero")
        assert r["isError"] is True and r["structuredContent"]["verdict"] == "output"
        assert len(r["structuredContent"]["stdout"]) <= 64 * 1024

        r = c.call("run", shell="true", timeout="1h")
        assert r["isError"] is True and r["structuredContent"]["verdict"] == "refused"
        assert "per-call ceiling" in r["content"][0]["text"]

        # Files: written by the tool, read by a command, and the other way round.
        assert c.call("write_file", path="d/in.txt", content="abc")["isError"] is False
        assert c.call("run", shell="cat d/in.txt; echo out > o.txt")["structuredContent"][
            "stdout"] == "abc"
        assert c.call("read_file", path="o.txt")["content"][0]["text"] == "out\n"
        names = {e["name"] for e in c.call("list_dir")["structuredContent"]["entries"]}
        assert {"d", "o.txt"} <= names

        # Confinement: '..', an absolute path outside, a symlink the sandbox planted.
        secret = tmp_path / "secret"
        secret.write_text("no")
        c.call("run", shell=f"ln -s {tmp_path} esc; ln -s {secret} f")
        for path in ("../state", str(secret), "esc/secret", "f"):
            r = c.call("read_file", path=path)
            assert r["isError"] is True, path
        for path in ("../x", "esc/new", "f"):
            assert c.call("write_file", path=path, content="x")["isError"] is True, path
        assert c.call("list_dir", path="esc")["isError"] is True
        assert secret.read_text() == "no" and not (tmp_path / "new").exists()
        # A hard link to a file outside (where the sandbox could make one, no --fs here).
        if c.call("run", shell=f"ln {secret} hard")["structuredContent"]["verdict"] == "ok":
            assert c.call("write_file", path="hard", content="x")["isError"] is True
            assert c.call("read_file", path="hard")["isError"] is True
            assert secret.read_text() == "no"

        rep = c.request("resources/read", {"uri": "sandcap://session/report"})["result"]
        doc = json.loads(rep["contents"][0]["text"])
        assert doc["totals"]["calls"] >= 6 and doc["ended"] is None

        assert c.request("no/such")["error"]["code"] == -32601
        c.send({"jsonrpc": "2.0", "id": 99, "method": "tools/call",
                "params": {"name": "nope", "arguments": {}}})
        assert json.loads(c.p.stdout.readline())["error"]["code"] == -32602
        c.p.stdin.write(b"{not json\n")
        c.p.stdin.flush()
        assert json.loads(c.p.stdout.readline())["error"]["code"] == -32700
        sid = doc["id"]
        assert _sessions(rundir) == [sid]
    finally:
        rc = c.close()
    assert rc == 0
    assert _sessions(rundir) == []


def test_budget_and_version(sandcap_bin, rundir):
    c = Client(sandcap_bin, rundir, "--ttl", "5m", "--cpu-time", "1s")
    try:
        assert c.initialize("1999-01-01")["protocolVersion"] == "2025-06-18"
        seen = []
        for _ in range(5):
            r = c.call("run", shell="while :; do :; done", timeout="60s")
            seen.append(r["structuredContent"]["verdict"])
            if seen[-1] == "refused":
                assert "budget" in r["content"][0]["text"]
                break
        assert seen[0] == "cpu-time" and seen[-1] == "refused"
    finally:
        assert c.close() == 0
    assert _sessions(rundir) == []


def test_refused_start(sandcap_bin, rundir):
    c = Client(sandcap_bin, rundir, "--memory", "1G")
    rc = c.p.wait(60)
    err = c.p.stderr.read().decode()
    c.close()
    assert rc == 125 and "--memory" in err
    assert _sessions(rundir) == []


def test_stdin_closed_while_a_call_runs(sandcap_bin, rundir):
    c = Client(sandcap_bin, rundir, "--ttl", "5m")
    c.initialize()
    c.send({"jsonrpc": "2.0", "id": 50, "method": "tools/call",
            "params": {"name": "run", "arguments": {"shell": "touch started; exec sleep 987.654"}}})
    ws = c.request("resources/read", {"uri": "sandcap://session/report"})
    ws = json.loads(ws["result"]["contents"][0]["text"])["workspace"]
    for _ in range(300):
        if os.path.exists(os.path.join(ws, "started")):
            break
        time.sleep(0.1)
    assert c.close() == 0
    assert _sessions(rundir) == []
    assert subprocess.run(["pgrep", "-f", "sleep 987.654"], stdout=subprocess.DEVNULL).returncode != 0


def test_ttl_ends_the_session(sandcap_bin, rundir):
    """At the TTL the keeper ends the session: later calls are refused as tool results, and
    the server still answers and exits cleanly."""
    c = Client(sandcap_bin, rundir, "--ttl", "3s")
    try:
        c.initialize()
        assert c.call("run", shell="true")["isError"] is False
        for _ in range(300):
            if not _sessions(rundir):
                break
            time.sleep(0.1)
        assert _sessions(rundir) == []
        r = c.call("run", shell="true")
        assert r["isError"] is True and r["structuredContent"]["verdict"] == "refused"
        assert "no session" in r["content"][0]["text"]
    finally:
        assert c.close() == 0


def test_profile_and_cwd(sandcap_bin, rundir, tmp_path, monkeypatch):
    """--profile takes the session's limits from a sandcap profile (and refuses one with an
    option a session does not take); cwd is a directory of the workspace."""
    (tmp_path / "p.ini").write_text("[agent]\ntimeout = 20s\ncpu-time = 60s\n\n"
                                    "[bad]\nenv-clear = yes\n")
    monkeypatch.setenv("SANDCAP_PROFILES_DIR", str(tmp_path))
    c = Client(sandcap_bin, rundir, "--profile", "agent")
    try:
        c.initialize()
        rep = c.request("resources/read", {"uri": "sandcap://session/report"})["result"]
        limits = json.loads(rep["contents"][0]["text"])["limits"]
        assert (limits["timeout_ms"], limits["cpu_budget_ms"]) == (20000, 60000)
        c.call("write_file", path="sub/f", content="x")
        r = c.call("run", shell="pwd; cat f", cwd="sub")
        assert r["structuredContent"]["stdout"].endswith("/workspace/sub\nx")
        assert c.call("run", shell="true", cwd="../..")["isError"] is True
    finally:
        assert c.close() == 0
    c = Client(sandcap_bin, rundir, "--profile", "bad")
    rc = c.p.wait(60)
    err = c.p.stderr.read().decode()
    c.close()
    assert rc == 125 and "--env-clear is not a session option" in err
    assert _sessions(rundir) == []


def test_cancelled_call_ends(sandcap_bin, rundir):
    """notifications/cancelled ends the call's sandbox (verdict killed in the report) and
    gets no answer; the next request is answered as usual."""
    c = Client(sandcap_bin, rundir, "--ttl", "5m")
    try:
        c.initialize()
        c.send({"jsonrpc": "2.0", "id": 70, "method": "tools/call",
                "params": {"name": "run", "arguments": {"shell": "touch go; exec sleep 987.321"}}})
        ws = json.loads(c.request("resources/read", {"uri": "sandcap://session/report"})[
            "result"]["contents"][0]["text"])["workspace"]
        for _ in range(300):
            if os.path.exists(os.path.join(ws, "go")):
                break
            time.sleep(0.1)
        c.send({"jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": 70, "reason": "test"}})
        for _ in range(300):
            doc = json.loads(c.request("resources/read", {"uri": "sandcap://session/report"})[
                "result"]["contents"][0]["text"])
            if doc["calls"]:
                break
            time.sleep(0.1)
        assert doc["calls"][0]["verdict"] == "killed"
        assert c.call("run", shell="echo next")["structuredContent"]["stdout"] == "next\n"
    finally:
        assert c.close() == 0
    assert subprocess.run(["pgrep", "-f", "sleep 987.321"], stdout=subprocess.DEVNULL).returncode != 0
