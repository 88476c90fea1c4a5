"""Quick play over HTTP: join a queue, read (and wait on) your queue status, leave the queue.

Thin views over ``competition.services.matchmaking`` and ``competition.selectors.matchmaking``.
The status read long-polls like the move log: it holds the request while you wait for a match and
answers as soon as your table is dealt (a wake-up on your player channel, ``games.live``).
Without a broker (no Celery beat), the view runs a pairing pass before each read
(``pairing_nudge``; ``MATCHMAKING_IN_PROCESS``), as the module docstring of the service says.
"""

from __future__ import annotations

import asyncio
from typing import Any

from django.conf import settings
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from accounts import scopes
from accounts.models import Player
from competition import errors
from competition.models import RatingFormat
from competition.selectors.matchmaking import (
    WINDOW_START,
    WINDOW_STEP,
    WINDOW_STEP_SECONDS,
    WINDOW_UNLIMITED_SECONDS,
    QueueStatus,
    queue_status_get,
)
from competition.services.matchmaking import (
    BOTS_AFTER_MAX,
    BOTS_AFTER_MIN,
    pairing_in_process,
    pairing_nudge,
    queue_join,
    queue_leave,
)
from core import metrics
from core.problems import AUTH, BODY, problem_responses
from games import live
from games.api.live import WAIT_MAX_SECONDS, AsyncApiView, db, wait_bound
from games.api.views import player_of
from games.engine import PRESETS
from games.models import BotLevel
from games.realtime.feed import db_call
from games.realtime.limits import connection_held

Base = serializers.Serializer[Any]

QUEUE_PRESETS = tuple(PRESETS)  # the standard presets (a queue plays one as it is)


# ============================================================================== serializers
class QueueJoinSerializer(Base):
    preset = serializers.ChoiceField(
        choices=list(QUEUE_PRESETS), help_text="The standard preset to play."
    )
    rated = serializers.BooleanField(
        required=False, default=False, help_text="A rated game (humans only) or a casual one."
    )
    bots_after_seconds = serializers.IntegerField(
        required=False,
        allow_null=True,
        default=None,
        min_value=BOTS_AFTER_MIN,
        max_value=BOTS_AFTER_MAX,
        help_text="Casual only: after this many seconds without enough people, fill the "
        "empty seats with bots (null, the default: wait for people).",
    )
    bot_level = serializers.ChoiceField(
        choices=BotLevel.choices,
        required=False,
        default=BotLevel.MEDIUM,
        help_text="Casual only: the level of those bots.",
    )


class QueueStatusSerializer(Base):
    status = serializers.ChoiceField(
        choices=["waiting", "matched"],
        help_text="`waiting` for a match; `matched`: your table is made (`game_id` once dealt).",
    )
    preset = serializers.ChoiceField(choices=list(QUEUE_PRESETS), help_text="The queue's preset.")
    format = serializers.ChoiceField(
        choices=list(RatingFormat.values), help_text="The rating format the preset belongs to."
    )
    rated = serializers.BooleanField(help_text="A rated queue.")
    joined_at = serializers.DateTimeField(help_text="When you joined the queue.")
    waited_seconds = serializers.IntegerField(
        min_value=0, help_text="How long you have waited (until you were matched)."
    )
    rating_window = serializers.IntegerField(
        allow_null=True,
        min_value=0,
        help_text="Rated queues: you may be paired with players this many rating points "
        f"above or below you; it starts at {WINDOW_START} and widens by {WINDOW_STEP} every "
        f"{WINDOW_STEP_SECONDS} s. Null in a casual queue, and in a rated one after "
        f"{WINDOW_UNLIMITED_SECONDS} s (any rating).",
    )
    bots_at = serializers.DateTimeField(
        allow_null=True,
        help_text="Casual queues with `bots_after_seconds`: from when bots may fill your table.",
    )
    game_id = serializers.IntegerField(
        allow_null=True, help_text="Your match's table, once dealt (null until then)."
    )


class QueueStatusParamsSerializer(Base):
    wait = serializers.IntegerField(
        required=False, default=0, min_value=0, max_value=WAIT_MAX_SECONDS
    )


def _body(queue: QueueStatus) -> dict[str, Any]:
    return QueueStatusSerializer(
        {
            "status": queue.status,
            "preset": queue.preset,
            "format": queue.format,
            "rated": queue.rated,
            "joined_at": queue.joined_at,
            "waited_seconds": queue.waited_seconds,
            "rating_window": queue.rating_window,
            "bots_at": queue.bots_at,
            "game_id": queue.game_id,
        }
    ).data


def _status_read(player: Player) -> QueueStatus:
    """The status, after the pairing pass that is due when no beat pairs (a service call the
    view makes before it reads)."""
    pairing_nudge()
    return queue_status_get(player)


def _join(player: Player, data: dict[str, Any]) -> QueueStatus:
    queue_join(
        player=player,
        preset=data["preset"],
        rated=data["rated"],
        bots_after_seconds=data["bots_after_seconds"],
        bot_level=data["bot_level"],
    )
    return queue_status_get(player)


async def status_wait(player: Player, seconds: float) -> QueueStatus:
    """The player's status once their table is dealt, or after ``seconds`` (or at once when
    they are in no queue: 404). Woken by their player channel; without a beat, a pairing pass
    runs every ``MATCHMAKING_PAIR_SECONDS`` meanwhile. The wait holds one of the player's
    live connections (429 ``too_many_live_connections`` over the cap)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    tick = float(getattr(settings, "MATCHMAKING_PAIR_SECONDS", 2))
    async with (
        connection_held(player.pk, metrics.LONG_POLL),
        live.player_listening(player.pk) as listener,
    ):
        while True:
            queue = await db_call(_status_read, player)
            remaining = deadline - loop.time()
            if queue.settled or remaining <= 0:
                return queue
            await listener.wait(min(remaining, tick) if pairing_in_process() else remaining)


# ============================================================================== views
QUEUE_EXAMPLE = OpenApiExample(
    "Waiting in the rated classic queue",
    value={
        "status": "waiting",
        "preset": "classic",
        "format": "partnership",
        "rated": True,
        "joined_at": "2026-11-22T23:50:00Z",
        "waited_seconds": 25,
        "rating_window": 200,
        "bots_at": None,
        "game_id": None,
    },
    response_only=True,
)


class QueueApi(AsyncApiView):
    read_scopes = scopes.PERSON_PLAY
    write_scopes = scopes.PERSON_PLAY

    def check_permissions(self, request: Request) -> None:
        # A bot account is kept from quick play by the rules: it hears so (403
        # bot_account_not_allowed) rather than that its key lacks `play`.
        player = getattr(request.user, "player", None)
        if request.method == "POST" and player is not None and player.is_bot:
            raise errors.BotAccountNotAllowed()
        super().check_permissions(request)

    @extend_schema(
        operation_id="queue_join",
        tags=["quick play"],
        summary="Join a quick-play queue",
        description="Wait to be matched with other players for a standard preset, rated or "
        "casual. A pairing run every few seconds groups waiting players by rating within a "
        f"window that widens with the wait (±{WINDOW_START} rating points at first, any rating "
        f"after {WINDOW_UNLIMITED_SECONDS} s); a casual queue ignores ratings beyond ordering "
        "who sits with whom, and may fill empty seats with bots of `bot_level` after "
        "`bots_after_seconds`. At a four-player table partners are drawn at random. The match's "
        "table is created and dealt for you: follow `GET /queue/?wait=25` until `game_id` is "
        "set, then play it like any game.\n\n"
        "Refused while you wait or your match is being played (409 `already_queued`), with a "
        "seat at a table in the lobby or in play (409 `at_table`), and for a rated queue with "
        "bots (422 `rated_humans_only`); bot accounts play casual tables only (403 "
        "`bot_account_not_allowed`). While you wait, creating or joining a table is refused "
        "(409 `queued_for_match`).",
        request=QueueJoinSerializer,
        responses={
            201: QueueStatusSerializer,
            **problem_responses(
                BODY,
                AUTH,
                "bot_account_not_allowed",
                "already_queued",
                "at_table",
                "rated_humans_only",
            ),
        },
        examples=[
            OpenApiExample(
                "Casual classic, bots after a minute",
                value={
                    "preset": "classic",
                    "rated": False,
                    "bots_after_seconds": 60,
                    "bot_level": "medium",
                },
                request_only=True,
            ),
            QUEUE_EXAMPLE,
        ],
    )
    async def post(self, request: Request) -> Response:
        data = QueueJoinSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        player = await db(player_of, request)
        queue = await db_call(_join, player, data.validated_data)
        return Response(_body(queue), status=status.HTTP_201_CREATED)

    @extend_schema(
        operation_id="queue_retrieve",
        tags=["quick play"],
        summary="Your quick-play queue status (long-poll with `wait`)",
        description="Whether you wait or are matched, how long you waited, your rating window "
        "(rated queues), when bots may fill your table (casual queues) and, once dealt, your "
        f"table's `game_id`. With `wait=S` (1 to {WAIT_MAX_SECONDS}) the answer is held while "
        "you wait for a match (or for your table to be dealt), at most S seconds: it comes as "
        "soon as `game_id` is set. 404 `not_queued` when you are in no queue (you left, or your "
        "match's game is over).",
        parameters=[
            OpenApiParameter(
                "wait",
                int,
                description=f"Long-poll: wait up to this many seconds (0 to {WAIT_MAX_SECONDS}; "
                "0, the default, answers at once).",
            )
        ],
        responses={
            200: QueueStatusSerializer,
            **problem_responses("invalid_request", AUTH, "not_queued", "too_many_live_connections"),
        },
        examples=[QUEUE_EXAMPLE],
    )
    async def get(self, request: Request) -> Response:
        params = QueueStatusParamsSerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        player = await db(player_of, request)
        wait = wait_bound(params.validated_data["wait"])
        if wait:
            queue = await status_wait(player, wait)
        else:
            queue = await db_call(_status_read, player)
        return Response(_body(queue))

    @extend_schema(
        operation_id="queue_leave",
        tags=["quick play"],
        summary="Leave the quick-play queue",
        description="Stop waiting. Once matched it is too late: 409 `queue_matched` with your "
        "table's `game_id` (null while it is being dealt). 404 `not_queued` when you are in no "
        "queue.",
        request=None,
        responses={204: None, **problem_responses(AUTH, "not_queued", "queue_matched")},
    )
    async def delete(self, request: Request) -> Response:
        player = await db(player_of, request)
        await db_call(queue_leave, player=player)
        return Response(status=status.HTTP_204_NO_CONTENT)
