"""What a viewer may see of a game's log: a spectator of a game with a spectator delay sees it
that many events behind."""

from __future__ import annotations

from games.models import Game, GameStatus, GameTable


def table_get(game: Game) -> GameTable:
    """The game's table row, or an unsaved one with the defaults."""
    found = GameTable.objects.filter(game=game).first()
    return found if found is not None else GameTable(game=game)


def spectator_horizon(game: Game, viewer: int | None, table: GameTable | None = None) -> int:
    """The last event seq ``viewer`` may see: the game's version, except for a spectator
    (``viewer`` None) of a game being played with a spectator delay, who sees ``delay`` moves
    behind (never before the deal)."""
    if viewer is not None or game.status != GameStatus.ACTIVE:
        return game.version
    delay = (table or table_get(game)).spectator_delay
    return max(min(game.version, 1), game.version - delay)
