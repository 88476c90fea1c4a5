"""Tournaments over HTTP: thin views over ``competition.services.tournaments`` (setup and
entry), ``competition.services.tournament_rounds`` (play) and ``competition.selectors``.

Organisers need a credential with ``tournament:write``; players register with ``play``; anyone
signed in with ``profile:read`` (or ``play``) reads events, standings, tables and logs. Without
a broker (no Celery beat) reading a tournament first runs the sweep that beat would run
(``tournaments_sweep``, at most once per ``TOURNAMENT_SWEEP_SECONDS``).
"""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

from django.conf import settings
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from accounts import scopes
from competition.models import (
    DuplicateScoring,
    TieRule,
    TournamentFormat,
    TournamentPace,
    TournamentStatus,
    TournamentUnit,
)
from competition.selectors.tournament_standings import tournament_verify
from competition.selectors.tournaments import (
    FACTS_LIMIT_DEFAULT,
    FACTS_LIMIT_MAX,
    LIST_LIMIT_DEFAULT,
    LIST_LIMIT_MAX,
    OFFSET_MAX,
    STANDINGS_LIMIT_DEFAULT,
    STANDINGS_LIMIT_MAX,
    TABLES_LIMIT_DEFAULT,
    TABLES_LIMIT_MAX,
    boards_doc,
    facts_page,
    next_game,
    standings_page,
    tables_page,
    tournament_doc,
    tournament_get,
    tournaments_page,
)
from competition.services import tournament_rounds, tournaments
from core import dispatch, metrics
from core.problems import AUTH, BODY, problem_responses
from games import live
from games.api.live import WAIT_MAX_SECONDS, AsyncApiView, db, wait_bound
from games.api.views import player_of
from games.engine import PRESETS
from games.models import BotLevel
from games.realtime.feed import db_call
from games.realtime.limits import connection_held

Base = serializers.Serializer[Any]
READ = (scopes.PROFILE_READ, scopes.PLAY, scopes.TOURNAMENT_WRITE)
ORGANISE = (scopes.TOURNAMENT_WRITE,)
TAGS = ["tournaments"]
ORGANISER_CODES = ("not_found", "not_tournament_organiser", "tournament_wrong_status")

_sweep_lock = threading.Lock()
_sweep_last = [0.0]


def sweep_in_process() -> None:
    """Without a broker, run the tournaments sweep (beat's) at most once per
    ``TOURNAMENT_SWEEP_SECONDS``, before a read."""
    if not dispatch.is_eager():
        return
    every = float(getattr(settings, "TOURNAMENT_SWEEP_SECONDS", 10))
    with _sweep_lock:
        if time.monotonic() - _sweep_last[0] < every:
            return
        _sweep_last[0] = time.monotonic()
    tournament_rounds.tournaments_sweep()


def _params(serializer: type[Base], request: Request) -> dict[str, Any]:
    params = serializer(data=request.query_params)
    params.is_valid(raise_exception=True)
    return dict(params.validated_data)


def _body(serializer: type[Base], request: Request) -> dict[str, Any]:
    body = serializer(data=request.data)
    body.is_valid(raise_exception=True)
    return dict(body.validated_data)


def _bounded(name: str, low: int, high: int, default: int, text: str) -> OpenApiParameter:
    schema = {"type": "integer", "minimum": low, "maximum": high, "default": default}
    return OpenApiParameter(name, schema, OpenApiParameter.QUERY, description=text)


TOURNAMENT_ID = OpenApiParameter(
    "tournament_id", OpenApiTypes.INT, OpenApiParameter.PATH, description="Tournament id"
)
OFFSET = _bounded("offset", 0, OFFSET_MAX, 0, "Skip this many (0 = from the first).")


# ============================================================================== serializers
class BoundedListField(serializers.ListField):
    """A list too long is refused before its items are read: one error naming the list, not
    one per item (a list too short is refused after them, as DRF does)."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, list) and self.max_length is not None and len(data) > self.max_length:
            self.fail("max_length", max_length=self.max_length)
        return super().to_internal_value(data)


class NamedSerializer(Base):
    id = serializers.IntegerField(help_text="The id.")
    display_name = serializers.CharField(help_text="The name other players see.")


class EntryRulesSerializer(Base):
    rating_min = serializers.IntegerField(
        allow_null=True, help_text="The lowest shown rating admitted (null: none)."
    )
    rating_max = serializers.IntegerField(
        allow_null=True, help_text="The highest shown rating admitted (null: none)."
    )
    invitation_only = serializers.BooleanField(help_text="Only invited players may enter.")
    friends_only = serializers.BooleanField(help_text="Only the organiser's friends may enter.")
    max_entries = serializers.IntegerField(
        allow_null=True, help_text="The most entries taken (null: no limit)."
    )


class EntrySerializer(Base):
    id = serializers.IntegerField(help_text="The entry's id (pairings name entries).")
    rank = serializers.IntegerField(allow_null=True, help_text="Place in the standings.")
    name = serializers.CharField(help_text="The player's name, or both partners'.")
    players = serializers.ListField(
        child=serializers.IntegerField(), max_length=2, help_text="Player ids (none: a bot)."
    )
    bot_level = serializers.CharField(allow_null=True, help_text="A bot entrant's level.")
    rating = serializers.IntegerField(help_text="Rating at entry (a pair's average).")
    seed = serializers.IntegerField(allow_null=True, help_text="Knockout seed.")
    status = serializers.ChoiceField(
        choices=["active", "withdrawn", "disqualified", "eliminated"], help_text="Its status."
    )
    points = serializers.FloatField(
        help_text="Swiss: 1 a win, 0.5 a draw, 1 a bye. Knockout: matches won. Arena: 2 a "
        "win, 1 a draw, doubled on a streak. Duplicate: matchpoint percentages (or IMPs) "
        "summed over boards."
    )
    buchholz = serializers.FloatField(help_text="Sum of the opponents' points.")
    sonneborn_berger = serializers.FloatField(
        help_text="Sum of each opponent's points times your score against them."
    )
    score_diff = serializers.IntegerField(help_text="Canasta points for minus against.")
    played = serializers.IntegerField(help_text="Games (knockout: matches) played.")
    byes = serializers.IntegerField(help_text="Byes (and forfeit wins) received.")


class TournamentSerializer(Base):
    id = serializers.IntegerField(help_text="The id.")
    name = serializers.CharField(help_text="The name.")
    description = serializers.CharField(
        allow_blank=True, help_text="The organiser's description of the event."
    )
    organiser = NamedSerializer(help_text="Who runs the event.")
    format = serializers.ChoiceField(
        choices=TournamentFormat.choices, help_text="swiss, knockout, arena or duplicate."
    )
    unit = serializers.ChoiceField(
        choices=TournamentUnit.choices, help_text="`individual` or `pair` (fixed partnerships)."
    )
    preset = serializers.CharField(help_text="The preset every table plays.")
    options = serializers.DictField(help_text="Option overrides of the preset.")
    players_per_table = serializers.IntegerField(help_text="Seats at each table (from the preset).")
    rated = serializers.BooleanField(help_text="A rated event: each game changes ratings.")
    rounds = serializers.IntegerField(
        allow_null=True, help_text="Rounds to play (Swiss and duplicate; null for the others)."
    )
    boards_per_round = serializers.IntegerField(
        help_text="Duplicate: deals played at every table of a round, one after another."
    )
    duplicate_scoring = serializers.ChoiceField(
        choices=DuplicateScoring.choices,
        help_text="Duplicate: `matchpoints` (percent) or `imps` against the datum.",
    )
    robot = serializers.BooleanField(
        help_text="Robot duplicate: each entrant plays alone with bots."
    )
    games_per_match = serializers.IntegerField(help_text="Knockout: games in a match.")
    tie_rule = serializers.ChoiceField(
        choices=TieRule.choices, help_text="Knockout: how a level match is decided."
    )
    pace = serializers.ChoiceField(
        choices=TournamentPace.choices,
        help_text="`live` (a turn timer) or `correspondence` (days per turn).",
    )
    turn_seconds = serializers.IntegerField(allow_null=True, help_text="Seconds per turn.")
    round_interval_seconds = serializers.IntegerField(
        allow_null=True,
        help_text="Correspondence: seconds between the starts of rounds (null: at once).",
    )
    pairing_review = serializers.BooleanField(
        help_text="Pairings wait for the organiser to publish them."
    )
    bot_level = serializers.ChoiceField(
        choices=BotLevel.choices,
        help_text="The level of the bots that fill seats (robot duplicate, bot entrants).",
    )
    entry_rules = EntryRulesSerializer(help_text="Who may enter.")
    starts_at = serializers.DateTimeField(
        allow_null=True, help_text="When it starts by itself (null: when the organiser starts it)."
    )
    ends_at = serializers.DateTimeField(
        allow_null=True, help_text="Arenas and robot duplicates: when play closes."
    )
    status = serializers.ChoiceField(choices=TournamentStatus.choices, help_text="Its status.")
    current_round = serializers.IntegerField(
        help_text="The round being played (0 before the first)."
    )
    version = serializers.IntegerField(help_text="The seq of the event log's last fact.")
    entries = serializers.IntegerField(help_text="Active entries.")
    entries_total = serializers.IntegerField(
        help_text="Entries ever made, withdrawn ones included."
    )
    deal_commitment = serializers.CharField(
        allow_null=True,
        help_text="Duplicate: SHA-256 of `canasta-deals:` + the seeds joined by `:`, "
        "published when the event is created.",
    )
    deal_seeds = serializers.ListField(
        child=serializers.CharField(),
        allow_null=True,
        max_length=1080,
        help_text="Duplicate: the deal set, once revealed at the end (null until then).",
    )
    your_entry = EntrySerializer(allow_null=True, help_text="Your entry (null: you have none).")
    created_at = serializers.DateTimeField(help_text="When it was created.")
    started_at = serializers.DateTimeField(allow_null=True, help_text="When it started.")
    finished_at = serializers.DateTimeField(allow_null=True, help_text="When it ended.")


class TournamentSummarySerializer(Base):
    id = serializers.IntegerField(help_text="The id.")
    name = serializers.CharField(help_text="The name.")
    format = serializers.ChoiceField(
        choices=TournamentFormat.choices, help_text="swiss, knockout, arena or duplicate."
    )
    unit = serializers.ChoiceField(
        choices=TournamentUnit.choices, help_text="`individual` or `pair` (fixed partnerships)."
    )
    preset = serializers.CharField(help_text="The preset every table plays.")
    rated = serializers.BooleanField(help_text="A rated event: each game changes ratings.")
    robot = serializers.BooleanField(
        help_text="Robot duplicate: each entrant plays alone with bots."
    )
    pace = serializers.ChoiceField(
        choices=TournamentPace.choices,
        help_text="`live` (a turn timer) or `correspondence` (days per turn).",
    )
    status = serializers.ChoiceField(choices=TournamentStatus.choices, help_text="Its status.")
    organiser = NamedSerializer(help_text="Who runs the event.")
    entries = serializers.IntegerField(help_text="Active entries.")
    current_round = serializers.IntegerField(
        help_text="The round being played (0 before the first)."
    )
    rounds = serializers.IntegerField(
        allow_null=True, help_text="Rounds to play (Swiss and duplicate; null for the others)."
    )
    starts_at = serializers.DateTimeField(
        allow_null=True, help_text="When it starts by itself (null: when the organiser starts it)."
    )
    ends_at = serializers.DateTimeField(
        allow_null=True, help_text="Arenas and robot duplicates: when play closes."
    )


class TournamentListSerializer(Base):
    total = serializers.IntegerField(help_text="How many there are in all.")
    offset = serializers.IntegerField(help_text="Where this page starts.")
    results = TournamentSummarySerializer(many=True, help_text="This page's rows.")


class TournamentListParamsSerializer(Base):
    status = serializers.ChoiceField(
        choices=TournamentStatus.choices, required=False, help_text="Its status."
    )
    format = serializers.ChoiceField(
        choices=TournamentFormat.choices,
        required=False,
        help_text="swiss, knockout, arena or duplicate.",
    )
    mine = serializers.BooleanField(required=False, default=False)
    limit = serializers.IntegerField(
        required=False, default=LIST_LIMIT_DEFAULT, min_value=1, max_value=LIST_LIMIT_MAX
    )
    offset = serializers.IntegerField(
        required=False,
        default=0,
        min_value=0,
        max_value=OFFSET_MAX,
        help_text="Where this page starts.",
    )


class TournamentCreateSerializer(Base):
    name = serializers.CharField(max_length=80, help_text="The name.")
    description = serializers.CharField(
        max_length=2000,
        required=False,
        default="",
        allow_blank=True,
        help_text="The organiser's description of the event.",
    )
    format = serializers.ChoiceField(
        choices=TournamentFormat.choices, help_text="swiss, knockout, arena or duplicate."
    )
    unit = serializers.ChoiceField(
        choices=TournamentUnit.choices,
        required=False,
        default=TournamentUnit.INDIVIDUAL,
        help_text="`pair`: fixed partnerships (four-player presets). `individual` at a "
        "four-player preset: Swiss with partners rotating each round, or a robot duplicate.",
    )
    preset = serializers.ChoiceField(
        choices=list(PRESETS), help_text="The preset every table plays."
    )
    options = serializers.DictField(
        required=False, default=dict, help_text="Overrides of the preset's options."
    )
    rated = serializers.BooleanField(
        required=False, default=False, help_text="A rated event: each game changes ratings."
    )
    rounds = serializers.IntegerField(
        required=False,
        allow_null=True,
        default=None,
        min_value=1,
        max_value=tournaments.ROUNDS_MAX,
        help_text="Swiss and duplicate (not robot).",
    )
    boards_per_round = serializers.IntegerField(
        required=False,
        default=1,
        min_value=1,
        max_value=tournaments.BOARDS_MAX,
        help_text="Duplicate: deals played at every table of a round, one after another.",
    )
    duplicate_scoring = serializers.ChoiceField(
        choices=DuplicateScoring.choices,
        required=False,
        default=DuplicateScoring.MATCHPOINTS,
        help_text="Duplicate: `matchpoints` (percent) or `imps` against the datum.",
    )
    robot = serializers.BooleanField(
        required=False,
        default=False,
        help_text="Robot duplicate: each entrant plays the deal set alone with bots.",
    )
    games_per_match = serializers.IntegerField(
        required=False,
        default=1,
        min_value=1,
        max_value=tournaments.GAMES_PER_MATCH_MAX,
        help_text="Knockout: games in a match.",
    )
    tie_rule = serializers.ChoiceField(
        choices=TieRule.choices,
        required=False,
        default=TieRule.POINTS,
        help_text="Knockout: how a level match is decided.",
    )
    pace = serializers.ChoiceField(
        choices=TournamentPace.choices,
        required=False,
        default=TournamentPace.LIVE,
        help_text="`live` (a turn timer) or `correspondence` (days per turn).",
    )
    turn_seconds = serializers.IntegerField(
        required=False,
        allow_null=True,
        default=None,
        min_value=10,
        max_value=7 * 24 * 3600,
        help_text="Per turn: live 10-600 (60 by default), correspondence 3600-604800 (a day).",
    )
    round_interval_seconds = serializers.IntegerField(
        required=False,
        allow_null=True,
        default=None,
        min_value=60,
        max_value=30 * 24 * 3600,
        help_text="Correspondence: a round starts this long after the previous one began.",
    )
    pairing_review = serializers.BooleanField(
        required=False,
        default=False,
        help_text="Pairings wait for the organiser to publish (or discard) them.",
    )
    bot_level = serializers.ChoiceField(
        choices=BotLevel.choices,
        required=False,
        default=BotLevel.MEDIUM,
        help_text="The level of the bots that fill seats (robot duplicate, bot entrants).",
    )
    rating_min = serializers.IntegerField(
        required=False,
        allow_null=True,
        default=None,
        help_text="The lowest shown rating admitted (null: none).",
    )
    rating_max = serializers.IntegerField(
        required=False,
        allow_null=True,
        default=None,
        help_text="The highest shown rating admitted (null: none).",
    )
    invitation_only = serializers.BooleanField(
        required=False, default=False, help_text="Only invited players may enter."
    )
    friends_only = serializers.BooleanField(
        required=False, default=False, help_text="Only the organiser's friends may enter."
    )
    max_entries = serializers.IntegerField(
        required=False,
        allow_null=True,
        default=None,
        min_value=2,
        max_value=100000,
        help_text="The most entries taken (null: no limit).",
    )
    starts_at = serializers.DateTimeField(
        required=False,
        allow_null=True,
        default=None,
        help_text="When the event starts by itself (null: when the organiser starts it).",
    )
    ends_at = serializers.DateTimeField(
        required=False,
        allow_null=True,
        default=None,
        help_text="Arenas and robot duplicates: when play closes.",
    )


class RegisterSerializer(Base):
    partner = serializers.IntegerField(
        required=False,
        allow_null=True,
        default=None,
        help_text="Pairs events: your partner's player id (one of your friends).",
    )


class BotsSerializer(Base):
    count = serializers.IntegerField(
        min_value=1,
        max_value=tournaments.BOT_ENTRANTS_MAX,
        help_text="How many bot entrants to add.",
    )
    level = serializers.ChoiceField(
        choices=BotLevel.choices,
        required=False,
        default=BotLevel.MEDIUM,
        help_text="The bots' level.",
    )


class InvitesSerializer(Base):
    players = BoundedListField(
        child=serializers.IntegerField(), min_length=1, max_length=500, help_text="Player ids."
    )


class InvitedSerializer(Base):
    added = serializers.IntegerField(help_text="Players newly invited.")


class ForbiddenSerializer(Base):
    pairs = BoundedListField(
        child=BoundedListField(child=serializers.IntegerField(), min_length=2, max_length=2),
        max_length=1000,
        help_text="Pairs of entry ids never to be paired together (replaces the list).",
    )


class RoundPairSerializer(Base):
    tables = BoundedListField(
        child=BoundedListField(
            child=BoundedListField(child=serializers.IntegerField(), min_length=1, max_length=2),
            min_length=2,
            max_length=2,
        ),
        required=False,
        allow_null=True,
        default=None,
        max_length=5000,
        help_text="Bulk pairing: each table's two sides as entry ids (null: pair automatically).",
    )
    due_at = serializers.DateTimeField(
        required=False,
        allow_null=True,
        default=None,
        help_text="When the games are dealt (null: at once).",
    )


class WithdrawSerializer(Base):
    disqualify = serializers.BooleanField(required=False, default=False)


class SideEntrySerializer(Base):
    entry = serializers.IntegerField(help_text="The entry's id.")
    name = serializers.CharField(help_text="The name.")


class TableSerializer(Base):
    id = serializers.IntegerField(help_text="The id.")
    round = serializers.IntegerField(help_text="The round number.")
    number = serializers.IntegerField(help_text="Table (knockout: bracket match) number.")
    leg = serializers.IntegerField(help_text="Game of the match (duplicate: of the round).")
    board = serializers.IntegerField(allow_null=True, help_text="Duplicate board number.")
    status = serializers.ChoiceField(
        choices=["proposed", "pending", "playing", "finished", "void"], help_text="Its status."
    )
    game_id = serializers.IntegerField(
        allow_null=True, help_text="The table's game (null until it is dealt)."
    )
    sides = serializers.ListField(
        child=SideEntrySerializer(many=True), max_length=2, help_text="Team 0, team 1."
    )
    scores = serializers.ListField(
        child=serializers.IntegerField(),
        allow_null=True,
        max_length=2,
        help_text="Each side's final score (null until the game ends, and while the result "
        "is hidden: `result_hidden`).",
    )
    winner_side = serializers.IntegerField(
        allow_null=True,
        help_text="The winning side (null: a draw, not over, or the result hidden).",
    )
    result_hidden = serializers.BooleanField(
        help_text="A duplicate board's result left out until you have played the board, every "
        "table has, or the deal set is revealed (another table's score tells of the cards)."
    )
    due_at = serializers.DateTimeField(
        allow_null=True, help_text="When the table's game is dealt (null: at once)."
    )


class TablesSerializer(Base):
    tournament = serializers.IntegerField(help_text="The tournament's id.")
    round = serializers.IntegerField(help_text="The round number.")
    total = serializers.IntegerField(help_text="How many there are in all.")
    offset = serializers.IntegerField(help_text="Where this page starts.")
    results = TableSerializer(many=True, help_text="This page's rows.")


class TablesParamsSerializer(Base):
    round = serializers.IntegerField(
        required=False,
        allow_null=True,
        default=None,
        min_value=0,
        max_value=OFFSET_MAX,
        help_text="The round number.",
    )
    limit = serializers.IntegerField(
        required=False, default=TABLES_LIMIT_DEFAULT, min_value=1, max_value=TABLES_LIMIT_MAX
    )
    offset = serializers.IntegerField(
        required=False,
        default=0,
        min_value=0,
        max_value=OFFSET_MAX,
        help_text="Where this page starts.",
    )


class RoundTablesSerializer(Base):
    tables = TableSerializer(many=True, help_text="The tables.")


class StandingsSerializer(Base):
    tournament = serializers.IntegerField(help_text="The tournament's id.")
    version = serializers.IntegerField(help_text="The seq of the event log's last fact.")
    status = serializers.ChoiceField(choices=TournamentStatus.choices, help_text="Its status.")
    total = serializers.IntegerField(help_text="How many there are in all.")
    offset = serializers.IntegerField(help_text="Where this page starts.")
    results = EntrySerializer(many=True, help_text="This page's rows.")


class StandingsParamsSerializer(Base):
    limit = serializers.IntegerField(
        required=False,
        default=STANDINGS_LIMIT_DEFAULT,
        min_value=1,
        max_value=STANDINGS_LIMIT_MAX,
    )
    offset = serializers.IntegerField(
        required=False,
        default=0,
        min_value=0,
        max_value=OFFSET_MAX,
        help_text="Where this page starts.",
    )
    after_version = serializers.IntegerField(
        required=False, allow_null=True, default=None, min_value=0, max_value=OFFSET_MAX
    )
    wait = serializers.IntegerField(
        required=False, default=0, min_value=0, max_value=WAIT_MAX_SECONDS
    )


class NextGameSerializer(Base):
    tournament = serializers.IntegerField(help_text="The tournament's id.")
    entry = EntrySerializer(help_text="The entry's id.")
    table = TableSerializer(allow_null=True, help_text="Your table now (null: none).")


class FactSerializer(Base):
    seq = serializers.IntegerField(help_text="The fact's number in the log, from 1.")
    type = serializers.CharField(
        help_text="created, entry_opened, entry_closed, registered, withdrawn, disqualified, "
        "forbidden_set, started, round_paired, round_published, round_discarded, leg_paired, "
        "table_void, game_finished, result, bye, match_decided, board_scored, finished, "
        "cancelled, deals_revealed."
    )
    payload = serializers.DictField(
        help_text="What the fact records (entry, table and player ids, scores; never a card). "
        "A duplicate's `game_finished` of a board you may not see yet has null `scores` and "
        "`winner_side` and `result_hidden: true`."
    )
    created_at = serializers.DateTimeField(help_text="When it was created.")


class FactsSerializer(Base):
    tournament = serializers.IntegerField(help_text="The tournament's id.")
    version = serializers.IntegerField(help_text="The seq of the event log's last fact.")
    facts = FactSerializer(many=True, help_text="The facts, in order.")


class FactsParamsSerializer(Base):
    after = serializers.IntegerField(required=False, default=0, min_value=0, max_value=OFFSET_MAX)
    limit = serializers.IntegerField(
        required=False, default=FACTS_LIMIT_DEFAULT, min_value=1, max_value=FACTS_LIMIT_MAX
    )


class MismatchSerializer(Base):
    entry = serializers.IntegerField(help_text="The entry's id.")
    field = serializers.CharField(help_text="The standings field that differs.")
    kept = serializers.JSONField(help_text="The value the standings rows hold.")
    log = serializers.JSONField(help_text="The value the event log's fold gives.")


class VerifySerializer(Base):
    tournament = serializers.IntegerField(help_text="The tournament's id.")
    ok = serializers.BooleanField(help_text="The kept standings equal the log's fold.")
    facts = serializers.IntegerField(help_text="The facts, in order.")
    entries = serializers.IntegerField(help_text="Active entries.")
    gaps = serializers.ListField(
        child=serializers.IntegerField(),
        max_length=11,
        help_text="Fact numbers missing from the log (empty when whole).",
    )
    mismatched = MismatchSerializer(
        many=True, help_text="Entries whose kept standings differ from the log's (at most 100)."
    )
    deals_verified = serializers.BooleanField(
        allow_null=True,
        help_text="Duplicate: the revealed deal set hashes to the published commitment "
        "(null: not revealed, or not a duplicate).",
    )


class BoardTableSerializer(TableSerializer):
    points = serializers.ListField(
        child=serializers.ListField(child=serializers.FloatField(allow_null=True)),
        max_length=2,
        help_text="Per side and entry: the board's matchpoint percentage or IMPs.",
    )


class BoardSerializer(Base):
    board = serializers.IntegerField(help_text="The duplicate board (deal) number, from 1.")
    seed = serializers.CharField(
        allow_null=True,
        help_text="Once revealed: every table's game of this board was dealt from it "
        "(check with the game's fairness record or `replay --verify`).",
    )
    scored = serializers.BooleanField(help_text="Whether the board has been scored.")
    tables = BoardTableSerializer(many=True, help_text="The tables.")


class BoardsSerializer(Base):
    tournament = serializers.IntegerField(help_text="The tournament's id.")
    deal_commitment = serializers.CharField(
        allow_null=True,
        help_text="Duplicate: the SHA-256 commitment to the deal set, published at creation.",
    )
    revealed = serializers.BooleanField(help_text="Whether the deal set has been revealed.")
    boards = BoardSerializer(many=True, help_text="Every board of the deal set, in order.")


# ============================================================================== views
def _tournament_response(tournament_id: int, request: Request, code: int = 200) -> Response:
    player = player_of(request)
    t = tournament_get(tournament_id, player)
    return Response(TournamentSerializer(tournament_doc(t, player)).data, status=code)


class TournamentsApi(APIView):
    read_scopes = READ
    write_scopes = ORGANISE

    def get_throttles(self) -> list[BaseThrottle]:
        self.throttle_scope = "tournament_create" if self.request.method == "POST" else ""
        return super().get_throttles()

    @extend_schema(
        operation_id="tournaments_list",
        tags=TAGS,
        summary="Tournaments",
        description="Tournaments newest first (drafts are their organiser's: `mine=true` lists "
        "the events you organise or entered, drafts included).",
        parameters=[
            OpenApiParameter(
                "status",
                OpenApiTypes.STR,
                OpenApiParameter.QUERY,
                enum=list(TournamentStatus.values),
            ),
            OpenApiParameter(
                "format",
                OpenApiTypes.STR,
                OpenApiParameter.QUERY,
                enum=list(TournamentFormat.values),
            ),
            OpenApiParameter("mine", OpenApiTypes.BOOL, OpenApiParameter.QUERY),
            _bounded("limit", 1, LIST_LIMIT_MAX, LIST_LIMIT_DEFAULT, "At most this many."),
            OFFSET,
        ],
        responses={200: TournamentListSerializer, **problem_responses("invalid_request", AUTH)},
    )
    def get(self, request: Request) -> Response:
        sweep_in_process()
        v = _params(TournamentListParamsSerializer, request)
        body = tournaments_page(
            player=player_of(request),
            status=v.get("status"),
            format=v.get("format"),
            mine=v["mine"],
            limit=v["limit"],
            offset=v["offset"],
        )
        return Response(TournamentListSerializer(body).data)

    @extend_schema(
        operation_id="tournaments_create",
        tags=TAGS,
        summary="Create a tournament (organisers)",
        description="A tournament in draft, ahead of time: the preset and options every table "
        "plays; the format: `swiss` (pairs, or individuals at two- or four-player presets "
        "with partners rotating), `knockout` (seeded by rating, byes to a power of two, "
        "`games_per_match`, `tie_rule`), `arena` (until `ends_at`, a free player is paired "
        "again at once; 2 a win, 1 a draw, doubled after two wins in a row), `duplicate` "
        "(every table of a round plays the same deals; `robot` for one person with bots, "
        "open until `ends_at`); the pace (`live` with a turn timer, `correspondence`); the "
        "entry rules. A duplicate's deal set is drawn now and its hash published "
        "(`deal_commitment`); the seeds are revealed when it ends.\n\n"
        "Then open entry, and start it (or let `starts_at` start it).",
        request=TournamentCreateSerializer,
        responses={
            201: TournamentSerializer,
            **problem_responses(
                BODY,
                AUTH,
                "tournament_setup_invalid",
                "invalid_option",
                "bot_account_not_allowed",
                "throttled",
            ),
        },
    )
    def post(self, request: Request) -> Response:
        data = _body(TournamentCreateSerializer, request)
        t = tournaments.tournament_create(
            organiser=player_of(request), setup=tournaments.TournamentSetup(**data)
        )
        return _tournament_response(t.pk, request, status.HTTP_201_CREATED)


class TournamentApi(APIView):
    read_scopes = READ

    @extend_schema(
        operation_id="tournaments_retrieve",
        tags=TAGS,
        summary="A tournament",
        parameters=[TOURNAMENT_ID],
        responses={200: TournamentSerializer, **problem_responses(AUTH, "not_found")},
    )
    def get(self, request: Request, tournament_id: int) -> Response:
        sweep_in_process()
        return _tournament_response(tournament_id, request)


def _organiser_view(
    operation_id: str,
    summary: str,
    description: str,
    call: Any,
    *codes: str,
    request_serializer: type[Base] | None = None,
) -> type[APIView]:
    """A POST an organiser makes to a tournament; answers the tournament."""

    class OrganiserApi(APIView):
        read_scopes = READ
        write_scopes = ORGANISE

        @extend_schema(
            operation_id=operation_id,
            tags=TAGS,
            summary=summary,
            description=description,
            parameters=[TOURNAMENT_ID],
            request=request_serializer,
            responses={
                200: TournamentSerializer,
                **problem_responses(
                    *((BODY,) if request_serializer else ("invalid_request",)),
                    AUTH,
                    *ORGANISER_CODES,
                    *codes,
                ),
            },
        )
        def post(self, request: Request, tournament_id: int) -> Response:
            tournament_get(tournament_id, player_of(request))  # a draft: 404 to others
            data = _body(request_serializer, request) if request_serializer else {}
            call(tournament_id=tournament_id, organiser=player_of(request), **data)
            return _tournament_response(tournament_id, request)

    OrganiserApi.__name__ = OrganiserApi.__qualname__ = (
        "".join(part.capitalize() for part in operation_id.split("_")) + "Api"
    )
    return OrganiserApi


EntryOpenApi = _organiser_view(
    "tournaments_entry_open",
    "Open entry",
    "Players may register (a draft, or an event whose entry was closed before the start).",
    tournaments.entry_open,
)
EntryCloseApi = _organiser_view(
    "tournaments_entry_close",
    "Close entry",
    "No more registrations before the start.",
    tournaments.entry_close,
)
StartApi = _organiser_view(
    "tournaments_start",
    "Start the tournament",
    "Knockout seeds are set by rating and the first round is paired (or proposed, with "
    "`pairing_review`); an arena pairs everyone; a robot duplicate seats every entrant. "
    "409 `entrants_too_few` below two entries (one for a robot duplicate).",
    tournament_rounds.tournament_start,
    "entrants_too_few",
)
CancelApi = _organiser_view(
    "tournaments_cancel",
    "Cancel the tournament",
    "Games in progress are played out; tables not yet dealt are void. A duplicate's deal set "
    "is revealed once no table plays it.",
    tournaments.cancel,
)
BotsApi = _organiser_view(
    "tournaments_bots_enter",
    "Enter bots",
    "Fill the field with bot entrants of a level (casual events, before the start). An "
    "organiser's unfinished events hold a limited number of bot entrants together (409 "
    "`tournament_bots_limit`).",
    tournaments.bots_enter,
    "entry_not_allowed",
    "tournament_full",
    "tournament_bots_limit",
    "tournament_setup_invalid",
    request_serializer=BotsSerializer,
)
ForbiddenApi = _organiser_view(
    "tournaments_forbidden_pairs",
    "Set forbidden pairings",
    "Pairs of entries never paired together (players who blocked one another are kept apart too).",
    tournaments.forbidden_set,
    "pairing_invalid",
    request_serializer=ForbiddenSerializer,
)


class InvitesApi(APIView):
    read_scopes = READ
    write_scopes = ORGANISE

    @extend_schema(
        operation_id="tournaments_invite",
        tags=TAGS,
        summary="Invite players",
        description="An invitation-only event admits the players invited (and the organiser).",
        parameters=[TOURNAMENT_ID],
        request=InvitesSerializer,
        responses={
            200: InvitedSerializer,
            **problem_responses(BODY, AUTH, *ORGANISER_CODES, "player_not_found"),
        },
    )
    def post(self, request: Request, tournament_id: int) -> Response:
        tournament_get(tournament_id, player_of(request))
        data = _body(InvitesSerializer, request)
        added = tournaments.invites_add(
            tournament_id=tournament_id, organiser=player_of(request), player_ids=data["players"]
        )
        return Response(InvitedSerializer({"added": added}).data)


class RegistrationApi(APIView):
    read_scopes = READ
    write_scopes = scopes.PERSON_PLAY

    @extend_schema(
        operation_id="tournaments_register",
        tags=TAGS,
        summary="Register",
        description="Enter the tournament (with `partner`, a friend, in a pairs event). Late "
        "entry: a Swiss before its last round, an arena or a robot duplicate while open. "
        "Refused by the entry rules (403 `entry_not_allowed`), twice (409 "
        "`already_registered`), when full (409 `tournament_full`) or outside entry (409 "
        "`tournament_wrong_status`).",
        parameters=[TOURNAMENT_ID],
        request=RegisterSerializer,
        responses={
            201: TournamentSerializer,
            **problem_responses(
                BODY,
                AUTH,
                "not_found",
                "tournament_wrong_status",
                "entry_not_allowed",
                "already_registered",
                "tournament_full",
                "tournament_setup_invalid",
                "player_not_found",
            ),
        },
    )
    def post(self, request: Request, tournament_id: int) -> Response:
        data = _body(RegisterSerializer, request)
        player = player_of(request)
        tournament_get(tournament_id, player)
        tournaments.register(tournament_id=tournament_id, player=player, partner_id=data["partner"])
        return _tournament_response(tournament_id, request, status.HTTP_201_CREATED)

    @extend_schema(
        operation_id="tournaments_withdraw",
        tags=TAGS,
        summary="Withdraw",
        description="Leave the tournament: before the start your entry is gone from the field; "
        "during play you are paired no more (a game in progress is played out; a table not "
        "yet dealt is void and your opponent scores it).",
        parameters=[TOURNAMENT_ID],
        responses={
            200: TournamentSerializer,
            **problem_responses(AUTH, "not_found", "not_registered", "tournament_wrong_status"),
        },
    )
    def delete(self, request: Request, tournament_id: int) -> Response:
        player = player_of(request)
        tournament_get(tournament_id, player)
        tournaments.withdraw(tournament_id=tournament_id, player=player)
        return _tournament_response(tournament_id, request)


class EntryRemoveApi(APIView):
    read_scopes = READ
    write_scopes = ORGANISE

    @extend_schema(
        operation_id="tournaments_entry_remove",
        tags=TAGS,
        summary="Withdraw or disqualify an entry (organisers)",
        parameters=[
            TOURNAMENT_ID,
            OpenApiParameter("entry_id", OpenApiTypes.INT, OpenApiParameter.PATH),
        ],
        request=WithdrawSerializer,
        responses={
            200: TournamentSerializer,
            **problem_responses(BODY, AUTH, *ORGANISER_CODES, "not_registered"),
        },
    )
    def post(self, request: Request, tournament_id: int, entry_id: int) -> Response:
        tournament_get(tournament_id, player_of(request))
        data = _body(WithdrawSerializer, request)
        tournaments.entry_remove(
            tournament_id=tournament_id,
            organiser=player_of(request),
            entry_id=entry_id,
            disqualify=data["disqualify"],
        )
        return _tournament_response(tournament_id, request)


class RoundsApi(APIView):
    read_scopes = READ
    write_scopes = ORGANISE

    @extend_schema(
        operation_id="tournaments_round_pair",
        tags=TAGS,
        summary="Pair the next round (organisers)",
        description="Swiss, knockout and duplicate pair themselves when a round ends; with "
        "`pairing_review` the pairings are proposed first (publish or discard them). Here an "
        "organiser pairs the next round now: automatically, or by hand (bulk pairing: "
        "`tables` of entry ids, dealt at `due_at`). 409 `round_in_progress` while a round is "
        "in play.",
        parameters=[TOURNAMENT_ID],
        request=RoundPairSerializer,
        responses={
            201: RoundTablesSerializer,
            **problem_responses(
                BODY, AUTH, *ORGANISER_CODES, "round_in_progress", "pairing_invalid"
            ),
        },
    )
    def post(self, request: Request, tournament_id: int) -> Response:
        tournament_get(tournament_id, player_of(request))
        data = _body(RoundPairSerializer, request)
        rows = tournament_rounds.round_pair(
            tournament_id=tournament_id,
            organiser=player_of(request),
            tables=data["tables"],
            due_at=data["due_at"],
        )
        body = tables_page(
            tournament_get(tournament_id),
            player_of(request),
            round_no=rows[0].round if rows else None,
            limit=TABLES_LIMIT_MAX,
            offset=0,
        )
        return Response(
            RoundTablesSerializer({"tables": body["results"]}).data, status=status.HTTP_201_CREATED
        )


RoundPublishApi = _organiser_view(
    "tournaments_round_publish",
    "Publish the proposed pairings",
    "The round's proposed tables are dealt.",
    tournament_rounds.round_publish,
    "round_in_progress",
)
RoundDiscardApi = _organiser_view(
    "tournaments_round_discard",
    "Discard the proposed pairings",
    "Pair the round again (by hand, or automatically).",
    tournament_rounds.round_discard,
    "round_in_progress",
)


def _standings_read(tournament_id: int, player: Any, limit: int, offset: int) -> dict[str, Any]:
    sweep_in_process()
    t = tournament_get(tournament_id, player)
    return standings_page(t, limit=limit, offset=offset)


async def standings_wait(
    tournament_id: int, player: Any, after: int, seconds: float, limit: int, offset: int
) -> dict[str, Any]:
    """The standings once the event's log moves past ``after``, or after ``seconds``; woken by
    the tournament's live channel (``games.live.event_notify``). The wait holds one of the
    player's live connections (429 ``too_many_live_connections`` over the cap)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    async with (
        connection_held(player.pk, metrics.LONG_POLL),
        live.event_listening(tournament_id) as listener,
    ):
        while True:
            body = await db_call(_standings_read, tournament_id, player, limit, offset)
            remaining = deadline - loop.time()
            if body["version"] > after or remaining <= 0:
                return body
            await listener.wait(remaining)


class StandingsApi(AsyncApiView):
    read_scopes = READ

    @extend_schema(
        operation_id="tournaments_standings",
        tags=TAGS,
        summary="Standings (live)",
        description="By points, then Buchholz, Sonneborn-Berger, point difference and rating. "
        "With `after_version` and `wait`, a long-poll: answered as soon as the event's log "
        "moves past that version (a result, a pairing, a withdrawal), or after `wait` seconds "
        "with the standings as they are.",
        parameters=[
            TOURNAMENT_ID,
            _bounded("limit", 1, STANDINGS_LIMIT_MAX, STANDINGS_LIMIT_DEFAULT, "At most."),
            OFFSET,
            _bounded("after_version", 0, OFFSET_MAX, 0, "The version you have (long-poll)."),
            _bounded("wait", 0, WAIT_MAX_SECONDS, 0, "Seconds to wait for a change."),
        ],
        responses={
            200: StandingsSerializer,
            **problem_responses("invalid_request", AUTH, "not_found", "too_many_live_connections"),
        },
    )
    async def get(self, request: Request, tournament_id: int) -> Response:
        v = _params(StandingsParamsSerializer, request)
        player = await db(player_of, request)
        wait = wait_bound(v["wait"])
        if wait and v["after_version"] is not None:
            body = await standings_wait(
                tournament_id, player, v["after_version"], wait, v["limit"], v["offset"]
            )
        else:
            body = await db_call(_standings_read, tournament_id, player, v["limit"], v["offset"])
        return Response(StandingsSerializer(body).data)


class TablesApi(APIView):
    read_scopes = READ

    @extend_schema(
        operation_id="tournaments_tables",
        tags=TAGS,
        summary="A round's tables",
        description="The pairings and results of a round (default: the current one). In a "
        "duplicate event a board's results are shown once you have played the board (or every "
        "table has, or the deal set is revealed): `result_hidden` until then.",
        parameters=[
            TOURNAMENT_ID,
            OpenApiParameter("round", OpenApiTypes.INT, OpenApiParameter.QUERY),
            _bounded("limit", 1, TABLES_LIMIT_MAX, TABLES_LIMIT_DEFAULT, "At most."),
            OFFSET,
        ],
        responses={
            200: TablesSerializer,
            **problem_responses("invalid_request", AUTH, "not_found"),
        },
    )
    def get(self, request: Request, tournament_id: int) -> Response:
        v = _params(TablesParamsSerializer, request)
        t = tournament_get(tournament_id, player_of(request))
        body = tables_page(
            t, player_of(request), round_no=v["round"], limit=v["limit"], offset=v["offset"]
        )
        return Response(TablesSerializer(body).data)


class NextGameApi(APIView):
    read_scopes = (scopes.PLAY, scopes.PROFILE_READ)

    @extend_schema(
        operation_id="tournaments_next_game",
        tags=TAGS,
        summary="Your next game",
        description="Your entry and your table in play or about to be dealt (null between "
        "rounds). Play the game at `table.game_id` like any other.",
        parameters=[TOURNAMENT_ID],
        responses={
            200: NextGameSerializer,
            **problem_responses(AUTH, "not_found", "not_registered"),
        },
    )
    def get(self, request: Request, tournament_id: int) -> Response:
        sweep_in_process()
        player = player_of(request)
        t = tournament_get(tournament_id, player)
        return Response(NextGameSerializer(next_game(t, player)).data)


class FactsApi(APIView):
    read_scopes = READ

    @extend_schema(
        operation_id="tournaments_log",
        tags=TAGS,
        summary="The event log",
        description="The tournament's facts in order from `after` + 1: what the standings "
        "are rebuilt from.",
        parameters=[
            TOURNAMENT_ID,
            _bounded("after", 0, OFFSET_MAX, 0, "The last seq you have."),
            _bounded("limit", 1, FACTS_LIMIT_MAX, FACTS_LIMIT_DEFAULT, "At most."),
        ],
        responses={200: FactsSerializer, **problem_responses("invalid_request", AUTH, "not_found")},
    )
    def get(self, request: Request, tournament_id: int) -> Response:
        v = _params(FactsParamsSerializer, request)
        t = tournament_get(tournament_id, player_of(request))
        body = facts_page(t, player_of(request), after=v["after"], limit=v["limit"])
        return Response(FactsSerializer(body).data)


class VerifyApi(APIView):
    read_scopes = READ

    @extend_schema(
        operation_id="tournaments_verify",
        tags=TAGS,
        summary="Verify the standings against the log",
        description="Rebuild the standings from the event log and compare them with the kept "
        "ones; for a revealed duplicate, check the deal set against its commitment.",
        parameters=[TOURNAMENT_ID],
        responses={200: VerifySerializer, **problem_responses(AUTH, "not_found")},
    )
    def get(self, request: Request, tournament_id: int) -> Response:
        t = tournament_get(tournament_id, player_of(request))
        report = tournament_verify(t)
        return Response(
            VerifySerializer(
                {
                    "tournament": t.pk,
                    "ok": report.ok,
                    "facts": report.facts,
                    "entries": report.entries,
                    "gaps": report.gaps,
                    "mismatched": report.mismatched[:100],
                    "deals_verified": report.deals_verified,
                }
            ).data
        )


class BoardsApi(APIView):
    read_scopes = READ

    @extend_schema(
        operation_id="tournaments_boards",
        tags=TAGS,
        summary="A duplicate event's boards",
        description="Every table's result on each board and what it scored; once the event "
        "ends, each board's seed (every game of the board was dealt from it). A board's "
        "results are hidden (`result_hidden`) until you have played it, every table has, or "
        "the deal set is revealed.",
        parameters=[TOURNAMENT_ID],
        responses={200: BoardsSerializer, **problem_responses(AUTH, "not_found")},
    )
    def get(self, request: Request, tournament_id: int) -> Response:
        t = tournament_get(tournament_id, player_of(request))
        return Response(BoardsSerializer(boards_doc(t, player_of(request))).data)
