"""The Celery application.

Start a worker with ``celery -A canasta_service worker -l info`` and the scheduler with
``celery -A canasta_service beat -l info``. Where the broker is (or that there is none, in which
case tasks run eagerly in-process) comes from the environment through Django settings (the
``CELERY_`` namespace, see settings.py). The task policy below is fixed in code because the
tasks are written against it.
"""

from __future__ import annotations

import os

from celery import Celery

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
    "broker_connection_retry_on_startup": True,
    # No result backend: callers never wait for a task's return value; tasks write to the
    # database, which is where results are read from.
    "task_ignore_result": True,
    "worker_hijack_root_logger": False,
}
app.conf.update(TASK_POLICY)

app.autodiscover_tasks()
