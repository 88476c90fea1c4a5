"""Post-game reviews: one seat's decisions of the finished rounds, searched after the fact.

A review is requested by a player and computed by a Celery task (the bots app's reviewer): it
replays the move log and, at each of the seat's decisions, searches from that seat's
observation at the time only, recording the chosen move's expected loss against the best
candidate. ``through_round`` is the last finished round the review covers: a review asked for
in mid-game covers the rounds finished so far, and a later request (after more rounds) makes a
new review. The result is a cache of a pure function of the log, the seat and the reviewer's
settings (``engine``): it can always be computed again.
"""

from django.db import models

from accounts.models.players import Player
from games.models.game import Game


class ReviewStatus(models.TextChoices):
    PENDING = "pending"
    READY = "ready"
    FAILED = "failed"


class GameReview(models.Model):
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="reviews")
    seat = models.PositiveSmallIntegerField()
    through_round = models.PositiveSmallIntegerField(
        help_text="The last finished round the review covers (rounds 1..through_round)."
    )
    through_seq = models.PositiveIntegerField(
        help_text="The seq of the move-log event that finished that round."
    )
    status = models.CharField(
        max_length=8, choices=ReviewStatus.choices, default=ReviewStatus.PENDING
    )
    requested_by = models.ForeignKey(
        Player, null=True, blank=True, on_delete=models.SET_NULL, related_name="reviews_requested"
    )
    engine = models.CharField(
        max_length=64, blank=True, default="", help_text="The reviewer and its settings."
    )
    result = models.JSONField(
        null=True, blank=True, help_text="The decisions reviewed (null until ready)."
    )
    started_at = models.DateTimeField(
        null=True, blank=True, help_text="When a reviewer took it (null: waiting its turn)."
    )
    cpu_seconds = models.FloatField(null=True, blank=True)
    error = models.CharField(max_length=200, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "games_gamereview"  # the table it had in games, kept
        ordering = ("game", "seat", "-through_round")
        indexes = [models.Index(fields=["status", "created_at"], name="review_status_created")]
        constraints = [
            models.UniqueConstraint(
                fields=["game", "seat", "through_round"], name="review_unique_game_seat_round"
            ),
        ]

    def __str__(self) -> str:
        return f"Review of game {self.game_id} seat {self.seat} to round {self.through_round}"
