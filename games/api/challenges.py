"""Challenges over HTTP: challenge a player, list your open challenges, read one, accept,
decline or cancel it. Thin views: parse, call ``games.services.challenges``, render; refusals
are problem documents from the central handler."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from accounts.api.authentication import player_of
from core.problems import AUTH, BODY, problem_responses
from games.api.serializers import OptionOverridesField
from games.engine import PRESETS
from games.models import BotLevel, ChallengeStatus
from games.selectors.challenges import EXPIRED, challenge_doc, challenge_get, challenges_open_list
from games.services.challenges import (
    CHALLENGE_EXPIRY_DEFAULT_SECONDS,
    CHALLENGE_EXPIRY_MAX_SECONDS,
    CHALLENGE_EXPIRY_MIN_SECONDS,
    challenge_accept,
    challenge_cancel,
    challenge_decline,
    challenge_issue,
)

Base = serializers.Serializer[Any]

READ_SCOPES = ("challenge:write", "play")
WRITE_SCOPES = ("challenge:write",)


class ChallengePlayerSerializer(Base):
    id = serializers.IntegerField(help_text="The player's id.")
    display_name = serializers.CharField(help_text="The name other players see.")
    is_bot = serializers.BooleanField(help_text="A bot account.")


class ChallengeSerializer(Base):
    id = serializers.IntegerField(help_text="The challenge's id.")
    challenger = ChallengePlayerSerializer(help_text="Who sent it.")
    invitee = ChallengePlayerSerializer(help_text="Whom it invites.")
    preset = serializers.CharField(help_text="The table's preset.")
    options = OptionOverridesField(help_text="Overrides of the preset's options.")
    rated = serializers.BooleanField(help_text="A rated table.")
    seat = serializers.IntegerField(
        allow_null=True, help_text="The challenger's seat (null: drawn when it is accepted)."
    )
    fill_with_bots = serializers.BooleanField(
        help_text="At a table of three or four: the seats beyond the two players go to bots "
        "and the game is dealt on acceptance (otherwise they stay open)."
    )
    bot_level = serializers.ChoiceField(choices=BotLevel.choices, help_text="Those bots' level.")
    status = serializers.ChoiceField(
        choices=[*ChallengeStatus.values, EXPIRED],
        help_text="`pending` (open), `expired` (never accepted in time), `accepted` (see "
        "`game_id`), `declined`, `cancelled`.",
    )
    created_at = serializers.DateTimeField(help_text="When it was sent.")
    expires_at = serializers.DateTimeField(help_text="It can be accepted until then.")
    answered_at = serializers.DateTimeField(
        allow_null=True, help_text="When it was accepted, declined or cancelled."
    )
    game_id = serializers.IntegerField(
        allow_null=True, help_text="The table created when it was accepted."
    )


class ChallengesSerializer(Base):
    incoming = ChallengeSerializer(many=True, help_text="Open challenges sent to you.")
    outgoing = ChallengeSerializer(many=True, help_text="Open challenges you sent.")


class ChallengeCreateSerializer(Base):
    player_id = serializers.IntegerField(
        min_value=1, max_value=10**18 - 1, help_text="The player you challenge."
    )
    preset = serializers.ChoiceField(
        choices=list(PRESETS),
        default="classic",
        help_text="The preset whose options the table starts from (`GET /rules/`).",
    )
    options = OptionOverridesField(
        required=False, help_text="Overrides of the preset's options; any subset of them."
    )
    rated = serializers.BooleanField(
        default=False,
        help_text="A rated table: the preset as it is, people only (no bot account on either "
        "side, no bots in the other seats).",
    )
    seat = serializers.IntegerField(
        required=False,
        allow_null=True,
        min_value=0,
        max_value=3,
        help_text="The seat you want (absent or null: drawn at random when it is accepted). "
        "The invitee sits at the lowest seat of another team.",
    )
    fill_with_bots = serializers.BooleanField(
        default=False,
        help_text="At a table of three or four: give the other seats to bots and deal at "
        "once (casual tables only). Otherwise they stay open and you start the table.",
    )
    bot_level = serializers.ChoiceField(
        choices=BotLevel.choices, default=BotLevel.EASY, help_text="Those bots' level."
    )
    expires_in = serializers.IntegerField(
        default=CHALLENGE_EXPIRY_DEFAULT_SECONDS,
        min_value=CHALLENGE_EXPIRY_MIN_SECONDS,
        max_value=CHALLENGE_EXPIRY_MAX_SECONDS,
        help_text="Seconds the challenge stays open (default a day, at most 7 days).",
    )


CHALLENGE_ID = OpenApiParameter(
    "challenge_id", OpenApiTypes.INT, OpenApiParameter.PATH, description="Challenge id"
)
ISSUE_PROBLEMS = (
    BODY,
    "invalid_option",
    "invalid_seat",
    "challenge_self",
    AUTH,
    "challenge_blocked",
    "player_not_found",
    "challenge_exists",
    "challenges_limit",
    "rated_custom_options",
    "rated_humans_only",
    "throttled",
)
ANSWER_PROBLEMS = (
    AUTH,
    "challenge_not_yours",
    "challenge_not_found",
    "challenge_closed",
    "challenge_expired",
)
ACCEPT_PROBLEMS = (
    AUTH,
    "challenge_not_yours",
    "challenge_blocked",
    "challenge_not_found",
    "challenge_closed",
    "challenge_expired",
    "queued_for_match",
    "bot_tables_limit",
)
CHALLENGE_CREATE = OpenApiExample(
    "Challenge a player",
    value={"player_id": 8, "preset": "two_player", "seat": 0, "expires_in": 3600},
    request_only=True,
)


class ChallengeListCreateApi(APIView):
    read_scopes = READ_SCOPES
    write_scopes = WRITE_SCOPES

    def get_throttles(self) -> list[BaseThrottle]:
        # A challenge accepted is a table created: issuing one counts as creating a table.
        self.throttle_scope = "game_create" if self.request.method == "POST" else ""
        return super().get_throttles()

    @extend_schema(
        operation_id="challenges_list",
        tags=["challenges"],
        summary="Your open challenges, incoming and outgoing",
        responses={200: ChallengesSerializer, **problem_responses(AUTH)},
    )
    def get(self, request: Request) -> Response:
        body = challenges_open_list(player=player_of(request))
        return Response(ChallengesSerializer(body).data)

    @extend_schema(
        operation_id="challenges_create",
        tags=["challenges"],
        summary="Challenge a player",
        description="Invites `player_id` to a private table with this preset and options; "
        "they are told through the notification channels they chose (kind `challenge`). "
        "Checked as creating the table would be (options, seat, the rated-table rules), and "
        "refused between players either of whom blocked the other (403 `challenge_blocked`), "
        "while an open challenge of yours to the same player waits (409 `challenge_exists`), "
        "and past the open challenges a player may have out or waiting (409 "
        "`challenges_limit`). Issuing counts as creating a table for the rate limit.",
        request=ChallengeCreateSerializer,
        responses={201: ChallengeSerializer, **problem_responses(ISSUE_PROBLEMS)},
        examples=[CHALLENGE_CREATE],
    )
    def post(self, request: Request) -> Response:
        data = ChallengeCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        challenge = challenge_issue(
            challenger=player_of(request),
            invitee_id=v["player_id"],
            preset=v["preset"],
            options=v.get("options") or {},
            rated=v["rated"],
            seat=v.get("seat"),
            fill_with_bots=v["fill_with_bots"],
            bot_level=v["bot_level"],
            expires_in=v["expires_in"],
        )
        body = ChallengeSerializer(challenge_doc(challenge)).data
        return Response(body, status=status.HTTP_201_CREATED)


class ChallengeDetailApi(APIView):
    read_scopes = READ_SCOPES
    write_scopes = WRITE_SCOPES

    @extend_schema(
        operation_id="challenges_retrieve",
        tags=["challenges"],
        summary="A challenge you sent or received",
        description="Whatever its status; once accepted, `game_id` is the table.",
        parameters=[CHALLENGE_ID],
        responses={200: ChallengeSerializer, **problem_responses(AUTH, "challenge_not_found")},
    )
    def get(self, request: Request, challenge_id: int) -> Response:
        body = challenge_get(challenge_id=challenge_id, player=player_of(request))
        return Response(ChallengeSerializer(body).data)


class ChallengeAcceptApi(APIView):
    read_scopes = READ_SCOPES
    write_scopes = WRITE_SCOPES

    @extend_schema(
        operation_id="challenges_accept",
        tags=["challenges"],
        summary="Accept a challenge sent to you",
        description="Creates the table (`game_id`), a private table of the challenger's with "
        "both of you seated: the challenger at their seat, you at the lowest seat of another "
        "team. A table of two is dealt at once; at three or four seats the others go to bots "
        "(`fill_with_bots`, and it is dealt) or stay open for the challenger to fill and start. "
        "An expired challenge cannot be accepted (409 `challenge_expired`); what the lobby "
        "refuses (409 `queued_for_match` for a player waiting in quick play, 409 "
        "`bot_tables_limit`) leaves the challenge open.",
        parameters=[CHALLENGE_ID],
        request=None,
        responses={200: ChallengeSerializer, **problem_responses(ACCEPT_PROBLEMS)},
    )
    def post(self, request: Request, challenge_id: int) -> Response:
        challenge, _ = challenge_accept(challenge_id=challenge_id, player=player_of(request))
        return Response(ChallengeSerializer(challenge_doc(challenge)).data)


class ChallengeDeclineApi(APIView):
    read_scopes = READ_SCOPES
    write_scopes = WRITE_SCOPES

    @extend_schema(
        operation_id="challenges_decline",
        tags=["challenges"],
        summary="Decline a challenge sent to you",
        parameters=[CHALLENGE_ID],
        request=None,
        responses={200: ChallengeSerializer, **problem_responses(ANSWER_PROBLEMS)},
    )
    def post(self, request: Request, challenge_id: int) -> Response:
        challenge = challenge_decline(challenge_id=challenge_id, player=player_of(request))
        return Response(ChallengeSerializer(challenge_doc(challenge)).data)


class ChallengeCancelApi(APIView):
    read_scopes = READ_SCOPES
    write_scopes = WRITE_SCOPES

    @extend_schema(
        operation_id="challenges_cancel",
        tags=["challenges"],
        summary="Cancel a challenge you sent",
        parameters=[CHALLENGE_ID],
        request=None,
        responses={200: ChallengeSerializer, **problem_responses(ANSWER_PROBLEMS)},
    )
    def post(self, request: Request, challenge_id: int) -> Response:
        challenge = challenge_cancel(challenge_id=challenge_id, player=player_of(request))
        return Response(ChallengeSerializer(challenge_doc(challenge)).data)
