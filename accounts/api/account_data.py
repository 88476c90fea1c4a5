"""Deleting your account and exporting your data over HTTP. Thin views: parse, call
``accounts.services.account_data``, render; refusals are problem documents from the central
handler. Both need the ``account:write`` scope (a person's own sign-in holds it; a personal
access token or a third-party app never does)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import scopes
from accounts.api.authentication import player_of
from accounts.services.account_data import (
    DELETE_CONFIRMATION,
    account_delete,
    account_export,
)
from core.problems import AUTH, BODY, problem_responses

Base = serializers.Serializer[Any]


class AccountDeleteSerializer(Base):
    confirm = serializers.CharField(
        required=False,
        allow_blank=True,
        trim_whitespace=False,
        max_length=16,
        help_text=f'Must be "{DELETE_CONFIRMATION}": deleting an account cannot be undone.',
    )
    password = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=4096,
        trim_whitespace=False,
        help_text="The account's password, when it has one (a guest account has none).",
    )


ACCOUNT_DELETE = OpenApiExample(
    "Delete my account", value={"confirm": "delete", "password": "correct horse"}, request_only=True
)


class AccountDeleteApi(APIView):
    write_scopes = (scopes.ACCOUNT_WRITE,)
    read_scopes = (scopes.ACCOUNT_WRITE,)

    @extend_schema(
        operation_id="account_delete",
        tags=["account"],
        summary="Delete your account",
        description='Deletes the account at once and for good. The body confirms it: `"confirm": '
        '"delete"` (400 `account_deletion_unconfirmed` otherwise), and the current `password` '
        "for an account that has one (403 `account_password_invalid`); a refused request changes "
        "nothing. Every game you are playing is conceded (a `game_conceded` fact in its log); "
        "your lobby seats are given up and the lobby tables you created removed; finished games "
        "keep their logs and show your seat as a deleted player. Your ratings leave the "
        "leaderboards; your credentials, sessions, e-mail addresses, authenticators, webhooks, "
        "push subscriptions, notification settings, relations and friends are deleted. Every "
        "key of the account answers 401 afterwards. Export your data first "
        "(`GET /api/v1/account/export/`).",
        request=AccountDeleteSerializer,
        responses={
            204: None,
            **problem_responses(
                BODY,
                AUTH,
                "account_deletion_unconfirmed",
                "account_password_invalid",
                "insufficient_scope",
            ),
        },
        examples=[ACCOUNT_DELETE],
    )
    def post(self, request: Request) -> Response:
        data = AccountDeleteSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        account_delete(
            player=player_of(request),
            confirm=data.validated_data.get("confirm"),
            password=data.validated_data.get("password"),
        )
        return Response(status=status.HTTP_204_NO_CONTENT)


class AccountExportApi(APIView):
    write_scopes = (scopes.ACCOUNT_WRITE,)
    read_scopes = (scopes.ACCOUNT_WRITE,)

    @extend_schema(
        operation_id="account_export",
        tags=["account"],
        summary="Export your data",
        description="Everything the service keeps of you, as one JSON document: `profile` "
        "(name, sign-up, e-mail addresses, authenticators), `relations` (block and favourite "
        "lists), `friends`, `games` (every game you sat at, with the seats, the teams' scores "
        "and your result; never a card), `ratings` (current ratings and every rated game's "
        "change) and `notifications` (settings, webhooks without their secrets, push "
        "subscriptions, muted games, notifications received). Sent as a download "
        "(`Content-Disposition: attachment`).",
        responses={
            (200, "application/json"): OpenApiTypes.OBJECT,
            **problem_responses(AUTH, "insufficient_scope"),
        },
    )
    def get(self, request: Request) -> Response:
        player = player_of(request)
        response = Response(account_export(player=player))
        response["Content-Disposition"] = f'attachment; filename="canasta-account-{player.pk}.json"'
        response["Cache-Control"] = "no-store"
        return response
