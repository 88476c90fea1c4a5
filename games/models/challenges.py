"""Challenges: one player invites another to a table with a preset and options; accepting it
creates the table with both seated (``games.services.challenges``)."""

from django.db import models

from accounts.models.players import Player
from games.models.game import BotLevel, Game


class ChallengeStatus(models.TextChoices):
    PENDING = "pending"  # waiting for the invitee (``expired`` once ``expires_at`` has passed)
    ACCEPTED = "accepted"  # the table is ``game``
    DECLINED = "declined"
    CANCELLED = "cancelled"


class Challenge(models.Model):
    """``challenger`` invites ``invitee`` to play ``preset`` with ``options``."""

    challenger = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="challenges_sent")
    invitee = models.ForeignKey(
        Player, on_delete=models.CASCADE, related_name="challenges_received"
    )
    preset = models.CharField(max_length=32)
    options = models.JSONField(default=dict, help_text="Overrides of the preset's options.")
    rated = models.BooleanField(default=False)
    seat = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="The seat the challenger wants (null: drawn at random)."
    )
    fill_with_bots = models.BooleanField(
        default=False, help_text="Seats beyond the two players go to bots of ``bot_level``."
    )
    bot_level = models.CharField(max_length=8, choices=BotLevel.choices, default=BotLevel.EASY)
    status = models.CharField(
        max_length=16, choices=ChallengeStatus.choices, default=ChallengeStatus.PENDING
    )
    expires_at = models.DateTimeField()
    created_at = models.DateTimeField(auto_now_add=True)
    answered_at = models.DateTimeField(null=True, blank=True)
    game = models.ForeignKey(
        Game, null=True, blank=True, on_delete=models.SET_NULL, related_name="challenges"
    )

    class Meta:
        ordering = ("-created_at", "-id")
        indexes = [
            models.Index(fields=["challenger", "status"], name="challenge_challenger_idx"),
            models.Index(fields=["invitee", "status"], name="challenge_invitee_idx"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=~models.Q(challenger=models.F("invitee")), name="challenge_not_self"
            ),
        ]

    def __str__(self) -> str:
        return f"challenge {self.pk}: {self.challenger_id} -> {self.invitee_id} ({self.status})"
