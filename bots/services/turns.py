"""A bot's turn: what its seat may know, what its level's policy chooses, and the move applied
through the same service as a human's.

The game service knows bots only as the ``BotPlayer`` registered at start (``BotsConfig.ready``
registers ``CeleryBotPlayer``): it sends a bot's turn as the ``bots.bot_turn_play`` task and
asks for a level's move or a discard when the turn timer plays for an absent seat.

A turn reads the game WITHOUT locking it, builds the bot seat's observation from exactly what a
human at that seat could fetch (its player view and the log's events as that seat sees them),
lets the seat's level policy think, and only then applies the move against the version it read.
If anything moved meanwhile (a duplicate or late task, a redelivered message, another path), the
version check refuses the move and the turn ends quietly: a stale turn never applies.
"""

from __future__ import annotations

import hashlib
import logging
import random
from datetime import timedelta
from typing import Any

from django.db.models import Exists, OuterRef
from django.utils import timezone

from bots.policies import Observation, determinise, observe, policy_for_level
from bots.policies.family import family_discard_choose
from bots.policies.family_levels import family_policy_choose
from bots.policies.heuristic import DEFAULT_PARAMS, choose_discard
from core.errors import ServiceError
from games.engine import Action, Event, GameState, action_to_dict, effects_from_json
from games.engine.view import event_view, player_view
from games.models import Game, GameEvent, GameStatus, Seat
from games.selectors.seating import seats_of
from games.services.moves import bot_action_apply

logger = logging.getLogger(__name__)

# Service refusals meaning "someone else already moved": nothing to do.
QUIET_CODES = {"stale_version", "game_not_active", "game_over", "not_your_turn", "not_found"}


def round_events_load(game: Game) -> list[Event]:
    """The engine events of the current round, oldest first (read newest-first from the log,
    stopping at the round's deal)."""
    chunks: list[list[Event]] = []
    rows = GameEvent.objects.filter(game=game).order_by("-seq").values_list("effects", flat=True)
    for effects in rows.iterator(chunk_size=64):
        events = effects_from_json(effects)
        starts = [i for i, e in enumerate(events) if e.kind == "round_started"]
        if starts:
            chunks.append(events[starts[-1] :])
            break
        chunks.append(events)
    out: list[Event] = []
    for chunk in reversed(chunks):
        out.extend(chunk)
    return out


def bot_observation_build(game: Game, seat: int) -> Observation:
    """What ``seat`` may know: its player view and the round's events as it saw them."""
    state = GameState.from_dict(game.snapshot or {})
    view = player_view(state, seat)
    seen = [event_view(e, seat) for e in round_events_load(game)]
    return observe(view, seen, state.options)


def _policy_seed(game_id: int, version: int) -> int:
    digest = hashlib.sha256(f"bot:{game_id}:{version}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def _family_state(game: Game) -> GameState | None:
    """The game's state when it plays a rule family beside classic (its bots are the family
    policy's: ``bots.policies.family``); None for a classic game."""
    family = (game.options or {}).get("family", "classic")
    if family == "classic" or not game.snapshot:
        return None
    return GameState.from_dict(game.snapshot)


def _action_choose(game: Game, seat: int, level: str, seed: int) -> Action:
    """``level``'s move for ``seat`` (the seat to act) from what that seat knows."""
    state = _family_state(game)
    if state is not None:
        return family_policy_choose(level, state, seat, random.Random(seed))
    policy = policy_for_level(level, seed=seed)
    return policy.choose(bot_observation_build(game, seat))


def bot_decision_compute(game_id: int, version: int) -> tuple[int, dict[str, Any]] | None:
    """The bot's move at ``version`` as (seat, action dict), or None when there is nothing to
    do. Reads only; holds no lock while the policy thinks."""
    game = Game.objects.filter(pk=game_id).first()
    if (
        game is None
        or game.status != GameStatus.ACTIVE
        or game.version != version
        or game.paused_at is not None
    ):
        return None
    if game.to_act is None or not game.snapshot:
        return None
    seats = seats_of(game)  # from the game row, no query
    seat = seats[game.to_act] if game.to_act < len(seats) else None
    if seat is None or not seat.bot_level:
        return None
    action = _action_choose(game, seat.index, seat.bot_level, _policy_seed(game_id, version))
    return seat.index, action_to_dict(action)


def bot_turn_play_now(game_id: int, version: int) -> bool:
    """Play the bot to act in ``game_id`` at ``version``; True when a move was applied."""
    decision = bot_decision_compute(game_id, version)
    if decision is None:
        return False
    seat, action = decision
    try:
        result = bot_action_apply(game_id, version, action)
    except ServiceError as exc:
        if exc.code in QUIET_CODES:
            return False
        # The engine refused the policy's move (a bot bug): log it and let the built-in
        # fallback move instead, so a game never stalls on a bot.
        logger.error(
            # The action and the message may name the seat's cards: log only their kinds.
            "bot move refused in game %s at version %s (seat %s, %s): %s",
            game_id,
            version,
            seat,
            action.get("type"),
            exc.code,
        )
        result = bot_action_apply(game_id, version, None)
    return result is not None


# A bot turn whose message was lost (a worker killed outright: Redis hands an unacknowledged
# message to another worker only after the visibility timeout, an hour; or the broker down when
# the move committed) would leave its game waiting. Beat runs this sweep every
# BOT_TURN_SWEEP_SECONDS: every active game whose seat to act is a bot and which has logged no
# event for BOT_TURN_STALL_SECONDS (longer than a task may run) gets its turn sent again. The
# task is idempotent by version, so a turn still in flight is never played twice.
SWEEP_BATCH = 200


BOT_TURN_TASK = "bots.bot_turn_play"
UNATTENDED_BOT_TURN_TASK = "bots.unattended_bot_turn_play"


def bot_turn_task(game_id: int) -> str:
    """The task that plays a bot's turn in ``game_id``: the interactive one when a player sits
    at the table (someone waits for the bots), the bulk one when only bots do (nobody waits:
    such tables play in the bulk workers' spare time, never in front of a player's game)."""
    attended = Seat.objects.filter(game_id=game_id, player__isnull=False).exists()
    return BOT_TURN_TASK if attended else UNATTENDED_BOT_TURN_TASK


def stalled_bot_turns(stall_seconds: float) -> list[tuple[int, int]]:
    """(game id, version) of active games waiting on a bot with no event for that long (a
    paused game waits for its players, not its bots)."""
    cutoff = timezone.now() - timedelta(seconds=stall_seconds)
    bot_to_act = Seat.objects.filter(
        game=OuterRef("pk"), index=OuterRef("to_act"), bot_level__isnull=False
    )
    recent = GameEvent.objects.filter(game=OuterRef("pk"), created_at__gt=cutoff)
    rows = (
        Game.objects.filter(status=GameStatus.ACTIVE, to_act__isnull=False, paused_at__isnull=True)
        .filter(Exists(bot_to_act))
        .exclude(Exists(recent))
        .order_by("pk")
        .values_list("pk", "version")[:SWEEP_BATCH]
    )
    return list(rows)


def bot_action_choose(game: Game, seat: int, level: str, seed: int) -> dict[str, Any]:
    """A level's move for ``seat`` from that seat's own view (the action's text form)."""
    return action_to_dict(_action_choose(game, seat, level, seed))


def bot_discard_choose(game: Game, seat: int, seed: int) -> Action | None:
    """The heuristic bot's discard for ``seat`` from that seat's own view (a family beside
    classic: its easy level's)."""
    state = _family_state(game)
    if state is not None:
        return family_discard_choose(state, seat) if state.to_act == seat else None
    obs = bot_observation_build(game, seat)
    world = determinise(obs, random.Random(seed))
    return choose_discard(obs, world, DEFAULT_PARAMS)
