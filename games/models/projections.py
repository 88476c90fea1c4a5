"""Projections of the move log: the melds on the table and the scorecard (caches)."""

from django.db import models

from games.models.game import Game


class Meld(models.Model):
    """A meld on the table in the current round (projection of the snapshot)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="melds")
    team = models.PositiveSmallIntegerField()
    rank = models.CharField(max_length=2, help_text="3, 4..10, J, Q, K, A, or W for wild cards.")
    cards = models.JSONField(help_text="The meld's cards in text form.")
    natural_count = models.PositiveSmallIntegerField()
    wild_count = models.PositiveSmallIntegerField()
    is_canasta = models.BooleanField()

    VALUES = ("cards", "natural_count", "wild_count", "is_canasta")  # set from the engine

    class Meta:
        ordering = ("game", "team", "rank")
        constraints = [
            models.UniqueConstraint(fields=["game", "team", "rank"], name="meld_unique_rank")
        ]

    def __str__(self) -> str:
        return f"Game #{self.game_id} team {self.team} meld {self.rank} ({len(self.cards)})"


class RoundScore(models.Model):
    """One team's score for one finished round, every component (the scorecard)."""

    # The components that add up to ``total`` (``concealed_bonus`` is the engine's "concealed").
    COMPONENTS = (
        "meld_cards",
        "hand_cards",
        "natural_canastas",
        "mixed_canastas",
        "wild_canastas",
        "red_threes",
        "going_out",
        "concealed_bonus",
    )

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="round_scores")
    round_no = models.PositiveSmallIntegerField()
    team = models.PositiveSmallIntegerField()
    dealer = models.PositiveSmallIntegerField()
    reason = models.CharField(max_length=32, help_text="went_out, stock_exhausted, ...")
    went_out = models.SmallIntegerField(null=True, blank=True, help_text="Seat that went out.")
    concealed = models.BooleanField(default=False)
    meld_cards = models.IntegerField()
    hand_cards = models.IntegerField()
    natural_canastas = models.IntegerField()
    mixed_canastas = models.IntegerField()
    wild_canastas = models.IntegerField()
    red_threes = models.IntegerField()
    going_out = models.IntegerField()
    concealed_bonus = models.IntegerField()
    total = models.IntegerField()
    cumulative = models.IntegerField()

    class Meta:
        ordering = ("game", "round_no", "team")
        constraints = [
            models.UniqueConstraint(
                fields=["game", "round_no", "team"], name="roundscore_unique_team"
            )
        ]

    def __str__(self) -> str:
        return f"Game #{self.game_id} round {self.round_no} team {self.team}: {self.total}"
