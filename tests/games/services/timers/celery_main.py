"""``python -m tests.games.services.timers.celery_main worker|beat ...``: the project's Celery app,
started for the timer tests. ``TIMER_TEST_VISIBILITY_TIMEOUT`` (seconds) shrinks the Redis
visibility timeout and makes the worker look for unacknowledged messages every second, so that
a message held longer than that (an ETA task waiting for its deadline) is redelivered, as in
production when an ETA lies beyond the visibility timeout."""

from __future__ import annotations

import os
import sys

from canasta_service.celery import app

_visibility = os.environ.get("TIMER_TEST_VISIBILITY_TIMEOUT")
if _visibility:
    app.conf.broker_transport_options = {
        "visibility_timeout": float(_visibility),
        "unacked_restore_interval": 1,
        "unacked_restore_throttle": 1,
    }

if __name__ == "__main__":
    app.start(sys.argv[1:])
