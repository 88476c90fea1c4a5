"""The game row lock every writer takes first."""

from __future__ import annotations

from games import errors
from games.models import Game


def game_lock(game_id: int) -> Game:
    """The game row (with its creator), locked until the end of the current transaction; only
    the game row itself is locked."""
    try:
        return (
            Game.objects.select_for_update(of=("self",))
            .select_related("created_by")
            .get(pk=game_id)
        )
    except Game.DoesNotExist:
        raise errors.GameNotFound() from None
