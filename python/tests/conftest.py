"""Shared fixtures.  The suite runs against the sandcap named by $SANDCAP (tests/python/run.sh
sets it to the freshly built one); the package is imported from ../src unless installed."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "src"))

import sandcap  # noqa: E402


@pytest.fixture(scope="session")
def sandcap_bin() -> str:
    path = os.environ.get("SANDCAP")
    if not path:
        pytest.fail("SANDCAP must name the sandcap binary under test (tests/python/run.sh sets it)")
    return path


@pytest.fixture(scope="session")
def cli(sandcap_bin):
    """The long options of this sandcap's 'run'."""
    return sandcap.cli_options(sandcap_bin)


@pytest.fixture(scope="session")
def mode(sandcap_bin) -> str:
    """'cgroup' when this sandcap uses a helper for --memory, else 'rlimit'."""
    try:
        r = sandcap.run(["true"], memory="64M", sandcap=sandcap_bin)
    except sandcap.SandcapError:
        return "rlimit"  # --memory refused without --fallback: no helper
    return r.mode


def needs(cli, *opts: str) -> None:
    """Skip (with the reason) unless this sandcap knows every option in opts."""
    missing = [o for o in opts if o not in cli]
    if missing:
        pytest.skip(f"this sandcap has no {', '.join(missing)} yet (sandcap run --help)")


@pytest.fixture
def rundir():
    """A private XDG_RUNTIME_DIR (0700) for sessions, short enough for the control sockets
    in it (a socket's path has at most 107 bytes: pytest's tmp_path can be too long)."""
    d = tempfile.mkdtemp(prefix="sc-", dir="/tmp")
    yield d
    shutil.rmtree(d, ignore_errors=True)
