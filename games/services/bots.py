"""Bot seats: who plays them, and when their turn is sent.

The game service knows bots only through a registry: the ``bots`` app registers a
``BotPlayer`` at start (``BotsConfig.ready``), so ``games`` never imports ``bots``. Its
``turn_schedule(game_id, version)`` has the bot to act at ``version`` play its turn (a Celery
task, idempotent by version); its choosers pick a move for a seat from that seat's own view, for
the turn timer (a stand-in bot, the timer's discard).

After every commit that leaves a bot to act, ``bot_turn_schedule(game_id, version)`` runs. With
a broker the registered player sends its task to a worker. Without one (eager mode,
``core.dispatch``) the task would run inside the on_commit hook of the previous bot move, and a
game of bots would nest one call per move; instead each thread's pending bot turns wait in line
(``dispatch.InThreadQueue``) and run one after another, so a whole game of bots runs at constant
stack depth.
"""

from __future__ import annotations

import logging
from typing import Any, Protocol

from django.db import transaction

from core import dispatch, tracing
from games.engine import Action, GameState, action_to_dict, legal_actions
from games.models import Game, GameStatus, Seat

logger = logging.getLogger(__name__)


class BotPlayer(Protocol):
    """What the bots app provides to the game service."""

    def turn_schedule(self, game_id: int, version: int) -> None:
        """Have the bot to act in ``game_id`` play its turn at ``version`` (idempotent)."""

    def action_choose(self, game: Game, seat: int, level: str, seed: int) -> dict[str, Any]:
        """A level's move for ``seat`` from that seat's own view (the action's text form)."""

    def discard_choose(self, game: Game, seat: int, seed: int) -> Action | None:
        """The discard the heuristic bot would make for ``seat`` (None: no opinion)."""

    def review_schedule(self, review_id: int) -> None:
        """Have the post-game review ``review_id`` computed (a task; idempotent: a review that
        is ready is not computed again)."""


_registry: dict[str, BotPlayer] = {}


def bot_player_register(player: BotPlayer) -> None:
    """Install the bot player (the bots app, at start; tests may install another)."""
    _registry["player"] = player


def bot_player_get() -> BotPlayer | None:
    return _registry.get("player")


def review_send(review_id: int) -> None:
    """Have the registered bot player compute the review ``review_id`` (after a commit)."""
    player = bot_player_get()
    if player is None:
        raise RuntimeError("no bot player is registered: the 'bots' app must be installed")
    player.review_schedule(review_id)


# A simple legal bot: the first legal action of the most productive kind (a special hand, in
# Modern American Canasta, scores more than any meld).
FALLBACK_PREFERENCE = (
    "declare_special_hand",
    "take_pile",
    "meld",
    "draw",
    "answer_partner",
    "discard",
    "decline_pile",
    "end_round",
    "ask_partner",
)


def bot_fallback_choose(state: GameState) -> dict[str, Any]:
    """The built-in bot's choice: take the pile or meld when it can, else draw / discard."""
    options = legal_actions(state)
    best = min(options, key=lambda a: FALLBACK_PREFERENCE.index(a.type))
    return action_to_dict(best)


def bot_turn_register(game: Game, seats: list[Seat]) -> None:
    """Schedule the bot's turn once the current transaction commits, if a bot is to act (and
    the game is not paused: resuming it schedules the turn)."""
    if game.status != GameStatus.ACTIVE or game.to_act is None or game.paused_at is not None:
        return
    if not seats[game.to_act].is_bot:
        return
    game_id, version = game.pk, game.version
    tracing.on_commit("bots.turn_schedule", lambda: bot_turn_schedule(game_id, version))


_eager_turns = dispatch.InThreadQueue()  # without a broker: this thread's bot turns, in line


def bot_turns_played(game: Game, seats: list[Seat]) -> bool:
    """Whether the bot turns that ``game``'s committed move left (a bot to act) have already
    been played, in this thread: without a broker they run as the move's transaction commits,
    unless an outer transaction holds its hooks back or a bot turn of this thread is running
    (they then wait in its queue). With a broker they are a worker's, later."""
    if not dispatch.is_eager() or transaction.get_connection().in_atomic_block:
        return False
    if _eager_turns.busy:
        return False
    return (
        game.status == GameStatus.ACTIVE and game.to_act is not None and seats[game.to_act].is_bot
    )


def bot_turn_schedule(game_id: int, version: int) -> None:
    """Have the bot to act in ``game_id`` play its turn at ``version`` (idempotent by version)."""
    if not dispatch.is_eager():
        _bot_turn_send(game_id, version)
        return
    # Without a broker: now, or, while a bot turn of this thread runs, in line after it.
    _eager_turns.run(_bot_turn_send, game_id, version)


def _bot_turn_send(game_id: int, version: int) -> None:
    player = bot_player_get()
    if player is None:
        raise RuntimeError("no bot player is registered: the 'bots' app must be installed")
    try:
        player.turn_schedule(game_id, version)
    except Exception:
        if dispatch.is_eager():
            raise
        # The move is committed; the bots app's sweep sends this turn again.
        logger.exception("could not send the bot turn of game %s at %s", game_id, version)
