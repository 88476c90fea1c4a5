"""The game row lock every writer takes first."""

from __future__ import annotations

from games import errors
from games.hot_sql import game_lock_read
from games.models import Game


def game_lock(game_id: int) -> Game:
    """The game row (with its creator), locked until the end of the current transaction; only
    the game row itself is locked. Every move takes it, so its SQL is written once
    (``games.hot_sql``) rather than compiled from a queryset on each call."""
    game = game_lock_read(game_id)
    if game is None:
        raise errors.GameNotFound()
    return game
