"""Celery tasks: thin, ids in, idempotent (see the task policy in canasta_service/celery.py)."""

from __future__ import annotations

from celery import shared_task

from games.models import WorkerProbe


@shared_task(name="games.record_worker_probe")
def record_worker_probe(token: str) -> bool:
    """Record that a worker ran: idempotent, a redelivered message finds the row already there.

    Returns whether this call created the row.
    """
    _, created = WorkerProbe.objects.get_or_create(token=token)
    return created
