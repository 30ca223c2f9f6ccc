"""The outcome of one sandbox: :class:`Result` and :class:`SandcapError`.

Built from sandcap's JSON report (``docs/report.md``) only; pure functions, no I/O.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass, field
from typing import Any, Dict, Mapping, Optional, Tuple

REPORT_VERSION = 1

VERDICTS = frozenset(
    {
        "ok", "exit", "signal", "timeout", "cpu-time", "memory", "pids", "fsize", "disk",
        "setup-error", "output", "killed", "total-memory", "total-pids",
        "session-memory",
    }
)
"""Verdicts this package knows.  A newer sandcap may report others; they are passed on."""


class SandcapError(Exception):
    """sandcap could not run the command: it refused (policy, ceiling, an option this
    sandcap does not know, a limit it cannot enforce as asked), the command could not be
    executed, or sandcap itself could not be started.

    ``report`` is sandcap's parsed report when it wrote one (verdict ``setup-error``),
    else ``None``; ``stderr`` holds sandcap's own message(s); ``returncode`` is sandcap's
    exit status (125 refused, 126 not executable, 127 not found), or ``None`` when sandcap
    itself could not be started.
    """

    def __init__(
        self,
        message: str,
        *,
        report: Optional[Dict[str, Any]] = None,
        returncode: Optional[int] = None,
        stdout: bytes = b"",
        stderr: bytes = b"",
    ) -> None:
        super().__init__(message)
        self.message = message
        self.report = report
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr

    def __reduce__(self):  # picklable, so an engine can send it back from a worker
        return (_rebuild_error, (self.message, self.report, self.returncode, self.stdout,
                                 self.stderr))


def _rebuild_error(message, report, returncode, stdout, stderr) -> SandcapError:
    return SandcapError(message, report=report, returncode=returncode, stdout=stdout,
                        stderr=stderr)


@dataclass(frozen=True)
class Result:
    """What happened to one sandboxed command.

    ``verdict`` is sandcap's (``ok``, ``exit``, ``signal``, ``timeout``, ``cpu-time``,
    ``memory``, ``pids``, ``fsize``, ``disk``, ``output``, ...), decided by sandcap from
    evidence; ``exit_code`` and ``signal`` describe how the command's main process ended
    (one of them is ``None``); ``limits_hit`` lists every limit with evidence that it was
    reached; ``usage`` is the report's usage object (``None`` = not measured);
    ``returncode`` is sandcap's own exit status; ``report`` is the whole parsed report.

    Results compare by value (every field) and are not hashable (``report`` and ``usage``
    are mappings).  ``repr()`` shows stdout and stderr longer than 64 bytes as their size
    and first 64 bytes.
    """

    verdict: str
    exit_code: Optional[int]
    signal: Optional[int]
    limits_hit: Tuple[str, ...]
    usage: Mapping[str, Any]
    stdout: bytes
    stderr: bytes
    report: Mapping[str, Any] = field(repr=False)
    returncode: int = 0

    @property
    def ok(self) -> bool:
        """True when the verdict is ``ok`` (the command exited 0 within every limit)."""
        return self.verdict == "ok"

    @property
    def message(self) -> str:
        """sandcap's one-sentence explanation of the verdict."""
        return str(self.report.get("message", ""))

    @property
    def mode(self) -> str:
        """``cgroup``, ``user-cgroup`` or ``rlimit``: what enforced the limits."""
        return str(self.report.get("mode", ""))

    @property
    def enforcement(self) -> Mapping[str, Any]:
        """For each limit set, what enforced it (report key ``enforcement``)."""
        e = self.report.get("enforcement", {})
        return e if isinstance(e, dict) else {}

    @property
    def stdout_text(self) -> str:
        """stdout decoded as UTF-8 (invalid bytes replaced)."""
        return self.stdout.decode("utf-8", "replace")

    @property
    def stderr_text(self) -> str:
        """stderr decoded as UTF-8 (invalid bytes replaced)."""
        return self.stderr.decode("utf-8", "replace")

    def to_dict(self) -> Dict[str, Any]:
        """A JSON-serialisable form, e.g. for a Celery result: ``{"report": ...,
        "stdout": str, "stderr": str}``.  Output that is not valid UTF-8 is also given
        exactly as ``stdout_base64``/``stderr_base64`` (base64 of the bytes), with
        ``stdout``/``stderr`` then its text with invalid bytes replaced (U+FFFD), so
        :meth:`from_dict` gives back the same bytes either way."""
        return {"report": dict(self.report), **output_fields(self.stdout, self.stderr)}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Result":
        """Inverse of :meth:`to_dict`: ``stdout_base64``/``stderr_base64`` when present,
        else the text of ``stdout``/``stderr`` encoded as UTF-8 (so a dict without the
        base64 keys, as written before they existed, still reads)."""
        return from_report(d["report"], _output(d, "stdout"), _output(d, "stderr"))

    def __repr__(self) -> str:
        return (f"Result(verdict={self.verdict!r}, exit_code={self.exit_code!r}, "
                f"signal={self.signal!r}, limits_hit={self.limits_hit!r}, "
                f"returncode={self.returncode!r}, stdout={_preview(self.stdout)}, "
                f"stderr={_preview(self.stderr)})")

    # Equality compares every field (report and usage included); those are mappings, so a
    # Result is not hashable: explicitly so, rather than dataclass's generated __hash__,
    # which fails on the first dict it meets.
    __hash__ = None  # type: ignore[assignment]


_PREVIEW = 64


def _preview(b: bytes) -> str:
    """Short bytes as their repr; longer ones as their size and first bytes."""
    if len(b) <= _PREVIEW:
        return repr(b)
    return f"<{len(b)} bytes: {b[:_PREVIEW]!r}...>"


def output_fields(stdout: bytes, stderr: bytes) -> Dict[str, str]:
    """The JSON-safe output keys of :meth:`Result.to_dict` (also used for a refusal's
    dict by ``sandcap.celery``)."""
    d = {}
    for key, b in (("stdout", stdout), ("stderr", stderr)):
        try:
            d[key] = b.decode("utf-8")
        except UnicodeDecodeError:
            d[key] = b.decode("utf-8", "replace")
            d[key + "_base64"] = base64.b64encode(b).decode("ascii")
    return d


def _output(d: Mapping[str, Any], key: str) -> bytes:
    b64 = d.get(key + "_base64")
    if b64 is not None:
        if not isinstance(b64, str):
            raise ValueError(f"{key}_base64 is not a string")
        try:
            return base64.b64decode(b64, validate=True)
        except binascii.Error as e:
            raise ValueError(f"{key}_base64 is not base64: {e}") from None
    text = d.get(key, "")
    if not isinstance(text, str):
        raise ValueError(f"{key} is not a string")
    return text.encode("utf-8")


def parse_report(data: bytes) -> Dict[str, Any]:
    """Parse the bytes sandcap wrote on the report channel.  Raises ValueError if they are
    not one JSON report of a format version this package reads."""
    text = data.decode("utf-8")  # sandcap escapes every byte that is not valid UTF-8
    rep = json.loads(text)
    if not isinstance(rep, dict):
        raise ValueError("the report is not a JSON object")
    if rep.get("sandcap_report") != REPORT_VERSION:
        raise ValueError(f"report format {rep.get('sandcap_report')!r} is not "
                         f"{REPORT_VERSION}: this package is too old for this sandcap")
    for k in ("verdict", "sandcap_exit"):
        if k not in rep:
            raise ValueError(f"the report has no {k!r}")
    return rep


def python_hint(message: str) -> str:
    """sandcap's message, plus the Python spelling where it tells the caller to pass
    --fallback."""
    if "pass --fallback" in message:
        return f"{message} (in Python: fallback=True)"
    return message


def _opt_int(rep: Mapping[str, Any], key: str) -> Optional[int]:
    v = rep.get(key)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int):
        raise ValueError(f"report key {key!r} is not an integer or null: {v!r}")
    return v


def from_report(rep: Mapping[str, Any], stdout: bytes, stderr: bytes) -> Result:
    """Build a :class:`Result`, or raise :class:`SandcapError` for a ``setup-error``."""
    verdict = rep.get("verdict")
    if not isinstance(verdict, str):
        raise ValueError(f"report verdict is not a string: {verdict!r}")
    code = _opt_int(rep, "sandcap_exit")
    if verdict == "setup-error":
        raise SandcapError(
            f"sandcap: {python_hint(str(rep.get('message') or 'setup error'))}",
            report=dict(rep), returncode=code, stdout=stdout, stderr=stderr,
        )
    hit = rep.get("limits_hit") or []
    usage = rep.get("usage") or {}
    if not isinstance(hit, list) or not isinstance(usage, dict):
        raise ValueError("report limits_hit/usage have the wrong type")
    return Result(
        verdict=verdict,
        exit_code=_opt_int(rep, "exit_code"),
        signal=_opt_int(rep, "signal"),
        limits_hit=tuple(str(h) for h in hit),
        usage=usage,
        stdout=stdout,
        stderr=stderr,
        report=dict(rep),
        returncode=code if code is not None else 0,
    )
