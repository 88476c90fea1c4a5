"""When a game's hidden cards and seed may be shown to whoever may see the game: once it is
finished, unless another app holds the reveal back (``hooks.RevealHeld``: a duplicate board
still being played elsewhere with the same cards)."""

from __future__ import annotations

from games import hooks
from games.models import Game, GameStatus


def game_revealed(game: Game) -> bool:
    """Whether ``game``'s every hand and its seed may be shown."""
    if game.status != GameStatus.FINISHED:
        return False
    return not hooks.answer(hooks.RevealHeld(game))
