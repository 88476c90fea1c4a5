"""Hints over HTTP: the seat to act asks what a bot level would play (tables with ``hints``)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import scopes
from bots.services.hints import HINT_LEVELS, hint_get
from core.problems import AUTH, problem_responses
from games.api.serializers import ActionSerializer
from games.api.views import GAME_ID, player_of
from games.models import BotLevel
from games.selectors.games import game_get_visible

Base = serializers.Serializer[Any]


class HintParamsSerializer(Base):
    """Query parameters of a hint (validation only)."""

    level = serializers.ChoiceField(choices=list(HINT_LEVELS), default=BotLevel.MEDIUM)


class HintSerializer(Base):
    """A suggested move for your seat, from your own view (one of your legal actions)."""

    version = serializers.IntegerField(
        help_text="The game version the hint was chosen at: send it as `expected_version`."
    )
    seat = serializers.IntegerField(help_text="Your seat (the seat to act).")
    level = serializers.ChoiceField(
        choices=list(HINT_LEVELS), help_text="The bot level that chose the move."
    )
    action = ActionSerializer(
        help_text="The move, as `POST /games/{id}/actions/` takes it (and `legal_actions` "
        "lists actions)."
    )
    summary = serializers.CharField(help_text="The move in a few words, for people.")


HINT_PROBLEMS = (
    "invalid_request",
    AUTH,
    "hints_off",
    "not_seated",
    "not_your_turn",
    "not_found",
    "game_not_active",
    "game_paused",
    "throttled",
)


class GameHintApi(APIView):
    read_scopes = scopes.PERSON_PLAY
    throttle_scope = "hint"

    @extend_schema(
        operation_id="games_hint",
        tags=["play"],
        summary="A suggested move for your seat (tables with hints)",
        description="At a table created with `hints: true` (casual tables only), the seat to "
        "act may ask what the `medium` (default) or `hard` bot would play. The bot sees only "
        "your seat's view, so the hint is one of your legal actions and names only cards you "
        "can see. Asking changes nothing in the game; the same version and level give the same "
        "hint. Refused: 403 `hints_off` at a table without hints, 403 `not_seated` to a "
        "spectator, 403 `not_your_turn` when another seat is to act, 409 `game_not_active` "
        "outside play, 409 `game_paused` while paused.",
        parameters=[
            GAME_ID,
            OpenApiParameter(
                "level",
                str,
                enum=list(HINT_LEVELS),
                description="The bot level asked (`medium` by default; `hard` thinks longer).",
            ),
        ],
        responses={200: HintSerializer, **problem_responses(HINT_PROBLEMS)},
        examples=[
            OpenApiExample(
                "Discard a seven",
                value={
                    "version": 14,
                    "seat": 0,
                    "level": "medium",
                    "action": {"type": "discard", "card": "7H"},
                    "summary": "Discard 7\u2665",
                },
                response_only=True,
            )
        ],
    )
    def get(self, request: Request, game_id: int) -> Response:
        params = HintParamsSerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        player = player_of(request)
        game = game_get_visible(game_id=game_id, player=player)
        body = hint_get(game=game, player=player, level=params.validated_data["level"])
        return Response(HintSerializer(body).data)
