"""sandcap-mcp against malformed JSON-RPC: a request whose params or id has the wrong type,
a line that is not UTF-8, a batch.  Each gets an error answer (or none, for an id that
cannot be answered) and the server goes on serving; none may end the session."""

from __future__ import annotations

import json

from test_mcp import Client, _sessions


def _raw(c: Client, data: bytes):
    c.p.stdin.write(data + b"\n")
    c.p.stdin.flush()
    line = c.p.stdout.readline()
    assert line, c.p.stderr.read().decode()
    return json.loads(line)


def _alive(c: Client) -> None:
    r = c.call("run", argv=["echo", "still"])
    assert r["structuredContent"]["stdout"] == "still\n", r


def test_wrong_params_and_ids(sandcap_bin, rundir):
    c = Client(sandcap_bin, rundir, "--ttl", "5m", "--timeout", "20s")
    try:
        c.initialize()
        for method in ("initialize", "resources/read", "tools/call", "ping"):
            for params in ([1], "x", 3):
                msg = _raw(c, json.dumps({"jsonrpc": "2.0", "id": 7, "method": method,
                                          "params": params}).encode())
                assert msg["id"] == 7 and msg["error"]["code"] == -32602, (method, msg)
        # An id that is neither a string, a number nor null is an invalid request.
        for mid in ([1], {"a": 1}):
            msg = _raw(c, json.dumps({"jsonrpc": "2.0", "id": mid, "method": "tools/call",
                                      "params": {"name": "list_dir", "arguments": {}}}).encode())
            assert msg["id"] is None and msg["error"]["code"] == -32600, msg
        c.send({"jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": [1]}})
        msg = _raw(c, json.dumps({"jsonrpc": "2.0", "id": 8, "method": "tools/call",
                                  "params": {"name": ["run"], "arguments": {}}}).encode())
        assert msg["id"] == 8 and msg["error"]["code"] == -32602, msg
        msg = _raw(c, json.dumps([{"jsonrpc": "2.0", "id": 1, "method": "ping"}]).encode())
        assert msg["error"]["code"] == -32600
        msg = _raw(c, b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "x": "\xff\xfe"}')
        assert msg["id"] is None and msg["error"]["code"] == -32700, msg
        _alive(c)
    finally:
        assert c.close() == 0
    assert _sessions(rundir) == []


def test_read_file_bounded(sandcap_bin, rundir):
    c = Client(sandcap_bin, rundir, "--ttl", "5m", "--timeout", "20s")
    try:
        c.initialize()
        c.call("run", argv=["truncate", "-s", "20M", "big"])
        r = c.call("read_file", path="big", max_bytes=1 << 30)
        assert r["isError"] is True and "max_bytes" in r["content"][0]["text"], \
            r["content"][0]["text"][:200]
        r = c.call("read_file", path="big", max_bytes=16)
        assert r["isError"] is False and r["structuredContent"]["truncated"] is True
        _alive(c)
    finally:
        assert c.close() == 0
