"""Players over HTTP: guest sign-up, who am I, and the block and favourite lists. Thin views:
parse, authorise, call ``accounts.services``, render; refusals are problem documents from the
central handler."""

from __future__ import annotations

from typing import Any

from django.utils import translation
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import errors, scopes
from accounts.api.authentication import account_language_activate, player_of
from accounts.models import Player, RelationKind
from accounts.selectors.players import relations_get
from accounts.services.players import player_create, player_language_set
from accounts.services.relations import relation_set
from core.i18n import language_code, language_tag, language_tags
from core.problems import AUTH, BODY, problem_responses

Base = serializers.Serializer[Any]

BOT_ACCOUNT_TEXT = (
    "A bot account: a program playing through the API, shown as a bot at every table; it "
    "plays casual tables only (no rated table, no quick-play queue)."
)


class PlayerCreateSerializer(Base):
    display_name = serializers.CharField(
        min_length=1, max_length=40, help_text="The name other players see."
    )
    bot = serializers.BooleanField(
        default=False,
        help_text=f"Sign up as a bot account (fixed at sign-up). {BOT_ACCOUNT_TEXT}",
    )


class PlayerCreatedSerializer(Base):
    id = serializers.IntegerField(help_text="Your player id.")
    display_name = serializers.CharField(help_text="Your name, as other players see it.")
    is_bot = serializers.BooleanField(help_text=BOT_ACCOUNT_TEXT)
    token = serializers.CharField(
        help_text="API token: send it as `Authorization: Token <token>` on every other call."
    )


LANGUAGE_TEXT = (
    "The language the service answers you in (problem titles and details, the rule book) and "
    "notifies you in: a BCP 47 tag, one of `en`, `es`, `pt-BR`, `it`, `de`; blank: none "
    "chosen (each request's `Accept-Language`; English for notifications). When set, it wins "
    "over `Accept-Language`."
)


class PlayerMeSerializer(Base):
    id = serializers.IntegerField(help_text="Your player id.")
    display_name = serializers.CharField(help_text="Your name, as other players see it.")
    is_bot = serializers.BooleanField(help_text=BOT_ACCOUNT_TEXT)
    created_at = serializers.DateTimeField(help_text="When you signed up.")
    language = serializers.ChoiceField(
        choices=["", *language_tags()], allow_blank=True, help_text=LANGUAGE_TEXT
    )


class PlayerMeUpdateSerializer(Base):
    language = serializers.CharField(
        allow_blank=True, max_length=16, trim_whitespace=True, help_text=LANGUAGE_TEXT
    )

    def validate_language(self, value: str) -> str:
        if not value:
            return ""
        code = language_code(value)
        if code is None:
            # The service's message (translated by the problem handler), code ``invalid``.
            raise serializers.ValidationError(errors.LanguageInvalid.default_message or "")
        return language_tag(code)


class RelatedPlayerSerializer(Base):
    id = serializers.IntegerField(help_text="The player's id.")
    display_name = serializers.CharField(help_text="The name other players see.")
    since = serializers.DateTimeField(help_text="When you added them to the list.")


class RelationsSerializer(Base):
    blocked = RelatedPlayerSerializer(
        many=True, help_text="They cannot join tables you created or sit at."
    )
    favourites = RelatedPlayerSerializer(many=True, help_text="Players you favour.")


PLAYER_CREATE = OpenApiExample("Sign up", value={"display_name": "Ada"}, request_only=True)
PLAYER_CREATED = OpenApiExample(
    "Signed up",
    value={
        "id": 7,
        "display_name": "Ada",
        "is_bot": False,
        "token": "9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b",
    },
    response_only=True,
    status_codes=["201"],
)


PLAYER_ID = OpenApiParameter(
    "player_id", OpenApiTypes.INT, OpenApiParameter.PATH, description="Player id"
)


class PlayerCreateApi(APIView):
    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]
    throttle_scope = "signup"

    @extend_schema(
        operation_id="players_create",
        tags=["players"],
        summary="Sign up as a guest",
        description="Creates a player with a display name and returns its API token. With "
        "`bot: true` the player is a bot account: a program that plays through this API, shown "
        "as a bot (`bot_account`) at every seat it holds, kept from rated tables (422 "
        "`rated_humans_only`) and the quick-play queue (403 `bot_account_not_allowed`).",
        request=PlayerCreateSerializer,
        responses={201: PlayerCreatedSerializer, **problem_responses(BODY, "throttled")},
        examples=[PLAYER_CREATE, PLAYER_CREATED],
    )
    def post(self, request: Request) -> Response:
        data = PlayerCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        player, token = player_create(
            display_name=data.validated_data["display_name"], bot=data.validated_data["bot"]
        )
        body = {
            "id": player.pk,
            "display_name": player.display_name,
            "is_bot": player.is_bot,
            "token": token,
        }
        return Response(PlayerCreatedSerializer(body).data, status=status.HTTP_201_CREATED)


class PlayerMeApi(APIView):
    read_scopes = scopes.OWN_PROFILE_READ
    write_scopes = scopes.PROFILE_CHANGE

    @extend_schema(
        operation_id="players_me",
        tags=["players"],
        summary="Who am I",
        responses={200: PlayerMeSerializer, **problem_responses(AUTH)},
    )
    def get(self, request: Request) -> Response:
        return Response(PlayerMeSerializer(_me(player_of(request))).data)

    @extend_schema(
        operation_id="players_me_update",
        tags=["players"],
        summary="Change your settings (your language)",
        description="Sets the language the service answers and notifies you in (see "
        '`language`; docs/api.md, "Languages"). The answer is already in the new language.',
        request=PlayerMeUpdateSerializer,
        responses={200: PlayerMeSerializer, **problem_responses(BODY, AUTH)},
        examples=[OpenApiExample("Answer in Spanish", value={"language": "es"}, request_only=True)],
    )
    def patch(self, request: Request) -> Response:
        data = PlayerMeUpdateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        player = player_of(request)
        if "language" in data.validated_data:
            player = player_language_set(player, data.validated_data["language"])
            # The answer is in the new language (none chosen: the request's).
            translation.activate(translation.get_language_from_request(request._request))
            account_language_activate(request.user)
        return Response(PlayerMeSerializer(_me(player)).data)


def _me(player: Player) -> dict[str, Any]:
    return {
        "id": player.pk,
        "display_name": player.display_name,
        "is_bot": player.is_bot,
        "created_at": player.created_at,
        "language": player.language,
    }


class RelationsApi(APIView):
    read_scopes = scopes.OWN_PROFILE_READ

    @extend_schema(
        operation_id="players_relations",
        tags=["players"],
        summary="Your block and favourite lists",
        responses={200: RelationsSerializer, **problem_responses(AUTH)},
    )
    def get(self, request: Request) -> Response:
        return Response(RelationsSerializer(relations_get(owner=player_of(request))).data)


class _RelationApi(APIView):
    read_scopes = scopes.OWN_PROFILE_READ
    write_scopes = scopes.PROFILE_CHANGE

    kind: str = RelationKind.BLOCK

    def put(self, request: Request, player_id: int) -> Response:
        body = relation_set(owner=player_of(request), other_id=player_id, kind=self.kind, on=True)
        return Response(RelationsSerializer(body).data)

    def delete(self, request: Request, player_id: int) -> Response:
        body = relation_set(owner=player_of(request), other_id=player_id, kind=self.kind, on=False)
        return Response(RelationsSerializer(body).data)


def _relation_schema(kind: str, on: bool) -> Any:
    verb = ("Block" if on else "Unblock") if kind == "block" else ("Favour" if on else "Unfavour")
    what = (
        "A blocked player cannot join a table you created or sit at (403 `player_blocked`)."
        if kind == "block"
        else "Favourites are a list for you to find players again."
    )
    return extend_schema(
        operation_id=f"players_{kind}_{'add' if on else 'remove'}",
        tags=["players"],
        summary=f"{verb} a player",
        description=what + " Returns your lists.",
        parameters=[PLAYER_ID],
        request=None,
        responses={
            200: RelationsSerializer,
            **problem_responses("relation_self", AUTH, "player_not_found"),
        },
    )


class PlayerBlockApi(_RelationApi):
    kind = RelationKind.BLOCK

    @_relation_schema("block", True)
    def put(self, request: Request, player_id: int) -> Response:
        return super().put(request, player_id)

    @_relation_schema("block", False)
    def delete(self, request: Request, player_id: int) -> Response:
        return super().delete(request, player_id)


class PlayerFavouriteApi(_RelationApi):
    kind = RelationKind.FAVOURITE

    @_relation_schema("favourite", True)
    def put(self, request: Request, player_id: int) -> Response:
        return super().put(request, player_id)

    @_relation_schema("favourite", False)
    def delete(self, request: Request, player_id: int) -> Response:
        return super().delete(request, player_id)
