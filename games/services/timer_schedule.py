"""Sending the turn timer's expiry task through ``core.dispatch``: with an ETA at the deadline to a
worker, or, without a broker, to a daemon thread of this process (``TURN_TIMER_IN_PROCESS``).
The task is sent by name (``games.tasks`` sits above the services). Below the moves and the
log's facts, which both move a game's version and so send the task again for the version they
leave, except the facts that change no deadline (``DEADLINE_NEUTRAL_FACTS``: a pause or
timer-off proposal, an acceptance, a decline, the ratings): after them the task already sent
stands, and ``deadline_version_current`` lets it apply at the later version.

A deadline more than ``TURN_SECONDS_ETA_MAX`` away (a correspondence turn of hours or days) gets
no task: the broker hands an unacknowledged message to another worker after its visibility
timeout (one hour, canasta_service/celery.py), so a countdown that long is not safe in a
message. The beat sweep (``games.turn_timers_sweep``) applies those expiries instead, with the
same checks under the row lock."""

from __future__ import annotations

import logging
import threading
from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone

from core import dispatch
from games.engine.history import (
    PAUSE_ACCEPTED,
    PAUSE_DECLINED,
    PAUSE_PROPOSED,
    RATINGS_CHANGED,
    TIMER_OFF_ACCEPTED,
    TIMER_OFF_DECLINED,
    TIMER_OFF_PROPOSED,
)
from games.models import Game, GameEvent, GameStatus
from games.selectors.timers import grace

logger = logging.getLogger(__name__)

# The Celery task that applies an expiry (games.tasks), sent by name: tasks sit above services.
TURN_TIMER_EXPIRE_TASK = "games.turn_timer_expire"

# The longest countdown sent as an ETA task (well inside the broker's one-hour visibility
# timeout); a deadline further away is left to the beat sweep.
TURN_SECONDS_ETA_MAX = 1800


def in_process() -> bool:
    """Without a broker, whether this process runs the expiries (``TURN_TIMER_IN_PROCESS``)."""
    return bool(getattr(settings, "TURN_TIMER_IN_PROCESS", False))


# Facts of the log that change neither the turn nor its deadline. The step that does (the pause
# itself, turning the timer off) is a fact of its own, outside this set.
DEADLINE_NEUTRAL_FACTS: frozenset[str] = frozenset(
    (
        PAUSE_PROPOSED,
        PAUSE_ACCEPTED,
        PAUSE_DECLINED,
        TIMER_OFF_PROPOSED,
        TIMER_OFF_ACCEPTED,
        TIMER_OFF_DECLINED,
        RATINGS_CHANGED,
    )
)


def deadline_version_current(game: Game, version: int) -> bool:
    """Whether a timer task sent at ``version`` still stands for ``game``'s deadline: the game
    is at that version, or every entry after it is a fact that changes no deadline (one query,
    on the log's unique (game, seq)). A task of an earlier turn finds a move, a timeout or a
    pause after its version, and does nothing."""
    if game.version == version:
        return True
    if game.version < version:
        return False
    return (
        not GameEvent.objects.filter(game=game, seq__gt=version)
        .exclude(type__in=DEADLINE_NEUTRAL_FACTS)
        .exists()
    )


_sent = threading.local()


def turn_timer_schedule(game_id: int) -> None:
    """Send ``turn_timer_expire`` with an ETA at the game's current deadline (plus grace).

    Runs after a commit. Without a broker (eager mode) the task runs in this process at the
    deadline when ``TURN_TIMER_IN_PROCESS`` is on (``make run``), else expiries wait for the next
    write to the game. With a broker, a deadline more than ``TURN_SECONDS_ETA_MAX`` away sends
    nothing (the sweep expires it). The same (version, deadline) is sent once per thread; a
    duplicate would be harmless anyway.
    """
    if dispatch.is_eager() and not in_process():
        return
    row = (
        Game.objects.filter(pk=game_id, status=GameStatus.ACTIVE)
        .values_list("version", "turn_deadline")
        .first()
    )
    if row is None:
        return
    version, deadline = row
    if deadline is None:
        return
    if not dispatch.is_eager() and not eta_allowed(deadline):
        return
    last: dict[int, tuple[int, datetime]] = getattr(_sent, "last", None) or {}
    _sent.last = last
    if last.get(game_id) == (version, deadline):
        return
    last[game_id] = (version, deadline)
    if len(last) > 1000:
        last.clear()
    try:  # without a broker: a daemon thread of this process, at the deadline
        dispatch.send(TURN_TIMER_EXPIRE_TASK, game_id, version, eta=deadline + grace())
    except Exception:  # the move is committed; the sweep will expire this turn instead
        logger.exception("could not send the turn timer of game %s at %s", game_id, version)
        last.pop(game_id, None)


def eta_allowed(deadline: datetime, now: datetime | None = None) -> bool:
    """Whether an expiry at ``deadline`` may travel as an ETA task (at most
    ``TURN_SECONDS_ETA_MAX`` away)."""
    return deadline <= (now or timezone.now()) + timedelta(seconds=TURN_SECONDS_ETA_MAX)


def turn_timer_resend(game_id: int, version: int, due: datetime) -> None:
    """A timer task that arrived before its time sends itself again for ``due`` (without a
    broker, to a daemon thread of this process that waits for ``due``, if
    ``TURN_TIMER_IN_PROCESS``; with one, not for a time further away than an ETA may be: the
    sweep expires it)."""
    if dispatch.is_eager():
        if not in_process():
            return
    elif not eta_allowed(due):
        return
    dispatch.send(TURN_TIMER_EXPIRE_TASK, game_id, version, eta=due)
