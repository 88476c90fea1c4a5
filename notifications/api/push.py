"""Web Push over HTTP: the server's VAPID public key, and a player's push subscriptions
(register what the browser's ``PushSubscription.toJSON()`` gives, list, remove). Thin views:
parse, call ``notifications.services.push``, render.

What a push carries is the notification's payload (``WebhookPayload``, one schema per kind),
encrypted for the subscription (RFC 8291): the service worker's ``push`` event reads it with
``event.data.json()``.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import scopes
from core.problems import AUTH, BODY, problem_responses
from games.api.views import player_of
from notifications.models import PushSubscription
from notifications.services.push import (
    push_public_key,
    push_subscription_delete,
    push_subscription_register,
    push_subscriptions_list,
    subscription_keys_check,
)

Base = serializers.Serializer[Any]

SUBSCRIPTION_ID = OpenApiParameter(
    "subscription_id", OpenApiTypes.INT, OpenApiParameter.PATH, description="Subscription id"
)

PUSHING = (
    "Each notification you have on for `web_push` (see `/players/me/notifications/`) is pushed "
    "to every enabled subscription of yours: its payload (`WebhookPayload`: `kind`, `title`, "
    "`text`, `url`, ...; never a card) as JSON, encrypted for the subscription's keys "
    "(aes128gcm, RFC 8291), signed with the server's VAPID key (`GET /api/v1/push/key/`). "
    "Your turn, its reminder and your partner's question come with urgency `high`; a message "
    "waits at the push service until the turn's deadline (or a week), and a newer one about "
    "the same game and matter replaces it. A subscription its push service says is gone "
    "(404 or 410) is disabled."
)


# ============================================================================== serializers
class PushKeySerializer(Base):
    public_key = serializers.CharField(
        help_text="The server's VAPID public key: URL-safe base64 of a P-256 point (65 bytes). "
        "Give it to `pushManager.subscribe({userVisibleOnly: true, applicationServerKey})`."
    )


class PushSubscriptionKeysSerializer(Base):
    p256dh = serializers.CharField(
        max_length=200,
        help_text="The browser's P-256 public key, URL-safe base64 (65 bytes, uncompressed).",
    )
    auth = serializers.CharField(
        max_length=100, help_text="The authentication secret, URL-safe base64 (16 bytes)."
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        problems = subscription_keys_check(attrs["p256dh"], attrs["auth"])
        if problems:
            raise serializers.ValidationError(problems)
        return attrs


class PushSubscriptionCreateSerializer(Base):
    """What the browser's `PushSubscription.toJSON()` gives."""

    endpoint = serializers.URLField(
        max_length=1000,
        help_text="The push service's URL for this browser: https (plain http only to the "
        "hosts the server allows).",
    )
    expirationTime = serializers.IntegerField(  # noqa: N815 - the browser's name
        required=False,
        allow_null=True,
        help_text="When the subscription expires (ms since the epoch), if the browser says; "
        "accepted and not used.",
    )
    keys = PushSubscriptionKeysSerializer(help_text="The keys the payload is encrypted for.")


class PushSubscriptionSerializer(Base):
    """A push subscription of yours (its keys are not shown)."""

    id = serializers.IntegerField(help_text="The subscription's id.")
    endpoint = serializers.CharField(help_text="The push service's URL for the browser.")
    enabled = serializers.BooleanField(
        help_text="False: its push service said it is gone; nothing is sent to it."
    )
    consecutive_failures = serializers.IntegerField(
        help_text="Pushes in a row that failed for good (0 after a success)."
    )
    created_at = serializers.DateTimeField(help_text="When it was registered.")


class PushSubscriptionListSerializer(Base):
    subscriptions = PushSubscriptionSerializer(
        many=True, help_text="Your subscriptions, oldest first."
    )
    limit = serializers.IntegerField(help_text="How many subscriptions a player may keep.")


def _view(subscription: PushSubscription) -> dict[str, Any]:
    return {
        "id": subscription.pk,
        "endpoint": subscription.endpoint,
        "enabled": subscription.enabled,
        "consecutive_failures": subscription.consecutive_failures,
        "created_at": subscription.created_at,
    }


# ============================================================================== views
class PushKeyApi(APIView):
    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="push_key_retrieve",
        tags=["notifications"],
        summary="The server's Web Push key",
        description="The VAPID public key a browser subscribes with (its "
        "`applicationServerKey`). Public: no token needed. 503 `web_push_unavailable` when "
        "the server has no VAPID key (Web Push is off).",
        responses={
            200: PushKeySerializer,
            **problem_responses("not_acceptable", "web_push_unavailable", "database_unavailable"),
        },
    )
    def get(self, request: Request) -> Response:
        return Response(PushKeySerializer({"public_key": push_public_key()}).data)


class PushSubscriptionListCreateApi(APIView):
    read_scopes = scopes.NOTIFICATIONS_READ
    write_scopes = scopes.NOTIFICATIONS_CHANGE

    @extend_schema(
        operation_id="players_me_push_subscriptions_list",
        tags=["notifications"],
        summary="Your push subscriptions",
        description="One per browser (or device) you subscribed from. " + PUSHING,
        responses={200: PushSubscriptionListSerializer, **problem_responses(AUTH)},
    )
    def get(self, request: Request) -> Response:
        body = {
            "subscriptions": [_view(s) for s in push_subscriptions_list(player_of(request).pk)],
            "limit": settings.WEBPUSH_SUBSCRIPTIONS_PER_PLAYER_MAX,
        }
        return Response(PushSubscriptionListSerializer(body).data)

    @extend_schema(
        operation_id="players_me_push_subscriptions_create",
        tags=["notifications"],
        summary="Subscribe a browser to Web Push",
        description="The body is the browser's `PushSubscription.toJSON()`. 201 with a new "
        "subscription; 200 when you subscribed that endpoint before (its keys are updated, it "
        "is enabled again). An endpoint another player registered is refused, never taken "
        "over (409 `push_endpoint_taken`: unsubscribe the browser and subscribe it again for "
        "an endpoint of its own). An endpoint that is not https at a public address is "
        "refused (400 `push_endpoint_refused`); malformed keys are 400 `invalid_request`. At "
        f"most {settings.WEBPUSH_SUBSCRIPTIONS_PER_PLAYER_MAX} per player: disabled ones make "
        "room, else 409 `push_subscription_limit_reached`. 503 `web_push_unavailable` when "
        "the server has no VAPID key. " + PUSHING,
        request=PushSubscriptionCreateSerializer,
        responses={
            201: PushSubscriptionSerializer,
            200: PushSubscriptionSerializer,
            **problem_responses(
                BODY,
                "push_endpoint_refused",
                AUTH,
                "push_endpoint_taken",
                "push_subscription_limit_reached",
                "web_push_unavailable",
                "database_unavailable",
            ),
        },
        examples=[
            OpenApiExample(
                "A browser's subscription",
                value={
                    "endpoint": "https://fcm.googleapis.com/fcm/send/dpH5lCsTSSM:APA91bH",
                    "expirationTime": None,
                    "keys": {
                        "p256dh": "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4"
                        "bjyPjs7Vd8pZGH6SRpkNtoIAiw4",
                        "auth": "BTBZMqHH6r4Tts7J_aSIgg",
                    },
                },
                request_only=True,
            )
        ],
    )
    def post(self, request: Request) -> Response:
        data = PushSubscriptionCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        keys = data.validated_data["keys"]
        subscription, created = push_subscription_register(
            player_of(request).pk,
            endpoint=data.validated_data["endpoint"],
            p256dh=keys["p256dh"],
            auth=keys["auth"],
        )
        answer = status.HTTP_201_CREATED if created else status.HTTP_200_OK
        return Response(PushSubscriptionSerializer(_view(subscription)).data, status=answer)


class PushSubscriptionDetailApi(APIView):
    read_scopes = scopes.NOTIFICATIONS_READ
    write_scopes = scopes.NOTIFICATIONS_CHANGE

    @extend_schema(
        operation_id="players_me_push_subscriptions_destroy",
        tags=["notifications"],
        summary="Remove a push subscription",
        description="Nothing more is pushed to it (the browser unsubscribed, or you do not want "
        "pushes there); its pending pushes are dropped.",
        parameters=[SUBSCRIPTION_ID],
        responses={204: None, **problem_responses(AUTH, "not_found")},
    )
    def delete(self, request: Request, subscription_id: int) -> Response:
        push_subscription_delete(player_of(request).pk, subscription_id)
        return Response(status=status.HTTP_204_NO_CONTENT)
