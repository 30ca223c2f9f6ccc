"""Run a command in a sandcap sandbox and get sandcap's verdict as a Python object.

::

    import sandcap
    r = sandcap.run(["python3", "-c", "print('hello')"], memory="128M", timeout=30,
                    net="none", env_clear=True, output_limit="1M", fallback=True)
    if r.verdict != "ok":
        print(r.verdict, r.limits_hit, r.message)

``fallback=True`` accepts sandcap's documented substitutes for limits this host cannot
enforce as asked (without the sandcap helper, ``memory`` becomes RLIMIT_AS; see
python/README.md, "Hosts without the helper").

The package drives the installed ``sandcap`` command (``sandcap run --report-fd N``) and
reads only its JSON report (``docs/report.md``), never its human-readable text.  Standard
library only; Python 3.9 or later.  ``sandcap.dask`` and ``sandcap.celery`` run tool calls
in sandboxes on the workers of those engines.  :class:`Session` runs many calls under one
session (one TTL, one CPU-time budget, one workspace); ``sandcap-mcp`` (``sandcap.mcp``)
serves a session to MCP clients.
"""

from __future__ import annotations

import os
import re
import subprocess
from typing import Any, Optional, Sequence, Union

from . import _proc
from ._options import Duration, EnvArg, PathArg, Percent, Size
from ._proc import cli_options, find_sandcap
from ._result import Result, SandcapError
from ._session import Session

__version__ = "0.1.0"
__all__ = [
    "run", "run_async", "Result", "SandcapError", "Session", "cli_options", "find_sandcap",
    "sandbox_slots",
]


def run(
    argv: Sequence[Union[str, "os.PathLike[str]"]],
    *,
    memory: Optional[Size] = None,
    cpu: Optional[Percent] = None,
    pids: Optional[Union[int, str]] = None,
    disk: Optional[Size] = None,
    timeout: Optional[Duration] = None,
    grace: Optional[Duration] = None,
    cpu_time: Optional[Duration] = None,
    net: Optional[str] = None,
    allow: Union[str, Sequence[str], None] = None,
    fs: Optional[str] = None,
    rw: Union[PathArg, Sequence[PathArg], None] = None,
    ro: Union[PathArg, Sequence[PathArg], None] = None,
    env: Optional[EnvArg] = None,
    env_clear: bool = False,
    env_deny: Union[str, Sequence[str], None] = None,
    cwd: Optional[PathArg] = None,
    input: Union[bytes, str, None] = None,
    output_limit: Optional[Size] = None,
    profile: Optional[str] = None,
    fallback: bool = False,
    no_cgroup: bool = False,
    extra_args: Sequence[str] = (),
    sandcap: Optional[str] = None,
    kill_grace: float = 5.0,
) -> Result:
    """Run ``argv`` under ``sandcap run`` with the given limits; wait; return its
    :class:`Result`.

    Every argument maps to one ``sandcap run`` option (sandcap(1) says what each enforces
    and how): ``memory`` → ``--memory``, ``cpu`` → ``--cpu`` (int: percent of one core),
    ``pids`` → ``--pids``, ``disk`` → ``--disk``, ``timeout`` → ``--timeout``, ``grace``
    → ``--grace``, ``cpu_time`` → ``--cpu-time``, ``net`` → ``--net``, ``allow`` →
    ``--allow`` (each), ``fs`` → ``--fs``, ``rw``/``ro`` → ``--rw``/``--ro`` (each),
    ``env_clear`` → ``--env-clear``, ``env_deny`` → ``--env-deny`` (each), ``cwd`` →
    ``--chdir`` (``"@workspace"`` for the workspace), ``output_limit`` →
    ``--output-limit``, ``profile`` → ``--profile``, ``fallback`` → ``--fallback``,
    ``no_cgroup`` → ``--no-cgroup``; ``extra_args`` are added as given.  Sizes are bytes
    (int) or strings such as ``"64M"``; durations are seconds (int or float) or strings
    such as ``"250ms"``.  Numbers outside sandcap's ranges raise ValueError naming the
    argument: sizes 1 byte to 1 EiB (2**60), ``timeout`` and ``cpu_time`` more than 0 and
    at most 366 days, ``grace`` 0 to 366 days, ``cpu`` 1 to 102400, ``pids`` 1 to 4194304;
    strings are passed on as written, for sandcap to check.

    ``fallback=True`` accepts sandcap's documented substitutes for limits it cannot enforce
    as asked (without the helper: ``memory`` → RLIMIT_AS, ``pids`` → RLIMIT_NPROC, ``disk``
    → RLIMIT_FSIZE, ``cpu`` not enforced); without it such a call raises SandcapError.
    RLIMIT_NPROC counts every process of the user, so parallel calls share one ``pids``
    budget, and it does not bind root: as root, sandcap refuses ``pids`` even then.

    ``sandcap`` names the sandcap executable (default ``$SANDCAP``, else ``sandcap``): a
    path, or a name looked up in PATH.  ``kill_grace`` (seconds, a number >= 0) is how long
    an interrupted call waits after SIGTERM before it SIGKILLs sandcap.

    ``env`` is a mapping of variable names to values (``None``: pass the caller's value
    through) or a sequence of names to pass through; each becomes ``--env NAME``.  Values
    reach the command through sandcap's environment, not its command line (which every
    local user can read); only for names the dynamic loader or sandcap itself act on
    (``LD_*``, ``SANDCAP_*``, ``MALLOC_*``, ``GCONV_PATH``, ``GLIBC_TUNABLES``) is the value
    given as ``--env NAME=VALUE`` instead.

    ``input`` (bytes or str) is the command's stdin; without it stdin is ``/dev/null``.
    stdout and stderr are captured whole (bound them with ``output_limit``).

    The sandbox dies with the call: an exception in the waiting thread (KeyboardInterrupt,
    an engine's soft time limit) sends SIGTERM to sandcap and SIGKILL ``kill_grace``
    seconds later; the death of the calling thread or process kills sandcap
    (PR_SET_PDEATHSIG).

    A limit the sandbox reached is *not* an exception: look at ``verdict``.  Raises
    :class:`SandcapError` (with ``.report`` when sandcap wrote one) when the command did
    not run: sandcap refused (policy, ceiling, a limit it cannot enforce as asked, an
    option it does not know), the command was not found or not executable, or sandcap
    could not be started.  Raises ValueError/TypeError for malformed arguments.
    """
    kw = dict(locals())
    del kw["argv"]
    return _proc.run(argv, **kw)


async def run_async(
    argv: Sequence[Union[str, "os.PathLike[str]"]],
    *,
    memory: Optional[Size] = None,
    cpu: Optional[Percent] = None,
    pids: Optional[Union[int, str]] = None,
    disk: Optional[Size] = None,
    timeout: Optional[Duration] = None,
    grace: Optional[Duration] = None,
    cpu_time: Optional[Duration] = None,
    net: Optional[str] = None,
    allow: Union[str, Sequence[str], None] = None,
    fs: Optional[str] = None,
    rw: Union[PathArg, Sequence[PathArg], None] = None,
    ro: Union[PathArg, Sequence[PathArg], None] = None,
    env: Optional[EnvArg] = None,
    env_clear: bool = False,
    env_deny: Union[str, Sequence[str], None] = None,
    cwd: Optional[PathArg] = None,
    input: Union[bytes, str, None] = None,
    output_limit: Optional[Size] = None,
    profile: Optional[str] = None,
    fallback: bool = False,
    no_cgroup: bool = False,
    extra_args: Sequence[str] = (),
    sandcap: Optional[str] = None,
    kill_grace: float = 5.0,
) -> Result:
    """:func:`run` for asyncio: the same arguments, result and errors.  Cancelling the
    awaiting task (``task.cancel()``, ``asyncio.wait_for``'s timeout) ends the sandbox
    (SIGTERM to sandcap, SIGKILL after ``kill_grace``) before the cancellation propagates:
    what the command still writes meanwhile is read and thrown away, and the call returns
    once sandcap has exited and its output pipes are closed."""
    kw = dict(locals())
    del kw["argv"]
    return await _proc.run_async(argv, **kw)


def sandbox_slots(
    *, sandcap: Optional[str] = None, policy: Optional[str] = None,
    default: Optional[int] = None,
) -> int:
    """How many sandboxes this user may run at once: the ``sandboxes`` ceiling of the
    admin's policy (``sandcap policy show``), to size a worker's concurrency by.

    Without a readable policy (no helper installed: rlimit mode has no such ceiling),
    returns ``default``, or the number of CPUs when ``default`` is None.  ``policy``
    names another policy file (for tests).
    """
    path = find_sandcap(sandcap)
    args = [path, "policy", "show"] + ([policy] if policy else [])
    fallback_n = default if default is not None else (os.cpu_count() or 1)
    try:
        p = subprocess.run(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return fallback_n
    if p.returncode != 0:
        return fallback_n
    # The table row "sandboxes  N  [section]" (the test suite checks this against a
    # known policy, so a change of that table fails there first).
    m = re.search(rb"^sandboxes\s+(\S+)", p.stdout, re.M)
    if m is None:
        raise SandcapError("sandcap: 'policy show' printed no sandboxes ceiling",
                           stdout=p.stdout)
    return int(m.group(1)) if m.group(1).isdigit() else fallback_n
