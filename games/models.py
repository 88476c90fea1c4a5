from django.conf import settings
from django.db import models


class WorkerProbe(models.Model):
    """A row written by the ``record_worker_probe`` task: proof that a request reached a worker
    through the broker and the worker reached the database (see the health probe endpoint)."""

    token = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("-created_at",)

    def __str__(self) -> str:
        return f"WorkerProbe({self.token})"


# ============================================================================== the game service
# A game is its options, its seed and its move log (GameEvent). Game.snapshot, Meld and
# RoundScore are projections of the log, written in the same transaction as each event.


class Player(models.Model):
    """A person who plays: a Django user (token auth) with a display name."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="player"
    )
    display_name = models.CharField(max_length=40)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.display_name} (#{self.pk})"


class GameStatus(models.TextChoices):
    LOBBY = "lobby"
    ACTIVE = "active"
    FINISHED = "finished"
    ABANDONED = "abandoned"


class BotLevel(models.TextChoices):
    EASY = "easy"
    MEDIUM = "medium"
    HARD = "hard"


class EventSource(models.TextChoices):
    PLAYER = "player"
    BOT = "bot"
    TIMER = "timer"
    SYSTEM = "system"


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
    # Turn timer (games.timers). turn_seconds null: no timer. turn_deadline is when the seat to
    # act loses its turn to the timer (null: nothing is running).
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


class GameEvent(models.Model):
    """The append-only move log: seq 1 is ``game_started``, then one row per applied action.

    ``payload`` is the action's text form (for ``game_started``: public facts of the deal);
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


# ============================================================================== at the table
# What happens around the cards: table settings, chat, concessions, rematches, presence and
# players' block / favourite lists. None of it is a card move, so none of it is in the move log
# (GameEvent, which the engine replays); table happenings have their own append-only feed,
# TableEvent, numbered per game. See games/table.py (services) and games/live.py (wake-ups).


class GameTable(models.Model):
    """A game's table settings and its ending by concession (one row per game, made on first
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
    conceded_seat = models.SmallIntegerField(null=True, blank=True)
    conceded_team = models.SmallIntegerField(null=True, blank=True)
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


class SeatPresence(models.Model):
    """When a seated player last showed they are at the table (a live connection, a request)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="presence")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="presence")
    last_seen = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["game", "player"], name="seatpresence_unique")
        ]

    def __str__(self) -> str:
        return f"Game #{self.game_id}: {self.player_id} seen {self.last_seen:%H:%M:%S}"


class RelationKind(models.TextChoices):
    BLOCK = "block"
    FAVOURITE = "favourite"


class PlayerRelation(models.Model):
    """``owner`` blocks (may not sit at owner's tables) or favours ``other``."""

    owner = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="relations")
    other = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="related_by")
    kind = models.CharField(max_length=16, choices=RelationKind.choices)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("owner", "kind", "-created_at")
        constraints = [
            models.UniqueConstraint(fields=["owner", "other", "kind"], name="relation_unique"),
            models.CheckConstraint(
                condition=~models.Q(owner=models.F("other")), name="relation_not_self"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.owner_id} {self.kind}s {self.other_id}"


class TimerEvent(models.Model):
    """The turn timer's own log: timeouts, seats handed to a bot and back, abandonment, and the
    proposals to turn the timer off. The moves a timer plays are ``GameEvent`` rows (source
    ``timer``); these rows say why. ``at_version`` is the game's version when it happened."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="timer_events")
    seq = models.PositiveIntegerField()
    at_version = models.PositiveIntegerField()
    seat = models.SmallIntegerField(null=True, blank=True)
    type = models.CharField(max_length=32)
    payload = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("game", "seq")
        constraints = [
            models.UniqueConstraint(fields=["game", "seq"], name="timerevent_unique_seq")
        ]

    def __str__(self) -> str:
        return f"Game #{self.game_id} timer #{self.seq} {self.type}"
