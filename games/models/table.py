"""What happens around the cards: table settings, chat and mutes (presence is in the cache:
games.presence)."""

from django.db import models

from accounts.models.players import Player
from games.models.game import Game


class GameTable(models.Model):
    """A game's table settings (one row per game, made on first
    use; a game without a row has the defaults)."""

    game = models.OneToOneField(
        Game, on_delete=models.CASCADE, primary_key=True, related_name="table"
    )
    table_talk = models.BooleanField(
        default=True, help_text="Quick chat allowed; off: a 'no table talk' game."
    )
    spectator_delay = models.PositiveSmallIntegerField(
        default=0, help_text="Spectators see the game this many moves behind."
    )
    rematch_of = models.OneToOneField(
        Game,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="rematch_table",
        help_text="The finished game this one is the rematch of.",
    )
    table_seq = models.PositiveIntegerField(default=0, help_text="The seq of the last TableEvent.")

    def __str__(self) -> str:
        return f"Table of game #{self.game_id}"


class TableEventKind(models.TextChoices):
    CHAT = "chat"
    CONCEDED = "conceded"
    REMATCH_ACCEPTED = "rematch_accepted"
    REMATCH_CREATED = "rematch_created"
    SETTINGS_CHANGED = "settings_changed"


class TableEvent(models.Model):
    """The append-only feed of table happenings (chat, concession, rematch), seq 1, 2, ... per
    game; public to everyone who may see the game."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="table_events")
    seq = models.PositiveIntegerField()
    kind = models.CharField(max_length=24, choices=TableEventKind.choices)
    seat = models.SmallIntegerField(null=True, blank=True)
    player = models.ForeignKey(
        Player, null=True, blank=True, on_delete=models.SET_NULL, related_name="table_events"
    )
    data = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("game", "seq")
        constraints = [
            models.UniqueConstraint(fields=["game", "seq"], name="tableevent_unique_seq")
        ]
        indexes = [
            models.Index(
                fields=["game", "player", "kind", "created_at"], name="tableevent_rate_idx"
            )
        ]

    def __str__(self) -> str:
        return f"Game #{self.game_id} table #{self.seq} {self.kind}"


class ChatMute(models.Model):
    """``player`` does not want to see the chat of ``seat`` in ``game``."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="chat_mutes")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="chat_mutes")
    seat = models.PositiveSmallIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["game", "player", "seat"], name="chatmute_unique")
        ]

    def __str__(self) -> str:
        return f"Game #{self.game_id}: {self.player_id} mutes seat {self.seat}"
