"""A player's native devices: the FCM or APNs token an app registers, bound to the device
session that registered it (signing the session out removes it).

A token names one install of an app on one device. Registering it again updates its row (the
session, the APNs topic and environment; enabled again, its failures forgotten). A token
registered by another player moves to the player registering it now (the app signed in as
someone else on that device): the older registration is removed and its pending pushes
dropped, so a device never receives another player's notifications. A player keeps at most
``NATIVE_PUSH_DEVICES_PER_PLAYER_MAX`` devices; at the limit the disabled ones (their service
said the token is dead) make room first.
"""

from __future__ import annotations

import re
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import Player
from notifications import errors
from notifications.models import (
    ApnsEnvironment,
    Delivery,
    DeliveryStatus,
    DevicePlatform,
    DeviceRegistration,
)
from notifications.services.native_push import apns_config, platform_configured

# An APNs token is 32 bytes today, sent as hex; Apple says it may grow: even-length hex.
APNS_TOKEN = re.compile(r"(?:[0-9a-fA-F]{2}){32,100}")
# An FCM registration token: URL-safe base64 and ':' (about 150-180 characters today).
FCM_TOKEN = re.compile(r"[A-Za-z0-9_:\-.]{32,512}")
PLATFORM_NAMES: dict[str, str] = {DevicePlatform.FCM: "FCM", DevicePlatform.APNS: "APNs"}


def device_token_problem(platform: str, token: str) -> str | None:
    """What is wrong with ``token`` for ``platform`` (None: nothing)."""
    if platform == DevicePlatform.APNS and not APNS_TOKEN.fullmatch(token):
        return "Expected an APNs device token: 64 or more hexadecimal digits (an even number)."
    if platform == DevicePlatform.FCM and not FCM_TOKEN.fullmatch(token):
        return (
            "Expected an FCM registration token: 32 to 512 characters of letters, digits, "
            "'-', '_', ':' and '.'."
        )
    return None


def apns_topic_problem(app_id: str) -> str | None:
    """An APNs topic a registration may name: one of ``APNS_TOPIC`` (blank: the first)."""
    if not app_id:
        return None
    config = apns_config()
    if config is not None and app_id not in config.topics:
        return f"Expected one of this server's app ids: {', '.join(config.topics)}."
    return None


def _limit() -> int:
    return int(getattr(settings, "NATIVE_PUSH_DEVICES_PER_PLAYER_MAX", 10))


def _drop_pending(registration_id: int, platform: str, why: str) -> None:
    Delivery.objects.filter(
        channel=platform, endpoint_id=registration_id, status=DeliveryStatus.PENDING
    ).update(status=DeliveryStatus.DROPPED, last_error=why)


def push_device_register(
    player_id: int,
    *,
    session_id: int | None,
    platform: str,
    token: str,
    app_id: str = "",
    environment: str = ApnsEnvironment.PRODUCTION,
) -> tuple[DeviceRegistration, bool]:
    """The player's registration of ``token``, and whether it is new (see the module).
    ``session_id``: the device session of the request's key (None: a key without one). Raises
    ``NativePushUnavailable``, ``PushDeviceLimitReached``; ValueError for a malformed token or
    topic (the view checks them first)."""
    if not platform_configured(platform):
        raise errors.NativePushUnavailable(
            f"{PLATFORM_NAMES.get(platform, platform)} is not configured on "
            "this server: use Web Push, a webhook or e-mail."
        )
    problem = device_token_problem(platform, token)
    if platform == DevicePlatform.APNS:
        problem = problem or apns_topic_problem(app_id)
    else:
        app_id, environment = "", ApnsEnvironment.PRODUCTION
    if problem:
        raise ValueError(problem)
    fields: dict[str, Any] = {
        "session_id": session_id,
        "app_id": app_id,
        "environment": environment,
        "enabled": True,
        "consecutive_failures": 0,
        "disabled_at": None,
        "disabled_reason": "",
        "failed_attempts": 0,
        "open_until": None,
    }
    with transaction.atomic():
        # The player's row locked: two registrations at once cannot both pass the limit.
        Player.objects.select_for_update().filter(pk=player_id).values_list("pk").first()
        existing = (
            DeviceRegistration.objects.select_for_update()
            .filter(platform=platform, token=token)
            .first()
        )
        if existing is not None and existing.player_id == player_id:
            return _renew(existing, fields), False
        if existing is not None:  # the device now signs in as this player
            _drop_pending(existing.pk, platform, "the device was registered by another player")
            existing.delete()
        mine = DeviceRegistration.objects.filter(player_id=player_id)
        limit = _limit()
        if mine.count() >= limit:
            for stale in mine.filter(enabled=False):
                _drop_pending(stale.pk, stale.platform, "the device was removed")
                stale.delete()
            if mine.count() >= limit:
                raise errors.PushDeviceLimitReached(
                    f"A player may keep at most {limit} push devices: delete one first."
                )
        try:
            with transaction.atomic():
                created = DeviceRegistration.objects.create(
                    player_id=player_id, platform=platform, token=token, **fields
                )
                return created, True
        except IntegrityError:  # the same token registered at this very moment
            existing = DeviceRegistration.objects.select_for_update().get(
                platform=platform, token=token
            )
            if existing.player_id != player_id:
                raise
            return _renew(existing, fields), False


def _renew(registration: DeviceRegistration, fields: dict[str, Any]) -> DeviceRegistration:
    for name, value in fields.items():
        setattr(registration, name, value)
    registration.save(update_fields=list(fields))
    return registration


def push_devices_list(player_id: int) -> list[DeviceRegistration]:
    """The player's devices, oldest first (a disabled one: its service said the token is
    dead)."""
    return list(DeviceRegistration.objects.filter(player_id=player_id).order_by("id"))


def push_device_delete(player_id: int, device_id: int) -> None:
    """Remove the player's device (the app signed out, or no pushes wanted there); its pending
    pushes are dropped. Raises ``PushDeviceNotFound``."""
    with transaction.atomic():
        registration = (
            DeviceRegistration.objects.select_for_update()
            .filter(pk=device_id, player_id=player_id)
            .first()
        )
        if registration is None:
            raise errors.PushDeviceNotFound()
        _drop_pending(registration.pk, registration.platform, "the device was removed")
        registration.delete()


def push_device_used(registration_id: int) -> None:
    """Its service accepted a push now (``last_used_at``)."""
    DeviceRegistration.objects.filter(pk=registration_id).update(last_used_at=timezone.now())
