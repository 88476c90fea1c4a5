"""Ratings of competitive play: one rating per player and format, and each rated game's change.

A rating is a Weng-Lin (openskill) estimate: ``mu`` the skill, ``sigma`` its uncertainty.
``display`` is the conservative value shown and ranked on (``mu - 3 * sigma``), kept in the row
so the leaderboards read it from an index. A ``RatingChange`` is written in a rated game's final
transaction, once per player (unique ``(game, player)``: a backstop behind the game row lock).
A rated game whose result did not count (``counted`` false: too few moves, or the same players
too often: ``competition.services.ratings``) has its rows too, with the rating unchanged and the
reason, so the player's history says why nothing moved.
"""

from django.db import models

from accounts.models.players import Player
from games.models.game import Game


class RatingFormat(models.TextChoices):
    """The formats rated apart: a partnership game is not the same skill as a game alone, and
    each rule family beside classic is a game of its own (one format per preset)."""

    PARTNERSHIP = "partnership"  # four players in two partnerships
    TWO_PLAYER = "two_player"
    THREE_PLAYER = "three_player"
    MAC = "mac"  # Modern American Canasta, four players in partnerships
    MAC_TWO_PLAYER = "mac_two_player"
    SAMBA = "samba"
    BOLIVIA = "bolivia"


FORMAT_OF_PLAYERS: dict[int, str] = {
    4: RatingFormat.PARTNERSHIP,
    2: RatingFormat.TWO_PLAYER,
    3: RatingFormat.THREE_PLAYER,
}


class UnratedReason(models.TextChoices):
    """Why a rated game's result did not count."""

    TOO_FEW_MOVES = "too_few_moves"  # a side made fewer than RATED_MIN_MOVES_PER_SIDE moves
    REPEATED_OPPONENTS = "repeated_opponents"  # two of its players met too often in the window


# The presets of the families beside classic that are formats of their own.
FORMAT_OF_PRESET: dict[str, str] = {
    RatingFormat.MAC: RatingFormat.MAC,
    RatingFormat.MAC_TWO_PLAYER: RatingFormat.MAC_TWO_PLAYER,
    RatingFormat.SAMBA: RatingFormat.SAMBA,
    RatingFormat.BOLIVIA: RatingFormat.BOLIVIA,
}


def rating_format_of(players: int, preset: str | None = None) -> str:
    """The rating format of a table of ``preset`` with ``players`` seats: a classic preset's by
    its seats, another family's preset its own."""
    if preset is not None and preset in FORMAT_OF_PRESET:
        return FORMAT_OF_PRESET[preset]
    return FORMAT_OF_PLAYERS[players]


class Rating(models.Model):
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="ratings")
    format = models.CharField(max_length=16, choices=RatingFormat.choices)
    mu = models.FloatField()
    sigma = models.FloatField()
    display = models.FloatField(help_text="mu - 3 sigma: the conservative value shown and ranked.")
    games = models.PositiveIntegerField(default=0, help_text="Rated games counted.")
    wins = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "games_rating"  # the table it had in games, kept
        ordering = ("format", "-display", "player")
        constraints = [
            models.UniqueConstraint(fields=["player", "format"], name="rating_unique_format"),
        ]
        indexes = [models.Index(fields=["format", "-display", "player"], name="rating_board_idx")]

    def __str__(self) -> str:
        return f"{self.player_id} {self.format}: {self.display:.1f}"


class RatingChange(models.Model):
    """What one rated game did to one player's rating (the rating history)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="rating_changes")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="rating_changes")
    format = models.CharField(max_length=16, choices=RatingFormat.choices)
    seat = models.PositiveSmallIntegerField()
    team = models.PositiveSmallIntegerField()
    rank = models.PositiveSmallIntegerField(help_text="The side's place: 1 won (ties share).")
    mu_before = models.FloatField()
    sigma_before = models.FloatField()
    mu_after = models.FloatField()
    sigma_after = models.FloatField()
    display_before = models.FloatField()
    display_after = models.FloatField()
    counted = models.BooleanField(
        default=True, help_text="False: the result did not count (the rating is unchanged)."
    )
    unrated_reason = models.CharField(
        max_length=24,
        choices=UnratedReason.choices,
        blank=True,
        default="",
        help_text="Why the result did not count (empty when it counted).",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "games_ratingchange"  # the table it had in games, kept
        ordering = ("-created_at", "-id")
        constraints = [
            models.UniqueConstraint(fields=["game", "player"], name="ratingchange_unique_player"),
        ]
        indexes = [models.Index(fields=["player", "-created_at"], name="ratingchange_player_idx")]

    def __str__(self) -> str:
        return f"Game #{self.game_id} player {self.player_id}: {self.display_after:+.1f}"
