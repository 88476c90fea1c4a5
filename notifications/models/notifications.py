"""Notifications: what a player is told, through which channels, and each delivery.

The outbox: a ``Notification`` row is written in the same transaction as the event that causes
it (a rolled-back move notifies nobody; a committed one is never forgotten). Each of the
player's enabled endpoints gets a ``Delivery`` row, delivered by a Celery task with retries and
exponential backoff, at most once per (notification, endpoint): the unique constraint, and the
idempotency key the delivery carries, ``Delivery.idempotency_key``.
"""

from django.db import models

from accounts.models.credentials import DeviceSession
from accounts.models.players import Player
from games.models.game import Game


class NotificationKind(models.TextChoices):
    YOUR_TURN = "your_turn"
    GAME_STARTED = "game_started"
    GO_OUT_ASKED = "go_out_asked"  # your partner asks whether they may go out
    CHAT = "chat"
    REMINDER = "reminder"  # your turn's deadline is near
    GAME_OVER = "game_over"
    CHALLENGE = "challenge"  # another player challenges you to a game


class Channel(models.TextChoices):
    WEBHOOK = "webhook"
    WEB_PUSH = "web_push"
    EMAIL = "email"
    FCM = "fcm", "FCM"  # Firebase Cloud Messaging (Android, and apps that push through Firebase)
    APNS = "apns", "APNs"  # Apple Push Notification service


class Notification(models.Model):
    """One thing to tell one player (the outbox row). ``payload`` holds only what the player
    could see at the table: no card of anyone's hand."""

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="notifications")
    kind = models.CharField(max_length=16, choices=NotificationKind.choices)
    game = models.ForeignKey(
        Game, null=True, blank=True, on_delete=models.CASCADE, related_name="notifications"
    )
    event_seq = models.PositiveIntegerField(
        null=True, blank=True, help_text="The game's version (or table event) that caused it."
    )
    payload = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        db_table = "games_notification"  # the table it had in games, kept
        ordering = ("-created_at", "-id")
        constraints = [
            models.UniqueConstraint(
                fields=["player", "kind", "game", "event_seq"], name="notification_once"
            )
        ]

    def __str__(self) -> str:
        return f"{self.kind} for {self.player_id} (game {self.game_id} #{self.event_seq})"


class DeliveryStatus(models.TextChoices):
    PENDING = "pending"
    DELIVERED = "delivered"
    FAILED = "failed"  # gave up after the last retry
    DROPPED = "dropped"  # the endpoint was disabled or removed before delivery


class Delivery(models.Model):
    """One notification to one endpoint of its player (a webhook, a push subscription, the
    player's e-mail address: ``endpoint_id`` 0)."""

    notification = models.ForeignKey(
        Notification, on_delete=models.CASCADE, related_name="deliveries"
    )
    channel = models.CharField(max_length=16, choices=Channel.choices)
    endpoint_id = models.PositiveBigIntegerField(default=0)
    status = models.CharField(
        max_length=16, choices=DeliveryStatus.choices, default=DeliveryStatus.PENDING
    )
    attempts = models.PositiveSmallIntegerField(default=0)
    next_attempt_at = models.DateTimeField(db_index=True)
    last_status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    last_error = models.CharField(max_length=300, blank=True, default="")
    delivered_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "games_delivery"  # the table it had in games, kept
        ordering = ("-created_at", "-id")
        constraints = [
            models.UniqueConstraint(
                fields=["notification", "channel", "endpoint_id"], name="delivery_once"
            )
        ]
        indexes = [
            models.Index(
                fields=["next_attempt_at"],
                condition=models.Q(status="pending"),
                name="delivery_due_idx",
            )
        ]

    @property
    def idempotency_key(self) -> str:
        """The same for every attempt of this delivery: receivers drop repeats by it."""
        return f"ntf-{self.notification_id}-{self.channel}-{self.endpoint_id}"

    def __str__(self) -> str:
        return f"{self.notification_id} -> {self.channel}:{self.endpoint_id} ({self.status})"


class EndpointHealth(models.Model):
    """What every worker must see of an endpoint the outbox sends to (a webhook, a push
    subscription): its circuit breaker and the attempt in flight
    (``notifications.services.breaker``)."""

    failed_attempts = models.PositiveIntegerField(
        default=0, help_text="Delivery attempts in a row that failed (0 after a success)."
    )
    open_until = models.DateTimeField(
        null=True,
        blank=True,
        help_text="The breaker is open until then: attempts due before are postponed to it.",
    )
    busy_until = models.DateTimeField(
        null=True,
        blank=True,
        help_text="An attempt to the endpoint is in flight (its lease): others wait for it.",
    )

    class Meta:
        abstract = True


class WebhookEndpoint(EndpointHealth):
    """An HTTPS URL a player (or a bot developer) registered; deliveries are signed with
    ``secret`` (HMAC-SHA256 over the timestamp and the body)."""

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="webhooks")
    url = models.URLField(max_length=500)
    secret = models.CharField(max_length=64)
    description = models.CharField(max_length=100, blank=True, default="")
    enabled = models.BooleanField(default=True)
    consecutive_failures = models.PositiveIntegerField(default=0)
    disabled_at = models.DateTimeField(null=True, blank=True)
    disabled_reason = models.CharField(max_length=200, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "games_webhookendpoint"  # the table it had in games, kept
        ordering = ("player", "id")

    def __str__(self) -> str:
        return f"webhook {self.pk} of {self.player_id}"


class PushSubscription(EndpointHealth):
    """A browser's Web Push subscription (RFC 8030/8291): where to push and its keys."""

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="push_subscriptions")
    endpoint = models.URLField(max_length=1000, unique=True)
    p256dh = models.CharField(max_length=200)
    auth = models.CharField(max_length=100)
    enabled = models.BooleanField(default=True)
    consecutive_failures = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "games_pushsubscription"  # the table it had in games, kept
        ordering = ("player", "id")

    def __str__(self) -> str:
        return f"push subscription {self.pk} of {self.player_id}"


class DevicePlatform(models.TextChoices):
    """A native device's push service: its value is the outbox channel it is sent on."""

    FCM = "fcm", "FCM"
    APNS = "apns", "APNs"


class ApnsEnvironment(models.TextChoices):
    SANDBOX = "sandbox"  # development builds (api.sandbox.push.apple.com)
    PRODUCTION = "production"  # TestFlight and App Store builds (api.push.apple.com)


class DeviceRegistration(EndpointHealth):
    """A native app's push token (FCM or APNs) for one player, registered from one device
    session: signing that session out removes it (CASCADE). A registration made with a key
    that has no session (a personal access token) has none, and stays until deleted."""

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="push_devices")
    session = models.ForeignKey(
        DeviceSession,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="push_devices",
        help_text="The device session that registered it (none: a key without a session).",
    )
    platform = models.CharField(max_length=8, choices=DevicePlatform.choices)
    token = models.CharField(max_length=512)
    app_id = models.CharField(
        max_length=200, blank=True, default="", help_text="APNs: the app's topic (bundle id)."
    )
    environment = models.CharField(
        max_length=12, choices=ApnsEnvironment.choices, default=ApnsEnvironment.PRODUCTION
    )
    enabled = models.BooleanField(default=True)
    consecutive_failures = models.PositiveIntegerField(default=0)
    disabled_at = models.DateTimeField(null=True, blank=True)
    disabled_reason = models.CharField(max_length=200, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(
        null=True, blank=True, help_text="The last push its service accepted."
    )

    class Meta:
        ordering = ("player", "id")
        constraints = [
            models.UniqueConstraint(fields=["platform", "token"], name="device_token_unique")
        ]
        indexes = [models.Index(fields=["player", "enabled"], name="device_player_enabled")]

    def __str__(self) -> str:
        return f"{self.platform} device {self.pk} of {self.player_id}"


class NotificationPreference(models.Model):
    """A player's choice for one channel and kind (no row: the default, on)."""

    player = models.ForeignKey(
        Player, on_delete=models.CASCADE, related_name="notification_preferences"
    )
    channel = models.CharField(max_length=16, choices=Channel.choices)
    kind = models.CharField(max_length=16, choices=NotificationKind.choices)
    enabled = models.BooleanField()

    class Meta:
        db_table = "games_notificationpreference"  # the table it had in games, kept
        constraints = [
            models.UniqueConstraint(
                fields=["player", "channel", "kind"], name="notification_preference_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.player_id} {self.channel}/{self.kind}: {'on' if self.enabled else 'off'}"


class NotificationSettings(models.Model):
    """A player's notification settings beyond the per-kind switches."""

    player = models.OneToOneField(
        Player, on_delete=models.CASCADE, related_name="notification_settings"
    )
    reminder_fraction = models.FloatField(
        default=0.75,
        help_text="Remind when this fraction of a correspondence turn's limit has passed.",
    )
    email = models.EmailField(blank=True, default="", help_text="Where e-mail goes (blank: none).")

    def __str__(self) -> str:
        return f"notification settings of {self.player_id}"

    class Meta:
        db_table = "games_notificationsettings"  # the table it had in games, kept


class GameMute(models.Model):
    """A player mutes one game's notifications."""

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="game_mutes")
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="mutes")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "games_gamemute"  # the table it had in games, kept
        constraints = [models.UniqueConstraint(fields=["player", "game"], name="game_mute_unique")]

    def __str__(self) -> str:
        return f"{self.player_id} mutes game {self.game_id}"
