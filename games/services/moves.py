"""A move: one action applied to a game, holding its row lock, appended to its log.

The move log (``GameEvent``) is the truth: an applied action appends exactly one event, and the
snapshot, the ``Meld`` projection and the ``RoundScore`` rows are rewritten from the engine
state in the same transaction (``games.services.projections``). Players reach this through
``games.services.actions.game_action_apply``, which first lets the turn timer's due work
commit; bots and the timer call ``move_apply`` directly.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import Player
from core import metrics, tracing
from games import errors, hooks
from games.engine import (
    PRESETS,
    EngineError,
    Event,
    GameState,
    action_from_dict,
    action_to_dict,
    apply,
    effects_to_json,
)
from games.hot_sql import row_update
from games.models import EventSource, Game, GameEvent, GameStatus, IdempotencyRecord, Seat
from games.selectors.events import action_response_build, json_ready
from games.selectors.log import rules_version_check
from games.selectors.seating import seats_of
from games.services.bots import bot_fallback_choose, bot_turn_register
from games.services.deadlines import grace, turn_timer_arm
from games.services.locks import game_lock
from games.services.log import log_append
from games.services.projections import projections_write

# A move changes only these columns of the game row (the rest are written by the lobby, the
# timer and the table services).
MOVE_FIELDS = [
    "version",
    "status",
    "finished_at",
    "snapshot",
    "to_act",
    "winner_team",
    "turn_deadline",
    "reminder_at",
    "updated_at",
]


@dataclass
class ActionResult:
    """What ``game_action_apply`` did.

    ``event`` is the appended event (None when an idempotent replay returned the first answer);
    ``body`` / ``status`` are the response document for the requesting player (built only when
    a player acted), ``replayed`` tells that they come from an earlier identical request.
    """

    game: Game
    event: GameEvent | None
    seat: int
    status: int = 201
    body: dict[str, Any] = field(default_factory=dict)
    replayed: bool = False


def request_hash(game_id: int, action: Any, expected_version: Any) -> str:
    canonical = json.dumps(
        {"game": game_id, "action": action, "expected_version": expected_version},
        sort_keys=True,
        separators=(",", ":"),
        default=str,
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


class TimerWorkDue(Exception):  # noqa: N818 - a signal to the caller, not an error
    """Raised inside ``move_apply``'s transaction when the turn timer is overdue
    (``_timer_work_due``): that work commits on its own first."""


@tracing.traced("game.move_apply")
def move_apply(
    *,
    game_id: int,
    seat: int | None,
    action: dict[str, Any],
    expected_version: int,
    player: Player | None = None,
    idempotency_key: str | None = None,
    source: str = EventSource.PLAYER,
    timer_work: bool = False,
) -> ActionResult:
    """Apply one action for ``seat`` (or, with ``seat=None``, for the seat ``player`` occupies).

    In one transaction, holding the game row lock: refuses a private game the player is not at
    (404 ``not_found``, as if it did not exist); replays the first answer of an earlier request
    with the same ``idempotency_key`` (another request under that key: 422
    ``idempotency_key_reused``); refuses a game not being played (409 ``game_not_active``, 422
    ``game_over``, 409 ``game_paused``), a player without a seat (403 ``not_seated``), a stale
    ``expected_version`` (409 ``stale_version`` with ``current_version``), and whatever the
    engine refuses (400 / 403 ``not_your_turn`` / 422); otherwise appends the GameEvent (seq =
    version + 1), rewrites the caches, publishes the move (and the game's end) to the other apps
    (``games.hooks``: the next player told, a rated result rated), stores the idempotency record and
    registers the next bot turn on commit. A refused action leaves the game unchanged. With
    ``timer_work``, raises ``TimerWorkDue`` (before changing anything) when the turn timer has
    work to commit first.
    """
    # The two inserts run without savepoints of their own (a savepoint is two more round trips
    # on every move): a unique violation rolls the whole transaction back and is mapped here.
    inserting = ""
    try:
        with transaction.atomic():
            game = game_lock(game_id)
            seats = seats_of(game)  # from the game row (Game.seating)
            mine = [s for s in seats if player is not None and s.player_id == player.pk]
            if (
                player is not None
                and not mine
                and not game.is_public
                and game.created_by_id != player.pk
            ):
                raise errors.GameNotFound()
            if timer_work and _timer_work_due(game, mine):
                raise TimerWorkDue()
            fingerprint = ""
            if idempotency_key and player is not None:
                fingerprint = request_hash(game_id, action, expected_version)
                record = IdempotencyRecord.objects.filter(
                    player=player, key=idempotency_key
                ).first()
                if record is not None:
                    if record.request_hash != fingerprint:
                        raise errors.IdempotencyKeyReused()
                    return ActionResult(
                        game=game,
                        event=None,
                        seat=record.response_body.get("event", {}).get("seat", -1),
                        status=record.response_status,
                        body=record.response_body,
                        replayed=True,
                    )
            if seat is None:
                if not mine:
                    raise errors.NotSeated()
                seat = mine[0].index
            elif not 0 <= seat < len(seats) or (
                player is not None and seats[seat].player_id != player.pk
            ):
                raise errors.NotSeated("You may act only for the seat you occupy.")
            if game.status == GameStatus.FINISHED:
                raise errors.GameOver()
            if game.status != GameStatus.ACTIVE:
                raise errors.GameNotActive()
            if game.paused_at is not None:
                raise errors.GamePaused()
            if expected_version != game.version:
                raise errors.StaleVersion(game.version)
            rules_version_check(game.rules_version)
            try:
                parsed = action_from_dict(action, seat)
                state = GameState.from_dict(game.snapshot or {})
                events: list[Event] = []
                apply(state, parsed, events)
            except EngineError as exc:
                raise errors.engine_error(exc) from None
            inserting = "event"  # unique (game, seq): a backstop behind the row lock
            event = log_append(
                game,
                seq=game.version + 1,
                seat=seat,
                type=parsed.type,
                source=source,
                payload=action_to_dict(parsed),
                effects=effects_to_json(events),
            )
            inserting = ""
            game.version = event.seq
            if state.game_over:
                game.status = GameStatus.FINISHED
                game.finished_at = timezone.now()
            projections_write(game, state)
            turn_timer_arm(game, seats, acted=seat, source=source)  # the next deadline
            row_update(game, MOVE_FIELDS)  # game.save(update_fields=MOVE_FIELDS), the same
            # The move, then the game's end if it ended it (a rated result is rated once:
            # this move ended the game), published in this transaction (games.hooks).
            by_player = source == EventSource.PLAYER
            hooks.publish(
                hooks.MovePlayed(game, acted=seat, action_type=parsed.type, by_player=by_player)
            )
            if state.game_over:
                actor = game.seating[seat]["player"] if by_player else None
                hooks.publish(
                    hooks.GameEnded(
                        game,
                        seats,
                        ended=hooks.ENDED_PLAYED_OUT,
                        scores=state.scores,
                        skip=() if actor is None else (actor,),
                    )
                )
            result = ActionResult(game=game, event=event, seat=seat)
            if player is not None:
                result.body = action_response_build(
                    game=game, event=event, player=player, seats=seats, state=state
                )
                if idempotency_key:
                    result.body = json_ready(result.body)  # the replay is the same document
                    # The same key may just have been used for another game (whose row lock
                    # this request does not hold): that request owns the key.
                    inserting = "idempotency record"
                    IdempotencyRecord.objects.create(
                        player=player,
                        game=game,
                        key=idempotency_key,
                        request_hash=fingerprint,
                        response_status=result.status,
                        response_body=result.body,
                    )
                    inserting = ""
            bot_turn_register(game, seats)
            preset = PRESETS.get(game.preset)
            family = preset.family if preset is not None else "other"
            transaction.on_commit(lambda: metrics.move_applied(family, str(source)))
    except IntegrityError:
        if inserting == "idempotency record":
            raise errors.IdempotencyKeyReused() from None
        if inserting == "event":
            latest = GameEvent.objects.filter(game_id=game_id).order_by("-seq").first()
            raise errors.StaleVersion(latest.seq if latest else expected_version) from None
        raise
    return result


def _timer_work_due(game: Game, mine: list[Seat]) -> bool:
    """Whether the turn timer has work to commit before the requester's move: an overdue turn,
    unless it is the requester's own seat played by its stand-in bot (their move takes the seat
    back: ``turn_timer_arm`` logs ``seat_returned`` after it)."""
    if game.status != GameStatus.ACTIVE or game.turn_deadline is None:
        return False
    if timezone.now() < game.turn_deadline + grace():
        return False
    return not any(s.index == game.to_act and s.stand_in for s in mine)


def bot_action_apply(
    game_id: int, version: int, action: dict[str, Any] | None = None
) -> ActionResult | None:
    """Play the bot seat to act at ``version``: ``action`` (a policy's choice) or the fallback.

    Idempotent: returns None and changes nothing when the game has moved past ``version``, is
    not being played or paused, or a human is to act (a redelivered or duplicated task).
    """
    with transaction.atomic():
        game = game_lock(game_id)
        if game.status != GameStatus.ACTIVE or game.version != version or game.to_act is None:
            return None
        if game.paused_at is not None:  # resuming sends the bot's turn again
            return None
        seat = seats_of(game)[game.to_act]  # from the game row, no query
        if not seat.is_bot:
            return None
        if action is None:
            action = bot_fallback_choose(GameState.from_dict(game.snapshot or {}))
        return move_apply(
            game_id=game_id,
            seat=seat.index,
            action=action,
            expected_version=version,
            source=EventSource.BOT,
        )
