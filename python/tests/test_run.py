"""sandcap.run / run_async against the real sandcap binary ($SANDCAP).

On the host this is rlimit mode; in the VM scenario (tests/vm/scenarios/70-python.sh) the
same file runs in cgroup mode, and the mode-dependent tests assert what that mode reports.
"""

from __future__ import annotations

import asyncio
import http.server
import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import threading
import time
import uuid

import pytest

import sandcap
from conftest import needs
from fleet_calls import procs_with

PY = sys.executable


def marker() -> str:
    return f"sandcap-pytest-{uuid.uuid4().hex}"


def wait_until(cond, what: str, deadline: float = 30.0) -> None:
    """Poll cond() until true; fail after deadline seconds (a bound, not a timing target)."""
    end = time.monotonic() + deadline
    while not cond():
        if time.monotonic() > end:
            pytest.fail(f"gave up waiting for: {what}")
        time.sleep(0.05)


def test_ok_captures_both_streams_apart(sandcap_bin):
    r = sandcap.run(["sh", "-c", "printf out; printf err >&2"], sandcap=sandcap_bin)
    assert (r.verdict, r.exit_code, r.signal, r.returncode) == ("ok", 0, None, 0)
    assert r.ok and r.limits_hit == ()
    assert (r.stdout, r.stderr) == (b"out", b"err")
    assert r.report["command"] == ["sh", "-c", "printf out; printf err >&2"]
    assert r.report["sandcap_report"] == 1 and "wall_ms" in r.usage


def test_exit_status_is_a_verdict_not_an_exception(sandcap_bin):
    r = sandcap.run(["sh", "-c", "exit 7"], sandcap=sandcap_bin)
    assert (r.verdict, r.exit_code, r.signal, r.returncode) == ("exit", 7, None, 7)
    assert not r.ok


def test_signal(sandcap_bin):
    r = sandcap.run(["sh", "-c", "kill -TERM $$"], sandcap=sandcap_bin)
    assert (r.verdict, r.exit_code, r.signal, r.returncode) == ("signal", None, 15, 143)


def test_timeout(sandcap_bin):
    r = sandcap.run(["sleep", "60"], timeout=0.5, grace=0, sandcap=sandcap_bin)
    assert (r.verdict, r.returncode) == ("timeout", 124)
    assert r.report["limits"]["timeout_ms"] == 500
    assert r.report["limits"]["grace_ms"] == 0


def test_input_and_binary_output(sandcap_bin):
    data = bytes(range(256)) * 64
    r = sandcap.run(["cat"], input=data, sandcap=sandcap_bin)
    assert r.ok and r.stdout == data
    r = sandcap.run(["cat"], input="héllo", sandcap=sandcap_bin)
    assert r.stdout == "héllo".encode() and r.stdout_text == "héllo"


def test_stdin_is_devnull_without_input(sandcap_bin):
    r = sandcap.run(["sh", "-c", "cat; echo end"], sandcap=sandcap_bin)
    assert r.ok and r.stdout == b"end\n"


def test_command_gets_no_report_descriptor(sandcap_bin):
    # The report channel is sandcap's alone: the command cannot forge a report.
    r = sandcap.run([PY, "-c", "import os; print(sorted(os.listdir('/proc/self/fd')))"],
                    sandcap=sandcap_bin)
    assert r.ok
    assert r.stdout.strip() == b"['0', '1', '2', '3']"  # 3: listdir's own


def test_command_not_found_raises_with_report(sandcap_bin):
    with pytest.raises(sandcap.SandcapError) as ei:
        sandcap.run(["/nonexistent/sandcap-pytest-command"], sandcap=sandcap_bin)
    e = ei.value
    assert e.returncode == 127
    assert e.report is not None and e.report["verdict"] == "setup-error"


def test_not_executable_raises(sandcap_bin, tmp_path):
    f = tmp_path / "script"
    f.write_text("#!/bin/sh\nexit 0\n")
    f.chmod(0o644)
    with pytest.raises(sandcap.SandcapError) as ei:
        sandcap.run([str(f)], sandcap=sandcap_bin)
    assert ei.value.returncode == 126


def test_bad_option_value_is_refused(sandcap_bin):
    with pytest.raises(sandcap.SandcapError) as ei:
        sandcap.run(["true"], timeout="soon", sandcap=sandcap_bin)
    assert ei.value.returncode == 125
    assert b"--timeout" in ei.value.stderr


def test_refusal_writes_setup_error_report(sandcap_bin, cli, mode):
    # A refusal after option parsing: a limit rlimit mode cannot enforce without
    # --fallback, or (cgroup mode) a request over the policy's ceiling.
    needs(cli, "--report-fd")
    kw = {"pids": 10} if mode == "rlimit" else {"memory": "1T"}
    with pytest.raises(sandcap.SandcapError) as ei:
        sandcap.run(["true"], sandcap=sandcap_bin, **kw)
    e = ei.value
    assert e.returncode == 125
    assert e.report is not None and e.report["verdict"] == "setup-error"
    assert e.report["message"] and e.message.startswith(f"sandcap: {e.report['message']}")


def test_unenforceable_limit_is_refused_not_weakened(sandcap_bin, mode):
    if mode != "rlimit":
        pytest.skip("cgroup mode enforces --pids: nothing to refuse")
    with pytest.raises(sandcap.SandcapError) as ei:
        sandcap.run(["true"], pids=10, sandcap=sandcap_bin)
    assert ei.value.returncode == 125 and b"--fallback" in ei.value.stderr
    assert str(ei.value).endswith("(in Python: fallback=True)")


def test_sandcap_missing(tmp_path):
    with pytest.raises(sandcap.SandcapError):
        sandcap.run(["true"], sandcap=str(tmp_path / "no-sandcap"))


DAYS_366 = 366 * 24 * 3600


@pytest.mark.parametrize("name,accepted,refused", [
    ("timeout", [0.001, DAYS_366], ["0", f"{DAYS_366 * 1000 + 1}ms"]),
    ("cpu_time", [0.001, DAYS_366], ["0", f"{DAYS_366 * 1000 + 1}ms"]),
    ("grace", [0, DAYS_366], [f"{DAYS_366 * 1000 + 1}ms"]),
    ("memory", [1, 1 << 60], ["0", str((1 << 60) + 1)]),
    ("disk", [1, 1 << 60], ["0", str((1 << 60) + 1)]),
    ("output_limit", [1, 1 << 60], ["0", str((1 << 60) + 1)]),
    ("cpu", [1, 102400], ["0%", "102401%"]),
    ("pids", [1, 4194304], ["0", "4194305"]),
])
def test_python_ranges_are_sandcaps(sandcap_bin, cli, name, accepted, refused):
    # The ends of the ranges the package checks (_options.py) pass sandcap's own range
    # check, and a string just past them (which the package passes on unchecked) fails it.
    # Whether the limit can then be enforced here is another matter (a refusal for that
    # is fine).
    opt = "--" + name.replace("_", "-")
    needs(cli, opt)
    for v in accepted:
        try:
            sandcap.run(["true"], fallback=True, sandcap=sandcap_bin, **{name: v})
        except sandcap.SandcapError as e:
            assert b"out of range" not in e.stderr, (name, v, e.stderr)
    for v in refused:
        with pytest.raises(sandcap.SandcapError) as ei:
            sandcap.run(["true"], fallback=True, sandcap=sandcap_bin, **{name: v})
        assert f"{opt}: ".encode() in ei.value.stderr
        assert b"out of range" in ei.value.stderr


@pytest.mark.parametrize("v,exc", [("x", TypeError), ("5", TypeError), (None, TypeError),
                                   (-1, ValueError), (float("nan"), ValueError)])
def test_bad_kill_grace_names_the_argument(sandcap_bin, v, exc):
    with pytest.raises(exc, match="^kill_grace=: "):
        sandcap.run(["true"], kill_grace=v, sandcap=sandcap_bin)


def test_sandcap_as_a_name_in_path(sandcap_bin, tmp_path, monkeypatch):
    # Popen looks a bare name up in PATH; so must the package, before it runs --help.
    d = tmp_path / "bin"
    d.mkdir()
    (d / "sandcap").symlink_to(os.path.abspath(sandcap_bin))
    monkeypatch.setenv("PATH", f"{d}{os.pathsep}{os.environ.get('PATH', '')}")
    assert sandcap.find_sandcap("sandcap") == str(d / "sandcap")
    assert sandcap.run(["true"], sandcap="sandcap").ok
    monkeypatch.setenv("SANDCAP", "sandcap")
    assert sandcap.run(["true"]).ok
    assert "--report-fd" in sandcap.cli_options()


def test_sandcap_not_found_says_where_the_name_came_from(tmp_path, monkeypatch):
    with pytest.raises(sandcap.SandcapError, match="from the sandcap= argument"):
        sandcap.run(["true"], sandcap="sandcap-pytest-no-such-command")
    monkeypatch.setenv("SANDCAP", "sandcap-pytest-no-such-command")
    with pytest.raises(sandcap.SandcapError, match=r"'sandcap-pytest-no-such-command' "
                                                   r"\(from \$SANDCAP\) is not an executable"):
        sandcap.run(["true"])
    monkeypatch.setenv("SANDCAP", str(tmp_path / "none"))
    with pytest.raises(sandcap.SandcapError, match=r"none \(from \$SANDCAP\): No such file"):
        sandcap.cli_options()


def test_memory(sandcap_bin, mode):
    prog = "b = bytearray(200 * 1024 * 1024); b[::4096] = b'x' * len(b[::4096])"
    if mode == "rlimit":
        r = sandcap.run([PY, "-c", prog], memory="64M", fallback=True, sandcap=sandcap_bin)
        # RLIMIT_AS: the allocation fails inside the command; sandcap sees an exit.
        assert (r.verdict, r.exit_code, r.limits_hit) == ("exit", 1, ())
        assert r.enforcement["memory"] == "rlimit (RLIMIT_AS, --fallback)"
        assert b"MemoryError" in r.stderr
    else:
        r = sandcap.run([PY, "-c", prog], memory="64M", sandcap=sandcap_bin)
        assert r.verdict == "memory" and "memory" in r.limits_hit
        assert r.usage["oom_kills"] >= 1 and r.enforcement["memory"] == "cgroup"


def test_pids(sandcap_bin, mode):
    bomb = "while :; do sleep 60 & done"
    if mode == "rlimit":
        r = sandcap.run(["sh", "-c", bomb], pids=16, fallback=True, timeout=30,
                        sandcap=sandcap_bin)
        # RLIMIT_NPROC (per user): fork fails, dash exits 2 ("Cannot fork").
        assert (r.verdict, r.exit_code) == ("exit", 2)
        assert r.enforcement["pids"] == "rlimit (RLIMIT_NPROC, per user, --fallback)"
    else:
        r = sandcap.run(["sh", "-c", bomb], pids=16, timeout=30, sandcap=sandcap_bin)
        assert r.verdict == "pids" and "pids" in r.limits_hit


def test_net_none(sandcap_bin):
    srv = http.server.HTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
    port = srv.server_address[1]
    prog = ("import socket, sys\n"
            "try:\n"
            f"    socket.create_connection(('127.0.0.1', {port}), 10).close()\n"
            "except OSError as e:\n"
            "    print(e.errno); sys.exit(3)\n")
    try:
        ctl = sandcap.run([PY, "-c", prog], sandcap=sandcap_bin)  # the control, without
        if ctl.exit_code == 3:
            pytest.skip(f"127.0.0.1 is not reachable here even without --net none (errno "
                        f"{ctl.stdout.decode().strip()}: loopback down?)")
        assert ctl.ok, ctl
        r = sandcap.run([PY, "-c", prog], net="none", sandcap=sandcap_bin)
        assert (r.verdict, r.exit_code) == ("exit", 3)
        assert "net" in r.enforcement
    finally:
        srv.server_close()


def test_env_values_reach_the_command_but_not_its_command_line(sandcap_bin):
    # A command line is readable by every local user; a value may be a secret.
    secret = "s3cr3t-" + uuid.uuid4().hex
    prog = ("import os\n"
            "s = os.environ.get('PYTEST_SECRET', '')\n"
            "print(s)\n"
            "p = os.getppid()\n"
            "while p > 1:\n"
            "    words = open(f'/proc/{p}/cmdline', 'rb').read().split(b'\\0')\n"
            "    if b'run' in words and b'-q' in words:\n"
            "        print('sandcap', s.encode() in b' '.join(words)); break\n"
            "    p = int(open(f'/proc/{p}/stat').read().rsplit(')', 1)[1].split()[2])\n")
    r = sandcap.run([PY, "-c", prog], env={"PYTEST_SECRET": secret}, sandcap=sandcap_bin)
    assert r.ok, r.stderr
    assert r.stdout.decode().splitlines() == [secret, "sandcap False"]


def test_env_clear_and_deny(sandcap_bin, cli):
    needs(cli, "--env-clear", "--env", "--env-deny")
    base = {"PYTEST_TOKEN_X": "1", "PYTEST_KEEP": "2", "PYTEST_PASS": "3"}
    os.environ.update(base)
    try:
        r = sandcap.run(["env"], env_clear=True, env={"PYTEST_SET": "4", "PYTEST_PASS": None},
                        sandcap=sandcap_bin)
        names = {ln.split("=", 1)[0] for ln in r.stdout.decode().splitlines()}
        assert {"PYTEST_SET", "PYTEST_PASS", "PATH"} <= names
        assert "PYTEST_TOKEN_X" not in names and "PYTEST_KEEP" not in names
        r = sandcap.run(["env"], env_deny=["*TOKEN*"], sandcap=sandcap_bin)
        names = {ln.split("=", 1)[0] for ln in r.stdout.decode().splitlines()}
        assert "PYTEST_TOKEN_X" not in names and "PYTEST_KEEP" in names
    finally:
        for k in base:
            os.environ.pop(k, None)


def test_cwd(sandcap_bin, cli, tmp_path):
    needs(cli, "--chdir")
    tmp_path.chmod(0o755)
    r = sandcap.run(["pwd"], cwd=tmp_path, sandcap=sandcap_bin)
    assert r.ok and r.stdout.decode().strip() == str(tmp_path)


def test_output_limit(sandcap_bin, cli):
    needs(cli, "--output-limit")
    r = sandcap.run(["sh", "-c", "while :; do echo xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx; done"],
                    output_limit="64K", timeout=60, sandcap=sandcap_bin)
    assert r.verdict == "output"
    assert len(r.stdout) + len(r.stderr) <= 64 * 1024


def test_allow_list(sandcap_bin, cli):
    needs(cli, "--allow", "--net")

    class H(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"hello")

        def log_message(self, *a):
            pass

    srv = http.server.HTTPServer(("127.0.0.1", 0), H)
    port = srv.server_address[1]
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    prog = ("import urllib.request, sys\n"
            "try:\n"
            f"    print(urllib.request.urlopen('http://127.0.0.1:{port}/', timeout=20).read())\n"
            "except OSError as e:\n"
            "    print(e); sys.exit(3)\n")
    try:
        r = sandcap.run([PY, "-c", prog], allow=[f"127.0.0.1:{port}"], timeout=60,
                        sandcap=sandcap_bin)
        assert r.ok and b"hello" in r.stdout
        r = sandcap.run([PY, "-c", prog], allow=[f"127.0.0.1:{port + 1 if port < 65535 else 1}"],
                        timeout=60, sandcap=sandcap_bin)
        assert (r.verdict, r.exit_code) == ("exit", 3)
    finally:
        srv.shutdown()
        srv.server_close()


def test_profile_is_passed(sandcap_bin):
    with pytest.raises(sandcap.SandcapError) as ei:
        sandcap.run(["true"], profile="no-such-profile-" + uuid.uuid4().hex[:8],
                    sandcap=sandcap_bin)
    assert ei.value.returncode == 125 and b"--profile" in ei.value.stderr


def test_celery_task_result_keeps_binary_output(sandcap_bin):
    # The task body (no Celery needed to call it): its JSON-safe dict keeps the bytes.
    import sandcap.celery
    d = sandcap.celery.tool_call(["printf", "\\377\\000ok"], {"sandcap": sandcap_bin})
    assert sandcap.Result.from_dict(json.loads(json.dumps(d))).stdout == b"\xff\x00ok"


def test_run_async_and_concurrency(sandcap_bin):
    async def main():
        return await asyncio.gather(*(sandcap.run_async(["sh", "-c", f"echo {i}; exit {i}"],
                                                        sandcap=sandcap_bin)
                                      for i in range(4)))
    rs = asyncio.run(main())
    assert [r.exit_code for r in rs] == [0, 1, 2, 3]
    assert [r.stdout for r in rs] == [b"0\n", b"1\n", b"2\n", b"3\n"]


def test_run_async_setup_error(sandcap_bin):
    with pytest.raises(sandcap.SandcapError) as ei:
        asyncio.run(sandcap.run_async(["/nonexistent/x"], sandcap=sandcap_bin))
    assert ei.value.returncode == 127


def test_cancel_ends_the_sandbox(sandcap_bin):
    mark = marker()

    async def main():
        t = asyncio.ensure_future(sandcap.run_async(
            [PY, "-c", "import time; time.sleep(300)", mark], sandcap=sandcap_bin))
        end = time.monotonic() + 30
        while not procs_with(mark) and time.monotonic() < end:
            await asyncio.sleep(0.05)
        assert procs_with(mark), "the sandboxed command never started"
        t.cancel()
        with pytest.raises(asyncio.CancelledError):
            await t
    asyncio.run(main())
    # sandcap was waited for, and it reaps the whole sandbox before it exits (unless it
    # needed the SIGKILL after kill_grace on a loaded machine: then PDEATHSIG ends the
    # command a moment later; a bound, not a timing target).
    wait_until(lambda: procs_with(mark) == [], "the sandbox to end")


# Run in a Python of its own with every warning an error: an unclosed transport only
# shows as "Exception ignored ..." on stderr (from __del__), as does "Event loop is closed",
# and "Task was destroyed but it is pending!" is logged there.
CANCEL_SCRIPT = r"""
import asyncio, gc, os, sys, time
import sandcap

how, mark, flag, sandcap_bin = sys.argv[1:]
# On SIGTERM (forwarded by sandcap) the command writes 1 MiB to each of stdout and stderr,
# then exits: more than asyncio buffers plus a pipe hold, so it ends only if its output is
# still read after the cancellation.
prog = ("import signal, sys, time\n"
        "def term(*_):\n"
        "    for f in (sys.stdout, sys.stderr):\n"
        "        f.buffer.write(b'x' * (1 << 20)); f.flush()\n"
        "    sys.exit(0)\n"
        "signal.signal(signal.SIGTERM, term)\n"
        "open(sys.argv[1], 'w').close()\n"
        "time.sleep(300)\n")


async def main():
    if how == "yes":  # the review's case: yes writes until the SIGTERM
        try:
            await asyncio.wait_for(sandcap.run_async(["yes", mark], sandcap=sandcap_bin,
                                                     kill_grace=60), 0.3)
        except asyncio.TimeoutError:
            return
        sys.exit("yes ended by itself")
    call = sandcap.run_async([sys.executable, "-c", prog, flag, mark], sandcap=sandcap_bin,
                             kill_grace=60)
    task = asyncio.ensure_future(call if how == "cancel" else asyncio.wait_for(call, 600))
    while not os.path.exists(flag):
        if task.done():
            sys.exit(f"the call ended before it was cancelled: {task.result()!r}")
        await asyncio.sleep(0.05)
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        return
    sys.exit("the cancelled call returned")


start = time.monotonic()
asyncio.run(main())
gc.collect()
print(time.monotonic() - start)
"""


@pytest.mark.parametrize("how", ["cancel", "wait_for", "yes"])
def test_cancel_while_the_command_writes(sandcap_bin, tmp_path, how):
    # After a cancellation nobody read stdout/stderr any more: with kill_grace=60, the
    # call took those 60 s (sandcap stuck until its SIGKILL, or asyncio waiting for pipes
    # it had stopped reading), and left an unclosed transport behind.  The bound below is
    # generous (a bound, not a timing target), and far from kill_grace.
    mark = marker()
    src = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")
    try:
        p = subprocess.run([PY, "-W", "error", "-c", CANCEL_SCRIPT, how, mark,
                            str(tmp_path / "ready"), sandcap_bin],
                           env={**os.environ, "PYTHONPATH": src}, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=150)
    except subprocess.TimeoutExpired:
        pytest.fail("the cancelled call did not return within 150 s (kill_grace is 60)")
    assert (p.returncode, p.stderr.decode()) == (0, "")
    assert float(p.stdout) < 30
    wait_until(lambda: procs_with(mark) == [], "the sandbox to end")


class Interrupted(Exception):
    pass


def test_interrupted_call_ends_the_sandbox(sandcap_bin):
    mark = marker()

    def watch():
        wait_until(lambda: procs_with(mark), "the sandboxed command")
        os.kill(os.getpid(), signal.SIGUSR1)

    def on_usr1(*_):
        raise Interrupted()

    old = signal.signal(signal.SIGUSR1, on_usr1)
    w = threading.Thread(target=watch, daemon=True)
    w.start()
    try:
        with pytest.raises(Interrupted):
            sandcap.run([PY, "-c", "import time; time.sleep(300)", mark], sandcap=sandcap_bin)
    finally:
        signal.signal(signal.SIGUSR1, old)
        w.join(5)
    wait_until(lambda: procs_with(mark) == [], "the sandbox to end")


def test_sandbox_dies_with_a_killed_caller(sandcap_bin, tmp_path):
    mark = marker()
    src = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")
    caller = subprocess.Popen(
        [PY, "-c", "import sys, sandcap; sandcap.run([sys.executable, '-c', "
                   "'import time; time.sleep(300)', sys.argv[1]], sandcap=sys.argv[2])",
         mark, sandcap_bin],
        env={**os.environ, "PYTHONPATH": src})
    try:
        wait_until(lambda: procs_with(mark), "the sandboxed command")
        caller.kill()  # as an engine's hard time limit does
        caller.wait()
        # The kernel kills sandcap (PDEATHSIG), and then its command (the same): a bound,
        # not a timing target.
        wait_until(lambda: procs_with(mark) == [], "the sandbox to die with its caller", 10)
    finally:
        if caller.poll() is None:
            caller.kill()
            caller.wait()


def python_examples():
    """The README's ```python blocks, and the example in the package docstring."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(os.path.join(here, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    blocks = re.findall(r"^```python\n(.*?)^```", readme, re.M | re.S)
    assert len(blocks) == 1, "a new README example: add its expected output here"
    doc = sandcap.__doc__.split("::\n", 1)[1].split("\n\n")[0]
    # The project README's first example (an agent's tool call).
    with open(os.path.join(os.path.dirname(here), "README.md"), encoding="utf-8") as f:
        top = re.findall(r"^```python\n(.*?)^```", f.read(), re.M | re.S)[0]
    # What each prints when the call's verdict is ok.
    return [("README.md", blocks[0], b"HELLO\n"),
            ("../README.md", top, b"45\n"),
            ("sandcap.__doc__", textwrap.dedent(doc).strip() + "\n", b"")]


@pytest.mark.parametrize("where,code,out", python_examples())
def test_documented_examples_run_as_written(sandcap_bin, where, code, out):
    # Run as written, with sandcap found the documented way ($SANDCAP), in rlimit mode on
    # the host as nobody and in cgroup mode in the VM: whatever the host, the call is ok.
    src = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")
    p = subprocess.run([PY, "-c", code], env={**os.environ, "PYTHONPATH": src,
                                              "SANDCAP": sandcap_bin},
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    assert (p.returncode, p.stderr.decode()) == (0, ""), where
    assert p.stdout == out, where


def test_sandbox_slots_reads_the_policy(sandcap_bin):
    policy = os.path.join(os.environ.get("SRCDIR", ""), "tests", "vm", "policy.ini")
    if not os.path.exists(policy):
        pytest.skip("SRCDIR/tests/vm/policy.ini not found")
    assert sandcap.sandbox_slots(sandcap=sandcap_bin, policy=policy) == 32
    assert sandcap.sandbox_slots(sandcap=sandcap_bin, policy="/nonexistent", default=3) == 3
