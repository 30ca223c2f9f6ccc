#!/usr/bin/env python3
"""Send tool calls to the Celery workers of sandcap_tasks.py and print their verdicts.

    export SANDCAP_CELERY_DIR=/tmp/sandcap-celery PYTHONPATH=.:../../python/src
    celery -A sandcap_tasks worker -n w1@127.0.0.1 --concurrency 2 &   # a worker (or more)
    python3 client.py [--fallback]

--fallback: without the helper (rlimit mode), accept RLIMIT_AS for --memory.
"""

import collections
import sys

from sandcap_tasks import tool_call, tool_call_limited

TOOL = "import sys; print('tool call', sys.argv[1], 'says hello')"
PY = sys.executable  # the workers run the same Python
limits = {"memory": "64M", "timeout": 30, "net": "none", "fallback": "--fallback" in sys.argv}

pending = [tool_call.delay([PY, "-c", TOOL, str(i)], limits) for i in range(10)]
pending.append(tool_call.delay([PY, "-c", "bytearray(200 * 1024 * 1024)"], limits))
results = [p.get(timeout=120) for p in pending]
for r in results:
    print(f"{r['report']['verdict']:8} {r['report']['id']:24} "
          f"{r['stdout'].strip() or r['report']['message']}")
print(dict(collections.Counter(r["report"]["verdict"] for r in results)))

# Celery's own hard time limit (3 s) on a 60 s tool call: the pool process is killed, and
# the sandbox with it.
try:
    tool_call_limited.delay(["sleep", "60"], {}).get(timeout=120)
except Exception as e:  # celery.exceptions.TimeLimitExceeded
    print("time-limited call:", type(e).__name__, e)
