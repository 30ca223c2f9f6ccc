"""``sandcap.Session``: many calls under one sandcap session (``sandcap session``).

A session is started by ``sandcap session start``; each :meth:`Session.run` is ``sandcap run
--session ID``, so it returns the same :class:`~sandcap.Result` as :func:`sandcap.run`;
:meth:`Session.end` (or leaving the ``with`` block) ends it and returns its report.
"""

from __future__ import annotations

import json
import os
import subprocess
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from . import _proc
from ._options import Duration, Size, _duration, _size
from ._proc import find_sandcap
from ._result import Result, SandcapError

_START_TIMEOUT = 60  # seconds: session start, show and end wait at most this long


class Session:
    """A sandcap session: one TTL, one CPU-time budget across calls, per-call defaults and
    ceilings, and a workspace kept across calls (each call's working directory).

    ``ttl`` → ``--ttl``, ``cpu_time`` → ``--cpu-time`` (the budget of all calls together),
    ``timeout`` → ``--timeout`` and ``address_space`` → ``--as`` (each call's default and
    ceiling), ``fs``/``net`` → ``--fs``/``--net`` (every call's), ``name`` → ``--name``,
    ``report`` → ``--report`` (where the keeper writes the report at the TTL), ``rw`` → one
    ``--rw`` per path (with ``fs`` ro or strict: writable by every call; :attr:`rw` lists
    them, absolute),
    ``no_cgroup`` → ``--no-cgroup``.  ``memory``, ``pids``, ``cpu`` and ``disk`` are passed
    on: the session's cgroup limits in cgroup mode (the helper), its scope's limits in
    user-cgroup mode (``disk`` refused), all refused in rlimit mode (SandcapError says why).

    The session starts when the object is made; ``with Session(...) as s:`` ends it on exit.
    A session that is never ended is ended by its keeper at its TTL (default 1 h).
    """

    def __init__(
        self,
        *,
        ttl: Optional[Duration] = None,
        cpu_time: Optional[Duration] = None,
        timeout: Optional[Duration] = None,
        address_space: Optional[Size] = None,
        memory: Optional[Size] = None,
        pids: Optional[Union[int, str]] = None,
        cpu: Optional[Union[int, str]] = None,
        disk: Optional[Size] = None,
        fs: Optional[str] = None,
        net: Optional[str] = None,
        name: Optional[str] = None,
        report: Optional[str] = None,
        rw: Sequence[Union[str, "os.PathLike[str]"]] = (),
        no_cgroup: bool = False,
        sandcap: Optional[str] = None,
    ) -> None:
        self.sandcap = find_sandcap(sandcap)
        args: List[str] = [self.sandcap, "session", "start", "--json"]
        for opt, pname, v, conv in (
            ("--ttl", "ttl", ttl, _duration), ("--cpu-time", "cpu_time", cpu_time, _duration),
            ("--timeout", "timeout", timeout, _duration),
            ("--as", "address_space", address_space, _size),
            ("--memory", "memory", memory, _size), ("--disk", "disk", disk, _size),
        ):
            if v is not None:
                args += [opt, conv(pname, v)]
        for opt, v in (("--pids", pids), ("--cpu", cpu), ("--fs", fs), ("--net", net),
                       ("--name", name), ("--report", report)):
            if v is not None:
                args += [opt, str(v)]
        if isinstance(rw, (str, os.PathLike)):
            raise TypeError("rw: expected a list of paths")
        for p in rw:
            args += ["--rw", os.fspath(p)]
        if no_cgroup:
            args.append("--no-cgroup")
        self.info = self._call(args)
        self.id: str = self.info["id"]
        self.workspace: str = self.info["workspace"]
        self.keeper_pid: int = self.info["keeper_pid"]
        self.rw: List[str] = list(self.info.get("rw", []))
        self._final: Optional[Dict[str, Any]] = None

    def _call(self, args: List[str]) -> Dict[str, Any]:
        try:
            p = subprocess.run(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, timeout=_START_TIMEOUT)
        except (OSError, subprocess.TimeoutExpired) as e:
            raise SandcapError(f"sandcap: {' '.join(args[1:3])}: {e}") from None
        if p.returncode != 0:
            msg = p.stderr.decode("utf-8", "replace").strip() or f"exit {p.returncode}"
            raise SandcapError(msg, returncode=p.returncode, stdout=p.stdout, stderr=p.stderr)
        try:
            return json.loads(p.stdout)
        except ValueError as e:
            raise SandcapError(f"sandcap: {args[1]} {args[2]}: unreadable JSON: {e}") from None

    def _run_kw(self, kw: Dict[str, Any]) -> Dict[str, Any]:
        if self._final is not None:
            raise SandcapError(f"sandcap: session {self.id} has ended")
        kw = dict(kw)
        kw["extra_args"] = ["--session", self.id, *kw.get("extra_args", ())]
        kw.setdefault("sandcap", self.sandcap)
        return kw

    def run(self, argv: Sequence[Union[str, "os.PathLike[str]"]], **kw: Any) -> Result:
        """One call in the session: :func:`sandcap.run`'s arguments and result.  Its limits
        may not exceed the session's (SandcapError says which); once the CPU-time budget is
        spent, or after the TTL, calls raise SandcapError with the reason."""
        return _proc.run(argv, **self._run_kw(kw))

    async def run_async(self, argv: Sequence[Union[str, "os.PathLike[str]"]],
                        **kw: Any) -> Result:
        """:meth:`run` for asyncio (calls of a session run one at a time: a second call
        waits for the first)."""
        return await _proc.run_async(argv, **self._run_kw(kw))

    def report(self) -> Dict[str, Any]:
        """The session's report (docs/report.md, "Session reports"): every call's verdict
        and usage, and the totals; after :meth:`end`, the final one."""
        if self._final is not None:
            return self._final
        return self._call([self.sandcap, "session", "show", self.id, "--json"])

    def end(self) -> Dict[str, Any]:
        """Kill what runs, remove the session and its workspace, return the report.
        Idempotent."""
        if self._final is None:
            self._final = self._call([self.sandcap, "session", "end", self.id, "--json"])
        return self._final

    @property
    def ended(self) -> bool:
        return self._final is not None

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, exc_type: Any, *exc: Any) -> None:
        try:
            self.end()
        except SandcapError as e:
            # Already gone (its TTL passed): nothing to end.  Never hide the body's error.
            if exc_type is None and e.returncode != 1:
                raise

    def __repr__(self) -> str:
        return f"<sandcap.Session {self.id}{' ended' if self.ended else ''}>"


def run_calls(session: Session, calls: Sequence[Sequence[str]],
              options: Optional[Dict[str, Any]] = None) -> Tuple[List[Result],
                                                                   Optional[SandcapError]]:
    """Run calls one after another in session with the same options (:meth:`Session.run`'s
    keyword arguments), stopping at the first that sandcap refuses (its CPU-time budget
    spent, its TTL passed, a ceiling): the results so far and that refusal (or ``None``).
    The engines' helpers (``sandcap.dask``, ``sandcap.celery``) use it."""
    results: List[Result] = []
    for argv in calls:
        try:
            results.append(session.run(list(argv), **(options or {})))
        except SandcapError as e:
            return results, e
    return results, None
