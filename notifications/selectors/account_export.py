"""What notifications keeps of a player: the ``notifications`` section of the player's data
export (never a webhook's secret or a push subscription's keys; a native device's token is
the player's own device's, and is part of it)."""

from __future__ import annotations

from typing import Any

from accounts.models import Player
from notifications.models import DeviceRegistration, GameMute, Notification, PushSubscription
from notifications.selectors.notifications import preferences_get, webhooks_list


def player_notifications_export(*, player: Player) -> dict[str, Any]:
    return {
        "settings": preferences_get(player=player),
        "webhooks": webhooks_list(player=player),
        "push_subscriptions": [
            {
                "id": s.pk,
                "endpoint": s.endpoint,
                "enabled": s.enabled,
                "created_at": s.created_at,
            }
            for s in PushSubscription.objects.filter(player=player).order_by("pk")
        ],
        "push_devices": [
            {
                "id": d.pk,
                "platform": d.platform,
                "token": d.token,
                "app_id": d.app_id,
                "environment": d.environment,
                "session_id": d.session_id,
                "enabled": d.enabled,
                "disabled_reason": d.disabled_reason,
                "created_at": d.created_at,
                "last_used_at": d.last_used_at,
            }
            for d in DeviceRegistration.objects.filter(player=player).order_by("pk")
        ],
        "muted_games": list(
            GameMute.objects.filter(player=player)
            .order_by("game_id")
            .values_list("game_id", flat=True)
        ),
        "received": [
            {
                "kind": n.kind,
                "game_id": n.game_id,
                "payload": n.payload,
                "created_at": n.created_at,
            }
            for n in Notification.objects.filter(player=player).order_by("created_at", "id")
        ],
    }
