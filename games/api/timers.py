"""The turn timer's endpoints: its state and log, and turning it off by agreement.

Turning the timer off needs every seat with a player: one proposes (which counts as their
acceptance), each other accepts, or anyone declines (the proposal is dropped). Each step is a
row of the timer's log; the timer goes off with the last acceptance.
"""

from __future__ import annotations

from collections.abc import Callable

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import scopes
from accounts.models import Player
from core.problems import AUTH, problem_responses
from games.api.serializers import TimerDetailSerializer
from games.api.views import GAME_ID, game_for_write, player_of
from games.models import Game
from games.selectors.games import game_get_visible
from games.selectors.timers import timer_detail_get
from games.services.timers import timer_off_accept, timer_off_decline, timer_off_propose

TIMER_TAGS = ["timer"]


def _timer_detail(game_id: int, player: Player, after: int = 0) -> Response:
    game = Game.objects.get(pk=game_id)
    body = timer_detail_get(game=game, player=player, after=after)
    return Response(TimerDetailSerializer(body).data)


class GameTimerApi(APIView):
    read_scopes = scopes.GAME_PLAY

    @extend_schema(
        operation_id="games_timer_retrieve",
        tags=TIMER_TAGS,
        summary="The turn timer and its log",
        description="The timer's options, the current deadline with the server's time, each "
        "seat's run of timeouts and stand-in bot, a pending proposal to turn it off, and the "
        "timer's log (timeouts, seats handed to a bot and back, proposals) after `after`. "
        "The moves a timer played are in the game's event log with source `timer`.",
        parameters=[
            GAME_ID,
            OpenApiParameter("after", int, description="Log entries after this seq (0)."),
        ],
        responses={200: TimerDetailSerializer, **problem_responses(AUTH, "not_found")},
    )
    def get(self, request: Request, game_id: int) -> Response:
        player = player_of(request)
        game_get_visible(game_id=game_id, player=player)
        try:
            after = max(0, int(request.query_params.get("after", 0)))
        except ValueError:
            after = 0
        return _timer_detail(game_id, player, after)


# Every step of turning the timer off; then what each step adds.
_OFF = (AUTH, "not_seated", "not_found", "game_not_active", "timer_not_running", "throttled")


class TimerOffStepApi(APIView):
    read_scopes = scopes.GAME_PLAY
    write_scopes = scopes.PERSON_PLAY
    # Each step is a row of the timer's log that every seat is told of: limited per player.
    throttle_scope = "proposals"


def _timer_off_step(request: Request, game_id: int, service: Callable[..., Game]) -> Response:
    player = player_of(request)
    game_for_write(game_id, player)
    service(game_id=game_id, player=player)
    return _timer_detail(game_id, player)


class GameTimerOffProposeApi(TimerOffStepApi):
    @extend_schema(
        operation_id="games_timer_off_propose",
        tags=TIMER_TAGS,
        summary="Propose to turn the turn timer off",
        description="A seated player proposes; it counts as their acceptance (alone at the "
        "table with bots, the timer goes off at once). 409 `timer_not_running` without a "
        "timer, `timer_proposal_pending` when a proposal already waits; 429 "
        "`proposal_cooldown` (with Retry-After) when this player's last proposal was declined "
        "less than `PROPOSAL_COOLDOWN_SECONDS` (300) ago.",
        parameters=[GAME_ID],
        request=None,
        responses={
            200: TimerDetailSerializer,
            **problem_responses(_OFF, "timer_proposal_pending", "proposal_cooldown"),
        },
    )
    def post(self, request: Request, game_id: int) -> Response:
        return _timer_off_step(request, game_id, timer_off_propose)


class GameTimerOffAcceptApi(TimerOffStepApi):
    @extend_schema(
        operation_id="games_timer_off_accept",
        tags=TIMER_TAGS,
        summary="Accept turning the turn timer off",
        description="When every seat with a player has accepted, the timer is off (logged as "
        "`timer_turned_off`) and seats played by a stand-in bot go back to their players. "
        "Accepting twice changes nothing. 409 `timer_proposal_missing` without a proposal.",
        parameters=[GAME_ID],
        request=None,
        responses={200: TimerDetailSerializer, **problem_responses(_OFF, "timer_proposal_missing")},
    )
    def post(self, request: Request, game_id: int) -> Response:
        return _timer_off_step(request, game_id, timer_off_accept)


class GameTimerOffDeclineApi(TimerOffStepApi):
    @extend_schema(
        operation_id="games_timer_off_decline",
        tags=TIMER_TAGS,
        summary="Decline turning the turn timer off",
        description="Drops the pending proposal; the timer keeps running.",
        parameters=[GAME_ID],
        request=None,
        responses={200: TimerDetailSerializer, **problem_responses(_OFF, "timer_proposal_missing")},
    )
    def post(self, request: Request, game_id: int) -> Response:
        return _timer_off_step(request, game_id, timer_off_decline)
