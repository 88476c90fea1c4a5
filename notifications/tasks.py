"""Celery tasks of the notifications: thin, ids in, idempotent (see the task policy in
canasta_service/celery.py). Their names keep the ``games.`` prefix they were first sent with, so
that messages already queued and beat's schedule still find them."""

from __future__ import annotations

from celery import shared_task

from notifications.services import delivery

# One attempt per task; notifications.services.delivery claims the row (SKIP LOCKED and a lease)
# before sending, so a duplicate, redelivered or late task does nothing, and a killed worker's
# message (acks_late) is attempted again with the same idempotency key.


@shared_task(name="games.notification_deliver", acks_late=True, reject_on_worker_lost=True)
def notification_deliver(delivery_id: int) -> str:
    """Attempt the delivery ``delivery_id`` once (a failure schedules the next attempt)."""
    return delivery.delivery_attempt(delivery_id).value


@shared_task(name="games.notifications_sweep")
def notifications_sweep() -> int:
    """Send again the pending deliveries whose task was lost (Celery beat,
    NOTIFICATION_SWEEP_SECONDS)."""
    return delivery.deliveries_sweep()
