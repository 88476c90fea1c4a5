"""Reading a player's notification settings, webhooks and their delivery log (read only)."""

from __future__ import annotations

from typing import Any

from accounts.models import Player
from notifications import errors
from notifications.models import (
    Channel,
    Delivery,
    DeliveryStatus,
    GameMute,
    NotificationKind,
    NotificationPreference,
    NotificationSettings,
    WebhookEndpoint,
)

REMINDER_FRACTION_DEFAULT = 0.75
DELIVERIES_LIMIT_MAX = 100


def preferences_get(*, player: Player) -> dict[str, Any]:
    """The reminder fraction, the e-mail address and, per channel and kind, whether it is on
    (every kind of every channel: a kind the player never switched is on)."""
    row = NotificationSettings.objects.filter(player=player).first()
    switches = {
        channel: {kind: True for kind in NotificationKind.values} for channel in Channel.values
    }
    for channel, kind, enabled in NotificationPreference.objects.filter(player=player).values_list(
        "channel", "kind", "enabled"
    ):
        if channel in switches and kind in switches[channel]:
            switches[channel][kind] = enabled
    return {
        "reminder_fraction": row.reminder_fraction if row else REMINDER_FRACTION_DEFAULT,
        "email": row.email if row else "",
        "preferences": switches,
    }


def game_muted(*, player: Player, game_id: int) -> bool:
    return GameMute.objects.filter(player=player, game_id=game_id).exists()


def webhook_view(endpoint: WebhookEndpoint) -> dict[str, Any]:
    """An endpoint as its owner sees it (never its secret)."""
    return {
        "id": endpoint.pk,
        "url": endpoint.url,
        "description": endpoint.description,
        "enabled": endpoint.enabled,
        "consecutive_failures": endpoint.consecutive_failures,
        "disabled_at": endpoint.disabled_at,
        "disabled_reason": endpoint.disabled_reason,
        "created_at": endpoint.created_at,
    }


def webhooks_list(*, player: Player) -> list[dict[str, Any]]:
    return [webhook_view(e) for e in WebhookEndpoint.objects.filter(player=player).order_by("pk")]


def webhook_get(*, player: Player, webhook_id: int) -> WebhookEndpoint:
    """The player's endpoint (another player's, or none: 404)."""
    endpoint = WebhookEndpoint.objects.filter(pk=webhook_id, player=player).first()
    if endpoint is None:
        raise errors.WebhookNotFound()
    return endpoint


def delivery_view(delivery: Delivery) -> dict[str, Any]:
    notification = delivery.notification
    pending = delivery.status == DeliveryStatus.PENDING
    return {
        "id": delivery.pk,
        "idempotency_key": delivery.idempotency_key,
        "kind": notification.kind,
        "status": delivery.status,
        "attempts": delivery.attempts,
        "next_attempt_at": delivery.next_attempt_at if pending else None,
        "last_status_code": delivery.last_status_code,
        "last_error": delivery.last_error,
        "delivered_at": delivery.delivered_at,
        "created_at": delivery.created_at,
        "payload": {
            "id": delivery.idempotency_key,
            "created_at": notification.created_at,
            **notification.payload,
        },
    }


def webhook_deliveries_list(
    *, player: Player, webhook_id: int, status: str | None = None, limit: int = 50
) -> dict[str, Any]:
    """The endpoint's latest deliveries, newest first (``status``: only those)."""
    endpoint = webhook_get(player=player, webhook_id=webhook_id)
    rows = Delivery.objects.filter(
        channel=Channel.WEBHOOK, endpoint_id=endpoint.pk, notification__player=player
    ).select_related("notification")
    if status is not None:
        rows = rows.filter(status=status)
    deliveries = [delivery_view(d) for d in rows.order_by("-created_at", "-pk")[:limit]]
    return {"webhook": webhook_view(endpoint), "deliveries": deliveries}
