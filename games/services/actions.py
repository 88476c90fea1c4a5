"""A player's action request: the turn timer's due work first, then the move."""

from __future__ import annotations

from typing import Any

from games import errors
from games.models import EventSource, Player
from games.services.moves import ActionResult, TimerWorkDue, move_apply
from games.services.timers import game_timer_work_apply

IDEMPOTENCY_KEY_MAX_LENGTH = 255


def game_action_apply(
    *,
    game_id: int,
    seat: int | None,
    action: dict[str, Any],
    expected_version: int,
    player: Player | None = None,
    idempotency_key: str | None = None,
    source: str = EventSource.PLAYER,
) -> ActionResult:
    """Apply one action (``games.services.moves.move_apply`` says what is refused and what is
    written).

    For a player's request, the timer's work comes first: the seat comes back from its stand-in
    bot and an overdue turn expires, each committed on its own, and the action is then tried
    against the result. A request that finds no such work costs nothing more.
    """
    if idempotency_key is not None and len(idempotency_key) > IDEMPOTENCY_KEY_MAX_LENGTH:
        raise errors.IdempotencyKeyTooLong(IDEMPOTENCY_KEY_MAX_LENGTH)
    kwargs: dict[str, Any] = {
        "game_id": game_id,
        "seat": seat,
        "action": action,
        "expected_version": expected_version,
        "player": player,
        "idempotency_key": idempotency_key,
        "source": source,
    }
    try:
        return move_apply(**kwargs, timer_work=player is not None and seat is None)
    except TimerWorkDue:
        game_timer_work_apply(game_id=game_id, player=player)
        return move_apply(**kwargs, timer_work=False)
