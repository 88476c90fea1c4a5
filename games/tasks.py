"""Celery tasks: thin, ids in, idempotent (see the task policy in canasta_service/celery.py)."""

from __future__ import annotations

from celery import shared_task

from games.models import WorkerProbe
from notifications.services import delivery
from competition.services import matchmaking
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


# ============================================================================== quick play
# The pairing run pairs under an advisory lock (a second run at once does nothing); the table
# task re-checks under the entries' row locks (a duplicate or redelivered message finds the
# table dealt and does nothing). competition.services.matchmaking.


@shared_task(name="games.matchmaking_pair")
def matchmaking_pair() -> int:
    """Pair the players waiting in the quick-play queues (Celery beat,
    MATCHMAKING_PAIR_SECONDS); returns how many were paired."""
    return matchmaking.pairing_run().paired


@shared_task(name="games.match_table_create")
def match_table_create(match: str) -> int | None:
    """Create, seat and deal the table of ``match`` (a uuid); its game id (None: the match is
    gone or was undone)."""
    game = matchmaking.match_table_create(match)
    return None if game is None else game.pk


# ============================================================================== notifications
# One attempt per task; notifications.services.delivery claims the row (SKIP LOCKED and a lease) before
# sending, so a duplicate, redelivered or late task does nothing, and a killed worker's message
# (acks_late) is attempted again with the same idempotency key.


@shared_task(name="games.notification_deliver", acks_late=True, reject_on_worker_lost=True)
def notification_deliver(delivery_id: int) -> str:
    """Attempt the delivery ``delivery_id`` once (a failure schedules the next attempt)."""
    return delivery.delivery_attempt(delivery_id).value


@shared_task(name="games.notifications_sweep")
def notifications_sweep() -> int:
    """Send again the pending deliveries whose task was lost (Celery beat,
    NOTIFICATION_SWEEP_SECONDS)."""
    return delivery.deliveries_sweep()
