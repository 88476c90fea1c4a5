"""A player leaves for good (their account is deleted): everything notifications keeps of them
goes, in the caller's transaction: their webhooks, push subscriptions and native push
devices, their switches and
settings (the e-mail address), their game mutes and their notifications with every delivery
still waiting (a delivery belongs to its notification)."""

from __future__ import annotations

from django.db import transaction

from accounts.models import Player
from notifications.models import (
    DeviceRegistration,
    GameMute,
    Notification,
    NotificationPreference,
    NotificationSettings,
    PushSubscription,
    WebhookEndpoint,
)


def player_notifications_forget(player: Player) -> None:
    with transaction.atomic():
        Notification.objects.filter(player=player).delete()
        WebhookEndpoint.objects.filter(player=player).delete()
        PushSubscription.objects.filter(player=player).delete()
        DeviceRegistration.objects.filter(player=player).delete()
        NotificationPreference.objects.filter(player=player).delete()
        NotificationSettings.objects.filter(player=player).delete()
        GameMute.objects.filter(player=player).delete()
