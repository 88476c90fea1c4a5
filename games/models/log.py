"""The move log (the truth of a game) and the first answers of idempotent action requests."""

from django.db import models

from games.models.game import Game
from games.models.players import Player


class EventSource(models.TextChoices):
    PLAYER = "player"
    BOT = "bot"
    TIMER = "timer"
    SYSTEM = "system"


class GameEvent(models.Model):
    """The append-only move log: seq 1 is ``game_started``, then one row per applied action.

    ``payload`` is the action's text form (for ``game_started``: public facts of the deal);
    ``effects`` are the engine events it caused, each ``{kind, seat, public, private}`` where
    ``private`` maps a seat number (as text) to what only that seat may see.
    """

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="events")
    seq = models.PositiveIntegerField()
    seat = models.SmallIntegerField(null=True, blank=True)
    type = models.CharField(max_length=32)
    source = models.CharField(max_length=8, choices=EventSource.choices, default=EventSource.PLAYER)
    payload = models.JSONField(default=dict)
    effects = models.JSONField(default=list)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("game", "seq")
        constraints = [models.UniqueConstraint(fields=["game", "seq"], name="gameevent_unique_seq")]

    def __str__(self) -> str:
        return f"Game #{self.game_id} #{self.seq} {self.type}"


class IdempotencyRecord(models.Model):
    """The first response to an action request sent with an ``Idempotency-Key`` header."""

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="idempotency")
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="idempotency")
    key = models.CharField(max_length=255)
    request_hash = models.CharField(max_length=64)
    response_status = models.PositiveSmallIntegerField()
    response_body = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["player", "key"], name="idempotency_unique_key")
        ]

    def __str__(self) -> str:
        return f"{self.key} by player #{self.player_id}"


class TimerEvent(models.Model):
    """The turn timer's own log: timeouts, seats handed to a bot and back, abandonment, and the
    proposals to turn the timer off. The moves a timer plays are ``GameEvent`` rows (source
    ``timer``); these rows say why. ``at_version`` is the game's version when it happened."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="timer_events")
    seq = models.PositiveIntegerField()
    at_version = models.PositiveIntegerField()
    seat = models.SmallIntegerField(null=True, blank=True)
    type = models.CharField(max_length=32)
    payload = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("game", "seq")
        constraints = [
            models.UniqueConstraint(fields=["game", "seq"], name="timerevent_unique_seq")
        ]

    def __str__(self) -> str:
        return f"Game #{self.game_id} timer #{self.seq} {self.type}"
