"""The agent setup the docs give, run as written: README.md's "For agents" block (``pip
install ./python``, then ``claude mcp add NAME -- COMMAND...``) and docs/usage.md's Claude
Code line, Codex ``config.toml`` and ``mcpServers`` JSON.  ``pip install`` goes into a fresh
venv, offline; Claude Code, Codex and the JSON clients are not installed here, so each
server command line is started the way those clients start it (the argv after ``--``, or
``command`` + ``args``, with the venv's ``sandcap-mcp`` on PATH) and driven through the MCP
handshake, a tool call and a clean shutdown."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def _section(path: str, heading: str) -> str:
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        text = f.read()
    start = text.index(heading + "\n")
    end = text.find("\n## ", start + len(heading))
    return text[start:end if end >= 0 else len(text)]


def _blocks(text: str, lang: str):
    return re.findall(r"^```" + lang + r"\n(.*?)^```", text, re.S | re.M)


def _commands(block: str):
    """The lines a user types: comments after '  #' dropped, as the shell would."""
    for line in block.splitlines():
        words = shlex.split(line, comments=True)
        if words:
            yield words


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    if subprocess.run([sys.executable, "-m", "pip", "--version"], stdout=subprocess.DEVNULL,
                      stderr=subprocess.DEVNULL).returncode != 0:
        pytest.skip("pip is not installed for this python (apt-get install python3-pip)")
    v = tmp_path_factory.mktemp("agent") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(v)], check=True)
    return v


@pytest.fixture(scope="module")
def landlock(sandcap_bin):
    p = subprocess.run([sandcap_bin, "run", "-q", "--no-cgroup", "--fs", "ro", "--", "true"],
                       stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
    if p.returncode != 0:
        pytest.skip("the documented setup gives --fs ro: this kernel has no usable Landlock")


def _pip(venv, words):
    """`pip install ./python`, from the top of the tree, into the venv, offline."""
    assert words[:2] == ["pip", "install"], words
    env = dict(os.environ, PIP_NO_INDEX="1", PIP_NO_CACHE_DIR="1",
               PIP_DISABLE_PIP_VERSION_CHECK="1", PYTHONPATH="")
    p = subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"),
                        *words[1:]], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT)
    assert p.returncode == 0, p.stdout.decode()


def _serve(venv, sandcap_bin, rundir, argv):
    """Start a server command line as an MCP client does and use it."""
    assert argv[0] == "sandcap-mcp", argv
    env = dict(os.environ, SANDCAP=sandcap_bin, XDG_RUNTIME_DIR=rundir, PYTHONPATH="",
               PATH=f"{venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}")
    p = subprocess.Popen(argv, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    n = 0

    def request(method, params):
        nonlocal n
        n += 1
        p.stdin.write((json.dumps({"jsonrpc": "2.0", "id": n, "method": method,
                                   "params": params}) + "\n").encode())
        p.stdin.flush()
        line = p.stdout.readline()
        assert line, p.stderr.read().decode()
        return json.loads(line)["result"]

    try:
        init = request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                      "clientInfo": {"name": "docs", "version": "1"}})
        assert init["serverInfo"]["name"] == "sandcap-mcp"
        tools = {t["name"] for t in request("tools/list", {})["tools"]}
        assert tools == {"run", "read_file", "write_file", "list_dir"}
        r = request("tools/call", {"name": "run", "arguments": {"shell": "echo hi > f; cat f"}})
        assert r["isError"] is False and r["structuredContent"]["stdout"] == "hi\n", r
        # --fs ro: nothing but the workspace is writable.
        r = request("tools/call", {"name": "run", "arguments": {"shell": "echo x > $HOME/x"}})
        assert r["isError"] is True, r
        assert request("tools/call", {"name": "read_file", "arguments": {"path": "f"}})[
            "content"][0]["text"] == "hi\n"
    finally:
        p.stdin.close()
        rc = p.wait(60)
        p.stdout.close()
        p.stderr.close()
    assert rc == 0
    d = os.path.join(rundir, "sandcap", "sessions")
    assert not os.path.isdir(d) or os.listdir(d) == []


def test_readme_agent_setup(venv, sandcap_bin, rundir, landlock):
    (block,) = _blocks(_section("README.md", "## For agents: an MCP server"), "sh")
    cmds = list(_commands(block))
    assert len(cmds) == 2, cmds
    _pip(venv, cmds[0])
    claude = cmds[1]
    assert claude[:3] == ["claude", "mcp", "add"] and "--" in claude, claude
    _serve(venv, sandcap_bin, rundir, claude[claude.index("--") + 1:])


def test_usage_clients_setup(venv, sandcap_bin, rundir, landlock):
    import tomllib

    text = _section("docs/usage.md", "## The MCP server")
    cmds = [w for b in _blocks(text, "sh") for w in _commands(b)]
    assert [w[0] for w in cmds] == ["pip", "claude"], cmds
    _pip(venv, cmds[0])
    claude = cmds[1:]
    lines = [claude[0][claude[0].index("--") + 1:]]
    (toml,) = _blocks(text, "toml")
    codex = tomllib.loads(toml)["mcp_servers"]["sandcap"]
    lines.append([codex["command"], *codex["args"]])
    (js,) = _blocks(text, "json")
    generic = json.loads(js)["mcpServers"]["sandcap"]
    lines.append([generic["command"], *generic["args"]])
    for argv in lines:
        _serve(venv, sandcap_bin, rundir, argv)
