"""Celery tasks of the bots: thin, ids in, idempotent by game version (``bots.services.turns``)."""

from __future__ import annotations

import logging
from typing import Any

from celery import shared_task
from django.conf import settings

from bots.services.review_compute import review_next_compute
from bots.services.reviews import reviews_unclaimed
from bots.services.turns import (
    BOT_TURN_TASK,
    UNATTENDED_BOT_TURN_TASK,
    bot_action_choose,
    bot_discard_choose,
    bot_turn_play_now,
    bot_turn_task,
    stalled_bot_turns,
)
from core import dispatch
from games.engine import Action
from games.models import Game

logger = logging.getLogger(__name__)


@shared_task(name=BOT_TURN_TASK)
def bot_turn_play(game_id: int, version: int) -> bool:
    """Play the bot to act in ``game_id`` at ``version``; True when a move was applied."""
    return bot_turn_play_now(game_id, version)


# The same, for a table where only bots sit: on the bulk queue (core.dispatch).
@shared_task(name=UNATTENDED_BOT_TURN_TASK)
def unattended_bot_turn_play(game_id: int, version: int) -> bool:
    """Play the bot to act in ``game_id`` (no player seated) at ``version``."""
    return bot_turn_play_now(game_id, version)


def bot_turn_send(game_id: int, version: int) -> None:
    """Send the bot turn of ``game_id`` at ``version`` to its queue (``bot_turn_task``)."""
    dispatch.send(bot_turn_task(game_id), game_id, version)


# A bot turn whose message was lost (a worker killed outright: Redis hands an unacknowledged
# message to another worker only after the visibility timeout, an hour; or the broker down when
# the move committed) would leave its game waiting. Beat runs this sweep every
# BOT_TURN_SWEEP_SECONDS: every active game whose seat to act is a bot and which has logged no
# event for BOT_TURN_STALL_SECONDS (longer than a task may run) gets its turn sent again. The
# task is idempotent by version, so a turn still in flight is never played twice.
@shared_task(name="bots.bot_turns_sweep")
def bot_turns_sweep(stall_seconds: float | None = None) -> int:
    """Send the turn of every stalled bot again; returns how many were sent."""
    if stall_seconds is None:
        stall_seconds = settings.BOT_TURN_STALL_SECONDS
    stalled = stalled_bot_turns(stall_seconds)
    for game_id, version in stalled:
        logger.warning("bot turn of game %s at version %s stalled: sent again", game_id, version)
        bot_turn_send(game_id, version)
    return len(stalled)


# A review searches every decision of a seat: up to a minute of CPU for a whole classic game
# (bench/review.py), more than the default task limits allow. One task is sent per review asked
# for; each computes the waiting review whose turn it is (players served in turn), not
# necessarily the one it was sent for, so every review is computed once, in fair order.
@shared_task(name="bots.game_review_compute", acks_late=True, soft_time_limit=240, time_limit=300)
def game_review_compute(review_id: int) -> bool:
    """Compute the waiting review whose turn it is; when every waiting review's requester has
    one being computed, try again in ``REVIEW_RETRY_SECONDS``. True when one was computed."""
    if review_next_compute() is not None:
        return True
    if reviews_unclaimed():
        dispatch.send(
            "bots.game_review_compute", review_id, countdown=settings.REVIEW_RETRY_SECONDS
        )
    return False


def _review_in_process(review_id: int) -> None:
    game_review_compute(review_id)


# Without a broker (``REVIEWS_IN_PROCESS``, ``make run``) reviews are computed one after another
# by a daemon thread of this process, never inside the request that asked for one.
in_process_reviewer: dispatch.InProcessWorker[int] = dispatch.InProcessWorker(
    "in-process reviewer", _review_in_process, retries=1, retry_delay=lambda tries: 5.0
)


class CeleryBotPlayer:
    """The bots app as the game service's ``BotPlayer`` (registered by ``BotsConfig.ready``):
    turns are Celery tasks (run in-process in eager mode), choices come from the level policies
    over the seat's own view."""

    def turn_schedule(self, game_id: int, version: int) -> None:
        bot_turn_send(game_id, version)

    def action_choose(self, game: Game, seat: int, level: str, seed: int) -> dict[str, Any]:
        return bot_action_choose(game, seat, level, seed)

    def discard_choose(self, game: Game, seat: int, seed: int) -> Action | None:
        return bot_discard_choose(game, seat, seed)

    def review_schedule(self, review_id: int) -> None:
        if dispatch.is_eager() and settings.REVIEWS_IN_PROCESS:
            in_process_reviewer.put([review_id])
            return
        game_review_compute.delay(review_id)
