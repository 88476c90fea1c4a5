"""Tournament play: the start, each round's pairing, the tables' games, results and standings,
and the end.

How play moves on. Every change locks the tournament's row and appends facts to its log
(``tournament_log``). Pairing a round writes the round's tables (``TournamentTable``, status
``pending``, or ``proposed`` when the organiser reviews pairings first) and the fact
``round_paired`` in one transaction; each table's game is then created, seated and dealt by a
task (``table_deal``, idempotent under the table's row lock: a table gets one game, however
often the task runs). A finished game (``game_result``, called in the transaction that ended
it) records the table's result and the standings rows it changes, then hands off to
``tournament_advance`` (a task), which pairs the next round once the current one is over, or
the next game of a match, or finishes the event. A beat sweep (``tournaments_sweep``) starts
scheduled events, sends a table's deal again when its task was lost, pairs correspondence
rounds when their time comes and closes arenas and robot duplicates.

Standings (``TournamentEntry``'s points, Buchholz, Sonneborn-Berger, point difference) are
updated for the entries a result changes and their opponents only, never rescanned; the log
folds to the same figures (``competition.selectors.tournament_standings``).
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from accounts.models import Player
from competition import errors
from competition.models import (
    DuplicateScoring,
    EntryStatus,
    TableStatus,
    Tournament,
    TournamentEntry,
    TournamentFact,
    TournamentFormat,
    TournamentStatus,
    TournamentTable,
    TournamentUnit,
)
from competition.pairing.arena import ArenaUnit, arena_pair, arena_points
from competition.pairing.duplicate import butler_imps, matchpoint_percent
from competition.pairing.knockout import MatchGame, first_round, match_decided
from competition.pairing.swiss import SwissUnit, swiss_pair, swiss_pair_fours
from competition.services.tournament_log import (
    ADVANCE_TASK,
    TABLES_DEAL_TASK,
    TABLES_PER_MESSAGE,
    fact_append,
    step_on_commit,
    step_send,
    steps_on_commit,
    tournament_lock,
)
from competition.services.tournaments import (
    blocked_pairs,
    organiser_check,
    queue_leave_for_table,
)
from core.errors import ServiceError
from games import live
from games.models import Game, GameStatus, TimeoutOutcome
from games.services.deadlines import TimerOptions
from games.services.lobby import BotSeatSpec, game_create, game_start

logger = logging.getLogger(__name__)

OPEN_TABLES = (TableStatus.PENDING, TableStatus.PLAYING, TableStatus.PROPOSED)
# A table whose game is not dealt this long after it was due has its task sent again.
TABLE_RESEND_SECONDS = 30
SWISS_WIN, SWISS_DRAW = 1.0, 0.5


# ============================================================================== start
def tournament_start(
    *, tournament_id: int, organiser: Player | None = None, now: datetime | None = None
) -> Tournament:
    """Start the event (the organiser, or the sweep at ``starts_at``): knockout seeds by
    rating, then the first round is paired (or proposed), an arena pairs everyone, a robot
    duplicate seats every entrant at the first board."""
    now = now or timezone.now()
    with transaction.atomic():
        t = tournament_lock(tournament_id)
        if organiser is not None:
            organiser_check(t, organiser)
        if t.status not in (TournamentStatus.DRAFT, TournamentStatus.OPEN, TournamentStatus.CLOSED):
            raise errors.TournamentWrongStatus("The tournament has started or is over.", t.status)
        entries = list(
            TournamentEntry.objects.filter(tournament=t, status=EntryStatus.ACTIVE).order_by(
                "-rating", "pk"
            )
        )
        least = 1 if t.robot else 2
        if len(entries) < least:
            raise errors.EntrantsTooFew()
        if (
            t.format == TournamentFormat.SWISS
            and t.players_per_table == 4
            and (t.unit == TournamentUnit.INDIVIDUAL and len(entries) < 4)
        ):
            raise errors.EntrantsTooFew()
        t.status = TournamentStatus.RUNNING
        t.started_at = now
        seeds: dict[str, int] = {}
        if t.format == TournamentFormat.KNOCKOUT:
            for n, entry in enumerate(entries, start=1):
                entry.seed = n
                seeds[str(entry.pk)] = n
            TournamentEntry.objects.bulk_update(entries, ["seed"])
        t.save(update_fields=["status", "started_at"])
        fact_append(t, "started", {"seeds": seeds})
        _advance_locked(t, now)
    return t


# ============================================================================== pairing
def round_pair(
    *,
    tournament_id: int,
    organiser: Player,
    tables: Sequence[Sequence[Sequence[int]]] | None = None,
    due_at: datetime | None = None,
) -> list[TournamentTable]:
    """The organiser pairs the next round: automatically (``tables`` None), or by hand (bulk
    pairing: ``tables`` lists each table's sides as entry ids; entries not named sit out), to
    be dealt at ``due_at`` (default: at once). 409 ``round_in_progress`` while the current
    round is being played or waits to be published."""
    with transaction.atomic():
        t = tournament_lock(tournament_id)
        organiser_check(t, organiser)
        if t.status != TournamentStatus.RUNNING:
            raise errors.TournamentWrongStatus("The tournament is not running.", t.status)
        if t.format == TournamentFormat.ARENA or t.robot:
            raise errors.PairingInvalid("Arenas and robot duplicates pair themselves.")
        if _round_open(t):
            raise errors.RoundInProgress()
        if (
            t.rounds is not None
            and t.current_round >= t.rounds
            and t.format != (TournamentFormat.KNOCKOUT)
        ):
            raise errors.TournamentWrongStatus("Every round has been played.", t.status)
        if tables is None:
            made = _pair_next(t, timezone.now(), proposed=False, due_at=due_at)
        else:
            made = _pair_manual(t, tables, due_at)
    return made


def round_publish(*, tournament_id: int, organiser: Player) -> list[TournamentTable]:
    """Publish the proposed pairings of the current round: their games are dealt."""
    with transaction.atomic():
        t = tournament_lock(tournament_id)
        organiser_check(t, organiser)
        proposed = list(
            TournamentTable.objects.filter(
                tournament=t, round=t.current_round, status=TableStatus.PROPOSED
            )
        )
        if not proposed:
            raise errors.RoundInProgress("No pairings wait to be published.")
        for table in proposed:
            table.status = TableStatus.PENDING
        TournamentTable.objects.bulk_update(proposed, ["status"])
        fact_append(t, "round_published", {"round": t.current_round})
        _deal_on_commit(proposed)
    return proposed


def round_discard(*, tournament_id: int, organiser: Player) -> int:
    """Throw away the proposed pairings of the current round (pair it again, by hand or not)."""
    with transaction.atomic():
        t = tournament_lock(tournament_id)
        organiser_check(t, organiser)
        rows = TournamentTable.objects.filter(
            tournament=t, round=t.current_round, status=TableStatus.PROPOSED
        )
        count = rows.count()
        if not count:
            raise errors.RoundInProgress("No pairings wait to be published.")
        rows.delete()
        fact_append(t, "round_discarded", {"round": t.current_round})
        t.current_round -= 1
        t.save(update_fields=["current_round"])
        # The organiser pairs this round now (``round_pair``): it is not proposed again.
    return count


def _round_open(t: Tournament) -> bool:
    return TournamentTable.objects.filter(tournament=t, status__in=OPEN_TABLES).exists()


def _active_entries(t: Tournament) -> list[TournamentEntry]:
    return list(TournamentEntry.objects.filter(tournament=t, status=EntryStatus.ACTIVE))


def _opponents(entry: TournamentEntry) -> frozenset[int]:
    return frozenset(int(m[0]) for m in entry.meetings)


def _pair_next(
    t: Tournament, now: datetime, *, proposed: bool, due_at: datetime | None = None
) -> list[TournamentTable]:
    """Pair round ``current_round + 1`` (Swiss, duplicate of pairs or players, knockout)."""
    entries = _active_entries(t)
    by_id = {e.pk: e for e in entries}
    forbidden = blocked_pairs(t)
    number_round = t.current_round + 1
    sides: list[list[list[int]]] = []
    byes: list[int] = []
    if t.format == TournamentFormat.KNOCKOUT:
        matches, count = _knockout_round(t, entries, number_round)
        played = [(k, a, b) for k, a, b in matches if a is not None and b is not None]
        bracket_byes = {
            str(k): a if a is not None else b for k, a, b in matches if (a is None) != (b is None)
        }
        return _round_write(
            t,
            number_round,
            [[[a], [b]] for _, a, b in played],
            [],
            proposed=proposed,
            due_at=due_at,
            now=now,
            numbers=[k for k, _, _ in played],
            extra={"matches": count, "bracket_byes": bracket_byes},
            entries=by_id,
        )
    elif t.unit == TournamentUnit.INDIVIDUAL and t.players_per_table == 4:
        units = [_swiss_unit(e) for e in entries]
        partners = _previous_partners(t)
        fours, byes = swiss_pair_fours(units, partners, forbidden)
        sides = [[list(a), list(b)] for a, b in fours]
    else:
        units = [_swiss_unit(e) for e in entries]
        paired = swiss_pair(units, forbidden)
        sides = [[[a], [b]] for a, b in paired.tables]
        byes = list(paired.byes)
    return _round_write(
        t, number_round, sides, byes, proposed=proposed, due_at=due_at, now=now, entries=by_id
    )


def _swiss_unit(entry: TournamentEntry) -> SwissUnit:
    return SwissUnit(
        id=entry.pk,
        points=entry.points,
        rating=entry.rating,
        opponents=_opponents(entry),
        byes=entry.byes,
    )


def _previous_partners(t: Tournament) -> dict[int, frozenset[int]]:
    partners: dict[int, set[int]] = defaultdict(set)
    for sides in TournamentTable.objects.filter(tournament=t).values_list("sides", flat=True):
        for side in sides:
            for a in side:
                partners[a].update(b for b in side if b != a)
    return {k: frozenset(v) for k, v in partners.items()}


def _pair_manual(
    t: Tournament, tables: Sequence[Sequence[Sequence[int]]], due_at: datetime | None
) -> list[TournamentTable]:
    """Bulk pairing: the organiser's tables as given (each entry at most once, active, the
    right number of entries per side)."""
    per_side = 1
    if t.unit == TournamentUnit.INDIVIDUAL and t.players_per_table == 4:
        per_side = 2
    active = {e.pk for e in _active_entries(t)}
    seen: set[int] = set()
    sides: list[list[list[int]]] = []
    for table in tables:
        if len(table) != 2 or any(len(side) != per_side for side in table):
            raise errors.PairingInvalid(
                "Each table has two sides of %(count)s entries.", params={"count": per_side}
            )
        for side in table:
            for entry_id in side:
                if entry_id not in active or entry_id in seen:
                    raise errors.PairingInvalid(
                        "Entry %(entry)s is not an active entry or is named twice.",
                        params={"entry": entry_id},
                    )
                seen.add(entry_id)
        sides.append([list(side) for side in table])
    if not sides:
        raise errors.PairingInvalid("Name at least one table.")
    return _round_write(t, t.current_round + 1, sides, [], proposed=False, due_at=due_at)


def _round_write(
    t: Tournament,
    round_no: int,
    sides: list[list[list[int]]],
    byes: list[int],
    *,
    proposed: bool,
    due_at: datetime | None = None,
    now: datetime | None = None,
    numbers: list[int] | None = None,
    extra: dict[str, Any] | None = None,
    entries: dict[int, TournamentEntry] | None = None,
) -> list[TournamentTable]:
    """Write round ``round_no``'s tables (numbered 1, 2, ... or by ``numbers``) and the
    ``round_paired`` fact (with ``extra``); byes are scored."""
    now = now or timezone.now()
    if entries is None:
        entries = {e.pk: e for e in TournamentEntry.objects.filter(tournament=t)}
    status = TableStatus.PROPOSED if proposed else TableStatus.PENDING
    duplicate = t.format == TournamentFormat.DUPLICATE
    rows = [
        TournamentTable(
            tournament=t,
            round=round_no,
            number=numbers[n - 1] if numbers else n,
            leg=1,
            sides=table_sides,
            seating=seating_of(t, table_sides, entries),
            board=_board_of(t, round_no, 1) if duplicate else None,
            status=status,
            due_at=due_at,
        )
        for n, table_sides in enumerate(sides, start=1)
    ]
    TournamentTable.objects.bulk_create(rows)
    t.current_round = round_no
    t.round_started_at = now
    t.save(update_fields=["current_round", "round_started_at"])
    fact_append(
        t,
        "round_paired",
        {
            "round": round_no,
            "proposed": proposed,
            "due_at": due_at.isoformat() if due_at else None,
            "tables": [
                {"number": r.number, "leg": r.leg, "sides": r.sides, "board": r.board} for r in rows
            ],
            "byes": byes,
            **(extra or {}),
        },
    )
    if t.format != TournamentFormat.KNOCKOUT:
        for entry_id in byes:
            _bye_record(t, entries[entry_id], round_no, reason="bye")
    if not proposed:
        _deal_on_commit(rows)
    return rows


def _board_of(t: Tournament, round_no: int, leg: int) -> int:
    """A duplicate board's number (from 1) in the event's deal set."""
    return (round_no - 1) * t.boards_per_round + leg


def _members(t: Tournament, entry: TournamentEntry) -> list[tuple[int | None, str | None]]:
    """The people (player id, or a bot's level) an entry seats."""
    count = 2 if t.unit == TournamentUnit.PAIR else 1
    if entry.bot_level is not None or entry.player_id is None:
        return [(None, entry.bot_level or t.bot_level)] * count
    members: list[tuple[int | None, str | None]] = [(entry.player_id, None)]
    if t.unit == TournamentUnit.PAIR:
        members.append((entry.partner_id, None))
    return members


def seating_of(
    t: Tournament, sides: list[list[int]], entries: dict[int, TournamentEntry]
) -> list[list[Any]]:
    """Per seat: [entry id, player id, bot level]; team ``s`` sits at seats s, s + 2."""
    seats: list[list[Any]] = [[None, None, t.bot_level] for _ in range(t.players_per_table)]
    if t.robot:
        entry = entries[sides[0][0]]
        player_id, bot = _members(t, entry)[0]
        seats[0] = [entry.pk, player_id, bot]
        return seats
    for s, side in enumerate(sides):
        people = [(e, m) for e in side for m in _members(t, entries[e])]
        for k, (entry_id, (player_id, bot)) in enumerate(people):
            seats[s + 2 * k] = [entry_id, player_id, bot]
    return seats


# ============================================================================== knockout
def _knockout_round(
    t: Tournament, entries: list[TournamentEntry], round_no: int
) -> tuple[list[tuple[int, int | None, int | None]], int]:
    """The round's matches by bracket number: round 1 seeded by rating (byes to the top
    seeds); later, the winners of matches 2k - 1 and 2k meet in match k (a missing winner,
    both sides gone, gives a walkover). With the number of matches."""
    if round_no == 1:
        by_seed = sorted(entries, key=lambda e: (e.seed or 0, e.pk))
        matches = first_round([e.pk for e in by_seed])
    else:
        winners, count = knockout_winners(t, round_no - 1)
        matches = [
            (winners.get(2 * k - 1), winners.get(2 * k)) for k in range(1, (count + 1) // 2 + 1)
        ]
    return [(k, a, b) for k, (a, b) in enumerate(matches, start=1)], len(matches)


def knockout_winners(t: Tournament, round_no: int) -> tuple[dict[int, int], int]:
    """Match number -> winning entry of knockout round ``round_no`` (byes included), and the
    round's number of matches, from the log."""
    winners: dict[int, int] = {}
    count = 0
    facts = TournamentFact.objects.filter(
        tournament=t, type__in=("round_paired", "match_decided")
    ).order_by("seq")
    for fact in facts:
        p = fact.payload
        if p.get("round") != round_no:
            continue
        if fact.type == "round_paired":
            count = int(p.get("matches", 0))
            winners.update({int(k): int(v) for k, v in p.get("bracket_byes", {}).items()})
        elif p.get("winner") is not None:
            winners[int(p["number"])] = int(p["winner"])
    return winners, count


# ============================================================================== tables
def _deal_on_commit(rows: Iterable[TournamentTable]) -> None:
    """Have the tables due now dealt once the transaction commits (the others: the sweep), in
    messages of ``TABLES_PER_MESSAGE`` tables."""
    now = timezone.now()
    due = [row.pk for row in rows if row.due_at is None or row.due_at <= now]
    steps_on_commit(TABLES_DEAL_TASK, tables_chunked(due))


def tables_chunked(table_ids: list[int]) -> list[tuple[list[int]]]:
    """The arguments of the deal messages for ``table_ids``."""
    return [
        (table_ids[n : n + TABLES_PER_MESSAGE],)
        for n in range(0, len(table_ids), TABLES_PER_MESSAGE)
    ]


def table_deal(table_id: int, now: datetime | None = None) -> Game | None:
    """Create, seat and deal a table's game (the task's body). Idempotent: a table that has
    its game, or is not pending, or not yet due, is left as it is."""
    now = now or timezone.now()
    with transaction.atomic():
        table = (
            TournamentTable.objects.select_for_update()
            .select_related("tournament")
            .filter(pk=table_id)
            .first()
        )
        if table is None or table.status != TableStatus.PENDING or table.game_id is not None:
            return None
        if table.due_at is not None and table.due_at > now:
            return None
        t = table.tournament
        if t.status != TournamentStatus.RUNNING:
            return None
        humans = [(i, s[1]) for i, s in enumerate(table.seating) if s[1] is not None]
        players = {p.pk: p for p in Player.objects.filter(pk__in=[pid for _, pid in humans])}
        if len(players) != len(humans):  # an account deleted since the pairing
            logger.warning("table %s: a seated account is gone; the table is void", table.pk)
            table.status = TableStatus.VOID
            table.save(update_fields=["status"])
            return None
        queue_leave_for_table(list(players))
        bots = [
            BotSeatSpec(seat=i, level=s[2]) for i, s in enumerate(table.seating) if s[1] is None
        ]
        timer = TimerOptions(
            turn_seconds=t.turn_seconds,
            timeout_outcome=TimeoutOutcome.ABANDON if t.rated else TimeoutOutcome.BOT,
        )
        seed = None
        if t.format == TournamentFormat.DUPLICATE and table.board is not None:
            seed = t.deal_seeds[table.board - 1]
        creator = players[humans[0][1]] if humans else t.organiser
        try:
            with transaction.atomic():
                game = game_create(
                    creator=creator,
                    preset=t.preset,
                    options=t.options,
                    # A duplicate board is dealt alike at other tables: no one watches.
                    is_public=t.format != TournamentFormat.DUPLICATE,
                    bots=bots,
                    seat=humans[0][0] if humans else None,
                    spectate=not humans,
                    timer=timer,
                    rated=t.rated,
                    seed=seed,
                    seated={seat: players[pid] for seat, pid in humans[1:]},
                )
                game = game_start(game_id=game.pk, player=creator)
        except ServiceError as exc:
            logger.warning("table %s: the lobby refused its game (%s)", table.pk, exc.code)
            return None
        table.game = game
        table.status = TableStatus.PLAYING
        table.save(update_fields=["game", "status"])
        for pid in players:
            live.player_notify_on_commit(pid)
    return game


# ============================================================================== results
@dataclass(frozen=True)
class Record:
    """One entry's result at one table, as the ``result`` fact records it."""

    entry: int
    opponents: tuple[int, ...]
    points: float
    score: float
    score_diff: int

    def doc(self) -> dict[str, Any]:
        return {
            "entry": self.entry,
            "opponents": list(self.opponents),
            "points": self.points,
            "score": self.score,
            "score_diff": self.score_diff,
        }


def game_result(game: Game, scores: Sequence[int], losing_team: int | None) -> None:
    """A tournament game ended (in its transaction): the table's result, the standings rows
    it changes, and the next step handed off."""
    table = (
        TournamentTable.objects.select_for_update()
        .filter(game=game, status=TableStatus.PLAYING)
        .first()
    )
    if table is None:
        return
    t = tournament_lock(table.tournament_id)
    if losing_team is not None:
        winner: int | None = 1 - losing_team
    elif scores[0] != scores[1]:
        winner = 0 if scores[0] > scores[1] else 1
    else:
        winner = None
    table.status = TableStatus.FINISHED
    table.scores = list(scores[:2])
    table.winner_side = winner
    table.finished_at = timezone.now()
    table.save(update_fields=["status", "scores", "winner_side", "finished_at"])
    fact_append(
        t,
        "game_finished",
        {
            "round": table.round,
            "number": table.number,
            "leg": table.leg,
            "board": table.board,
            "game": game.pk,
            "scores": table.scores,
            "winner_side": winner,
            "abandoned": game.status == GameStatus.ABANDONED,
        },
    )
    if t.format == TournamentFormat.SWISS:
        swiss_result(t, table)
    elif t.format == TournamentFormat.ARENA:
        _arena_result(t, table)
    elif t.format == TournamentFormat.KNOCKOUT:
        _knockout_game(t, table)
    else:
        _duplicate_game(t, table)
    step_on_commit(ADVANCE_TASK, t.pk)


def _side_result(table: TournamentTable, side: int) -> tuple[float, int]:
    """(score 1/0.5/0, point difference) of ``side``."""
    scores = table.scores or [0, 0]
    diff = int(scores[side]) - int(scores[1 - side])
    if table.winner_side is None:
        return SWISS_DRAW, diff
    return (SWISS_WIN if table.winner_side == side else 0.0), diff


def swiss_result(t: Tournament, table: TournamentTable) -> None:
    """Score a finished Swiss table: each entry's win, draw or loss against the other side."""
    records = []
    for side in (0, 1):
        score, diff = _side_result(table, side)
        for entry_id in table.sides[side]:
            records.append(Record(entry_id, tuple(table.sides[1 - side]), score, score, diff))
    standings_record(t, table, records)


def _arena_result(t: Tournament, table: TournamentTable) -> None:
    rows = {
        e.pk: e
        for e in TournamentEntry.objects.select_for_update().filter(
            pk__in=[x for side in table.sides for x in side]
        )
    }
    records = []
    for side in (0, 1):
        score, diff = _side_result(table, side)
        outcome = "win" if score == SWISS_WIN else "draw" if score == SWISS_DRAW else "loss"
        for entry_id in table.sides[side]:
            entry = rows[entry_id]
            entry.arena_results = [*entry.arena_results, outcome]
            points = float(arena_points(entry.arena_results)[-1])
            records.append(Record(entry_id, tuple(table.sides[1 - side]), points, score, diff))
    TournamentEntry.objects.bulk_update(list(rows.values()), ["arena_results"])
    standings_record(t, table, records)


def _match_legs(t: Tournament, table: TournamentTable) -> list[TournamentTable]:
    return list(
        TournamentTable.objects.filter(
            tournament=t, round=table.round, number=table.number, status=TableStatus.FINISHED
        ).order_by("leg")
    )


def _knockout_game(t: Tournament, table: TournamentTable) -> None:
    """A knockout game: the match is decided (its winner goes through) or another game is
    set (the next leg, sides swapped so each side starts as often)."""
    legs = _match_legs(t, table)
    a_id, b_id = table.sides[0][0], table.sides[1][0]
    games = []
    for leg in legs:
        scores = leg.scores or [0, 0]
        if leg.sides[0][0] == a_id:
            games.append(MatchGame(int(scores[0]), int(scores[1])))
        else:
            games.append(MatchGame(int(scores[1]), int(scores[0])))
    seeds = dict(TournamentEntry.objects.filter(pk__in=[a_id, b_id]).values_list("pk", "seed"))
    decided = match_decided(
        games, t.games_per_match, t.tie_rule, seeds.get(a_id) or 0, seeds.get(b_id) or 0
    )
    if decided is None:
        entries = {e.pk: e for e in TournamentEntry.objects.filter(pk__in=[a_id, b_id])}
        sides = [list(table.sides[1]), list(table.sides[0])]
        row = TournamentTable.objects.create(
            tournament=t,
            round=table.round,
            number=table.number,
            leg=table.leg + 1,
            sides=sides,
            seating=seating_of(t, sides, entries),
            status=TableStatus.PENDING,
        )
        fact_append(
            t,
            "leg_paired",
            {"round": row.round, "number": row.number, "leg": row.leg, "sides": row.sides},
        )
        _deal_on_commit([row])
        return
    winner, loser = (a_id, b_id) if decided == "a" else (b_id, a_id)
    reason = "played"
    status = dict(TournamentEntry.objects.filter(pk__in=[a_id, b_id]).values_list("pk", "status"))
    if status.get(winner) != EntryStatus.ACTIVE and status.get(loser) == EntryStatus.ACTIVE:
        # The winner left during the match (withdrawn, disqualified): the other goes through.
        winner, loser, reason = loser, winner, "forfeit"
    _match_decide(t, table.round, table.number, winner, loser, games, reason=reason)


def _match_decide(
    t: Tournament,
    round_no: int,
    number: int,
    winner: int,
    loser: int | None,
    games: Sequence[MatchGame],
    *,
    reason: str,
) -> None:
    a_total = sum(g.a_points for g in games)
    b_total = sum(g.b_points for g in games)
    fact_append(
        t,
        "match_decided",
        {"round": round_no, "number": number, "winner": winner, "loser": loser, "reason": reason},
    )
    if loser is None:
        return
    TournamentEntry.objects.filter(pk=loser, status=EntryStatus.ACTIVE).update(
        status=EntryStatus.ELIMINATED
    )
    diff = a_total - b_total
    # a is the match's first side; the winner's difference is positive when a won.
    winner_diff = abs(diff) if games else 0
    table = (
        TournamentTable.objects.filter(tournament=t, round=round_no, number=number)
        .order_by("leg")
        .first()
    )
    records = [
        Record(winner, (loser,), SWISS_WIN, SWISS_WIN, winner_diff),
        Record(loser, (winner,), 0.0, 0.0, -winner_diff),
    ]
    standings_record(t, table, records)


def _duplicate_game(t: Tournament, table: TournamentTable) -> None:
    """A duplicate game: the table's next board is set; a board every table has played is
    scored (a robot duplicate scores its boards when it closes: entrants may still come)."""
    if table.leg < t.boards_per_round:
        entries = {
            e.pk: e
            for e in TournamentEntry.objects.filter(
                pk__in=[x for side in table.sides for x in side]
            )
        }
        still = [x for side in table.sides for x in side if entries[x].status == EntryStatus.ACTIVE]
        if len(still) == len(entries) and not (t.robot and _window_closed(t, timezone.now())):
            row = TournamentTable.objects.create(
                tournament=t,
                round=table.round,
                number=table.number,
                leg=table.leg + 1,
                sides=table.sides,
                seating=table.seating,
                board=_board_of(t, table.round, table.leg + 1),
                status=TableStatus.PENDING,
            )
            fact_append(
                t,
                "leg_paired",
                {
                    "round": row.round,
                    "number": row.number,
                    "leg": row.leg,
                    "sides": row.sides,
                    "board": row.board,
                },
            )
            _deal_on_commit([row])
    if not t.robot and table.board is not None:
        _board_score_if_complete(t, table.round, table.board)


def _board_score_if_complete(t: Tournament, round_no: int, board: int) -> bool:
    tables = TournamentTable.objects.filter(tournament=t, round=round_no, board=board)
    if tables.filter(status__in=OPEN_TABLES).exists():
        return False
    if TournamentFact.objects.filter(
        tournament=t, type="board_scored", payload__board=board
    ).exists():
        return False
    finished = list(tables.filter(status=TableStatus.FINISHED))
    if not finished:
        return False
    board_score(t, round_no, board, finished)
    return True


def board_score(
    t: Tournament, round_no: int, board: int, tables: Sequence[TournamentTable]
) -> None:
    """Score a duplicate board: each result against the others who played the board from
    the same direction (matchpoints in percent, or IMPs against the datum)."""
    by_direction: dict[int, dict[int, int]] = defaultdict(dict)
    opponents: dict[int, tuple[int, ...]] = {}
    for table in tables:
        scores = table.scores or [0, 0]
        diff = int(scores[0]) - int(scores[1])
        for side in (0, 1):
            for entry_id in table.sides[side] if side < len(table.sides) else []:
                by_direction[side][entry_id] = diff if side == 0 else -diff
                opponents[entry_id] = tuple(table.sides[1 - side]) if len(table.sides) > 1 else ()
    records = []
    scale = (
        matchpoint_percent if t.duplicate_scoring == DuplicateScoring.MATCHPOINTS else butler_imps
    )
    for results in by_direction.values():
        scored = scale(results)
        for entry_id, value in sorted(scored.items()):
            points = round(float(value), 2)
            score = (
                points / 100
                if t.duplicate_scoring == DuplicateScoring.MATCHPOINTS
                else (1.0 if value > 0 else 0.5 if value == 0 else 0.0)
            )
            records.append(
                Record(entry_id, opponents[entry_id], points, round(score, 4), results[entry_id])
            )
    standings_record(t, None, records, board=board, round_no=round_no)


# ============================================================================== standings
def standings_record(
    t: Tournament,
    table: TournamentTable | None,
    records: Sequence[Record],
    *,
    board: int | None = None,
    round_no: int | None = None,
) -> set[int]:
    """Append the ``result`` (or ``board_scored``) fact and update the standings rows it
    changes: the entries of ``records`` (points, difference, games, meetings) and every entry
    whose tie-breaks count them (their opponents, ever). O(entries touched x rounds), never a
    scan of the field. The ids of the rows written."""
    payload: dict[str, Any] = {"records": [r.doc() for r in records]}
    if table is not None:
        payload.update(round=table.round, number=table.number)
    if board is not None:
        payload.update(round=round_no, board=board)
    fact_append(t, "board_scored" if board is not None else "result", payload)
    touched = {r.entry for r in records}
    rows = {e.pk: e for e in TournamentEntry.objects.select_for_update().filter(pk__in=touched)}
    for r in records:
        entry = rows[r.entry]
        entry.points = round(entry.points + r.points, 6)
        entry.score_diff += r.score_diff
        entry.played += 1
        entry.meetings = [*entry.meetings, *([o, r.score] for o in r.opponents)]
    affected = set(touched)
    for entry in rows.values():
        affected.update(int(m[0]) for m in entry.meetings)
    return _tiebreaks_write(rows, affected)


def _bye_record(t: Tournament, entry: TournamentEntry, round_no: int, *, reason: str) -> None:
    """A bye (or a forfeit win): the round's points without an opponent."""
    points = SWISS_WIN
    if t.format == TournamentFormat.DUPLICATE:
        points = (
            50.0 * t.boards_per_round
            if t.duplicate_scoring == DuplicateScoring.MATCHPOINTS
            else 0.0
        )
    fact_append(
        t, "bye", {"round": round_no, "entry": entry.pk, "points": points, "reason": reason}
    )
    row = TournamentEntry.objects.select_for_update().get(pk=entry.pk)
    row.points = round(row.points + points, 6)
    row.byes += 1
    affected = {row.pk, *(int(m[0]) for m in row.meetings)}
    _tiebreaks_write({row.pk: row}, affected)


def _tiebreaks_write(rows: dict[int, TournamentEntry], affected: set[int]) -> set[int]:
    """Recompute Buchholz and Sonneborn-Berger of ``affected`` from their meetings and their
    opponents' current points; write those rows (and ``rows``' other changes)."""
    missing = affected - set(rows)
    if missing:
        rows.update(
            {e.pk: e for e in TournamentEntry.objects.select_for_update().filter(pk__in=missing)}
        )
    needed = {int(m[0]) for pk in affected for m in rows[pk].meetings} - set(rows)
    points = {pk: e.points for pk, e in rows.items()}
    if needed:
        points.update(
            dict(TournamentEntry.objects.filter(pk__in=needed).values_list("pk", "points"))
        )
    for pk in affected:
        entry = rows[pk]
        entry.buchholz = round(sum(points.get(int(o), 0.0) for o, _ in entry.meetings), 6)
        entry.sonneborn_berger = round(
            sum(points.get(int(o), 0.0) * float(s) for o, s in entry.meetings), 6
        )
    TournamentEntry.objects.bulk_update(
        list(rows.values()),
        ["points", "score_diff", "played", "byes", "meetings", "buchholz", "sonneborn_berger"],
    )
    return set(rows)


# ============================================================================== advance
def tournament_advance(tournament_id: int, now: datetime | None = None) -> None:
    """The task after a result, a withdrawal or an entry: move the event on if it can."""
    with transaction.atomic():
        t = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
        if t is None:
            return
        _advance_locked(t, now or timezone.now())


def _window_closed(t: Tournament, now: datetime) -> bool:
    return t.ends_at is not None and now >= t.ends_at


def _advance_locked(t: Tournament, now: datetime) -> None:
    if t.status == TournamentStatus.CANCELLED:
        _reveal_if_idle(t)
        return
    if t.status != TournamentStatus.RUNNING:
        return
    if t.format == TournamentFormat.ARENA:
        _arena_advance(t, now)
    elif t.robot:
        _robot_advance(t, now)
    elif t.format == TournamentFormat.KNOCKOUT:
        _knockout_advance(t, now)
    else:
        _rounds_advance(t, now)


def _busy_entries(t: Tournament) -> set[int]:
    busy: set[int] = set()
    for sides in TournamentTable.objects.filter(tournament=t, status__in=OPEN_TABLES).values_list(
        "sides", flat=True
    ):
        for side in sides:
            busy.update(side)
    return busy


def _arena_advance(t: Tournament, now: datetime) -> None:
    if _window_closed(t, now):
        TournamentTable.objects.filter(
            tournament=t, status=TableStatus.PENDING, game__isnull=True
        ).update(status=TableStatus.VOID)
        if not _round_open(t):
            _finish(t, now)
        return
    busy = _busy_entries(t)
    free = [e for e in _active_entries(t) if e.pk not in busy]
    if len(free) < 2:
        return
    units = [
        ArenaUnit(
            id=e.pk,
            points=int(e.points),
            rating=e.rating,
            last_opponent=int(e.meetings[-1][0]) if e.meetings else None,
        )
        for e in free
    ]
    pairs = arena_pair(units, blocked_pairs(t))
    if pairs:
        _round_write(t, t.current_round + 1, [[[a], [b]] for a, b in pairs], [], proposed=False)


def _robot_advance(t: Tournament, now: datetime) -> None:
    if _window_closed(t, now):
        TournamentTable.objects.filter(
            tournament=t, status=TableStatus.PENDING, game__isnull=True
        ).update(status=TableStatus.VOID)
        if _round_open(t):
            return
        for board in range(1, t.boards_per_round + 1):
            finished = list(
                TournamentTable.objects.filter(
                    tournament=t, board=board, status=TableStatus.FINISHED
                )
            )
            if (
                finished
                and not TournamentFact.objects.filter(
                    tournament=t, type="board_scored", payload__board=board
                ).exists()
            ):
                board_score(t, 1, board, finished)
        _finish(t, now)
        return
    seated = set(TournamentTable.objects.filter(tournament=t).values_list("number", flat=True))
    newcomers = [e for e in _active_entries(t) if e.pk not in seated]
    if not newcomers:
        return
    entries = {e.pk: e for e in newcomers}
    rows = [
        TournamentTable(
            tournament=t,
            round=1,
            number=e.pk,
            leg=1,
            sides=[[e.pk], []],
            seating=seating_of(t, [[e.pk], []], entries),
            board=1,
            status=TableStatus.PENDING,
        )
        for e in newcomers
    ]
    TournamentTable.objects.bulk_create(rows)
    if t.current_round == 0:
        t.current_round = 1
        t.round_started_at = now
        t.save(update_fields=["current_round", "round_started_at"])
    fact_append(
        t,
        "round_paired",
        {
            "round": 1,
            "proposed": False,
            "due_at": None,
            "tables": [{"number": r.number, "leg": 1, "sides": r.sides, "board": 1} for r in rows],
            "byes": [],
        },
    )
    _deal_on_commit(rows)


def _knockout_advance(t: Tournament, now: datetime) -> None:
    if TournamentTable.objects.filter(
        tournament=t, round=t.current_round, status=TableStatus.PROPOSED
    ).exists():
        return
    _knockout_forfeits(t)
    if _round_open(t):
        return
    if t.current_round == 0:
        if _round_due(t, now):
            _pair_next(t, now, proposed=t.pairing_review)
        return
    winners, _ = knockout_winners(t, t.current_round)
    if len(set(winners.values())) <= 1:
        _finish(t, now)
        return
    if _round_due(t, now):
        _pair_next(t, now, proposed=t.pairing_review)


def _knockout_forfeits(t: Tournament) -> None:
    """Matches of the current round one side has left (withdrawn, disqualified) with no game
    in play: the other side goes through (both gone: nobody does)."""
    decided, _ = knockout_winners(t, t.current_round)
    by_number: dict[int, list[TournamentTable]] = defaultdict(list)
    for table in TournamentTable.objects.filter(tournament=t, round=t.current_round):
        by_number[table.number].append(table)
    ids = [x for legs in by_number.values() for side in legs[0].sides for x in side]
    status = dict(TournamentEntry.objects.filter(pk__in=ids).values_list("pk", "status"))
    closed = set(
        TournamentFact.objects.filter(
            tournament=t, type="match_decided", payload__round=t.current_round
        ).values_list("payload__number", flat=True)
    )
    for number, legs in sorted(by_number.items()):
        if number in decided or number in closed:
            continue
        if any(leg.status == TableStatus.PLAYING for leg in legs):
            continue
        a, b = legs[0].sides[0][0], legs[0].sides[1][0]
        a_in, b_in = status.get(a) == EntryStatus.ACTIVE, status.get(b) == EntryStatus.ACTIVE
        if a_in and b_in:
            continue
        TournamentTable.objects.filter(
            tournament=t, round=t.current_round, number=number, status__in=OPEN_TABLES
        ).update(status=TableStatus.VOID)
        if a_in or b_in:
            winner, loser = (a, b) if a_in else (b, a)
            _match_decide(t, t.current_round, number, winner, loser, [], reason="forfeit")
        else:
            fact_append(
                t,
                "match_decided",
                {
                    "round": t.current_round,
                    "number": number,
                    "winner": None,
                    "loser": None,
                    "reason": "both_left",
                },
            )


def _round_due(t: Tournament, now: datetime) -> bool:
    """Whether the next round may be paired by itself now: its time has come (correspondence
    intervals), and the organiser did not discard its proposed pairings (they pair it)."""
    if TournamentFact.objects.filter(
        tournament=t, type="round_discarded", payload__round=t.current_round + 1
    ).exists():
        return False
    if t.round_interval_seconds is None or t.round_started_at is None:
        return True
    return now >= t.round_started_at + timedelta(seconds=t.round_interval_seconds)


def _rounds_advance(t: Tournament, now: datetime) -> None:
    """Swiss and duplicate of pairs or players: the next round once this one is over."""
    _forfeits_settle(t)
    if _round_open(t):
        return
    if t.current_round >= (t.rounds or 0):
        _finish(t, now)
        return
    if _round_due(t, now):
        _pair_next(t, now, proposed=t.pairing_review)


def _forfeits_settle(t: Tournament) -> None:
    """Tables of the current round made void by a withdrawal before they were dealt: the
    other side's entries score a forfeit win, once."""
    void = TournamentTable.objects.filter(
        tournament=t, round=t.current_round, status=TableStatus.VOID, leg=1
    )
    if not void.exists():
        return
    done = {
        int(f.payload["entry"])
        for f in TournamentFact.objects.filter(
            tournament=t, type="bye", payload__round=t.current_round
        )
    }
    status = dict(TournamentEntry.objects.filter(tournament=t).values_list("pk", "status"))
    for table in void:
        for side in table.sides:
            for entry_id in side:
                if status.get(entry_id) == EntryStatus.ACTIVE and entry_id not in done:
                    entry = TournamentEntry.objects.get(pk=entry_id)
                    _bye_record(t, entry, t.current_round, reason="forfeit")
                    done.add(entry_id)


def _finish(t: Tournament, now: datetime) -> None:
    t.status = TournamentStatus.FINISHED
    t.finished_at = now
    t.save(update_fields=["status", "finished_at"])
    fact_append(t, "finished", {})
    _reveal_if_idle(t)


def _reveal_if_idle(t: Tournament) -> None:
    """Publish a duplicate event's deal set once no table plays it."""
    if not t.deal_seeds or _round_open(t):
        return
    if TournamentFact.objects.filter(tournament=t, type="deals_revealed").exists():
        return
    fact_append(t, "deals_revealed", {"seeds": t.deal_seeds, "commitment": t.deal_commitment})


def deals_revealed(tournament_id: int) -> bool:
    return TournamentFact.objects.filter(
        tournament_id=tournament_id, type="deals_revealed"
    ).exists()


# ============================================================================== sweep
def tournaments_sweep(now: datetime | None = None) -> dict[str, int]:
    """Beat's run: start scheduled events, deal due tables (and tables whose task was lost),
    advance running events (correspondence rounds, windows that closed). Counts by kind."""
    now = now or timezone.now()
    counts = {"started": 0, "dealt": 0, "advanced": 0}
    due_start = Tournament.objects.filter(
        status__in=(TournamentStatus.OPEN, TournamentStatus.CLOSED),
        starts_at__isnull=False,
        starts_at__lte=now,
    ).values_list("pk", flat=True)
    for tournament_id in list(due_start):
        try:
            tournament_start(tournament_id=tournament_id, now=now)
            counts["started"] += 1
        except ServiceError as exc:
            logger.warning("tournament %s could not start (%s)", tournament_id, exc.code)
    stalled = TournamentTable.objects.filter(
        status=TableStatus.PENDING,
        game__isnull=True,
        tournament__status=TournamentStatus.RUNNING,
    ).filter(
        Q(due_at__isnull=True, created_at__lt=now - timedelta(seconds=TABLE_RESEND_SECONDS))
        | Q(due_at__lte=now)
    )
    stalled_ids = list(stalled.values_list("pk", flat=True)[:5000])
    for args in tables_chunked(stalled_ids):
        step_send(TABLES_DEAL_TASK, *args)
    counts["dealt"] += len(stalled_ids)
    running = Tournament.objects.filter(status=TournamentStatus.RUNNING).values_list(
        "pk", flat=True
    )
    for tournament_id in list(running):
        tournament_advance(tournament_id, now)
        counts["advanced"] += 1
    return counts
