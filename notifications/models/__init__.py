"""The notification outbox, its deliveries, and each player's channels and preferences."""

from notifications.models.notifications import (
    ApnsEnvironment,
    Channel,
    Delivery,
    DeliveryStatus,
    DevicePlatform,
    DeviceRegistration,
    GameMute,
    Notification,
    NotificationKind,
    NotificationPreference,
    NotificationSettings,
    PushSubscription,
    WebhookEndpoint,
)

__all__ = [
    "ApnsEnvironment",
    "Channel",
    "Delivery",
    "DeliveryStatus",
    "DevicePlatform",
    "DeviceRegistration",
    "GameMute",
    "Notification",
    "NotificationKind",
    "NotificationPreference",
    "NotificationSettings",
    "PushSubscription",
    "WebhookEndpoint",
]
