"""A game and its seats: the configuration, the current status and the caches a move reads."""

from django.db import models

from accounts.models.players import Player


class GameStatus(models.TextChoices):
    LOBBY = "lobby"
    ACTIVE = "active"
    FINISHED = "finished"
    ABANDONED = "abandoned"


class BotLevel(models.TextChoices):
    EASY = "easy"
    MEDIUM = "medium"
    HARD = "hard"


class TimeoutOutcome(models.TextChoices):
    """What the turn timer does after a seat's ``timeout_limit`` consecutive timeouts."""

    BOT = "bot"  # a bot plays the seat until its player is back (their next request)
    ABANDON = "abandon"  # the game is abandoned


class Game(models.Model):
    preset = models.CharField(max_length=32)
    options = models.JSONField(help_text="The full engine options (preset plus overrides).")
    status = models.CharField(
        max_length=16, choices=GameStatus.choices, default=GameStatus.LOBBY, db_index=True
    )
    version = models.PositiveIntegerField(default=0, help_text="The seq of the last GameEvent.")
    snapshot = models.JSONField(
        null=True, blank=True, help_text="Engine state after the last event: a cache, never served."
    )
    rules_version = models.CharField(max_length=16)
    seed = models.CharField(max_length=64, help_text="Secret until the game ends.")
    is_public = models.BooleanField(default=True)
    rated = models.BooleanField(
        default=False,
        help_text="A rated game: humans only, a standard preset, its result changes ratings once.",
    )
    hints = models.BooleanField(
        default=False,
        help_text="The seat to act may ask for a suggested move (casual tables only).",
    )
    join_code = models.CharField(max_length=16, unique=True)
    created_by = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="games_created")
    to_act = models.SmallIntegerField(null=True, blank=True, help_text="Seat to act (cache).")
    winner_team = models.SmallIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    imported_from = models.JSONField(
        null=True,
        blank=True,
        help_text="For a game imported from an export document: where the document came from "
        "(its format, source game id and export time); null for a game played here.",
    )
    # Turn timer (games.services.timers). turn_seconds null: no timer. turn_deadline is when the
    # seat to act loses its turn to the timer (null: nothing is running).
    turn_seconds = models.PositiveIntegerField(
        null=True, blank=True, help_text="Seconds per turn; null: no turn timer."
    )
    timeout_limit = models.PositiveSmallIntegerField(
        default=3, help_text="Consecutive timeouts of a seat before timeout_outcome (0: never)."
    )
    timeout_outcome = models.CharField(
        max_length=8, choices=TimeoutOutcome.choices, default=TimeoutOutcome.BOT
    )
    turn_deadline = models.DateTimeField(null=True, blank=True, db_index=True)
    seating = models.JSONField(
        default=list,
        blank=True,
        help_text="The seats as moves and views read them, kept equal to the Seat rows "
        "(games/seating.py).",
    )
    # Correspondence play (turns of hours or days): kept by the beat sweep, never by an ETA
    # task. A paused game (every seat agreed) has no deadline; ``pause_remaining`` is what was
    # left of the turn, restored on resume.
    paused_at = models.DateTimeField(null=True, blank=True)
    pause_remaining = models.PositiveIntegerField(
        null=True, blank=True, help_text="Seconds left of the turn when the game was paused."
    )
    pause_proposal = models.JSONField(
        null=True,
        blank=True,
        help_text="A pending proposal to pause or resume: kind, proposed_by, accepted seats.",
    )
    reminder_at = models.DateTimeField(
        null=True,
        blank=True,
        db_index=True,
        help_text="When the seat to act is reminded of its deadline (null: no reminder due).",
    )
    timer_proposal = models.JSONField(
        null=True,
        blank=True,
        help_text="A pending proposal to turn the timer off: proposed_by, accepted seats.",
    )

    class Meta:
        ordering = ("-created_at", "-id")
        indexes = [models.Index(fields=["status", "is_public"], name="game_status_public_idx")]

    def __str__(self) -> str:
        return f"Game #{self.pk} ({self.preset}, {self.status}, v{self.version})"

    @property
    def players(self) -> int:
        return int(self.options["players"])


class Seat(models.Model):
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seats")
    index = models.PositiveSmallIntegerField()
    team = models.PositiveSmallIntegerField()
    player = models.ForeignKey(
        Player, null=True, blank=True, on_delete=models.PROTECT, related_name="seats"
    )
    bot_level = models.CharField(max_length=8, choices=BotLevel.choices, null=True, blank=True)
    joined_at = models.DateTimeField(null=True, blank=True)
    timeouts = models.PositiveSmallIntegerField(
        default=0, help_text="Consecutive turns this seat lost to the turn timer."
    )
    stand_in = models.BooleanField(
        default=False, help_text="A bot plays this player's seat until the player is back."
    )

    class Meta:
        ordering = ("game", "index")
        constraints = [
            models.UniqueConstraint(fields=["game", "index"], name="seat_unique_index"),
            models.UniqueConstraint(
                fields=["game", "player"],
                condition=models.Q(player__isnull=False),
                name="seat_unique_player",
            ),
            models.CheckConstraint(
                condition=models.Q(player__isnull=True) | models.Q(bot_level__isnull=True),
                name="seat_player_or_bot",
            ),
        ]

    def __str__(self) -> str:
        who = self.player or (f"bot:{self.bot_level}" if self.bot_level else "empty")
        return f"Game #{self.game_id} seat {self.index}: {who}"

    @property
    def is_bot(self) -> bool:
        return self.bot_level is not None

    @property
    def is_empty(self) -> bool:
        return self.player_id is None and self.bot_level is None
