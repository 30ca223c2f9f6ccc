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
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Sequence

import sandcap
from sandcap._result import output_fields

TASK_NAME = "sandcap.tool_call"


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
