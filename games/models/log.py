"""The move log (the truth of a game) and the first answers of idempotent action requests."""

from django.db import models

from accounts.models.players import Player
from games.models.game import Game


class EventSource(models.TextChoices):
    PLAYER = "player"
    BOT = "bot"
    TIMER = "timer"
    SYSTEM = "system"


class GameEvent(models.Model):
    """The append-only move log, the one truth of a game: seq 1 is ``game_started`` (the deal,
    and who sits where), then one row per applied action or fact of the table (a timeout, a
    stand-in taking or returning a seat, the timer turned off, a concession, an abandonment:
    ``games.engine.history``). Replaying it alone rebuilds the whole game.

    ``payload`` is the action's text form (for ``game_started``: public facts of the deal and
    the seating; for a fact: its details);
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
