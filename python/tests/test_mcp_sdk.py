"""sandcap-mcp against a real MCP client: the official TypeScript SDK
(@modelcontextprotocol/sdk from the npm registry), driving tests/mcp/sdk-client.mjs.

The SDK is installed once into $SANDCAP_MCP_SDK_DIR (tests/python/run.sh: BUILD/mcp-sdk,
outside the source tree's files); without node or npm, or when the registry cannot be
reached, the test is skipped with the reason."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.path.dirname(os.path.dirname(HERE))
SDK = "@modelcontextprotocol/sdk@1"


def _sdk_dir(tmp_path_factory) -> str:
    d = os.environ.get("SANDCAP_MCP_SDK_DIR") or str(tmp_path_factory.mktemp("mcp-sdk"))
    mark = os.path.join(d, "node_modules", "@modelcontextprotocol", "sdk", "package.json")
    if os.path.exists(mark):
        return d
    for tool in ("node", "npm"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed (make deps installs Debian's nodejs and npm)")
    try:
        p = subprocess.run(["npm", "install", "--prefix", d, "--no-audit", "--no-fund",
                            "--no-save", "--loglevel=error", SDK], stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300)
    except subprocess.TimeoutExpired:
        pytest.skip(f"npm install {SDK}: no answer from the registry in 300 s")
    if p.returncode != 0 or not os.path.exists(mark):
        last = p.stdout.decode("utf-8", "replace").strip().splitlines()[-3:]
        pytest.skip(f"npm install {SDK} failed (registry unreachable?): {' / '.join(last)}")
    return d


def test_official_sdk_client(sandcap_bin, rundir, tmp_path, tmp_path_factory):
    sdk = _sdk_dir(tmp_path_factory)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    env = dict(os.environ, SANDCAP=sandcap_bin, PYTHONPATH=os.path.join(SRCDIR, "python", "src"))
    p = subprocess.run(["node", os.path.join(SRCDIR, "tests", "mcp", "sdk-client.mjs"), sdk,
                        sys.executable, str(rundir), str(scratch)], env=env,
                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=600)
    out = p.stdout.decode("utf-8", "replace")
    print(out)
    assert p.returncode == 0, out
    assert "not ok" not in out and "\n1.." in out
