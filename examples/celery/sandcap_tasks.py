"""A Celery app whose tasks run tool calls in sandcap sandboxes, with a broker that needs
no daemon: kombu's filesystem transport (messages are files in a directory shared by the
client and the workers) and Celery's file result backend.

    SANDCAP_CELERY_DIR=/tmp/q celery -A sandcap_tasks worker -n w1@%h   # a worker
    python3 client.py                                                 # the client

SANDCAP_CELERY_DIR names the shared directory (default: ./celery-data); SANDCAP_SLOTS
overrides the worker concurrency (default: the policy's sandboxes ceiling);
SANDCAP_CELERY_TIME_LIMIT the hard time limit of tool_call_limited (default 3 s).
"""

import os
import uuid
from time import monotonic

from celery import Celery
from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.encoding import bytes_to_str, str_to_bytes
from kombu.utils.json import dumps, loads

import sandcap.celery


class ClaimingChannel(filesystem.Channel):
    """kombu's filesystem channel, safe with several consumers and a concurrent producer.

    kombu 5.2's _get moves a message file out of the queue folder, ignores a failed move
    (another worker took it first) and then reads the file from the processed folder
    anyway; when the other worker has already removed it, that raises ChannelError, which
    Celery does not count as a connection error: the worker process exits.  Here a message
    is claimed by one atomic rename into this process's own name, and a message another
    consumer claimed first is simply skipped.

    kombu 5.2's _put creates the message file under its final name, locks it only after
    open(), and unlocks it before close() flushes Python's buffer: a consumer that claims
    the file in either window reads it empty, the JSON decode fails, and the message is
    gone (a task that never runs: its caller's get() times out).  Here a message is
    written under a name no consumer looks at and renamed into the queue once complete.
    """

    def _put(self, queue, payload, **kwargs):
        name = f"{int(round(monotonic() * 1000))}_{uuid.uuid4()}.{queue}.msg"
        part = os.path.join(self.data_folder_out, f".part-{uuid.uuid4()}")  # no ".msg"
        try:
            with open(part, "wb") as f:
                f.write(str_to_bytes(dumps(payload)))
            os.rename(part, os.path.join(self.data_folder_out, name))
        except OSError as e:
            try:
                os.unlink(part)
            except OSError:
                pass
            raise ChannelError(f"Cannot add file {name!r} to directory") from e

    def _get(self, queue):
        queue_find = "." + queue + ".msg"
        claim_dir = self.processed_folder
        for filename in sorted(os.listdir(self.data_folder_in)):
            if queue_find not in filename:
                continue
            claimed = os.path.join(claim_dir, f"{os.getpid()}-{filename}")
            try:
                os.rename(os.path.join(self.data_folder_in, filename), claimed)
            except FileNotFoundError:
                continue  # another consumer has it
            with open(claimed, "rb") as f:
                filesystem.lock(f, filesystem.LOCK_SH)  # kombu's own _put holds LOCK_EX
                payload = f.read()
            os.remove(claimed)
            return loads(bytes_to_str(payload))
        raise filesystem.Empty()


class ClaimingTransport(filesystem.Transport):
    Channel = ClaimingChannel


DATA = os.path.abspath(os.environ.get("SANDCAP_CELERY_DIR", "celery-data"))
for sub in ("queue", "processed", "results"):
    os.makedirs(os.path.join(DATA, sub), exist_ok=True)

app = Celery("sandcap_tasks", broker="filesystem://", backend=f"file://{DATA}/results")
app.conf.broker_transport = ClaimingTransport
app.conf.broker_transport_options = {
    "data_folder_in": f"{DATA}/queue",
    "data_folder_out": f"{DATA}/queue",
    "processed_folder": f"{DATA}/processed",
    "store_processed": False,  # ClaimingChannel claims into processed_folder, then removes
    "polling_interval": 0.1,
}
app.conf.worker_hijack_root_logger = False
slots = os.environ.get("SANDCAP_SLOTS")
sandcap.celery.configure(app, slots=int(slots) if slots else None)

# Every tool call: sandcap.run(argv, **options) on whichever worker takes it.
tool_call = sandcap.celery.register(app)
# The same under Celery's own hard time limit (3 s): Celery kills the pool process, and the
# sandbox dies with it.  (Where starting a sandbox alone takes seconds, as in the test
# suite's user-mode Linux guest, the limit is set longer, so that the sandbox is up first.)
tool_call_limited = sandcap.celery.register(
    app, name="sandcap.tool_call_limited",
    time_limit=float(os.environ.get("SANDCAP_CELERY_TIME_LIMIT", "3")))
