#!/usr/bin/env python3
"""Tool calls in sandcap sandboxes on a Dask cluster (python3-distributed).

    python3 tool_calls.py [--fallback]          # scheduler + 2 workers on 127.0.0.1, here
    python3 tool_calls.py tcp://127.0.0.1:8786  # an existing cluster, e.g. started with
        dask-scheduler --host 127.0.0.1 --port 8786 --dashboard-address :0 &
        dask-worker tcp://127.0.0.1:8786 --nthreads 2 --resources sandcap=2 &   # per node

Each worker offers "sandcap" resource slots (sandcap.dask.worker_resources(): the policy's
sandboxes ceiling for the worker's user), and each tool call takes one, so no worker is
sent more sandboxes than sandcap will run.  Needs sandcap in PATH (or $SANDCAP), and the
sandcap package importable (pip install ./python, or PYTHONPATH=python/src).  Without the
helper (rlimit mode) --memory needs fallback=True (RLIMIT_AS); see docs/fleet.md.
"""

import collections
import sys

from distributed import Client, LocalCluster

import sandcap
import sandcap.dask

TOOL = "import sys; print('tool call', sys.argv[1], 'says hello')"
HOG = "b = bytearray(200 * 1024 * 1024)"
PY = sys.executable  # the workers run the same Python


def main() -> None:
    args = [a for a in sys.argv[1:] if a != "--fallback"]
    if args:
        client = Client(args[0])
    else:
        client = Client(LocalCluster(n_workers=2, threads_per_worker=2, host="127.0.0.1",
                                     dashboard_address=None,
                                     resources=sandcap.dask.worker_resources(2)))
    # Without the helper (rlimit mode), --fallback accepts RLIMIT_AS for --memory.
    limits = {"memory": "64M", "timeout": 30, "net": "none",
              "fallback": "--fallback" in sys.argv}
    futures = [sandcap.dask.submit(client, [PY, "-c", TOOL, str(i)], **limits)
               for i in range(10)]
    futures += [sandcap.dask.submit(client, [PY, "-c", HOG], **limits)]
    results = client.gather(futures)
    for r in results:
        print(f"{r.verdict:8} {r.report['id']:24} {r.stdout_text.strip() or r.message}")
    print(dict(collections.Counter(r.verdict for r in results)))
    client.close()


if __name__ == "__main__":
    main()
