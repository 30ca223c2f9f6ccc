"""Run ``sandcap run`` and collect its report: the only module here that does I/O.

The report travels on a pipe of its own (``--report-fd N``), never mixed with the
command's output, and is the only thing read from sandcap: its human-readable lines are
switched off (``-q``) and never parsed.

The sandbox dies with the call.  If the calling code is interrupted (an exception such as
KeyboardInterrupt or Celery's SoftTimeLimitExceeded, or asyncio cancellation), sandcap gets
SIGTERM, which it forwards to the command, then SIGKILL after ``kill_grace`` seconds.  If
the calling thread or process dies without that (SIGKILL, an engine's hard time limit),
sandcap gets SIGKILL from the kernel (PR_SET_PDEATHSIG), and sandcap's own teardown takes
over (sandcap(1)): in cgroup mode the helper kills and removes the whole sandbox when
sandcap's end of its socket closes.  In rlimit and user-cgroup mode the process killed is
the one started here, sandcap's keeper: its child, the supervisor, then ends the whole
sandbox (background and setsid'd processes included) and still writes the report (verdict
``killed``).  Only if both of sandcap's processes are killed at once (``pkill -9 sandcap``,
a global OOM kill) can the command's descendants outlive them (its main process has
PR_SET_PDEATHSIG too), and no report is written.
"""

from __future__ import annotations

import asyncio
import ctypes
import os
import re
import shutil
import signal
import subprocess
import threading
from typing import Any, Callable, Dict, FrozenSet, List, Optional, Sequence, Tuple

from . import _options
from ._result import Result, SandcapError, from_report, parse_report, python_hint

PR_SET_PDEATHSIG = 1
_libc: Any
try:  # resolved now: nothing may be looked up between fork and exec
    _libc = ctypes.CDLL(None, use_errno=True)
    _prctl = _libc.prctl
    _prctl.restype = ctypes.c_int
except (OSError, AttributeError):  # pragma: no cover - not Linux/glibc
    _prctl = None

_help_cache: Dict[Tuple[str, int, int], FrozenSet[str]] = {}
_help_lock = threading.Lock()


def _locate(sandcap: Optional[str]) -> Tuple[str, str]:
    """The sandcap executable's path, and where the name came from (for messages)."""
    if sandcap:
        name, source = sandcap, "the sandcap= argument"
    elif os.environ.get("SANDCAP"):
        name, source = os.environ["SANDCAP"], "$SANDCAP"
    else:
        name, source = "sandcap", "the default"
    if "/" in name:
        return name, source
    # A bare name is looked up in PATH, as Popen would (and as a shell does).
    path = shutil.which(name)
    if path is None:
        if source == "the default":
            raise SandcapError("sandcap: not found in PATH (install sandcap, or pass "
                               "sandcap= or set SANDCAP to its path)")
        raise SandcapError(f"sandcap: {name!r} (from {source}) is not an executable in "
                           "PATH")
    return path, source


def find_sandcap(sandcap: Optional[str] = None) -> str:
    """The sandcap executable: the argument, else ``$SANDCAP``, else ``sandcap``; a name
    without a ``/`` is looked up in PATH.  Raises :class:`SandcapError` when not found."""
    return _locate(sandcap)[0]


def cli_options(sandcap: Optional[str] = None) -> FrozenSet[str]:
    """The long options ``sandcap run`` knows (``--memory``, ...), from ``sandcap run
    --help``; cached per executable.  Used only to pick the report channel and by tests to
    skip what this sandcap cannot do yet; results never come from human-readable text."""
    return _cli_options(*_locate(sandcap))


def _cli_options(path: str, source: str) -> FrozenSet[str]:
    try:
        st = os.stat(path)
    except OSError as e:
        raise SandcapError(f"sandcap: {path} (from {source}): {e.strerror}") from None
    key = (os.path.realpath(path), st.st_ino, int(st.st_mtime_ns))
    with _help_lock:
        if key in _help_cache:
            return _help_cache[key]
    try:
        p = subprocess.run([path, "run", "--help"], stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise SandcapError(f"sandcap: cannot run {path} run --help (from {source}): "
                           f"{e}") from None
    text = (p.stdout + p.stderr).decode("utf-8", "replace")
    opts = frozenset(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", text))
    if "--report" not in opts and "--report-fd" not in opts:
        raise SandcapError(f"sandcap: {path} (from {source}) run --help lists no --report "
                           "option: is it sandcap?", stderr=p.stderr)
    with _help_lock:
        _help_cache[key] = opts
    return opts


def _pdeathsig_preexec() -> Optional[Callable[[], None]]:
    if _prctl is None:  # pragma: no cover
        return None
    parent = os.getpid()
    prctl = _prctl

    def preexec() -> None:
        # Runs in the child between fork and exec: only a libc call and getppid.
        if prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
            os._exit(125)
        if os.getppid() != parent:  # the caller died before the line above
            os._exit(125)

    return preexec


def _kill_grace(v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f"kill_grace=: expected seconds as a number, got {v!r}")
    if v != v or v < 0 or v == float("inf"):
        raise ValueError(f"kill_grace=: must be a finite number of seconds >= 0, got {v}")
    return float(v)


class _Prepared:
    def __init__(self, argv: Sequence[Any], kw: Dict[str, Any]) -> None:
        self.sandcap, source = _locate(kw.pop("sandcap", None))
        self.kill_grace = _kill_grace(kw.pop("kill_grace", 5.0))
        opts = _cli_options(self.sandcap, source)
        self.inv = _options.build(argv, cli_has_env="--env" in opts, **kw)
        self.report_fd_opt = "--report-fd" in opts
        self.rfd, self.wfd = os.pipe()  # both O_CLOEXEC; pass_fds opens wfd to sandcap only

    def args(self) -> List[str]:
        if self.report_fd_opt:
            rep = f"--report-fd={self.wfd}"
        else:
            # An older sandcap: it opens the path itself, before the command starts, and the
            # command does not inherit the descriptor (sandcap closes all but 0-2).
            rep = f"--report=/dev/fd/{self.wfd}"
        return [self.sandcap, "run", "-q", rep, *self.inv.options, "--", *self.inv.command]

    def close(self) -> None:
        for fd in (self.rfd, self.wfd):
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self.rfd = self.wfd = -1

    def close_write(self) -> None:
        if self.wfd >= 0:
            os.close(self.wfd)
            self.wfd = -1

    def result(self, report: bytes, returncode: int, out: bytes, err: bytes) -> Result:
        if not report:
            msg = err.decode("utf-8", "replace").strip() or f"exit status {returncode}"
            msg = python_hint(msg)
            raise SandcapError(
                msg if msg.startswith("sandcap") else f"sandcap: {msg}",
                returncode=returncode, stdout=out, stderr=err)
        try:
            rep = parse_report(report)
        except ValueError as e:
            raise SandcapError(f"sandcap: unreadable report: {e}", returncode=returncode,
                               stdout=out, stderr=err) from None
        return from_report(rep, out, err)


def _start_error(p: _Prepared, e: OSError) -> SandcapError:
    return SandcapError(f"sandcap: cannot start {p.sandcap}: {e.strerror or e}")


def _read_all(fd: int, sink: List[bytes]) -> None:
    while True:
        b = os.read(fd, 65536)
        if not b:
            return
        sink.append(b)


def run(argv: Sequence[Any], **kw: Any) -> Result:
    """Documented in :func:`sandcap.run` (``sandcap/__init__.py``).  ``_on_start`` (not
    public: sandcap-mcp's cancellation) is called with the sandcap process once started."""
    on_start = kw.pop("_on_start", None)
    p = _Prepared(argv, kw)
    try:
        try:
            proc = subprocess.Popen(
                p.args(),
                stdin=subprocess.PIPE if p.inv.input is not None else subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, pass_fds=(p.wfd,),
                env=p.inv.env, preexec_fn=_pdeathsig_preexec(),
            )
        except OSError as e:
            raise _start_error(p, e) from None
        if on_start is not None:
            on_start(proc)
        chunks: List[bytes] = []
        reader = threading.Thread(target=_read_all, args=(p.rfd, chunks), daemon=True,
                                  name="sandcap-report")
        try:
            p.close_write()
            reader.start()
            out, err = proc.communicate(p.inv.input)
            # Inside the try: an exception (KeyboardInterrupt, a signal handler's) may also
            # come while the report is still being read.
            reader.join()
        except BaseException:
            _terminate(proc, p.kill_grace)
            # sandcap is gone, so the pipe reaches EOF; the reader must be done before
            # its descriptor is closed (never close an fd another thread may be reading).
            if reader.ident is not None:
                reader.join(p.kill_grace)
                if reader.is_alive():
                    p.rfd = -1
            raise
        return p.result(b"".join(chunks), proc.returncode, out, err)
    finally:
        p.close()


def _terminate(proc: "subprocess.Popen[bytes]", grace: float) -> None:
    """SIGTERM to sandcap (it forwards it to the command and tears the sandbox down), then
    SIGKILL after ``grace`` seconds; reaps it."""
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(grace)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    finally:
        for s in (proc.stdin, proc.stdout, proc.stderr):
            if s is not None:
                s.close()


async def run_async(argv: Sequence[Any], **kw: Any) -> Result:
    """Documented in :func:`sandcap.run_async` (``sandcap/__init__.py``)."""
    loop = asyncio.get_running_loop()
    p = _Prepared(argv, kw)
    transport = None
    try:
        try:
            proc = await asyncio.create_subprocess_exec(
                *p.args(),
                stdin=subprocess.PIPE if p.inv.input is not None else subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, pass_fds=(p.wfd,),
                env=p.inv.env, preexec_fn=_pdeathsig_preexec(),
            )
        except OSError as e:
            raise _start_error(p, e) from None
        try:
            p.close_write()
            reader = asyncio.StreamReader()
            transport, _ = await loop.connect_read_pipe(
                lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(p.rfd, "rb", 0))
            p.rfd = -1  # owned by the transport now
            (out, err), report = await asyncio.gather(proc.communicate(p.inv.input),
                                                      reader.read())
        except BaseException:
            await _terminate_async(proc, p.kill_grace)
            raise
        assert proc.returncode is not None
        return p.result(report, proc.returncode, out, err)
    finally:
        if transport is not None:
            transport.close()
        p.close()


async def _discard(stream: Optional[asyncio.StreamReader]) -> None:
    """Read ``stream`` to its end, throwing the data away."""
    if stream is None:
        return
    while await stream.read(65536):
        pass


async def _terminate_async(proc: "asyncio.subprocess.Process", grace: float) -> None:
    """End sandcap after the caller gave up on it (cancellation, an exception): SIGTERM,
    SIGKILL after ``grace`` seconds, and wait until it has exited and its stdout and stderr
    are closed, reading (and discarding) what the command still writes meanwhile.

    Nobody reads those pipes once ``communicate()`` is cancelled: the command would block
    writing to a full pipe, and the transport, paused with unread data, would never see
    the end of the pipes that ``proc.wait()`` waits for (Python 3.11 and later) and that
    must close before asyncio closes the transport (else "unclosed transport" and a
    transport destroyed after its loop).  Only if something still holds the pipes open a
    further ``grace`` seconds after the SIGKILL (the command's descendants, when sandcap's
    two processes were killed at once: sandcap(1)), or when this cleanup is itself
    cancelled, is the transport closed without waiting for them."""
    drains = [asyncio.ensure_future(_discard(s)) for s in (proc.stdout, proc.stderr)]
    if proc.stdin is not None:
        proc.stdin.close()  # the rest of the input is not wanted any more
    settled = False
    try:
        _signal(proc, signal.SIGTERM)
        settled = await _settle(proc, drains, grace)
        if not settled:
            _signal(proc, signal.SIGKILL)
            settled = await _settle(proc, drains, grace)
    finally:
        for d in drains:
            if d.done() and not d.cancelled():
                d.exception()  # retrieved: a pipe error here is of no interest
            d.cancel()
        if not settled:
            # asyncio has no public way to give up on a subprocess's pipes: close its
            # transport (which also SIGKILLs sandcap if it is still running).
            t = getattr(proc, "_transport", None)
            if t is not None:
                t.close()


def _signal(proc: "asyncio.subprocess.Process", sig: int) -> None:
    if proc.returncode is None:
        try:
            proc.send_signal(sig)
        except ProcessLookupError:  # exited, not yet noticed by asyncio
            pass


async def _settle(proc: "asyncio.subprocess.Process", drains: List["asyncio.Future[None]"],
                  timeout: float) -> bool:
    """Wait up to ``timeout`` seconds for sandcap's exit and the end of its output; True
    when both came."""
    waiter = asyncio.ensure_future(proc.wait())
    try:
        await asyncio.wait([waiter, *drains], timeout=timeout)
    finally:
        if not waiter.done():
            waiter.cancel()
    return waiter.done() and all(d.done() for d in drains)
