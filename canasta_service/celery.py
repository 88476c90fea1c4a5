"""The Celery application.

Start a worker with ``celery -A canasta_service worker -l info`` and the scheduler with
``celery -A canasta_service beat -l info``. Where the broker is (or that there is none, in which
case tasks run eagerly in-process) comes from the environment through Django settings (the
``CELERY_`` namespace, see settings.py). The task policy below is fixed in code because the
tasks are written against it.
"""

from __future__ import annotations

import contextlib
import os
from typing import Any

from celery import Celery
from celery.signals import worker_init, worker_process_init

# Celery 5.7 (celery-types does not know these yet).
from celery.utils.threads import bound_open_broker_sockets  # type: ignore[attr-defined]
from celery.worker.consumer import Consumer as CeleryConsumer
from celery.worker.consumer.consumer import COLLECT_SOCKET_TIMEOUT  # type: ignore[attr-defined]

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "canasta_service.settings")

app = Celery("canasta_service")
app.config_from_object("django.conf:settings", namespace="CELERY")

TASK_POLICY = {
    # JSON only: task arguments are ids and small values, never pickled objects, and a worker
    # never unpickles anything a client put on the broker.
    "task_serializer": "json",
    "result_serializer": "json",
    "accept_content": ["json"],
    # Tasks are short (one service call). Soft limit raises SoftTimeLimitExceeded inside the
    # task so it can roll back cleanly; the hard limit kills the worker child as a last resort.
    "task_soft_time_limit": 30,
    "task_time_limit": 60,
    # Acknowledge a message after the task has run, not when it is received, and re-queue it
    # if the worker process dies mid-task. A crash then means "run again" rather than "lost".
    # That is safe because every task is idempotent: it carries the game version it was made
    # for and does nothing when the game has already moved past it (or, for the health probe,
    # get_or_create on a unique token).
    "task_acks_late": True,
    "task_reject_on_worker_lost": True,
    # With late acks a worker must not hoard messages: take one at a time, so a slow task
    # does not hold others hostage and a crash re-queues at most one message per process.
    "worker_prefetch_multiplier": 1,
    # Redis (unlike AMQP) has no real acknowledgements: a message taken but not acknowledged
    # within visibility_timeout seconds is handed to another worker. It must therefore exceed
    # the longest a task can run, including its countdown/ETA if one is scheduled: one hour
    # covers the 60 s hard limit by a wide margin. The cost is that a task lost with a dead
    # worker is redelivered only after that hour, and that a countdown longer than an hour
    # would be delivered twice: schedule long timers with beat, not with countdown.
    "broker_transport_options": {"visibility_timeout": 3600},
    # A worker (and beat) that lost the broker reconnects, without limit: when Redis is back,
    # so is the worker, however long the outage (Celery's default gives up after 100 tries,
    # about 45 minutes, and the worker exits). Senders are not affected: a request that sends
    # a task gives up after task_publish_retry_policy (three tries).
    "broker_connection_retry_on_startup": True,
    "broker_connection_retry": True,
    "broker_connection_max_retries": None,
    # The worker's consumer: Celery's, surviving a broker lost while it holds messages (below).
    "worker_consumer": "canasta_service.celery:Consumer",
    # No result backend: callers never wait for a task's return value; tasks write to the
    # database, which is where results are read from.
    "task_ignore_result": True,
    "worker_hijack_root_logger": False,
}
app.conf.update(TASK_POLICY)


class Consumer(CeleryConsumer):
    """Celery's worker consumer, except that a connection lost to the broker is collected, not
    closed as well.

    Celery 5.7 collects a lost connection (kombu detaches its transport) and then closes it. When
    Redis went away during the consuming channel's BRPOP, the collection leaves that channel
    open; closing it restores its unacknowledged messages (an ETA task waiting for its time is
    one) through the detached transport and raises AttributeError ("'NoneType' object has no
    attribute 'hostname'"), which stops the worker for good. Collected only, as up to Celery 5.6,
    the connection is dropped and the worker reconnects. The messages it held are still in
    Redis's unacknowledged set if Redis kept its data (delivered again after visibility_timeout;
    the tasks are idempotent), or gone with it (the periodic sweeps cover timers and bot turns).
    """

    def on_connection_error_after_connected(self, exc: Exception) -> None:
        connection, self.connection = self.connection, None
        if connection is not None:
            bound_open_broker_sockets(connection, COLLECT_SOCKET_TIMEOUT)
            with contextlib.suppress(Exception):  # a dead connection: nothing more to release
                connection.collect(socket_timeout=COLLECT_SOCKET_TIMEOUT)
        # Celery's own handling (cancelling tasks, the prefetch count) with nothing to close.
        super().on_connection_error_after_connected(exc)


@worker_process_init.connect
def _tracing_in_child(**_: Any) -> None:
    """Traces (off unless configured) in each process of a prefork pool, after the fork."""
    from canasta_service.tracing import tracing_init

    tracing_init()


@worker_init.connect
def _tracing_in_worker(sender: Any = None, **_: Any) -> None:
    """Traces in a worker whose tasks run in its own process (threads, solo): a prefork
    worker's children set up their own (``_tracing_in_child``)."""
    from celery.concurrency import get_implementation
    from celery.concurrency.prefork import TaskPool as PreforkPool

    pool = get_implementation(getattr(sender, "pool_cls", None) or "prefork")
    if isinstance(pool, type) and issubclass(pool, PreforkPool):
        return
    from canasta_service.tracing import tracing_init

    tracing_init()


app.autodiscover_tasks()

# Every process that sends or runs tasks: the request id travels with a task and each task is
# timed (their Celery signal handlers; docs/operations.md, "Watching it").
from canasta_service import logs as _logs  # noqa: E402, F401
from canasta_service import metrics as _metrics  # noqa: E402, F401
