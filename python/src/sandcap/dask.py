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
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Sequence

import sandcap

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
