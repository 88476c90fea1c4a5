"""Notifications over HTTP: a player's webhooks (with their delivery log), the per-channel and
per-kind preferences, and muting a game. Thin views: parse, call
``notifications.services.notifications``, render with ``notifications.selectors.notifications``.

What a webhook receives is documented as components: ``WebhookPayload``, a ``oneOf`` of one
schema per kind (``WebhookPayloadYourTurn``, ...) discriminated by ``kind``; the delivery log
shows each delivery's payload in that shape.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    extend_schema,
    extend_schema_field,
)
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import scopes
from core.problems import AUTH, BODY, problem_responses
from games.api.event_schemas import DiscriminatedUnion, EnumRefField, camel
from games.api.views import GAME_ID, player_of
from games.selectors.games import game_get_visible
from notifications.models import Channel, DeliveryStatus, NotificationKind
from notifications.selectors.notifications import (
    DELIVERIES_LIMIT_MAX,
    game_muted,
    preferences_get,
    webhook_deliveries_list,
    webhook_view,
    webhooks_list,
)
from notifications.services.delivery import DELIVERY_HEADER, EVENT_HEADER, SIGNATURE_HEADER
from notifications.services.notifications import (
    game_mute_set,
    preferences_set,
    webhook_delete,
    webhook_enable,
    webhook_register,
)

Base = serializers.Serializer[Any]

WEBHOOK_ID = OpenApiParameter(
    "webhook_id", OpenApiTypes.INT, OpenApiParameter.PATH, description="Webhook id"
)
REMINDER_FRACTION_MIN = 0.1
REMINDER_FRACTION_MAX = 0.95

SIGNING = (
    f"Each delivery is a `POST` of a JSON `WebhookPayload` (one schema per `kind`, see the "
    f"components `WebhookPayloadYourTurn`, `WebhookPayloadGameStarted`, "
    f"`WebhookPayloadGoOutAsked`, `WebhookPayloadChat`, `WebhookPayloadReminder`, "
    f"`WebhookPayloadGameOver`, `WebhookPayloadChallenge`) with the headers "
    f"`{SIGNATURE_HEADER}: t=<unix seconds>,"
    f'v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>` (check it, and that `t` is recent, '
    f"before trusting the body), `{DELIVERY_HEADER}: <idempotency key>` (the same in every "
    f"attempt of a delivery, and the payload's `id`: drop repeats by it) and "
    f"`{EVENT_HEADER}: <kind>`. A 2xx answer within "
    f"{getattr(settings, 'NOTIFICATION_ATTEMPT_SECONDS', 5)} s is a delivery; anything else "
    f"is retried with exponential backoff (30 s, 1 min, 2 min, ... at most an hour apart, "
    f"{getattr(settings, 'NOTIFICATION_MAX_ATTEMPTS', 8)} attempts). After "
    f"{getattr(settings, 'NOTIFICATION_BREAKER_FAILURES', 3)} failed attempts in a row the "
    f"webhook rests (30 s, doubling up to 15 min) before one trial attempt; one attempt at a "
    f"time goes to a webhook. After "
    f"{getattr(settings, 'WEBHOOK_DISABLE_AFTER_FAILURES', 5)} deliveries in a row that failed "
    f"for good the webhook is disabled, with `disabled_reason` saying why; "
    f"`POST .../enable/` turns it back on. A payload never holds a card."
)


# ============================================================================== payloads
def _payload_common() -> dict[str, serializers.Field[Any, Any, Any, Any]]:
    return {
        "id": serializers.CharField(
            help_text="The delivery's idempotency key (also in the `Canasta-Delivery` header): "
            "the same in every attempt of this delivery."
        ),
        "created_at": serializers.DateTimeField(help_text="When the event happened."),
        "player_id": serializers.IntegerField(help_text="The player notified (you)."),
        "game_id": serializers.IntegerField(allow_null=True, help_text="The game it is about."),
        "game_version": serializers.IntegerField(
            allow_null=True, help_text="The game's version (move count) the event came at."
        ),
        "title": serializers.CharField(help_text="A short title (e.g. `Your turn`)."),
        "text": serializers.CharField(help_text="One sentence for a person to read."),
        "url": serializers.CharField(help_text="Where the web client shows the game."),
    }


def _kind_fields(kind: str) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
    """The public facts a kind carries besides the common fields (made afresh: a field
    belongs to one serializer)."""
    fields: dict[str, dict[str, serializers.Field[Any, Any, Any, Any]]] = {
        NotificationKind.YOUR_TURN: {
            "deadline": serializers.DateTimeField(
                allow_null=True, help_text="When your turn ends (null: no turn timer)."
            )
        },
        NotificationKind.GAME_STARTED: {},
        NotificationKind.GO_OUT_ASKED: {},
        NotificationKind.CHAT: {
            "phrase": serializers.CharField(help_text="What was said (a quick-chat phrase).")
        },
        NotificationKind.REMINDER: {
            "deadline": serializers.DateTimeField(
                allow_null=True, help_text="When your turn ends: act before it."
            )
        },
        NotificationKind.GAME_OVER: {
            "winner_team": serializers.IntegerField(
                allow_null=True, help_text="The winning team (null: no winner, e.g. abandoned)."
            )
        },
        NotificationKind.CHALLENGE: {
            "challenge_id": serializers.IntegerField(
                help_text="The challenge (`GET /challenges/{challenge_id}/`)."
            ),
            "challenger_id": serializers.IntegerField(help_text="Who challenges you."),
            "preset": serializers.CharField(help_text="The table's preset."),
            "rated": serializers.BooleanField(help_text="A rated table."),
            "expires_at": serializers.DateTimeField(help_text="Accept it before then."),
        },
    }
    return fields[kind]


KIND_DOCS: dict[str, str] = {
    NotificationKind.YOUR_TURN: "It is your turn.",
    NotificationKind.GAME_STARTED: "A game you are seated at has started.",
    NotificationKind.GO_OUT_ASKED: "Your partner asks whether they may go out (answer it).",
    NotificationKind.CHAT: "A player at your table said something.",
    NotificationKind.REMINDER: "Your turn's deadline is near.",
    NotificationKind.GAME_OVER: "A game you played is over.",
    NotificationKind.CHALLENGE: "A player challenges you to a game (accept or decline it).",
}


def _payload_serializer(kind: str) -> type[Base]:
    fields: dict[str, Any] = {
        "kind": EnumRefField(f"{camel(kind)}NotificationKindEnum", [kind], help_text=f"`{kind}`"),
        **_payload_common(),
        **_kind_fields(kind),
    }
    name = f"WebhookPayload{camel(kind)}"
    fields["__doc__"] = f"What a webhook receives for `{kind}`: {KIND_DOCS[kind]}"
    fields["__module__"] = __name__
    return type(f"{name}Serializer", (Base,), fields)


PAYLOAD_SERIALIZERS = {kind: _payload_serializer(kind) for kind in NotificationKind.values}
WEBHOOK_PAYLOAD = DiscriminatedUnion(
    component_name="WebhookPayload",
    serializers={kind: cls for kind, cls in PAYLOAD_SERIALIZERS.items()},
    resource_type_field_name="kind",
    description="The JSON body of a notification, by `kind`: what a webhook receives (and "
    "what Web Push and e-mail carry). Never a card.",
)


@extend_schema_field(WEBHOOK_PAYLOAD)
class WebhookPayloadField(serializers.JSONField):
    """The payload as sent (a dict passed through)."""


# ============================================================================== serializers
class WebhookCreateSerializer(Base):
    url = serializers.URLField(
        max_length=500,
        help_text="Where to POST: https (plain http only to the hosts the server allows).",
    )
    description = serializers.CharField(
        max_length=100,
        required=False,
        default="",
        allow_blank=True,
        help_text="Your note on what it is.",
    )


class WebhookSerializer(Base):
    """A webhook endpoint of yours (its secret is shown only when it is created)."""

    id = serializers.IntegerField(help_text="The webhook's id.")
    url = serializers.CharField(help_text="Where deliveries are POSTed.")
    description = serializers.CharField(help_text="Your note on what it is.")
    enabled = serializers.BooleanField(help_text="False: disabled, nothing is sent to it.")
    consecutive_failures = serializers.IntegerField(
        help_text="Deliveries in a row that failed for good (0 after a success)."
    )
    disabled_at = serializers.DateTimeField(
        allow_null=True, help_text="When it was disabled for failing; null when enabled."
    )
    disabled_reason = serializers.CharField(
        help_text="Why it was disabled (the notice); empty when enabled."
    )
    created_at = serializers.DateTimeField(help_text="When it was registered.")


class WebhookCreatedSerializer(WebhookSerializer):
    """The new webhook, with its signing secret: shown this once, keep it."""

    secret = serializers.CharField(
        help_text="The signing secret (64 hex digits): HMAC-SHA256 key of `Canasta-Signature`. "
        "Shown only now."
    )


class WebhookListSerializer(Base):
    webhooks = WebhookSerializer(many=True, help_text="Your webhooks, oldest first.")
    limit = serializers.IntegerField(help_text="How many webhooks a player may have.")


class DeliverySerializer(Base):
    """One notification sent (or being sent) to the webhook."""

    id = serializers.IntegerField(help_text="The delivery's id.")
    idempotency_key = serializers.CharField(
        help_text="The `Canasta-Delivery` header of every attempt (the payload's `id`)."
    )
    kind = EnumRefField(
        "NotificationKindEnum", NotificationKind.values, help_text="What it is about."
    )
    status = EnumRefField(
        "DeliveryStatusEnum",
        DeliveryStatus.values,
        help_text="`pending` (being tried), `delivered`, `failed` (gave up after the last "
        "attempt) or `dropped` (the webhook was disabled or removed first).",
    )
    attempts = serializers.IntegerField(help_text="Attempts made so far.")
    next_attempt_at = serializers.DateTimeField(
        allow_null=True, help_text="When it is tried next (pending only; else null)."
    )
    last_status_code = serializers.IntegerField(
        allow_null=True, help_text="The HTTP status of the last attempt (null: no answer)."
    )
    last_error = serializers.CharField(
        help_text="What went wrong in the last attempt (empty once delivered)."
    )
    delivered_at = serializers.DateTimeField(
        allow_null=True, help_text="When it was delivered; null until then."
    )
    created_at = serializers.DateTimeField(help_text="When the notification was made.")
    payload = WebhookPayloadField(help_text="The body sent (`WebhookPayload`).")


class DeliveryListSerializer(Base):
    webhook = WebhookSerializer(help_text="The webhook.")
    deliveries = DeliverySerializer(many=True, help_text="Its deliveries, newest first.")


class DeliveryListParamsSerializer(Base):
    status = serializers.ChoiceField(
        choices=DeliveryStatus.choices, required=False, help_text="Only deliveries in this status."
    )
    limit = serializers.IntegerField(
        required=False, default=50, min_value=1, max_value=DELIVERIES_LIMIT_MAX
    )


def _switches_serializer(channel: str, required: bool) -> type[Base]:
    fields: dict[str, Any] = {
        kind: serializers.BooleanField(
            required=required, help_text=f"{KIND_DOCS[kind]} (default: on)"
        )
        for kind in NotificationKind.values
    }
    fields["__doc__"] = f"Which kinds of notification go out by {channel}."
    fields["__module__"] = __name__
    suffix = "" if required else "Update"
    return type(f"{camel(channel)}Switches{suffix}Serializer", (Base,), fields)


def _channels_serializer(required: bool) -> type[Base]:
    fields: dict[str, Any] = {
        str(channel.value): _switches_serializer(channel.value, required)(
            required=required, help_text=f"The kinds sent by {label}."
        )
        for channel, label in (
            (Channel.WEBHOOK, "your webhooks"),
            (Channel.WEB_PUSH, "Web Push"),
            (Channel.FCM, "your app devices through FCM"),
            (Channel.APNS, "your app devices through APNs"),
            (Channel.EMAIL, "e-mail"),
        )
    }
    fields["__doc__"] = "Per channel, per kind of notification: on or off."
    fields["__module__"] = __name__
    suffix = "" if required else "Update"
    return type(f"NotificationSwitches{suffix}Serializer", (Base,), fields)


class NotificationPreferencesSerializer(Base):
    reminder_fraction = serializers.FloatField(
        help_text="In a correspondence game, the reminder comes when this fraction of your "
        "turn's time has passed."
    )
    email = serializers.CharField(help_text="Where e-mail notifications go (empty: none).")
    preferences = _channels_serializer(required=True)(help_text="Per channel and kind: on or off.")


class NotificationPreferencesUpdateSerializer(Base):
    reminder_fraction = serializers.FloatField(
        required=False,
        min_value=REMINDER_FRACTION_MIN,
        max_value=REMINDER_FRACTION_MAX,
        help_text="Remind when this fraction of a correspondence turn has passed.",
    )
    email = serializers.EmailField(
        required=False,
        allow_blank=True,
        max_length=254,
        help_text="Where e-mail goes (empty: no e-mail).",
    )
    preferences = _channels_serializer(required=False)(
        required=False, help_text="The switches to change; others stay as they are."
    )


class GameMuteSerializer(Base):
    game_id = serializers.IntegerField(help_text="The game.")
    muted = serializers.BooleanField(help_text="True: no notification about it reaches you.")


# ============================================================================== webhooks
class WebhookListCreateApi(APIView):
    read_scopes = scopes.NOTIFICATIONS_READ
    write_scopes = scopes.NOTIFICATIONS_CHANGE

    @extend_schema(
        operation_id="players_me_webhooks_list",
        tags=["notifications"],
        summary="Your webhooks",
        description="Each with its state: a webhook disabled for failing has `enabled: false` "
        "and a `disabled_reason`. " + SIGNING,
        responses={200: WebhookListSerializer, **problem_responses(AUTH)},
    )
    def get(self, request: Request) -> Response:
        body = {
            "webhooks": webhooks_list(player=player_of(request)),
            "limit": settings.WEBHOOKS_PER_PLAYER_MAX,
        }
        return Response(WebhookListSerializer(body).data)

    @extend_schema(
        operation_id="players_me_webhooks_create",
        tags=["notifications"],
        summary="Register a webhook",
        description="The answer holds the signing `secret`, shown only this once. "
        f"At most {settings.WEBHOOKS_PER_PLAYER_MAX} per player (409 `webhook_limit_reached`); "
        "a URL that is not https is refused (400 `webhook_url_refused`). " + SIGNING,
        request=WebhookCreateSerializer,
        responses={
            201: WebhookCreatedSerializer,
            **problem_responses(BODY, "webhook_url_refused", AUTH, "webhook_limit_reached"),
        },
        examples=[
            OpenApiExample(
                "A bot's endpoint",
                value={"url": "https://bots.example.com/canasta", "description": "my bot"},
                request_only=True,
            )
        ],
    )
    def post(self, request: Request) -> Response:
        data = WebhookCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        endpoint = webhook_register(
            player_of(request).pk,
            url=data.validated_data["url"],
            description=data.validated_data["description"],
        )
        body = {**webhook_view(endpoint), "secret": endpoint.secret}
        return Response(WebhookCreatedSerializer(body).data, status=status.HTTP_201_CREATED)


class WebhookDetailApi(APIView):
    read_scopes = scopes.NOTIFICATIONS_READ
    write_scopes = scopes.NOTIFICATIONS_CHANGE

    @extend_schema(
        operation_id="players_me_webhooks_destroy",
        tags=["notifications"],
        summary="Remove a webhook",
        description="Nothing more is sent to it; its pending deliveries are dropped.",
        parameters=[WEBHOOK_ID],
        responses={204: None, **problem_responses(AUTH, "not_found")},
    )
    def delete(self, request: Request, webhook_id: int) -> Response:
        webhook_delete(player_of(request).pk, webhook_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class WebhookEnableApi(APIView):
    read_scopes = scopes.NOTIFICATIONS_READ
    write_scopes = scopes.NOTIFICATIONS_CHANGE

    @extend_schema(
        operation_id="players_me_webhooks_enable",
        tags=["notifications"],
        summary="Turn a disabled webhook back on",
        description="Clears the failure count and the notice; new notifications go to it "
        "again (those dropped while it was off are not sent). Enabling an enabled webhook "
        "changes nothing.",
        parameters=[WEBHOOK_ID],
        request=None,
        responses={200: WebhookSerializer, **problem_responses(AUTH, "not_found")},
    )
    def post(self, request: Request, webhook_id: int) -> Response:
        endpoint = webhook_enable(player_of(request).pk, webhook_id)
        return Response(WebhookSerializer(webhook_view(endpoint)).data)


class WebhookDeliveriesApi(APIView):
    read_scopes = scopes.NOTIFICATIONS_READ

    @extend_schema(
        operation_id="players_me_webhooks_deliveries",
        tags=["notifications"],
        summary="A webhook's delivery log",
        description="Its latest deliveries, newest first, each with its attempts, the last "
        "HTTP status and error, and the payload sent (`WebhookPayload`). `status=failed` "
        "lists the last failures. " + SIGNING,
        parameters=[WEBHOOK_ID, DeliveryListParamsSerializer],
        responses={
            200: DeliveryListSerializer,
            **problem_responses("invalid_request", AUTH, "not_found"),
        },
    )
    def get(self, request: Request, webhook_id: int) -> Response:
        params = DeliveryListParamsSerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        body = webhook_deliveries_list(
            player=player_of(request),
            webhook_id=webhook_id,
            status=params.validated_data.get("status"),
            limit=params.validated_data["limit"],
        )
        return Response(DeliveryListSerializer(body).data)


# ============================================================================== preferences
class NotificationPreferencesApi(APIView):
    read_scopes = scopes.NOTIFICATIONS_READ
    write_scopes = scopes.NOTIFICATIONS_CHANGE

    @extend_schema(
        operation_id="players_me_notifications_retrieve",
        tags=["notifications"],
        summary="Your notification preferences",
        description="Per channel (`webhook`, `web_push`, `fcm`, `apns`, `email`) and kind of "
        "notification whether it is sent (all on until you switch one off), where e-mail goes, "
        "and when a correspondence turn's reminder comes. A game you muted sends nothing.",
        responses={200: NotificationPreferencesSerializer, **problem_responses(AUTH)},
    )
    def get(self, request: Request) -> Response:
        body = preferences_get(player=player_of(request))
        return Response(NotificationPreferencesSerializer(body).data)

    @extend_schema(
        operation_id="players_me_notifications_update",
        tags=["notifications"],
        summary="Change your notification preferences",
        description="Every member is optional: what is given changes, the rest stays. "
        f"`reminder_fraction` is {REMINDER_FRACTION_MIN} to {REMINDER_FRACTION_MAX}; an empty "
        "`email` stops e-mail. Answers the preferences as they are now.",
        request=NotificationPreferencesUpdateSerializer,
        responses={200: NotificationPreferencesSerializer, **problem_responses(BODY, AUTH)},
        examples=[
            OpenApiExample(
                "No chat by e-mail, remind at half time",
                value={
                    "reminder_fraction": 0.5,
                    "email": "ada@example.com",
                    "preferences": {"email": {"chat": False}},
                },
                request_only=True,
            )
        ],
    )
    def put(self, request: Request) -> Response:
        data = NotificationPreferencesUpdateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        player = player_of(request)
        preferences_set(
            player.pk,
            reminder_fraction=data.validated_data.get("reminder_fraction"),
            email=data.validated_data.get("email"),
            switches=data.validated_data.get("preferences"),
        )
        return Response(NotificationPreferencesSerializer(preferences_get(player=player)).data)


class GameNotificationMuteApi(APIView):
    read_scopes = scopes.NOTIFICATIONS_READ
    write_scopes = scopes.NOTIFICATIONS_CHANGE

    def _answer(self, request: Request, game_id: int, muted: bool) -> Response:
        player = player_of(request)
        game = game_get_visible(game_id=game_id, player=player)
        game_mute_set(player.pk, game.pk, muted=muted)
        body = {"game_id": game.pk, "muted": game_muted(player=player, game_id=game.pk)}
        return Response(GameMuteSerializer(body).data)

    @extend_schema(
        operation_id="games_notifications_mute",
        tags=["notifications"],
        summary="Mute a game's notifications",
        description="No notification about this game reaches you by any channel until you "
        "unmute it (the game itself goes on as usual). Muting twice changes nothing.",
        parameters=[GAME_ID],
        request=None,
        responses={200: GameMuteSerializer, **problem_responses(AUTH, "not_found")},
    )
    def put(self, request: Request, game_id: int) -> Response:
        return self._answer(request, game_id, muted=True)

    @extend_schema(
        operation_id="games_notifications_unmute",
        tags=["notifications"],
        summary="Unmute a game's notifications",
        description="Notifications about this game reach you again (none is sent for what "
        "happened while it was muted).",
        parameters=[GAME_ID],
        responses={200: GameMuteSerializer, **problem_responses(AUTH, "not_found")},
    )
    def delete(self, request: Request, game_id: int) -> Response:
        return self._answer(request, game_id, muted=False)
