"""A Celery app whose tasks run tool calls in sandcap sandboxes, with a broker that needs
no daemon: kombu's filesystem transport (messages are files in a directory shared by the
client and the workers) and Celery's file result backend.

    SANDCAP_CELERY_DIR=/tmp/q celery -A sandcap_tasks worker -n w1@%h   # a worker
    python3 client.py                                                 # the client

SANDCAP_CELERY_DIR names the shared directory (default: ./celery-data); SANDCAP_SLOTS
overrides the worker concurrency (default: the policy's sandboxes ceiling).
"""

import os

from celery import Celery

import sandcap.celery

DATA = os.path.abspath(os.environ.get("SANDCAP_CELERY_DIR", "celery-data"))
for sub in ("queue", "processed", "results"):
    os.makedirs(os.path.join(DATA, sub), exist_ok=True)

app = Celery("sandcap_tasks", broker="filesystem://", backend=f"file://{DATA}/results")
app.conf.broker_transport_options = {
    "data_folder_in": f"{DATA}/queue",
    "data_folder_out": f"{DATA}/queue",
    "processed_folder": f"{DATA}/processed",
    "store_processed": False,
    "polling_interval": 0.1,
}
app.conf.worker_hijack_root_logger = False
slots = os.environ.get("SANDCAP_SLOTS")
sandcap.celery.configure(app, slots=int(slots) if slots else None)

# Every tool call: sandcap.run(argv, **options) on whichever worker takes it.
tool_call = sandcap.celery.register(app)
# The same under Celery's own hard time limit (3 s): Celery kills the pool process, and the
# sandbox dies with it.
tool_call_limited = sandcap.celery.register(app, name="sandcap.tool_call_limited",
                                            time_limit=3)
