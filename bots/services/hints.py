"""Hints: the move a bot level would make for the seat to act, from that seat's own view.

A table created with ``hints`` (casual tables only) lets the seat to act ask what the medium or
hard bot would play. The registered ``BotPlayer`` (``games.services.bots``) answers over the
seat's own observation (its player view and the round's events as it saw them), so a hint
names only cards the seat may see: it is one of the seat's legal actions. Asking writes
nothing; the answer is the same for the same game version, seat and level (the policy's seed
comes from them), so it is kept in the cache under those four for ``HINT_CACHE_SECONDS``: asking
again, or from a second device, costs no search (the hard level thinks for up to 0.45 s).
"""

from __future__ import annotations

import hashlib
from typing import Any

from django.core.cache import cache

from accounts.models import Player
from bots import errors
from games import errors as game_errors
from games.engine import EngineError
from games.engine.render import describe_action
from games.models import BotLevel, Game, GameStatus
from games.selectors.seating import seat_index_of
from games.services.bots import bot_player_get

HINT_LEVELS: tuple[str, ...] = (BotLevel.MEDIUM, BotLevel.HARD)
HINT_CACHE_SECONDS = 600


def _hint_seed(game_id: int, version: int, seat: int, level: str) -> int:
    digest = hashlib.sha256(f"hint:{game_id}:{version}:{seat}:{level}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def hint_get(*, game: Game, player: Player, level: str = BotLevel.MEDIUM) -> dict[str, Any]:
    """The suggested move for ``player``'s seat in ``game`` at ``level`` (medium or hard):
    ``{version, seat, level, action, summary}``.

    Refused: 403 ``hints_off`` when the table has no hints, 403 ``not_seated`` to a player
    without a seat, 409 ``game_not_active`` outside play, 409 ``game_paused`` while paused, 403
    ``not_your_turn`` when another seat is to act.
    """
    if level not in HINT_LEVELS:
        raise ValueError(f"level must be one of {', '.join(HINT_LEVELS)}")
    seat = seat_index_of(game, player.pk)
    if seat is None:
        raise game_errors.NotSeated()
    if not game.hints:
        raise errors.HintsOff()
    if game.status != GameStatus.ACTIVE or not game.snapshot:
        raise game_errors.GameNotActive()
    if game.paused_at is not None:
        raise game_errors.GamePaused()
    if game.to_act != seat:
        raise game_errors.engine_error(
            EngineError("not_your_turn", "It is not your turn: hints are for the seat to act.")
        )
    bot_player = bot_player_get()
    if bot_player is None:
        raise RuntimeError("no bot player is registered: the 'bots' app must be installed")
    version = game.version
    # The join code too: a game's id may come back (a database restored, a test's rollback).
    key = f"hint:{game.pk}:{game.join_code}:{version}:{seat}:{level}"
    hint: dict[str, Any] | None = cache.get(key)
    if hint is not None:
        return hint
    action = bot_player.action_choose(game, seat, level, _hint_seed(game.pk, version, seat, level))
    hint = {
        "version": version,
        "seat": seat,
        "level": level,
        "action": action,
        "summary": describe_action(action),
    }
    cache.set(key, hint, timeout=HINT_CACHE_SECONDS)
    return hint
