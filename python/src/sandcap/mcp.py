"""sandcap-mcp: an MCP server over stdio that runs an agent's tool calls in one sandcap session.

::

    sandcap-mcp [--ttl 1h] [--cpu-time 10m] [--timeout 60s] [--as 1G] [--fs ro] [--rw DIR]...
                [--net none]
                [--profile NAME] [--output-limit 1M] [--name NAME] [--no-cgroup]

It starts one session (``sandcap session start``) with the limits given, then speaks the
Model Context Protocol (JSON-RPC 2.0, one message per line, revision 2025-06-18 negotiated
at ``initialize``) on stdin/stdout.  Tools: ``run`` (argv or a ``shell`` line, each call a
``sandcap run --session``), ``read_file``, ``write_file`` and ``list_dir`` (confined to the
session's workspace and its ``--rw`` directories); the session's report is the resource
``sandcap://session/report``.
A limit reached is a tool result with ``isError`` and the verdict, never a protocol error.
The session ends when stdin closes (or on SIGTERM/SIGINT); at its TTL its keeper ends it.
Standard library only.  docs/usage.md "The MCP server" shows the clients' setup.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import signal
import subprocess
import sys
import threading
from typing import Any, Dict, List, Optional

from . import __version__, _workspace
from ._result import Result, SandcapError
from ._session import Session

PROTOCOL = "2025-06-18"
SUPPORTED = (PROTOCOL, "2025-03-26", "2024-11-05")
REPORT_URI = "sandcap://session/report"
LINE_MAX = 64 << 20  # bytes of one message at most (write_file's content is in it)
# The options of `sandcap session start` a profile may give (`sandcap profile show NAME`).
PROFILE_OPTIONS = {"--timeout": "timeout", "--cpu-time": "cpu_time", "--as": "address_space",
                   "--fs": "fs", "--net": "net", "--memory": "memory", "--pids": "pids",
                   "--cpu": "cpu", "--disk": "disk"}

_LIMITS = {
    "timeout": {"type": "string", "description": "wall-clock limit of this call, e.g. '30s' "
                "(at most the session's)"},
    "cpu_time": {"type": "string", "description": "CPU-time limit of this call, e.g. '10s' "
                 "(capped by what is left of the session's budget)"},
    "address_space": {"type": "string", "description": "address-space limit of each process, "
                      "e.g. '512M' (at most the session's)"},
}

TOOLS: List[Dict[str, Any]] = [
    {
        "name": "run",
        "title": "Run a command in the sandbox",
        "description": "Run a command in the sandcap session: in its workspace (kept across "
                       "calls), under the session's limits. Give argv (an array) or shell (a "
                       "line for /bin/sh -c). A limit reached is a result with isError and "
                       "the verdict (timeout, cpu-time, output, ...).",
        "inputSchema": {
            "type": "object",
            "properties": {
                "argv": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                "shell": {"type": "string"},
                "stdin": {"type": "string", "description": "text given on stdin"},
                "cwd": {"type": "string", "description": "a directory of the workspace "
                        "(relative) or of a --rw directory (absolute)"},
                **_LIMITS,
            },
        },
        "outputSchema": {
            "type": "object",
            "properties": {
                "verdict": {"type": "string"}, "exit_code": {"type": ["integer", "null"]},
                "signal": {"type": ["integer", "null"]}, "message": {"type": "string"},
                "stdout": {"type": "string"}, "stderr": {"type": "string"},
                "limits_hit": {"type": "array", "items": {"type": "string"}},
                "usage": {"type": "object"}, "sandbox_id": {"type": ["string", "null"]},
            },
            "required": ["verdict", "exit_code", "stdout", "stderr", "usage"],
        },
    },
    {
        "name": "read_file",
        "title": "Read a file of the workspace",
        "description": "Read a text file of the session's workspace (a path relative to it) "
                       "or of one of its --rw directories (an absolute path in it); no '..', "
                       "no symbolic links, no file with several hard links.",
        "inputSchema": {"type": "object", "required": ["path"], "properties": {
            "path": {"type": "string"},
            "max_bytes": {"type": "integer", "minimum": 0,
                          "maximum": _workspace.READ_LIMIT}}},
    },
    {
        "name": "write_file",
        "title": "Write a file of the workspace",
        "description": "Write (or append to) a text file of the session's workspace (a "
                       "relative path) or of one of its --rw directories (an absolute path), "
                       "making its directories; no '..', no symbolic links, no file with "
                       "several hard links.",
        "inputSchema": {"type": "object", "required": ["path", "content"], "properties": {
            "path": {"type": "string"}, "content": {"type": "string"},
            "append": {"type": "boolean"}}},
    },
    {
        "name": "list_dir",
        "title": "List a directory of the workspace",
        "description": "List a directory of the session's workspace (default: its top) or "
                       "of one of its --rw directories (an absolute path).",
        "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}},
    },
]


def _valid_id(mid: Any) -> bool:
    return mid is None or (isinstance(mid, (str, int, float)) and not isinstance(mid, bool))


class Server:
    def __init__(self, session: Session, output_limit: str) -> None:
        self.session = session
        self.output_limit = output_limit
        # Opened before any call ran (a call could later rename a directory on the way).
        self.roots = _workspace.Roots(session.workspace, session.rw)
        self.out_lock = threading.Lock()
        self.threads: List[threading.Thread] = []
        # Requests being served: id -> the sandcap process of its call (None until it
        # starts); a cancelled id is dropped, and its call ended.
        self.calls: Dict[Any, Optional[subprocess.Popen]] = {}
        self.calls_lock = threading.Lock()

    # --- transport
    def send(self, msg: Dict[str, Any]) -> None:
        line = json.dumps(msg, separators=(",", ":"))
        with self.out_lock:
            try:
                sys.stdout.write(line + "\n")
                sys.stdout.flush()
            except (BrokenPipeError, ValueError):
                pass  # the client is gone: the session ends all the same

    def reply(self, mid: Any, result: Dict[str, Any]) -> None:
        self.send({"jsonrpc": "2.0", "id": mid, "result": result})

    def cancel(self, params: Dict[str, Any]) -> None:
        """notifications/cancelled: SIGTERM to the call's sandcap, which ends the sandbox
        (verdict killed); no answer is sent for the request."""
        if not _valid_id(params.get("requestId")):
            return
        with self.calls_lock:
            if params.get("requestId") not in self.calls:
                return
            proc = self.calls.pop(params.get("requestId"))
        if proc is not None and proc.poll() is None:
            proc.terminate()

    def started(self, mid: Any, proc: subprocess.Popen) -> None:
        with self.calls_lock:
            if mid in self.calls:
                self.calls[mid] = proc
                return
        proc.terminate()  # cancelled before it started

    def error(self, mid: Any, code: int, message: str) -> None:
        self.send({"jsonrpc": "2.0", "id": mid, "error": {"code": code, "message": message}})

    def serve(self, stream) -> None:
        """stream: the client's bytes, one message a line; a line that is too long or not
        UTF-8 gets a parse error and is skipped, never ends the server."""
        while True:
            raw = stream.readline(LINE_MAX + 1)
            if not raw:
                return
            if len(raw) > LINE_MAX and not raw.endswith(b"\n"):
                while raw and not raw.endswith(b"\n"):
                    raw = stream.readline(LINE_MAX)
                self.error(None, -32700, f"parse error: a message longer than {LINE_MAX} "
                           "bytes")
                continue
            raw = raw.strip()
            if not raw:
                continue
            try:
                msg = json.loads(raw.decode("utf-8"))
            except ValueError as e:  # UnicodeDecodeError too
                self.error(None, -32700, f"parse error: {e}")
                continue
            if not isinstance(msg, dict) or msg.get("jsonrpc") != "2.0" or \
                    not _valid_id(msg.get("id")):
                self.error(msg.get("id") if isinstance(msg, dict) and _valid_id(msg.get("id"))
                           else None, -32600, "invalid request: expected a JSON-RPC 2.0 "
                           "object (batches are not supported) with a string or number id")
                continue
            if msg.get("params") is not None and not isinstance(msg["params"], dict):
                if "id" in msg:
                    self.error(msg["id"], -32602, "invalid params: expected an object")
                continue
            self.dispatch(msg)

    def join(self) -> None:
        for t in self.threads:
            t.join()

    # --- methods
    def dispatch(self, msg: Dict[str, Any]) -> None:
        method, mid, params = msg.get("method"), msg.get("id"), msg.get("params") or {}
        if method == "notifications/cancelled" and isinstance(params, dict):
            self.cancel(params)
            return
        if method is None or "id" not in msg:
            return  # a response or another notification (initialized): nothing to say
        if method == "tools/call":
            with self.calls_lock:
                self.calls[mid] = None
            t = threading.Thread(target=self.tools_call, args=(mid, params), daemon=True)
            self.threads = [x for x in self.threads if x.is_alive()] + [t]
            t.start()
            return
        handlers = {
            "initialize": self.initialize, "ping": lambda p: {},
            "tools/list": lambda p: {"tools": TOOLS},
            "resources/list": self.resources_list,
            "resources/templates/list": lambda p: {"resourceTemplates": []},
            "resources/read": self.resources_read,
        }
        h = handlers.get(method)
        if h is None:
            self.error(mid, -32601, f"method not found: {method}")
            return
        try:
            self.reply(mid, h(params))
        except ValueError as e:
            self.error(mid, -32602, str(e))
        except SandcapError as e:
            self.error(mid, -32603, str(e))

    def initialize(self, params: Dict[str, Any]) -> Dict[str, Any]:
        asked = params.get("protocolVersion")
        s = self.session.info
        return {
            "protocolVersion": asked if asked in SUPPORTED else PROTOCOL,
            "capabilities": {"tools": {"listChanged": False},
                             "resources": {"listChanged": False, "subscribe": False}},
            "serverInfo": {"name": "sandcap-mcp", "title": "sandcap session",
                           "version": __version__},
            "instructions": f"Commands run in sandcap session {s['id']} ({s['mode']} mode): "
                            f"each call's working directory is the workspace {s['workspace']}, "
                            "kept across calls"
                            + (f"; writable besides: {', '.join(self.session.rw)}"
                               if self.session.rw else "")
                            + f". The session's report is the resource {REPORT_URI}.",
        }

    def resources_list(self, params: Dict[str, Any]) -> Dict[str, Any]:
        return {"resources": [{"uri": REPORT_URI, "name": "session-report",
                               "title": "sandcap session report",
                               "description": "every call's verdict and usage, the totals",
                               "mimeType": "application/json"}]}

    def resources_read(self, params: Dict[str, Any]) -> Dict[str, Any]:
        if params.get("uri") != REPORT_URI:
            raise ValueError(f"unknown resource: {params.get('uri')!r}")
        text = json.dumps(self.session.report())
        return {"contents": [{"uri": REPORT_URI, "mimeType": "application/json",
                              "text": text}]}

    def tools_call(self, mid: Any, params: Dict[str, Any]) -> None:
        name, args = params.get("name"), params.get("arguments") or {}
        fn = {"run": self.tool_run, "read_file": self.tool_read, "write_file": self.tool_write,
              "list_dir": self.tool_list}.get(name) if isinstance(name, str) else None
        if fn is None or not isinstance(args, dict):
            with self.calls_lock:
                self.calls.pop(mid, None)
            self.error(mid, -32602, f"unknown tool: {name!r}" if fn is None else
                       "arguments: expected an object")
            return
        try:
            result = fn(args, mid) if name == "run" else fn(args)
        except (_workspace.PathRefused, ValueError, TypeError) as e:
            result = _text_error(f"{name}: {e}")
        except Exception as e:  # never leave the client without an answer
            result = _text_error(f"{name}: {type(e).__name__}: {e}")
        with self.calls_lock:
            if mid not in self.calls:
                return  # cancelled: the client expects no answer
            del self.calls[mid]
        self.reply(mid, result)

    # --- tools
    def tool_run(self, a: Dict[str, Any], mid: Any = None) -> Dict[str, Any]:
        argv, shell = a.get("argv"), a.get("shell")
        if (argv is None) == (shell is None):
            raise ValueError("give either argv (an array of strings) or shell (a string)")
        if shell is not None:
            if not isinstance(shell, str):
                raise ValueError("shell: expected a string")
            argv = ["/bin/sh", "-c", shell]
        if not isinstance(argv, list) or not argv or not all(isinstance(x, str) for x in argv):
            raise ValueError("argv: expected a non-empty array of strings")
        kw: Dict[str, Any] = {"output_limit": self.output_limit, "input": a.get("stdin")}
        for k in ("timeout", "cpu_time"):
            if a.get(k) is not None:
                kw[k] = str(a[k])
        extra = ["--as", str(a["address_space"])] if a.get("address_space") else []
        if a.get("cwd") is not None:
            kw["cwd"] = _cwd(self.roots, a["cwd"])
        kw["_on_start"] = lambda proc: self.started(mid, proc)
        try:
            r = self.session.run(argv, extra_args=extra, **kw)
        except SandcapError as e:
            return _refused(e)
        return _run_result(r)

    def tool_read(self, a: Dict[str, Any]) -> Dict[str, Any]:
        n = a.get("max_bytes", _workspace.READ_MAX)
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            raise ValueError("max_bytes: expected a whole number >= 0")
        if n > _workspace.READ_LIMIT:
            raise ValueError(f"max_bytes {n}: at most {_workspace.READ_LIMIT} (16 MiB); read "
                             "a large file in a run call (head, tail, sed -n)")
        r = _workspace.read_file(self.roots, a.get("path"), n)
        return {"content": [{"type": "text", "text": r["content"]}], "structuredContent": r,
                "isError": False}

    def tool_write(self, a: Dict[str, Any]) -> Dict[str, Any]:
        r = _workspace.write_file(self.roots, a.get("path"), a.get("content"),
                                  bool(a.get("append", False)))
        return {"content": [{"type": "text", "text": f"wrote {r['bytes_written']} bytes to "
                             f"{r['path']}"}], "structuredContent": r, "isError": False}

    def tool_list(self, a: Dict[str, Any]) -> Dict[str, Any]:
        r = _workspace.list_dir(self.roots, a.get("path", "."))
        text = "\n".join(f"{e['type']:7} {e['size']:>10} {e['name']}" for e in r["entries"])
        return {"content": [{"type": "text", "text": text or "(empty)"}],
                "structuredContent": r, "isError": False}


def _cwd(roots: _workspace.Roots, cwd: str) -> str:
    base, name, parts = roots.locate(cwd)
    os.close(_workspace._open_dir(base, parts))  # refuses links and '..' on the way
    return os.path.join(name, *parts)


def _text_error(text: str) -> Dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": True}


def _refused(e: SandcapError) -> Dict[str, Any]:
    rep = e.report or {}
    verdict = rep.get("verdict", "refused")
    msg = str(e)
    sc = {"verdict": verdict, "exit_code": None, "signal": None, "message": msg,
          "stdout": "", "stderr": e.stderr.decode("utf-8", "replace") if e.stderr else "",
          "limits_hit": [], "usage": {}, "sandbox_id": rep.get("id")}
    return {"content": [{"type": "text", "text": f"refused: {msg}"}],
            "structuredContent": sc, "isError": True}


def _run_result(r: Result) -> Dict[str, Any]:
    out = r.stdout.decode("utf-8", "replace")
    err = r.stderr.decode("utf-8", "replace")
    rep = r.report or {}
    sc = {"verdict": r.verdict, "exit_code": r.exit_code, "signal": r.signal,
          "message": r.message or "", "stdout": out, "stderr": err,
          "limits_hit": list(r.limits_hit), "usage": dict(r.usage or {}),
          "sandbox_id": rep.get("id")}
    summary = f"verdict {r.verdict}, exit {r.exit_code}: {r.message or ''}".rstrip(": ")
    text = summary + (f"\n--- stdout\n{out}" if out else "") + (f"\n--- stderr\n{err}" if err else "")
    return {"content": [{"type": "text", "text": text}], "structuredContent": sc,
            "isError": r.verdict != "ok"}


def _profile_options(sandcap: Optional[str], name: str) -> Dict[str, Any]:
    """The session options of profile name (`sandcap profile show NAME`)."""
    from ._proc import find_sandcap
    p = subprocess.run([find_sandcap(sandcap), "profile", "show", name], stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=30)
    if p.returncode != 0:
        raise SandcapError(p.stderr.decode("utf-8", "replace").strip())
    line = next((x for x in p.stdout.decode().splitlines() if x.startswith("sandcap run ")), "")
    words = shlex.split(line)[2:]
    words = words[:words.index("--")] if "--" in words else words
    out: Dict[str, Any] = {}
    i = 0
    while i < len(words):
        w, v = (words[i].split("=", 1) + [None])[:2]
        if v is None:
            i += 1
            v = words[i] if i < len(words) else ""
        if w not in PROFILE_OPTIONS:
            raise SandcapError(f"sandcap-mcp: --profile {name}: {w} is not a session option "
                               f"(a session takes {', '.join(sorted(PROFILE_OPTIONS))})")
        out[PROFILE_OPTIONS[w]] = v
        i += 1
    return out


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="sandcap-mcp", description="An MCP server (stdio) running tool calls in one "
        "sandcap session. See docs/usage.md \"The MCP server\".")
    for opt, h in (("--ttl", "the session's lifetime (default 1h)"),
                   ("--cpu-time", "the CPU-time budget of all calls together"),
                   ("--timeout", "each call's default and ceiling wall-clock limit"),
                   ("--as", "each call's default and ceiling address space per process"),
                   ("--memory", "the session's memory in cgroup or user-cgroup mode "
                    "(refused in rlimit mode)"),
                   ("--pids", "the session's processes in cgroup or user-cgroup mode"),
                   ("--cpu", "the session's CPU share in cgroup or user-cgroup mode"),
                   ("--disk", "the session's workspace size in cgroup mode (the helper)"),
                   ("--fs", "none, ro or strict, for every call"),
                   ("--net", "host, none or loopback, for every call"),
                   ("--name", "the session's name (sandcap session ls)"),
                   ("--profile", "take the session's limits from a sandcap profile"),
                   ("--output-limit", "stdout+stderr of a call, at most (default 1M)"),
                   ("--report", "where the keeper writes the report at the TTL"),
                   ("--sandcap", "the sandcap executable (default $SANDCAP, else sandcap)")):
        ap.add_argument(opt, help=h)
    ap.add_argument("--rw", action="append", default=[], metavar="DIR",
                    help="(repeatable; with --fs ro or strict) a directory every call may "
                    "write, which the file tools reach too (absolute paths)")
    ap.add_argument("--no-cgroup", action="store_true", help="start the session in rlimit mode "
                    "where sandcap run would use a cgroup")
    ap.add_argument("--version", action="version", version=f"sandcap-mcp {__version__}")
    return ap


def main(argv: Optional[List[str]] = None) -> int:
    a = _parser().parse_args(argv)
    try:
        kw: Dict[str, Any] = _profile_options(a.sandcap, a.profile) if a.profile else {}
        for k in ("ttl", "cpu_time", "timeout", "memory", "pids", "cpu", "disk", "fs", "net",
                  "name", "report"):
            if getattr(a, k) is not None:
                kw[k] = getattr(a, k)
        if a.__dict__.get("as") is not None:
            kw["address_space"] = a.__dict__["as"]
        rw = [os.path.abspath(p) for p in a.rw]
        session = Session(no_cgroup=a.no_cgroup, sandcap=a.sandcap, rw=rw, **kw)
    except (SandcapError, ValueError, TypeError, OSError, subprocess.SubprocessError) as e:
        print(f"sandcap-mcp: cannot start the session: {e}", file=sys.stderr)
        return 125

    def stop(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    try:
        server = Server(session, a.output_limit or "1M")
    except _workspace.PathRefused as e:
        session.end()
        print(f"sandcap-mcp: cannot serve the session: {e}", file=sys.stderr)
        return 125
    try:
        server.serve(sys.stdin.buffer)
    except (KeyboardInterrupt, BrokenPipeError):
        pass
    finally:
        # Ending kills a call still running; its thread then answers (or finds the client
        # gone) and is joined.
        try:
            session.end()
        except SandcapError as e:
            if e.returncode != 1:  # 1: already gone (its TTL passed)
                print(f"sandcap-mcp: {e}", file=sys.stderr)
        server.join()
    return 0


if __name__ == "__main__":
    sys.exit(main())
