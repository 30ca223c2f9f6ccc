"""Tool calls in sandcap sandboxes on Celery workers (python3-celery).

Celery decides *where* a task runs; sandcap bounds *what it may use* there, including every
process the tool starts, and survives Celery's own limits correctly: a soft time limit
(``SoftTimeLimitExceeded`` in the task) ends the sandbox before the task fails, and a hard
``time_limit`` (Celery TERMs, then KILLs the pool process) takes sandcap down with it
(``PR_SET_PDEATHSIG``), so the sandbox dies with the call.  A worker's concurrency is the
number of sandboxes its user may run at once (the policy's ``sandboxes`` ceiling)::

    from celery import Celery
    import sandcap.celery
    app = Celery("tools", broker=..., backend=...)
    sandcap.celery.configure(app)                # worker_concurrency = sandbox slots
    tool_call = sandcap.celery.register(app)     # the task "sandcap.tool_call"
    res = tool_call.delay(["python3", "tool.py"], {"memory": "256M", "timeout": 30}).get()
    print(res["report"]["verdict"], res["stdout"])

The task's result is JSON-safe: ``{"report": <sandcap's report>, "stdout": str,
"stderr": str}``, plus ``stdout_base64``/``stderr_base64`` (the exact bytes) for output
that is not valid UTF-8 (:meth:`sandcap.Result.to_dict`; ``Result.from_dict`` turns it
back into the same bytes).
A call sandcap refused returns its ``setup-error`` report the same way, with an ``error``
key holding sandcap's message; only when sandcap wrote no report at all (it could not
start, or an older sandcap refused) does the task fail with :class:`sandcap.SandcapError`.

A task that makes several calls runs them in one :class:`sandcap.Session` (one budget, one
workspace kept across its calls, one report)::

    calls = sandcap.celery.register_session_calls(app)   # the task "sandcap.session_calls"
    res = calls.delay([["make"], ["make", "test"]], {"cpu_time": "1m"}, {"timeout": 30}).get()
    # {"results": [to_dict(), ...], "refused": None or {"error", "report"}, "report": ...}

    @sandcap.celery.session_task(app, session={"cpu_time": "2m"}, time_limit=600)
    def fix(session, repo):                               # session: a sandcap.Session
        session.run(["git", "clone", "-q", repo, "."])
        return session.run(["make", "test"]).verdict      # JSON-safe
    fix.delay(repo).get()                                 # {"value": "ok", "report": ...}

The session ends with the task (the running call killed), also when it raises, e.g. on
Celery's soft time limit; its TTL defaults to the task's ``time_limit``, so that when Celery
kills the pool process at the hard limit, the session's keeper ends the session then.  The
worker needs a private ``XDG_RUNTIME_DIR`` (docs/usage.md, "Sessions").
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional, Sequence

import sandcap
from sandcap._result import output_fields
from sandcap._session import run_calls

TASK_NAME = "sandcap.tool_call"
SESSION_TASK_NAME = "sandcap.session_calls"


def worker_concurrency(slots: Optional[int] = None, **kw: Any) -> int:
    """``slots``, else the policy's ``sandboxes`` ceiling (:func:`sandcap.sandbox_slots`)."""
    return int(slots if slots is not None else sandcap.sandbox_slots(**kw))


def configure(app: Any, slots: Optional[int] = None, **kw: Any) -> None:
    """Tie the worker to sandcap: ``worker_concurrency`` = sandbox slots, one task
    reserved at a time per process (``worker_prefetch_multiplier = 1``), so no call waits
    behind a long one on a busy process while another is idle."""
    app.conf.worker_concurrency = worker_concurrency(slots, **kw)
    app.conf.worker_prefetch_multiplier = 1


def tool_call(argv: Sequence[str], options: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """The task body: :func:`sandcap.run` with ``options``; returns the JSON-safe result."""
    try:
        return sandcap.run(list(argv), **(options or {})).to_dict()
    except sandcap.SandcapError as e:
        if e.report is None:
            raise
        return {"report": e.report, **output_fields(e.stdout, e.stderr),
                "error": e.message}


def register(app: Any, name: str = TASK_NAME, **task_options: Any) -> Any:
    """Register :func:`tool_call` as a task of ``app`` (``task_options`` such as
    ``time_limit``, ``soft_time_limit``, ``acks_late`` go to ``app.task``); returns it."""
    return app.task(name=name, **task_options)(tool_call)


def _session_options(session: Optional[Dict[str, Any]],
                     task_options: Dict[str, Any]) -> Dict[str, Any]:
    """The Session's options; its TTL the task's hard time limit unless given."""
    opts = dict(session or {})
    if "ttl" not in opts and task_options.get("time_limit"):
        opts["ttl"] = f"{int(task_options['time_limit'] * 1000)}ms"
    return opts


def session_calls(calls: Sequence[Sequence[str]], session: Optional[Dict[str, Any]] = None,
                  options: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """The task body of :func:`register_session_calls`: the calls one after another in one
    session started with ``session`` (:class:`sandcap.Session`'s keyword arguments), each
    with ``options``, stopping at the first sandcap refuses; JSON-safe ``{"results":
    [Result.to_dict(), ...], "refused": None or {"error": message, "report": ...},
    "report": the session's report}``."""
    with sandcap.Session(**(session or {})) as s:
        results, refused = run_calls(s, calls, options)
        report = s.end()
    return {"results": [r.to_dict() for r in results],
            "refused": None if refused is None else {"error": refused.message,
                                                     "report": refused.report},
            "report": report}


def register_session_calls(app: Any, name: str = SESSION_TASK_NAME,
                           session: Optional[Dict[str, Any]] = None,
                           **task_options: Any) -> Any:
    """Register :func:`session_calls` as a task of ``app``; ``session`` gives defaults the
    caller's ``session`` argument overrides (the TTL defaults to ``time_limit``)."""
    defaults = _session_options(session, task_options)

    def body(calls: Sequence[Sequence[str]], session: Optional[Dict[str, Any]] = None,
             options: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
        return session_calls(calls, {**defaults, **(session or {})}, options)

    return app.task(name=name, **task_options)(body)


def session_task(app: Any, session: Optional[Dict[str, Any]] = None, name: Optional[str] = None,
                 **task_options: Any) -> Callable[[Callable[..., Any]], Any]:
    """A decorator: ``fn(session, *args, **kwargs)`` becomes a task of ``app`` (named
    ``name``, else after ``fn``) that runs it with a :class:`sandcap.Session` started with
    ``session`` and ended afterwards, also when ``fn`` raises; the task returns ``{"value":
    fn's result (JSON-safe), "report": the session's report}``."""
    opts = _session_options(session, task_options)

    def deco(fn: Callable[..., Any]) -> Any:
        def body(*args: Any, **kwargs: Any) -> Dict[str, Any]:
            with sandcap.Session(**opts) as s:
                value = fn(s, *args, **kwargs)
                report = s.end()
            return {"value": value, "report": report}

        # Not functools.wraps: Celery checks a call's arguments against the signature,
        # which is fn's without its first (the session).
        body.__name__, body.__doc__, body.__module__ = fn.__name__, fn.__doc__, fn.__module__

        return app.task(name=name or f"{fn.__module__}.{fn.__name__}", **task_options)(body)

    return deco
