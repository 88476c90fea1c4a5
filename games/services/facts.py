"""The table's facts in the move log: a turn lost to the timer, a seat handed to a stand-in bot
and given back, the timer turned off, a concession, an abandonment (``games.engine.history``
names them and folds them). Each is an event of the one ordered log, so replaying the log alone
rebuilds the whole game."""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from core import tracing
from games.engine.history import TABLE_FACTS
from games.models import EventSource, Game, GameEvent
from games.selectors.seating import seats_of
from games.services.bots import bot_turn_register
from games.services.log import log_append
from games.services.timer_schedule import DEADLINE_NEUTRAL_FACTS, turn_timer_schedule


def fact_append(
    game: Game,
    type: str,
    *,
    seat: int | None = None,
    source: str = EventSource.SYSTEM,
    **payload: Any,
) -> GameEvent:
    """Append a fact to ``game``'s log (the caller holds the game row lock and the game has
    started): seq = version + 1, and the row's version follows at once."""
    if type not in TABLE_FACTS:
        raise ValueError(f"{type!r} is not a fact of the table")
    event = log_append(
        game, seq=game.version + 1, seat=seat, type=type, source=source, payload=payload
    )
    game.version = event.seq
    game.updated_at = timezone.now()
    Game.objects.filter(pk=game.pk).update(version=game.version, updated_at=game.updated_at)
    # The bot's turn and the timer's task go by version: send them again for this one (the
    # ones sent for the version before find it moved on and do nothing). A fact that changes
    # no deadline sends no timer task: the one sent stands (timer_schedule).
    bot_turn_register(game, seats_of(game))
    if game.turn_deadline is not None and type not in DEADLINE_NEUTRAL_FACTS:
        game_id = game.pk
        tracing.on_commit("timers.turn_timer_schedule", lambda: turn_timer_schedule(game_id))
    return event
