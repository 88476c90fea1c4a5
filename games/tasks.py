"""Celery tasks of the game: thin, ids in, idempotent (see the task policy in
canasta_service/celery.py): the worker probe and the turn timers. Quick play's tasks are in
``competition.tasks``, the notifications' in ``notifications.tasks`` (their names keep the
``games.`` prefix)."""

from __future__ import annotations

from celery import shared_task

from games.models import WorkerProbe
from games.services import timer_schedule, timers


@shared_task(name="games.record_worker_probe")
def record_worker_probe(token: str) -> bool:
    """Record that a worker ran: idempotent, a redelivered message finds the row already there.

    Returns whether this call created the row.
    """
    _, created = WorkerProbe.objects.get_or_create(token=token)
    return created


# ============================================================================== turn timers
# Both tasks only call games.services.timers, which re-checks everything under the game row lock: a
# duplicate, a redelivered message (ETA past the visibility timeout) or a late task does nothing.


@shared_task(name="games.turn_timer_expire")
def turn_timer_expire(game_id: int, version: int) -> bool:
    """Expire the turn of ``game_id`` at ``version`` if its deadline has passed; True when this
    call applied the expiry. Arriving early (clock skew), it sends itself again for the due time.
    """
    result = timers.turn_timer_expire_apply(game_id, version, via="task")
    if result.outcome is timers.Expiry.NOT_DUE and result.due is not None:
        timer_schedule.turn_timer_resend(game_id, version, result.due)
    return result.applied


@shared_task(name="games.turn_timers_sweep")
def turn_timers_sweep() -> int:
    """Expire every turn whose deadline has passed (Celery beat, TURN_TIMER_SWEEP_SECONDS)."""
    return timers.turn_timers_sweep()
