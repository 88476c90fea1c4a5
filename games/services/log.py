"""The move log's one writer: every event of a game (the deal, a move, a fact of the table, an
imported log) is appended here, and the game's live clients are woken once it commits.

Appending is the one hand-off to live updates: ``live.notify_on_commit`` publishes the game's
wake-up after the commit (a rolled-back event wakes nobody), and every follower's feed then
reads the committed events once (``games.realtime.feed``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from games import live
from games.hot_sql import row_insert
from games.models import Game, GameEvent


def log_append(
    game: Game,
    *,
    seq: int,
    type: str,
    source: str,
    payload: dict[str, Any],
    seat: int | None = None,
    effects: list[Any] | None = None,
) -> GameEvent:
    """Insert event ``seq`` of ``game``'s log (the caller holds the game row lock and moves
    the game's version) and wake its live clients on commit. Unique (game, seq): a second
    writer of the same seq fails with ``IntegrityError``."""
    event = GameEvent(
        game=game,
        seq=seq,
        seat=seat,
        type=type,
        source=source,
        payload=payload,
        effects=effects or [],
    )
    row_insert(event)  # event.save(force_insert=True), its SQL written once
    live.notify_on_commit(game.pk)
    return event


def log_append_many(game: Game, events: Sequence[GameEvent]) -> None:
    """Insert a whole log at once (an import), waking the game's live clients on commit."""
    GameEvent.objects.bulk_create(events)
    live.notify_on_commit(game.pk)
