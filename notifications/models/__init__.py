"""The notification outbox, its deliveries, and each player's channels and preferences."""

from notifications.models.notifications import (
    Channel,
    Delivery,
    DeliveryStatus,
    GameMute,
    Notification,
    NotificationKind,
    NotificationPreference,
    NotificationSettings,
    PushSubscription,
    WebhookEndpoint,
)

__all__ = [
    "Channel",
    "Delivery",
    "DeliveryStatus",
    "GameMute",
    "Notification",
    "NotificationKind",
    "NotificationPreference",
    "NotificationSettings",
    "PushSubscription",
    "WebhookEndpoint",
]
