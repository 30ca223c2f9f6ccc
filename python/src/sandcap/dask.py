"""Tool calls in sandcap sandboxes on Dask workers (python3-distributed).

Dask decides *where* a task runs; sandcap bounds *what it may use* there, including every
process the tool starts (Dask's own memory check reads the worker's RSS only).  Each
worker offers as many ``sandcap`` resource slots as its user may run sandboxes at once
(the policy's ``sandboxes`` ceiling), and every tool call takes one slot, so the scheduler
never sends a worker more sandboxes than sandcap would accept::

    # on each node:  dask worker tcp://SCHEDULER:8786 --nthreads 4 --resources sandcap=4
    from distributed import Client
    import sandcap.dask
    client = Client("tcp://SCHEDULER:8786")
    r = sandcap.dask.submit(client, ["python3", "tool.py"], memory="256M", timeout=30).result()
    print(r.verdict, r.report["usage"])

``submit`` returns a Dask future of a :class:`sandcap.Result`; a call sandcap refused
raises :class:`sandcap.SandcapError` (with its report) from ``future.result()``.  The
sandbox lives exactly as long as the call: if the worker's thread or process dies, the
kernel kills sandcap (see :func:`sandcap.run`).

A task that makes several calls (an agent's task: clone, build, test) runs them in one
:class:`sandcap.Session` on one worker, under one budget and in one workspace::

    def fix(session, repo):                 # runs on the worker
        session.run(["git", "clone", "-q", repo, "."])
        return session.run(["make", "test"]).verdict

    f = sandcap.dask.submit_session(client, fix, repo,
                                    session={"ttl": "10m", "cpu_time": "2m", "timeout": "60s"})
    f.result()   # {"value": "ok", "report": the session's report (every call, the totals)}

    f = sandcap.dask.submit_calls(client, [["make"], ["make", "test"]],
                                  session={"cpu_time": "1m"}, timeout=30)
    f.result()   # {"results": [Result, ...], "refused": None or sandcap's reason, "report": ...}

The session takes one ``sandcap`` slot (its calls run one at a time) and ends with the
task, the running call killed, when the function returns or raises; should the worker die,
the session's keeper ends it at its TTL (give a ``ttl`` near the task's expected length).
The worker needs a private ``XDG_RUNTIME_DIR`` (docs/usage.md, "Sessions").
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional, Sequence

import sandcap
from sandcap._session import run_calls

RESOURCE = "sandcap"
"""The Dask worker resource that counts sandbox slots."""


def worker_resources(slots: Optional[int] = None, **kw: Any) -> Dict[str, float]:
    """``{"sandcap": N}`` for a worker (``LocalCluster(resources=...)``, ``Worker(
    resources=...)``, or ``dask worker --resources sandcap=N``): N is ``slots``, else the
    policy's ``sandboxes`` ceiling for this user (:func:`sandcap.sandbox_slots`, which
    takes the same keyword arguments).  Give the worker at least N threads."""
    return {RESOURCE: float(slots if slots is not None else sandcap.sandbox_slots(**kw))}


def tool_call(argv: Sequence[str], options: Optional[Dict[str, Any]] = None) -> sandcap.Result:
    """What runs on the worker: :func:`sandcap.run` with ``options`` as keyword arguments."""
    return sandcap.run(argv, **(options or {}))


def submit(client: Any, argv: Sequence[str], *, dask_options: Optional[Dict[str, Any]] = None,
           **options: Any) -> Any:
    """Submit one tool call: ``argv`` runs under :func:`sandcap.run` with ``options`` on a
    worker with a free ``sandcap`` slot.  ``dask_options`` go to ``client.submit`` (e.g.
    ``key``, ``workers``, ``priority``); the call is never treated as pure (each submit
    runs)."""
    kw = dict(dask_options or {})
    kw.setdefault("pure", False)
    kw.setdefault("resources", {RESOURCE: 1})
    return client.submit(tool_call, list(argv), options, **kw)


def map_calls(client: Any, calls: Sequence[Sequence[str]], **options: Any) -> list:
    """Submit many tool calls with the same options; returns their futures in order."""
    return [submit(client, argv, **options) for argv in calls]


def session_task(fn: Callable[..., Any], args: Sequence[Any] = (),
                 kwargs: Optional[Dict[str, Any]] = None,
                 session: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """What runs on the worker: ``fn(s, *args, **kwargs)`` with ``s`` a
    :class:`sandcap.Session` started with ``session`` (its keyword arguments) and ended
    afterwards, also when ``fn`` raises; returns ``{"value": fn's result, "report": the
    session's final report}``."""
    with sandcap.Session(**(session or {})) as s:
        value = fn(s, *args, **(kwargs or {}))
        report = s.end()
    return {"value": value, "report": report}


def submit_session(client: Any, fn: Callable[..., Any], *args: Any,
                   session: Optional[Dict[str, Any]] = None,
                   dask_options: Optional[Dict[str, Any]] = None, **kwargs: Any) -> Any:
    """Submit a task that makes its calls in one session: a future of
    :func:`session_task`'s result.  ``dask_options`` as for :func:`submit`."""
    kw = dict(dask_options or {})
    kw.setdefault("pure", False)
    kw.setdefault("resources", {RESOURCE: 1})
    return client.submit(session_task, fn, args, kwargs, session, **kw)


def calls_task(calls: Sequence[Sequence[str]], options: Optional[Dict[str, Any]] = None,
               session: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """What runs on the worker for :func:`submit_calls`."""
    with sandcap.Session(**(session or {})) as s:
        results, refused = run_calls(s, calls, options)
        report = s.end()
    return {"results": results, "refused": None if refused is None else refused.message,
            "report": report}


def submit_calls(client: Any, calls: Sequence[Sequence[str]], *,
                 session: Optional[Dict[str, Any]] = None,
                 dask_options: Optional[Dict[str, Any]] = None, **options: Any) -> Any:
    """Submit calls to run one after another in one session, each with ``options``
    (:meth:`sandcap.Session.run`'s), stopping at the first sandcap refuses: a future of
    ``{"results": [Result, ...], "refused": None or sandcap's reason, "report": ...}``."""
    kw = dict(dask_options or {})
    kw.setdefault("pure", False)
    kw.setdefault("resources", {RESOURCE: 1})
    return client.submit(calls_task, [list(a) for a in calls], options, session, **kw)
