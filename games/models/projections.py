"""Projections of the move log: the melds on the table and the scorecard (caches)."""

from typing import Any

from django.db import models

from games.models.game import Game


class Meld(models.Model):
    """A meld on the table in the current round (projection of the snapshot)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="melds")
    team = models.PositiveSmallIntegerField()
    rank = models.CharField(
        max_length=2,
        help_text="3, 4..10, J, Q, K, A, or W for wild cards; a sequence's lowest rank.",
    )
    meld_id = models.CharField(
        max_length=3,
        blank=True,
        default="",
        help_text="Samba and Bolivia: the meld's id (A3), several melds of a rank being "
        "allowed; empty where a side has one meld per rank.",
    )
    cards = models.JSONField(help_text="The meld's cards in text form.")
    natural_count = models.PositiveSmallIntegerField()
    wild_count = models.PositiveSmallIntegerField()
    is_canasta = models.BooleanField()

    VALUES = ("cards", "natural_count", "wild_count", "is_canasta")  # set from the engine

    class Meta:
        ordering = ("game", "team", "rank", "meld_id")
        constraints = [
            models.UniqueConstraint(
                fields=["game", "team", "rank", "meld_id"], name="meld_unique_rank_id"
            )
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
    parts = models.JSONField(
        default=dict,
        blank=True,
        help_text="A variant family's round: every component of the score as its rules count "
        "them, by name (the columns above hold those a classic round has); empty in a classic "
        "game.",
    )

    class Meta:
        ordering = ("game", "round_no", "team")
        constraints = [
            models.UniqueConstraint(
                fields=["game", "round_no", "team"], name="roundscore_unique_team"
            )
        ]

    def __str__(self) -> str:
        return f"Game #{self.game_id} round {self.round_no} team {self.team}: {self.total}"

    @classmethod
    def values_of(cls, record: dict[str, Any], team: int, classic: bool) -> dict[str, Any]:
        """The row of ``team`` for one round the engine recorded (``GameState.rounds``): a
        variant family's components that a classic round lacks count 0 in the columns, and
        all of them are kept in ``parts``."""
        parts = record["teams"][team]
        return {
            "round_no": record["round"],
            "team": team,
            "dealer": record["dealer"],
            "reason": record["reason"],
            "went_out": record.get("went_out"),
            "concealed": bool(record.get("concealed", False)),
            "total": parts["total"],
            "cumulative": record["scores"][team],
            **{
                name: parts.get("concealed" if name == "concealed_bonus" else name, 0)
                for name in cls.COMPONENTS
            },
            "parts": {} if classic else dict(parts),
        }
