"""`pip install ./python` works offline: into a fresh venv, with no index and no cache."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_pip_install_offline(tmp_path):
    if subprocess.run([sys.executable, "-m", "pip", "--version"], stdout=subprocess.DEVNULL,
                      stderr=subprocess.DEVNULL).returncode != 0:
        pytest.skip("pip is not installed for this python (apt-get install python3-pip)")
    venv = tmp_path / "venv"
    # The system's pip installs into the venv (pip >= 22.3 --python): no ensurepip needed.
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    env = dict(os.environ, PIP_NO_INDEX="1", PIP_NO_CACHE_DIR="1",
               PIP_DISABLE_PIP_VERSION_CHECK="1", PYTHONPATH="")
    p = subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"),
                        "install", HERE], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert p.returncode == 0, p.stdout.decode()
    p = subprocess.run([str(venv / "bin" / "python"), "-c",
                        "import sandcap, os; print(sandcap.__file__); "
                        "print(os.path.exists(os.path.join(os.path.dirname(sandcap.__file__),"
                        " 'py.typed')))"], env=env, stdout=subprocess.PIPE, check=True)
    where, typed = p.stdout.decode().split()
    assert where.startswith(str(venv)) and typed == "True"
    # The console script of [project.scripts]: installed, and it runs.
    mcp = venv / "bin" / "sandcap-mcp"
    p = subprocess.run([str(mcp), "--version"], env=env, stdout=subprocess.PIPE, check=True)
    assert p.stdout.decode().startswith("sandcap-mcp ")
