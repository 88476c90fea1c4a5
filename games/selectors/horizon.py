"""What a viewer may see of a game's log: a spectator of a game with a spectator delay sees it
that many events behind, on every endpoint and in the live tier, until the game is over.

Everything a delayed spectator is shown is the game as it stood after the horizon event: the
table, the version, the scorecard, the turn timer (its seats and proposal as the log had them
then, no deadline: a deadline tells when the live turn began). ``game_record_at`` folds the log
up to the horizon for the parts the game row only holds live.
"""

from __future__ import annotations

from games.engine.history import GameRecord
from games.models import Game, GameStatus, GameTable
from games.selectors.log import entries_of, game_options, rules_version_check


def table_get(game: Game) -> GameTable:
    """The game's table row, or an unsaved one with the defaults."""
    found = GameTable.objects.filter(game=game).first()
    return found if found is not None else GameTable(game=game)


def horizon_of(*, version: int, status: str, delay: int, seated: bool) -> int:
    """The last event seq a viewer may see: ``version``, except for a spectator (not
    ``seated``) of an active game with a ``delay``, who sees that many events behind (never
    before the deal). Once the game is over everyone sees everything."""
    if seated or status != GameStatus.ACTIVE:
        return version
    return max(min(version, 1), version - delay)


def spectator_horizon(game: Game, viewer: int | None, table: GameTable | None = None) -> int:
    """``horizon_of`` for ``viewer`` (a seat, or None for a spectator) at ``game``."""
    if viewer is not None or game.status != GameStatus.ACTIVE:
        return game.version  # no table read for a player or a game not being played
    delay = (table or table_get(game)).spectator_delay
    return horizon_of(version=game.version, status=game.status, delay=delay, seated=False)


def game_record_at(game: Game, upto: int) -> GameRecord:
    """Everything the log says of ``game`` up to event ``upto``: the engine state, the seats'
    timeouts and stand-ins, the timer's switch and a pending proposal to turn it off."""
    rules_version_check(game.rules_version)
    return GameRecord.fold(game_options(game), game.seed, entries_of(game, upto, effects=False))
