"""A player's action request: the turn timer's due work first, then the move."""

from __future__ import annotations

from typing import Any

from accounts.models import Player
from core import metrics, tracing
from core.errors import ServiceError
from games import errors
from games.models import EventSource, IdempotencyRecord
from games.selectors.events import action_response_build, json_ready
from games.selectors.games import game_get
from games.selectors.seating import seats_of
from games.services.bots import bot_turns_played
from games.services.moves import ActionResult, TimerWorkDue, move_apply
from games.services.timers import game_timer_work_apply

IDEMPOTENCY_KEY_MAX_LENGTH = 255


@tracing.traced("game.action_apply")
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

    The answer shows the game as it is when it is sent: when the bots' turns that followed the
    move were played in this request (no broker), it is built again after them.
    """
    tracing.annotate(
        **{"canasta.game.id": game_id, "canasta.seat": seat, "canasta.source": str(source)}
    )
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
        try:
            result = move_apply(**kwargs, timer_work=player is not None and seat is None)
        except TimerWorkDue:
            game_timer_work_apply(game_id=game_id, player=player)
            result = move_apply(**kwargs, timer_work=False)
    except ServiceError as exc:
        metrics.move_refused(exc.code)  # the code only: never the action
        raise
    if player is not None and result.event is not None:
        _answer_after_bots(result, player, idempotency_key)
    return result


def _answer_after_bots(result: ActionResult, player: Player, idempotency_key: str | None) -> None:
    """Build ``result``'s answer again if bot turns were played after its move (eager mode),
    and keep it as the idempotent replay's answer too."""
    if result.event is None or not bot_turns_played(result.game, seats_of(result.game)):
        return
    game = game_get(result.game.pk)
    result.game = game
    result.body = action_response_build(game=game, event=result.event, player=player)
    if idempotency_key:
        result.body = json_ready(result.body)
        IdempotencyRecord.objects.filter(player=player, key=idempotency_key).update(
            response_body=result.body
        )
