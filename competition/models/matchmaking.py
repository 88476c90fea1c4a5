"""Quick-play queues: who waits for a match, for which preset, and the match once made."""

from django.db import models

from accounts.models.players import Player
from games.models.game import BotLevel, Game


class QueueEntry(models.Model):
    """One player waiting in a quick-play queue (a player is in one queue at most: the
    one-to-one). The pairing run (``competition.services.matchmaking``) sets ``match`` and
    ``matched_at`` when it pairs the player, then ``game`` once the match's table is dealt; the
    entry then says where the match is until the player queues again."""

    player = models.OneToOneField(Player, on_delete=models.CASCADE, related_name="queue_entry")
    preset = models.CharField(max_length=32)
    format = models.CharField(max_length=16)
    rated = models.BooleanField()
    bots_after_seconds = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="Casual queues: fill the table with bots after this many seconds (null: never).",
    )
    bot_level = models.CharField(
        max_length=8,
        choices=BotLevel.choices,
        default=BotLevel.MEDIUM,
        help_text="Casual queues: the level of the bots that fill the table.",
    )
    rating = models.FloatField(help_text="The player's mu in the format when they queued.")
    joined_at = models.DateTimeField(db_index=True)
    match = models.UUIDField(
        null=True,
        blank=True,
        db_index=True,
        help_text="Set by the pairing run: the entries of one match share it "
        "(their table follows).",
    )
    game = models.ForeignKey(
        Game, null=True, blank=True, on_delete=models.SET_NULL, related_name="queue_entries"
    )
    matched_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "games_queueentry"  # the table it had in games, kept
        ordering = ("joined_at", "id")
        indexes = [
            models.Index(
                fields=["preset", "rated", "rating"],
                condition=models.Q(match__isnull=True),
                name="queue_waiting_idx",
            )
        ]

    def __str__(self) -> str:
        return f"{self.player_id} in {self.preset}{' rated' if self.rated else ''}"
