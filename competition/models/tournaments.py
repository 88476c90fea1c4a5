"""Tournaments: an event, its entries, its tables and the log of its facts.

The log (``TournamentFact``) is the truth, as a game's move log is: standings are folded from it
(``competition.selectors.tournament_log``) and verified against the rows the services keep up to
date (``TournamentEntry``'s points and tie-breaks, written only for the entries a result changes).
"""

from __future__ import annotations

from django.db import models

from accounts.models.players import Player
from games.models.game import BotLevel, Game


class TournamentFormat(models.TextChoices):
    SWISS = "swiss"
    KNOCKOUT = "knockout"
    ARENA = "arena"
    DUPLICATE = "duplicate"


class TournamentUnit(models.TextChoices):
    """Who enters: one player, or a fixed partnership of two (four-player presets)."""

    INDIVIDUAL = "individual"
    PAIR = "pair"


class TournamentPace(models.TextChoices):
    LIVE = "live"
    CORRESPONDENCE = "correspondence"


class TournamentStatus(models.TextChoices):
    DRAFT = "draft"  # created, entry not yet open
    OPEN = "open"  # entry open
    CLOSED = "closed"  # entry closed, not started
    RUNNING = "running"
    FINISHED = "finished"
    CANCELLED = "cancelled"


class TieRule(models.TextChoices):
    """Knockout: who goes through when a match's game wins are level."""

    POINTS = "points"  # more points over the match, then the better seed
    HIGHER_SEED = "higher_seed"
    EXTRA_GAME = "extra_game"  # one more game until one is won


class DuplicateScoring(models.TextChoices):
    MATCHPOINTS = "matchpoints"
    IMPS = "imps"


class Tournament(models.Model):
    name = models.CharField(max_length=80)
    description = models.TextField(blank=True, default="")
    organiser = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="tournaments")
    format = models.CharField(max_length=16, choices=TournamentFormat.choices)
    unit = models.CharField(max_length=16, choices=TournamentUnit.choices)
    preset = models.CharField(max_length=32)
    options = models.JSONField(default=dict, help_text="Option overrides of the preset.")
    players_per_table = models.PositiveSmallIntegerField()
    rated = models.BooleanField(default=False)
    rounds = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Swiss and duplicate: rounds to play."
    )
    boards_per_round = models.PositiveSmallIntegerField(
        default=1, help_text="Duplicate: deals played at every table of a round."
    )
    duplicate_scoring = models.CharField(
        max_length=16, choices=DuplicateScoring.choices, default=DuplicateScoring.MATCHPOINTS
    )
    robot = models.BooleanField(
        default=False, help_text="Robot duplicate: each entrant plays alone with bots."
    )
    games_per_match = models.PositiveSmallIntegerField(default=1)
    tie_rule = models.CharField(max_length=16, choices=TieRule.choices, default=TieRule.POINTS)
    pace = models.CharField(max_length=16, choices=TournamentPace.choices)
    turn_seconds = models.PositiveIntegerField(null=True, blank=True)
    round_interval_seconds = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="Correspondence: a round starts this long after the previous one began "
        "(or when it ends, if later). Null: at once.",
    )
    pairing_review = models.BooleanField(
        default=False, help_text="Pairings wait for the organiser to publish them."
    )
    bot_level = models.CharField(max_length=8, choices=BotLevel.choices, default=BotLevel.MEDIUM)
    rating_min = models.IntegerField(null=True, blank=True)
    rating_max = models.IntegerField(null=True, blank=True)
    invitation_only = models.BooleanField(default=False)
    friends_only = models.BooleanField(default=False)
    max_entries = models.PositiveIntegerField(null=True, blank=True)
    starts_at = models.DateTimeField(null=True, blank=True, db_index=True)
    ends_at = models.DateTimeField(
        null=True, blank=True, help_text="Arena and robot duplicate: when play closes."
    )
    status = models.CharField(
        max_length=16,
        choices=TournamentStatus.choices,
        default=TournamentStatus.DRAFT,
        db_index=True,
    )
    current_round = models.PositiveIntegerField(default=0)
    round_started_at = models.DateTimeField(null=True, blank=True)
    version = models.PositiveIntegerField(default=0, help_text="The seq of the last fact.")
    deal_commitment = models.CharField(max_length=64, blank=True, default="")
    deal_seeds = models.JSONField(
        default=list, blank=True, help_text="Duplicate: the deal set, secret until the end."
    )
    forbidden_pairs = models.JSONField(
        default=list, blank=True, help_text="Pairs of entry ids never paired together."
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("-created_at", "-id")

    def __str__(self) -> str:
        return f"{self.name} ({self.format})"


class TournamentInvite(models.Model):
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="invites")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tournament", "player"], name="tournament_invite_once")
        ]


class EntryStatus(models.TextChoices):
    ACTIVE = "active"
    WITHDRAWN = "withdrawn"
    DISQUALIFIED = "disqualified"
    ELIMINATED = "eliminated"  # knockout: lost a match


class TournamentEntry(models.Model):
    """One entrant: a player, a pair (``partner``), or a bot the organiser entered
    (``player`` null, ``bot_level`` set). The score fields are kept by the services for the
    entries a result changes and are verified against the fold of the event's log."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entries")
    player = models.ForeignKey(
        Player, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    partner = models.ForeignKey(
        Player, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    bot_level = models.CharField(max_length=8, choices=BotLevel.choices, null=True, blank=True)
    name = models.CharField(max_length=80)
    rating = models.FloatField(default=0.0)
    seed = models.PositiveIntegerField(null=True, blank=True, help_text="Knockout seed.")
    status = models.CharField(
        max_length=16, choices=EntryStatus.choices, default=EntryStatus.ACTIVE, db_index=True
    )
    points = models.FloatField(default=0.0)
    buchholz = models.FloatField(default=0.0)
    sonneborn_berger = models.FloatField(default=0.0)
    score_diff = models.IntegerField(default=0)
    played = models.PositiveIntegerField(default=0)
    byes = models.PositiveIntegerField(default=0)
    meetings = models.JSONField(
        default=list,
        blank=True,
        help_text="[opponent entry id, score] per opponent met (1 win, 0.5 draw, 0 loss): "
        "what the tie-breaks are summed over.",
    )
    arena_results = models.JSONField(default=list, blank=True)
    joined_round = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("id",)
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "player"],
                condition=models.Q(player__isnull=False),
                name="tournament_entry_player_once",
            ),
            models.UniqueConstraint(
                fields=["tournament", "partner"],
                condition=models.Q(partner__isnull=False),
                name="tournament_entry_partner_once",
            ),
        ]
        indexes = [
            models.Index(
                fields=["tournament", "-points", "-buchholz", "-sonneborn_berger", "-score_diff"],
                name="tournament_standing_idx",
            )
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def player_ids(self) -> list[int]:
        return [p for p in (self.player_id, self.partner_id) if p is not None]


class TableStatus(models.TextChoices):
    PROPOSED = "proposed"  # paired, waiting for the organiser to publish the round
    PENDING = "pending"  # published, its game not yet dealt
    PLAYING = "playing"
    FINISHED = "finished"
    VOID = "void"  # not played: withdrawn before it was dealt, or a round undone


class TournamentTable(models.Model):
    """One game of a round: match ``number`` of ``round``, game ``leg`` of the match (a
    knockout match of several games, a duplicate round's boards one after another).
    ``sides`` lists the entry ids of each team (team i sits at seats i, i + 2, ...)."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="tables")
    round = models.PositiveIntegerField()
    number = models.PositiveIntegerField()
    leg = models.PositiveSmallIntegerField(default=1)
    sides = models.JSONField(help_text="Entry ids per team.")
    seating = models.JSONField(
        default=list, help_text="Per seat: [entry id, player id or null, bot level or null]."
    )
    board = models.PositiveSmallIntegerField(null=True, blank=True)
    game = models.OneToOneField(
        Game, null=True, blank=True, on_delete=models.SET_NULL, related_name="tournament_table"
    )
    status = models.CharField(
        max_length=16, choices=TableStatus.choices, default=TableStatus.PENDING, db_index=True
    )
    due_at = models.DateTimeField(null=True, blank=True, help_text="Not dealt before this time.")
    scores = models.JSONField(null=True, blank=True)
    winner_side = models.SmallIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("round", "number", "leg")
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "round", "number", "leg"], name="tournament_table_once"
            )
        ]

    def __str__(self) -> str:
        return f"{self.tournament_id} r{self.round} t{self.number}.{self.leg}"


class TournamentFact(models.Model):
    """One fact of an event's history, in order (``seq`` from 1)."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="facts")
    seq = models.PositiveIntegerField()
    type = models.CharField(max_length=32)
    payload = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("seq",)
        constraints = [
            models.UniqueConstraint(fields=["tournament", "seq"], name="tournament_fact_once")
        ]

    def __str__(self) -> str:
        return f"{self.tournament_id}#{self.seq} {self.type}"
