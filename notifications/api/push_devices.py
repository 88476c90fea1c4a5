"""Native push over HTTP: a player's app devices (an FCM registration token or an APNs device
token): register, list, remove. Thin views: parse, call ``notifications.services.devices``,
render.

A device registered with a device session's access key belongs to that session: signing the
session out removes it. A key without a session (a personal access token, a guest key, a
third-party app's token) registers a device with none, which stays until it is deleted.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import scopes
from accounts.models import Credential
from core.problems import AUTH, BODY, problem_responses
from games.api.views import player_of
from notifications.models import ApnsEnvironment, DevicePlatform, DeviceRegistration
from notifications.services.devices import (
    apns_topic_problem,
    device_token_problem,
    push_device_delete,
    push_device_register,
    push_devices_list,
)

Base = serializers.Serializer[Any]

DEVICE_ID = OpenApiParameter(
    "device_id", OpenApiTypes.INT, OpenApiParameter.PATH, description="Device id"
)

PUSHING = (
    "Each notification you have on for `fcm` or `apns` (see `/players/me/notifications/`) is "
    "pushed to every enabled device of yours on that platform: its title and text shown, its "
    "payload (`WebhookPayload`: `kind`, `title`, `text`, `url`, ...; never a card) as FCM "
    "`data` (strings) or under `canasta` in the APNs payload. A newer message about the same "
    "game and matter replaces one not yet delivered (FCM `collapse_key`, `apns-collapse-id`); "
    "a message lives until the turn's deadline (or a week). A device whose push service says "
    "its token is dead is disabled."
)


def session_of(request: Request) -> int | None:
    """The device session of the request's key (None: a key without one)."""
    auth = request.auth
    return auth.session_id if isinstance(auth, Credential) else None


# ============================================================================== serializers
class PushDeviceCreateSerializer(Base):
    platform = serializers.ChoiceField(
        choices=DevicePlatform.choices,
        help_text="`fcm`: a Firebase registration token; `apns`: an APNs device token.",
    )
    token = serializers.CharField(
        max_length=512,
        trim_whitespace=True,
        help_text="The token the platform gave the app (FCM: `getToken()`; APNs: the device "
        "token, hexadecimal).",
    )
    app_id = serializers.CharField(
        max_length=200,
        required=False,
        default="",
        allow_blank=True,
        help_text="APNs: the app's bundle id (its topic), one of the server's; blank: the "
        "server's default. Ignored for FCM.",
    )
    environment = serializers.ChoiceField(
        choices=ApnsEnvironment.choices,
        required=False,
        default=ApnsEnvironment.PRODUCTION,
        help_text="APNs: `sandbox` for a development build, else `production`. Ignored for FCM.",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        problems: dict[str, str] = {}
        token_problem = device_token_problem(attrs["platform"], attrs["token"])
        if token_problem:
            problems["token"] = token_problem
        if attrs["platform"] == DevicePlatform.APNS:
            topic_problem = apns_topic_problem(attrs["app_id"])
            if topic_problem:
                problems["app_id"] = topic_problem
        if problems:
            raise serializers.ValidationError(problems)
        return attrs


class PushDeviceSerializer(Base):
    """A device of yours that receives native pushes."""

    id = serializers.IntegerField(help_text="The device's id.")
    platform = serializers.ChoiceField(choices=DevicePlatform.choices, help_text="Its service.")
    token = serializers.CharField(help_text="Its token, as registered.")
    app_id = serializers.CharField(help_text="APNs: the app's topic (blank: the default).")
    environment = serializers.ChoiceField(
        choices=ApnsEnvironment.choices, help_text="APNs: sandbox or production."
    )
    session_id = serializers.IntegerField(
        allow_null=True,
        help_text="The device session that registered it (signing it out removes the device); "
        "null: registered with a key that has no session.",
    )
    current = serializers.BooleanField(
        help_text="Registered by the session this request's key belongs to."
    )
    enabled = serializers.BooleanField(
        help_text="False: its push service said the token is dead; nothing is sent to it."
    )
    disabled_reason = serializers.CharField(help_text="Why it was disabled (blank: it is not).")
    consecutive_failures = serializers.IntegerField(
        help_text="Pushes in a row that failed for good (0 after a success)."
    )
    created_at = serializers.DateTimeField(help_text="When it was registered.")
    last_used_at = serializers.DateTimeField(
        allow_null=True, help_text="The last push its service accepted."
    )


class PushDeviceListSerializer(Base):
    devices = PushDeviceSerializer(many=True, help_text="Your devices, oldest first.")
    limit = serializers.IntegerField(help_text="How many devices a player may keep.")


def _view(device: DeviceRegistration, session_id: int | None) -> dict[str, Any]:
    return {
        "id": device.pk,
        "platform": device.platform,
        "token": device.token,
        "app_id": device.app_id,
        "environment": device.environment,
        "session_id": device.session_id,
        "current": session_id is not None and device.session_id == session_id,
        "enabled": device.enabled,
        "disabled_reason": device.disabled_reason,
        "consecutive_failures": device.consecutive_failures,
        "created_at": device.created_at,
        "last_used_at": device.last_used_at,
    }


# ============================================================================== views
class PushDeviceListCreateApi(APIView):
    read_scopes = scopes.NOTIFICATIONS_READ
    write_scopes = scopes.NOTIFICATIONS_CHANGE

    @extend_schema(
        operation_id="players_me_push_devices_list",
        tags=["notifications"],
        summary="Your push devices",
        description="One per app install you registered (FCM or APNs). " + PUSHING,
        responses={200: PushDeviceListSerializer, **problem_responses(AUTH)},
    )
    def get(self, request: Request) -> Response:
        session_id = session_of(request)
        body = {
            "devices": [_view(d, session_id) for d in push_devices_list(player_of(request).pk)],
            "limit": settings.NATIVE_PUSH_DEVICES_PER_PLAYER_MAX,
        }
        return Response(PushDeviceListSerializer(body).data)

    @extend_schema(
        operation_id="players_me_push_devices_create",
        tags=["notifications"],
        summary="Register an app device for native push",
        description="201 with a new device; 200 when you registered that token before (it is "
        "updated: its session, topic and environment, enabled again). Registered with a "
        "device session's access key, the device belongs to that session (signing it out "
        "removes it); with a key that has no session (a personal access token) it has none. "
        "A token registered by another player moves to you (the app signed in as you on that "
        "device). A malformed token, or an APNs topic the server does not serve, is 400 "
        "`invalid_request`. At most "
        f"{settings.NATIVE_PUSH_DEVICES_PER_PLAYER_MAX} per player: disabled ones make room, "
        "else 409 `push_device_limit_reached`. 503 `native_push_unavailable` when the server "
        "has no credentials for the platform. " + PUSHING,
        request=PushDeviceCreateSerializer,
        responses={
            201: PushDeviceSerializer,
            200: PushDeviceSerializer,
            **problem_responses(
                BODY,
                AUTH,
                "push_device_limit_reached",
                "native_push_unavailable",
                "database_unavailable",
            ),
        },
        examples=[
            OpenApiExample(
                "An iPhone app",
                value={
                    "platform": "apns",
                    "token": "740f4707bebcf74f9b7c25d48e3358945f6aa01da5ddb387462c7eaf61bb78ad",
                    "app_id": "org.example.canasta",
                    "environment": "production",
                },
                request_only=True,
            )
        ],
    )
    def post(self, request: Request) -> Response:
        data = PushDeviceCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        session_id = session_of(request)
        device, created = push_device_register(
            player_of(request).pk,
            session_id=session_id,
            platform=data.validated_data["platform"],
            token=data.validated_data["token"],
            app_id=data.validated_data["app_id"],
            environment=data.validated_data["environment"],
        )
        answer = status.HTTP_201_CREATED if created else status.HTTP_200_OK
        return Response(PushDeviceSerializer(_view(device, session_id)).data, status=answer)


class PushDeviceDetailApi(APIView):
    read_scopes = scopes.NOTIFICATIONS_READ
    write_scopes = scopes.NOTIFICATIONS_CHANGE

    @extend_schema(
        operation_id="players_me_push_devices_destroy",
        tags=["notifications"],
        summary="Remove a push device",
        description="Nothing more is pushed to it (the app signed out, or you do not want "
        "pushes there); its pending pushes are dropped.",
        parameters=[DEVICE_ID],
        responses={204: None, **problem_responses(AUTH, "not_found")},
    )
    def delete(self, request: Request, device_id: int) -> Response:
        push_device_delete(player_of(request).pk, device_id)
        return Response(status=status.HTTP_204_NO_CONTENT)
