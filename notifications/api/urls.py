"""Routes of the notifications' API: webhooks, preferences, mutes, Web Push and native push
devices (under /api/v1/)."""

from django.urls import path

from core import converters  # noqa: F401  <id:...> (core.converters)
from notifications.api import notifications, push, push_devices

urlpatterns = [
    # Notifications: webhooks and their delivery log, preferences, game mutes
    # (notifications/api/notifications.py).
    path(
        "players/me/webhooks/",
        notifications.WebhookListCreateApi.as_view(),
        name="player-webhooks",
    ),
    path(
        "players/me/webhooks/<id:webhook_id>/",
        notifications.WebhookDetailApi.as_view(),
        name="player-webhook",
    ),
    path(
        "players/me/webhooks/<id:webhook_id>/deliveries/",
        notifications.WebhookDeliveriesApi.as_view(),
        name="player-webhook-deliveries",
    ),
    path(
        "players/me/webhooks/<id:webhook_id>/enable/",
        notifications.WebhookEnableApi.as_view(),
        name="player-webhook-enable",
    ),
    path(
        "players/me/notifications/",
        notifications.NotificationPreferencesApi.as_view(),
        name="player-notifications",
    ),
    path(
        "games/<id:game_id>/notifications/mute/",
        notifications.GameNotificationMuteApi.as_view(),
        name="game-notifications-mute",
    ),
    # Web Push: the VAPID key, a player's browser subscriptions (notifications/api/push.py).
    path("push/key/", push.PushKeyApi.as_view(), name="push-key"),
    path(
        "players/me/push-subscriptions/",
        push.PushSubscriptionListCreateApi.as_view(),
        name="player-push-subscriptions",
    ),
    path(
        "players/me/push-subscriptions/<id:subscription_id>/",
        push.PushSubscriptionDetailApi.as_view(),
        name="player-push-subscription",
    ),
    # Native push: a player's app devices, FCM or APNs (notifications/api/push_devices.py).
    path(
        "players/me/push-devices/",
        push_devices.PushDeviceListCreateApi.as_view(),
        name="player-push-devices",
    ),
    path(
        "players/me/push-devices/<id:device_id>/",
        push_devices.PushDeviceDetailApi.as_view(),
        name="player-push-device",
    ),
]
