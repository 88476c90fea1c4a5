"""Thin views: parse and authorise the request, call a service or a selector, render.

Every game endpoint needs a token (``Authorization: Token <token>``) except guest sign-up.
Errors are raised as ``ServiceError``s and rendered as problem documents by the central handler.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    PolymorphicProxySerializer,
    extend_schema,
    extend_schema_view,
)
from rest_framework import status
from rest_framework.generics import GenericAPIView
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from accounts import scopes
from accounts.api.authentication import player_of
from accounts.api.scopes import scopes_demand
from accounts.models import Player
from core.problems import AUTH, BODY, problem_responses
from games import errors
from games.api import examples
from games.api.answers import PREFER_MINIMAL, action_answer_body, prefers_minimal
from games.api.conditional import IF_NONE_MATCH, NOT_MODIFIED, conditional_response, without_clock
from games.api.serializers import (
    ActionCreateSerializer,
    ActionMinimalResultSerializer,
    ActionResultSerializer,
    GameCreateSerializer,
    GameDetailSerializer,
    GameEventListSerializer,
    GameEventParamsSerializer,
    GameJoinByCodeSerializer,
    GameJoinSerializer,
    GameListParamsSerializer,
    GameStartSerializer,
    GameSummarySerializer,
    RulesSerializer,
    ScorecardSerializer,
)
from games.engine import PRESETS
from games.models import Game
from games.selectors.events import game_events_list
from games.selectors.games import (
    game_detail_get,
    game_get,
    game_get_visible,
    game_list_mine,
    game_list_open,
    game_summary,
)
from games.selectors.rules import rules_get
from games.selectors.scores import game_scorecard_get
from games.services.actions import IDEMPOTENCY_KEY_MAX_LENGTH, game_action_apply
from games.services.deadlines import TimerOptions
from games.services.lobby import BotSeatSpec, game_create, game_join, game_leave, game_start
from games.services.timers import game_touch

# The codes each operation may answer (documented by ``problem_responses``), in the order the
# responses list them; the first of each status is its example.
GAME_CREATE_PROBLEMS = (
    BODY,
    "invalid_option",
    "invalid_seat",
    "timer_option_invalid",
    AUTH,
    "insufficient_scope",
    "seat_taken",
    "game_full",
    "queued_for_match",
    "rated_custom_options",
    "rated_humans_only",
    "rated_no_hints",
    "throttled",
)
JOIN_PROBLEMS = (
    BODY,
    "invalid_seat",
    AUTH,
    "player_blocked",
    "not_found",
    "game_already_started",
    "already_seated",
    "game_full",
    "seat_taken",
    "queued_for_match",
    "rated_humans_only",
)
GAME_LEAVE_PROBLEMS = (AUTH, "not_seated", "not_found", "game_already_started")
START_PROBLEMS = (
    BODY,
    AUTH,
    "not_game_creator",
    "not_found",
    "game_already_started",
    "seats_empty",
    "bot_tables_limit",
    "rated_humans_only",
    "throttled",
)
ACTION_PROBLEMS = (
    "invalid_action",
    BODY,
    AUTH,
    "not_your_turn",
    "not_seated",
    "not_found",
    "stale_version",
    "game_not_active",
    "game_paused",
    # The engine's refusals by the rules (422), then the service's.
    [code for code in errors.ENGINE_CODES if errors.spec_of(code).status == 422],
    "idempotency_key_reused",
    "rules_version_unsupported",
    "throttled",
)
EVENTS_PROBLEMS = ("invalid_request", AUTH, "not_found")


def game_for_write(game_id: int, player: Player) -> Game:
    """The game a write request acts on: visible to ``player`` (else 404), with the turn
    timer's due work applied first. Reads never apply it; the next write does."""
    return game_touch(game_get_visible(game_id=game_id, player=player), player)


GAME_ID = OpenApiParameter(
    "game_id", OpenApiTypes.INT, OpenApiParameter.PATH, description="Game id"
)


# ============================================================================== rules
class RulesApi(APIView):
    read_scopes = scopes.OWN_PROFILE_READ  # what a client of any scope needs to show tables

    @extend_schema(
        operation_id="rules_get",
        tags=["rules"],
        summary="Presets, options and action types",
        description="What a client needs to offer table settings: each preset's options and "
        "what it plays, and each option's type, allowed values, default and explanation. "
        "The same for every deploy and language: keep it and revalidate it with its `ETag` "
        "(`If-None-Match`: 304 without a body while it holds).",
        parameters=[IF_NONE_MATCH],
        responses={200: RulesSerializer, 304: NOT_MODIFIED, **problem_responses(AUTH)},
    )
    def get(self, request: Request) -> Response:
        data = RulesSerializer(rules_get()).data
        # The rules are the same for everyone: the tag names no viewer (the language, yes).
        return conditional_response(request, data, viewer="rules", vary_language=True)


# ============================================================================== games
class GamePagination(PageNumberPagination):
    page_size = 20
    page_size_query_param = "page_size"
    max_page_size = 100

    def get_paginated_response_schema(self, schema: dict[str, Any]) -> dict[str, Any]:
        paginated: dict[str, Any] = super().get_paginated_response_schema(schema)
        for name, text in {
            "count": "How many games match, on every page.",
            "next": "The next page's URL; null on the last page.",
            "previous": "The previous page's URL; null on the first page.",
            "results": "This page's games.",
        }.items():
            paginated["properties"][name]["description"] = text
        return paginated


class GameListCreateApi(GenericAPIView[Any]):
    # A bot account opens casual tables; a rated one needs `play` too (see ``post``).
    read_scopes = scopes.GAME_PLAY
    write_scopes = scopes.GAME_PLAY

    pagination_class = GamePagination
    serializer_class = GameSummarySerializer

    def get_throttles(self) -> list[BaseThrottle]:
        # Creating a table is limited per player; listing (which lobbies poll) is not.
        self.throttle_scope = "game_create" if self.request.method == "POST" else ""
        return super().get_throttles()

    @extend_schema(
        operation_id="games_list",
        tags=["games"],
        summary="List open public tables (or your own games)",
        description="Public tables waiting for players, newest first. With `mine=true`: every "
        "game you created or sit at, whatever its status.",
        parameters=[
            OpenApiParameter("preset", str, enum=list(PRESETS), description="Only this preset."),
            OpenApiParameter("players", int, enum=[2, 3, 4], description="Only tables of N seats."),
            OpenApiParameter(
                "seats_free", int, description="Only tables with at least this many free seats."
            ),
            OpenApiParameter("mine", bool, description="Your games instead of open tables."),
        ],
        responses={
            200: GameSummarySerializer(many=True),
            **problem_responses("invalid_request", AUTH, "not_found"),
        },
    )
    def get(self, request: Request) -> Response:
        params = GameListParamsSerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        filters = params.validated_data
        player = player_of(request) if filters.get("mine") else None
        if player is not None:
            qs = game_list_mine(player=player)
        else:
            qs = game_list_open(
                preset=filters.get("preset"),
                players=filters.get("players"),
                seats_free=filters.get("seats_free"),
            )
        page = self.paginate_queryset(qs)
        rows = [game_summary(g, player) for g in (page if page is not None else qs)]
        return self.get_paginated_response(rows)

    @extend_schema(
        operation_id="games_create",
        tags=["games"],
        summary="Create a table",
        description="A new table in the lobby. Seats come from the preset's (or the options') "
        "`players`; `bots` reserves seats for bots; you sit at `seat` unless `spectate`. "
        "Private tables (`is_public: false`) are not listed and need the `join_code`. A "
        "`rated` table plays the preset as it is, with people only; its result changes the "
        "players' ratings (`rating_changes` in the game once it is over); a token needs the "
        "`play` scope for it (403 `insufficient_scope`). While you wait in a "
        "quick-play queue you create no table (409 `queued_for_match`). `hints` lets the "
        "seat to act ask for a suggested move (`GET /games/{id}/hint/`), at casual tables only.",
        request=GameCreateSerializer,
        responses={201: GameDetailSerializer, **problem_responses(GAME_CREATE_PROBLEMS)},
        examples=[examples.GAME_CREATE, examples.GAME_CREATE_BOTS],
    )
    def post(self, request: Request) -> Response:
        data = GameCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        player = player_of(request)
        if v["rated"] and not player.is_bot:  # a bot account: 422 rated_humans_only below
            scopes_demand(request, scopes.PERSON_PLAY)
        game = game_create(
            creator=player,
            preset=v["preset"],
            options=v["options"],
            is_public=v["is_public"],
            bots=[BotSeatSpec(seat=b["seat"], level=b["level"]) for b in v.get("bots", [])],
            seat=v.get("seat"),
            spectate=v["spectate"],
            timer=TimerOptions(
                turn_seconds=v.get("turn_seconds"),
                timeout_limit=v["timeout_limit"],
                timeout_outcome=v["timeout_outcome"],
            ),
            rated=v["rated"],
            hints=v["hints"],
        )
        return game_detail_response(game, player, status.HTTP_201_CREATED)


def game_detail_response(
    game: Game, player: Player, code: int = status.HTTP_200_OK, *, reload: bool = True
) -> Response:
    """The game as ``player`` sees it now (re-read after a service: bots may have played)."""
    if reload:
        game = game_get(game.pk)
    return Response(game_detail_get(game=game, player=player), status=code)


class GameDetailApi(APIView):
    read_scopes = scopes.GAME_PLAY

    @extend_schema(
        operation_id="games_retrieve",
        tags=["games"],
        summary="The game as you may see it",
        description="Your own hand, every other hand as a count, the stock as a count, the "
        "legal actions when you are to act. Spectators (not seated) see no hand.\n\n"
        "The answer has an `ETag` of your own (your view of the game, not the server's "
        "clock in `timer`): send it as `If-None-Match` to get 304 without a body while "
        "nothing you see has changed (then count down from `timer.deadline` and the "
        "answer's `Date`).",
        parameters=[GAME_ID, IF_NONE_MATCH],
        responses={
            200: GameDetailSerializer,
            304: NOT_MODIFIED,
            **problem_responses(AUTH, "not_found"),
        },
        examples=[examples.GAME_DETAIL],
    )
    def get(self, request: Request, game_id: int) -> Response:
        player = player_of(request)
        game = game_get_visible(game_id=game_id, player=player)
        data = game_detail_get(game=game, player=player)
        return conditional_response(request, data, viewer=player.pk, hashed=without_clock(data))


class GameJoinApi(APIView):
    read_scopes = scopes.GAME_PLAY
    write_scopes = scopes.GAME_PLAY

    @extend_schema(
        operation_id="games_join",
        tags=["seats"],
        summary="Sit at a table",
        description="Takes `seat` (or the lowest free seat). A private table needs its "
        "`join_code`.",
        parameters=[GAME_ID],
        request=GameJoinSerializer,
        responses={200: GameDetailSerializer, **problem_responses(JOIN_PROBLEMS)},
    )
    def post(self, request: Request, game_id: int) -> Response:
        data = GameJoinSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        player = player_of(request)
        game = game_join(
            player=player,
            game_id=game_id,
            join_code=data.validated_data.get("join_code"),
            seat=data.validated_data.get("seat"),
        )
        return game_detail_response(game, player)


JOIN_CODE_MAX_LENGTH = 16


class GameJoinByCodeApi(APIView):
    read_scopes = scopes.GAME_PLAY
    write_scopes = scopes.GAME_PLAY

    @extend_schema(
        operation_id="games_join_by_code",
        tags=["seats"],
        summary="Sit at a table through its join link",
        description="The join link of a table (public or private) is "
        "`/api/v1/join/{join_code}/`. Its former path is left out of this document: beside "
        "`/games/{game_id}/actions/` it made paths ambiguous.",
        parameters=[
            OpenApiParameter(
                "join_code",
                {"type": "string", "minLength": 1, "maxLength": JOIN_CODE_MAX_LENGTH},
                OpenApiParameter.PATH,
                description="The table's `join_code` (from the creator or a seated player).",
            )
        ],
        request=GameJoinByCodeSerializer,
        responses={200: GameDetailSerializer, **problem_responses(JOIN_PROBLEMS)},
    )
    def post(self, request: Request, join_code: str) -> Response:
        data = GameJoinByCodeSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        player = player_of(request)
        game = game_join(player=player, join_code=join_code, seat=data.validated_data.get("seat"))
        return game_detail_response(game, player)


@extend_schema_view(post=extend_schema(exclude=True))
class GameJoinByCodeFormerApi(GameJoinByCodeApi):
    """The join link's former path, ``games/join/<join_code>/``: served for existing clients,
    left out of the schema (it is ambiguous beside ``games/{game_id}/actions/``)."""


class GameLeaveApi(APIView):
    read_scopes = scopes.GAME_PLAY
    write_scopes = scopes.GAME_PLAY

    @extend_schema(
        operation_id="games_leave",
        tags=["seats"],
        summary="Leave your seat before the game starts",
        parameters=[GAME_ID],
        request=None,
        responses={200: GameDetailSerializer, **problem_responses(GAME_LEAVE_PROBLEMS)},
    )
    def post(self, request: Request, game_id: int) -> Response:
        player = player_of(request)
        game = game_leave(game_id=game_id, player=player)
        return game_detail_response(game, player)


class GameStartApi(APIView):
    read_scopes = scopes.GAME_PLAY
    write_scopes = scopes.GAME_PLAY

    throttle_scope = "game_start"

    @extend_schema(
        operation_id="games_start",
        tags=["seats"],
        summary="Start the game (creator only)",
        description="Deals the first round. Empty seats are refused (409 `seats_empty`) unless "
        "`fill_with_bots`, which gives them to bots of `bot_level` (never at a rated table: 422 "
        "`rated_humans_only`). A table where only bots play with you counts towards your "
        "unfinished bot tables: past the server's cap (`BOT_TABLES_ACTIVE_MAX`, 3 by default) "
        "the start is refused with 409 `bot_tables_limit`; finish or concede one first.",
        parameters=[GAME_ID],
        request=GameStartSerializer,
        responses={200: GameDetailSerializer, **problem_responses(START_PROBLEMS)},
        examples=[examples.GAME_START],
    )
    def post(self, request: Request, game_id: int) -> Response:
        data = GameStartSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        player = player_of(request)
        game = game_start(
            game_id=game_id,
            player=player,
            fill_with_bots=data.validated_data["fill_with_bots"],
            bot_level=data.validated_data["bot_level"],
            bot_tables_capped=True,
        )
        return game_detail_response(game, player)


def action_request_read(data: Any) -> tuple[Any, int]:
    """The action and expected version of an action request, as ``ActionCreateSerializer``
    validates them. A well-formed body (both fields, the version a whole number >= 0) is read
    directly: every move sends one, and building the serializer cost as much as a query. Any
    other body goes through the serializer, whose errors are the answer."""
    if isinstance(data, dict) and "action" in data:
        version = data.get("expected_version")
        if type(version) is int and version >= 0:
            return data["action"], version
    serializer = ActionCreateSerializer(data=data)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data["action"], serializer.validated_data["expected_version"]


class GameActionCreateApi(APIView):
    read_scopes = scopes.GAME_PLAY
    write_scopes = scopes.GAME_PLAY

    throttle_scope = "actions"

    @extend_schema(
        operation_id="games_actions_create",
        tags=["play"],
        summary="Play an action for your seat",
        description="Send the action with the `version` you chose it against. A stale version "
        "is refused with 409 `stale_version` and `current_version`. With an `Idempotency-Key` "
        "header a retry is safe: the same key and body return the first response (header "
        "`Idempotent-Replayed: true`); the same key with another body is 422 "
        "`idempotency_key_reused`. Only applied actions are remembered. Concurrent actions on "
        "one game are serialised: exactly one of two racing requests is applied.\n\n"
        "With `Prefer: return=minimal` (RFC 7240) the answer leaves the game out: "
        "`{version, to_act, legal_actions, events}` (`ActionMinimalResult`), and says "
        "`Preference-Applied: return=minimal`. Without it, the whole game as before.",
        parameters=[
            GAME_ID,
            OpenApiParameter(
                "Idempotency-Key",
                {"type": "string", "maxLength": IDEMPOTENCY_KEY_MAX_LENGTH},
                OpenApiParameter.HEADER,
                required=False,
                description="A unique key per intended action (longer: 400 `invalid_request`).",
            ),
            OpenApiParameter(
                "Prefer",
                {"type": "string", "maxLength": 200},
                OpenApiParameter.HEADER,
                required=False,
                description="`return=minimal`: answer the version, the seat to act, your legal "
                "actions and the events applied, without the game (a phone's answer).",
            ),
        ],
        request=ActionCreateSerializer,
        responses={
            201: OpenApiResponse(
                PolymorphicProxySerializer(
                    component_name="ActionAnswer",
                    serializers=[ActionResultSerializer, ActionMinimalResultSerializer],
                    resource_type_field_name=None,
                ),
                description="Applied (or the replay of the first response to this key). "
                "`game` is the game as it is when the answer is sent: without a broker, after "
                "the bots' turns that followed the move; with one, as the move left it. "
                "With `Prefer: return=minimal`: `ActionMinimalResult` (header "
                "`Preference-Applied: return=minimal`).",
            ),
            **problem_responses(ACTION_PROBLEMS),
        },
        examples=[*examples.ACTIONS, examples.ACTION_RESULT, examples.ACTION_RESULT_MINIMAL],
    )
    def post(self, request: Request, game_id: int) -> Response:
        action, expected_version = action_request_read(request.data)
        player = player_of(request)
        # The service checks that the player may see the game (404) under its row lock.
        result = game_action_apply(
            game_id=game_id,
            seat=None,
            action=action,
            expected_version=expected_version,
            player=player,
            idempotency_key=request.headers.get("Idempotency-Key"),
        )
        headers = {"Idempotent-Replayed": "true"} if result.replayed else {}
        body = result.body
        if result.status == status.HTTP_201_CREATED:
            minimal = prefers_minimal(request.headers.get("Prefer"))
            body = action_answer_body(body, result.game, player, minimal=minimal)
            if minimal:
                headers["Preference-Applied"] = PREFER_MINIMAL
        return Response(body, status=result.status, headers=headers)


class GameEventListApi(APIView):
    read_scopes = scopes.GAME_PLAY

    @extend_schema(
        operation_id="games_events_list",
        tags=["play"],
        summary="The move log after event N, as you may see it",
        description="Events with seq > `after`, oldest first. Each is redacted for you: an "
        "opponent's draw shows that cards were drawn, not which; your own hand at each deal "
        "and your own draws are included.",
        parameters=[
            GAME_ID,
            OpenApiParameter("after", int, description="Return events after this seq (0)."),
            OpenApiParameter(
                "limit",
                {"type": "integer", "minimum": 1, "maximum": 500},
                description="At most this many (200, max 500).",
            ),
            IF_NONE_MATCH,
        ],
        responses={
            200: GameEventListSerializer,
            304: NOT_MODIFIED,
            **problem_responses(EVENTS_PROBLEMS),
        },
    )
    def get(self, request: Request, game_id: int) -> Response:
        return self.answer(request, game_id, conditional=True)

    def answer(self, request: Request, game_id: int, *, conditional: bool) -> Response:
        """The page of the log; ``conditional``: with its ``ETag``, 304 when the client's
        ``If-None-Match`` names it (not for a long-poll that waited: it answers news)."""
        params = GameEventParamsSerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        player = player_of(request)
        game = game_get_visible(game_id=game_id, player=player)
        body = game_events_list(
            game=game,
            player=player,
            after=params.validated_data["after"],
            limit=params.validated_data["limit"],
        )
        if not conditional:
            return Response(body)
        return conditional_response(request, body, viewer=player.pk)


class GameScorecardApi(APIView):
    read_scopes = scopes.GAME_PLAY

    @extend_schema(
        operation_id="games_scorecard",
        tags=["play"],
        summary="Scores per round and cumulative, every component",
        parameters=[GAME_ID],
        responses={200: ScorecardSerializer, **problem_responses(AUTH, "not_found")},
    )
    def get(self, request: Request, game_id: int) -> Response:
        player = player_of(request)
        game = game_get_visible(game_id=game_id, player=player)
        return Response(game_scorecard_get(game=game, player=player))
