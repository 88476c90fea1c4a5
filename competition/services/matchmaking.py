"""Quick play: joining and leaving a queue, the pairing run, and the match's table.

A player queues for a preset, rated or casual (``queue_join``); the pairing run
(``pairing_run``: Celery beat, every ``MATCHMAKING_PAIR_SECONDS``) groups waiting players into
matches and marks their entries (``match``, ``matched_at``) in one pass; each match's table is
then created, seated and dealt by ``match_table_create`` (a task per match, after the run
commits), which sets the entries' ``game``. Players learn each step through their live channel
(``games.live.player_notify``) and the queue status (``competition.selectors.matchmaking``).

Who is paired with whom. Entries are grouped by (preset, rated) and sorted by rating:

- rated: a group is the next ``players`` entries in rating order whose spread fits the rating
  window of the group's longest wait (``rating_window``: ±100 shown points, wider every 10 s,
  unlimited after two minutes); where it does not fit, the lowest is left for the next run.
  Humans only;
- casual: ratings do not limit anything but still order who sits with whom; the newest
  ``len % players`` entries wait for the next run (the longest waiting go first); a waiting
  player whose ``bots_after_seconds`` has passed gets a table with bots in the empty seats
  (with the other such players of the preset, if any, at the level the longest waiting chose).

Two players of whom one blocked the other are never grouped (the table would refuse the join).
Two players who sat at a table together in the last ``QUICK_PLAY_REMATCH_AVOID_SECONDS`` are
grouped only when neither can be grouped otherwise this run: the groups are formed first
without such pairs, then once more over those left, with them (so two accounts of one person
queueing together meet someone else whenever someone else fits; their rated results together
are limited apart, ``competition.services.ratings``).

Concurrency. A run reads the waiting entries with ``SELECT ... FOR UPDATE SKIP LOCKED`` on
PostgreSQL, under a transaction-level advisory lock (a second run at the same time finds it
held and does nothing): two runs never pair one player twice, and a player leaving while a run
is in progress (``queue_leave`` locks the entry) either leaves (the run skips the locked entry)
or is paired and refused with 409 ``queue_matched`` - never both. On SQLite, writes are
serialised by the database.

Without a broker (``CELERY_TASK_ALWAYS_EAGER``, no beat: ``make run`` and the embedded
default), ``MATCHMAKING_IN_PROCESS`` is on: joining a queue runs a pairing pass once it commits,
and the queue status view runs one before it reads (and every ``MATCHMAKING_PAIR_SECONDS``
while it long-polls), so windows widen and bots arrive while players watch their status. The
tables are then dealt in the same process.

A lost table task (a worker that died) is sent again by the next run once the match has waited
``TABLE_RESEND_SECONDS`` for its table; the task is idempotent.
"""

from __future__ import annotations

import logging
import random
import secrets
import uuid
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from itertools import combinations
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.db.models import UUIDField
from django.utils import timezone

from accounts.models import Player, PlayerRelation, RelationKind
from competition import errors
from competition.models import QueueEntry, Rating, rating_format_of
from competition.selectors.matchmaking import GAME_OVER, bots_due_at, rating_points, rating_window
from competition.selectors.ratings import DEFAULT_MU
from core import dispatch
from core.errors import ServiceError
from games import errors as game_errors
from games import live
from games.engine import EngineError, make_options
from games.models import BotLevel, Game, GameStatus, Seat, TimeoutOutcome
from games.selectors.timers import QUICK_PLAY_TURN_SECONDS
from games.services.deadlines import TimerOptions
from games.services.lobby import game_create, game_join, game_start

logger = logging.getLogger(__name__)

# The Celery task that deals a match's table (competition.tasks), sent by name: tasks sit above.
MATCH_TABLE_CREATE_TASK = "games.match_table_create"
# PostgreSQL advisory lock of the pairing run (one run at a time; any fixed 64-bit key).
PAIRING_LOCK_KEY = 0x63616E6173746131  # "canasta1"
# A match whose table is not dealt after this long has its table task sent again.
TABLE_RESEND_SECONDS = 30
# Quick-play tables seat strangers: a turn timer keeps one who walks away from stalling the
# others (at a rated table the game is then abandoned; at a casual one a bot stands in). Its
# figure is games' (games.selectors.timers), which the rule book (GET /rules/) states too.
BOTS_AFTER_MIN, BOTS_AFTER_MAX = 10, 600

_system_random = secrets.SystemRandom()


# ============================================================================== queue
def queue_join(
    *,
    player: Player,
    preset: str,
    rated: bool = False,
    bots_after_seconds: int | None = None,
    bot_level: str = BotLevel.MEDIUM,
    now: datetime | None = None,
) -> QueueEntry:
    """Put ``player`` in the quick-play queue of ``preset`` (rated or casual).

    Refused: 409 ``already_queued`` while they wait or their match is not over, 409
    ``at_table`` with a seat at a table in the lobby or in play, 422 ``rated_humans_only`` for
    a rated queue with ``bots_after_seconds``, 403 ``bot_account_not_allowed`` for a bot account
    (bot accounts play casual tables only). An entry whose match is over is replaced. The
    rating the pairing uses is the player's ``mu`` in the preset's format now.
    """
    try:
        players = make_options(preset).players
    except EngineError as exc:
        raise game_errors.engine_error(exc) from None
    if player.is_bot:
        raise errors.BotAccountNotAllowed()
    if rated and bots_after_seconds is not None:
        raise game_errors.RatedHumansOnly("A rated queue seats people only: no bots_after_seconds.")
    # The API's serializer holds requests to these bounds; another caller breaking them is
    # a bug, not a player's mistake.
    if bots_after_seconds is not None and not (
        BOTS_AFTER_MIN <= bots_after_seconds <= BOTS_AFTER_MAX
    ):
        raise ValueError(f"bots_after_seconds must be {BOTS_AFTER_MIN} to {BOTS_AFTER_MAX}")
    if bot_level not in BotLevel.values:
        raise ValueError(f"bot_level must be one of {', '.join(BotLevel.values)}")
    fmt = rating_format_of(players, preset)
    now = now or timezone.now()
    with transaction.atomic():
        # One join at a time per player (two at once: the second finds the first's entry).
        Player.objects.select_for_update().filter(pk=player.pk).values_list("pk").get()
        entry = QueueEntry.objects.select_for_update().filter(player=player).first()
        if entry is not None and not _match_over(entry):
            raise errors.AlreadyQueued()
        at_table = Seat.objects.filter(
            player=player, game__status__in=(GameStatus.LOBBY, GameStatus.ACTIVE)
        ).exists()
        if at_table:
            raise errors.AtTable()
        mu = Rating.objects.filter(player=player, format=fmt).values_list("mu", flat=True).first()
        fields = {
            "preset": preset,
            "format": fmt,
            "rated": rated,
            "bots_after_seconds": None if rated else bots_after_seconds,
            "bot_level": bot_level,
            "rating": DEFAULT_MU if mu is None else mu,
            "joined_at": now,
            "match": None,
            "matched_at": None,
            "game": None,
        }
        if entry is None:
            entry = QueueEntry.objects.create(player=player, **fields)
        else:  # the history of a finished match: the player queues afresh
            for name, value in fields.items():
                setattr(entry, name, value)
            entry.save()
        live.player_notify_on_commit(player.pk)
        transaction.on_commit(pairing_nudge)
    return entry


def _match_over(entry: QueueEntry) -> bool:
    """Whether a matched entry's game is over (so the entry is history)."""
    if entry.match is None or entry.game_id is None:
        return False
    status = Game.objects.filter(pk=entry.game_id).values_list("status", flat=True).first()
    return status is None or status in GAME_OVER


def queue_leave(*, player: Player) -> None:
    """Take ``player`` out of the queue. 404 ``not_queued`` if they are in none; 409
    ``queue_matched`` (with the table's ``game_id``, null while it is dealt) once the pairing
    run has matched them: the entry's row lock decides against a run in progress."""
    with transaction.atomic():
        entry = QueueEntry.objects.select_for_update().filter(player=player).first()
        if entry is None or _match_over(entry):
            raise errors.NotQueued()
        if entry.match is not None:
            raise errors.QueueMatched(entry.game_id)
        entry.delete()
        live.player_notify_on_commit(player.pk)


# ============================================================================== pairing
@dataclass(frozen=True)
class Waiting:
    """A waiting entry as the pairing run sees it."""

    pk: int
    player_id: int
    points: int  # the rating on the shown scale (rating_points)
    joined: float  # POSIX seconds
    bots_at: float | None  # casual: when bots may fill the table (POSIX seconds)
    bot_level: str


@dataclass(frozen=True)
class MatchMade:
    """One match of a run: who, and how many seats bots take."""

    match: uuid.UUID
    preset: str
    rated: bool
    entry_ids: tuple[int, ...]
    player_ids: tuple[int, ...]
    bots: int


@dataclass
class PairingResult:
    skipped: bool = False  # another run held the lock: this one did nothing
    waiting: int = 0  # waiting entries read
    matches: list[MatchMade] = field(default_factory=list)
    resent: list[uuid.UUID] = field(default_factory=list)  # stalled tables sent again

    @property
    def paired(self) -> int:
        return sum(len(m.player_ids) for m in self.matches)


def pairing_in_process() -> bool:
    """Whether this process pairs by itself (no beat: ``MATCHMAKING_IN_PROCESS``)."""
    return bool(getattr(settings, "MATCHMAKING_IN_PROCESS", False))


def pairing_nudge() -> PairingResult | None:
    """Run a pairing pass now if this process pairs by itself (see the module's docstring);
    never raises (a failed pass is logged, the next one pairs)."""
    if not pairing_in_process():
        return None
    try:
        return pairing_run()
    except Exception:
        logger.exception("the in-process pairing run failed")
        return None


def pairing_run(
    now: datetime | None = None, *, deal: bool = True, exclusive: bool = True
) -> PairingResult:
    """Pair everyone pairable now, in one transaction (see the module's docstring).

    Once it commits, each match's table is sent to be dealt (``deal=False``: left to the
    caller, as the benchmark does to time them apart) and the matched players are notified.
    ``exclusive=False`` skips the advisory lock (the concurrency tests check that SKIP LOCKED
    alone keeps two runs apart).
    """
    now = now or timezone.now()
    now_ts = now.timestamp()
    result = PairingResult()
    postgres = connection.vendor == "postgresql"
    with transaction.atomic():
        if postgres and exclusive:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_try_advisory_xact_lock(%s)", [PAIRING_LOCK_KEY])
                if not cursor.fetchone()[0]:
                    result.skipped = True
                    return result
        rows = list(
            QueueEntry.objects.filter(match__isnull=True)
            .order_by()
            .select_for_update(skip_locked=True)
            .values_list(
                "pk",
                "player_id",
                "preset",
                "rated",
                "rating",
                "joined_at",
                "bots_after_seconds",
                "bot_level",
            )
        )
        result.waiting = len(rows)
        queues: dict[tuple[str, bool], list[Waiting]] = defaultdict(list)
        for pk, player_id, preset, rated, mu, joined_at, bots_after, level in rows:
            joined = joined_at.timestamp()
            queues[(preset, rated)].append(
                Waiting(
                    pk,
                    player_id,
                    rating_points(mu),
                    joined,
                    None if rated or bots_after is None else joined + bots_after,
                    level,
                )
            )
        blocked = _blocked_pairs() if rows else set()
        recent = _recent_pairs(now) if rows else set()
        for (preset, rated), waiting in sorted(queues.items()):
            size = make_options(preset).players
            for group in groups_form(waiting, size, rated, now_ts, blocked, recent):
                result.matches.append(
                    MatchMade(
                        match=uuid.uuid4(),
                        preset=preset,
                        rated=rated,
                        entry_ids=tuple(w.pk for w in group),
                        player_ids=tuple(w.player_id for w in group),
                        bots=size - len(group),
                    )
                )
        _matches_write(result.matches, now)
        result.resent = _stalled_matches(now) if deal else []
        sent = [m.match for m in result.matches] + result.resent if deal else []
        players = [p for m in result.matches for p in m.player_ids]
        transaction.on_commit(lambda: _after_pairing(sent, players))
    return result


def _after_pairing(matches: list[uuid.UUID], players: list[int]) -> None:
    live.players_notify(players)
    for match in matches:
        match_table_send(match)


def groups_form(
    waiting: Sequence[Waiting],
    size: int,
    rated: bool,
    now_ts: float,
    blocked: set[frozenset[int]] | None = None,
    recent: set[frozenset[int]] | None = None,
) -> list[list[Waiting]]:
    """The groups one queue (one preset, rated or casual) forms now (see the module's
    docstring): ``blocked`` pairs never, ``recent`` pairs (they just played each other) only
    among those left after the groups without them. Pure: no database."""
    blocked = blocked or set()
    recent = recent or set()
    if rated:
        groups, _ = _slide_avoiding(list(waiting), size, now_ts, blocked, recent, rated=True)
        return groups
    pool = sorted(waiting, key=lambda w: (w.joined, w.pk))
    spare = len(pool) % size
    # The newest wait for the next run: the groups are for the longest waiting. Those a block
    # kept apart get a second chance with the newest.
    first, held = (pool[:-spare], pool[-spare:]) if spare else (pool, [])
    groups, left = _slide(first, size, now_ts, blocked | recent, rated=False)
    if left and held:
        more, left = _slide(left + held, size, now_ts, blocked | recent, rated=False)
        groups.extend(more)
    if recent and len(left) >= size:
        more, left = _slide(left, size, now_ts, blocked, rated=False)
        groups.extend(more)
    else:
        left += held
    groups.extend(_bot_groups(left, size, now_ts, blocked))
    return groups


def _slide_avoiding(
    pool: list[Waiting],
    size: int,
    now_ts: float,
    blocked: set[frozenset[int]],
    recent: set[frozenset[int]],
    *,
    rated: bool,
) -> tuple[list[list[Waiting]], list[Waiting]]:
    """``_slide`` without the ``recent`` pairs, then over those left with them."""
    groups, left = _slide(pool, size, now_ts, blocked | recent, rated=rated)
    if recent and len(left) >= size:
        more, left = _slide(left, size, now_ts, blocked, rated=rated)
        groups.extend(more)
    return groups, left


def _slide(
    pool: list[Waiting], size: int, now_ts: float, blocked: set[frozenset[int]], *, rated: bool
) -> tuple[list[list[Waiting]], list[Waiting]]:
    """Groups of ``size`` neighbours in rating order that fit; the rest."""
    pool.sort(key=lambda w: (w.points, w.joined, w.pk))
    groups: list[list[Waiting]] = []
    left: list[Waiting] = []
    i = 0
    while i + size <= len(pool):
        group = pool[i : i + size]
        if _fits(group, rated, now_ts) and not _blocks_in(group, blocked):
            groups.append(group)
            i += size
        else:
            left.append(pool[i])
            i += 1
    left.extend(pool[i:])
    return groups, left


def _fits(group: Sequence[Waiting], rated: bool, now_ts: float) -> bool:
    if not rated:
        return True
    window = rating_window(now_ts - min(w.joined for w in group))
    return window is None or group[-1].points - group[0].points <= window


def _blocks_in(group: Iterable[Waiting], blocked: set[frozenset[int]]) -> bool:
    if not blocked:
        return False
    ids = [w.player_id for w in group]
    return any(frozenset((a, b)) in blocked for n, a in enumerate(ids) for b in ids[n + 1 :])


def _bot_groups(
    left: list[Waiting], size: int, now_ts: float, blocked: set[frozenset[int]]
) -> list[list[Waiting]]:
    """Casual players whose bots are due and who found no full table: together as far as
    they fit, the longest waiting first, bots in the other seats."""
    due = sorted(
        (w for w in left if w.bots_at is not None and w.bots_at <= now_ts),
        key=lambda w: (w.joined, w.pk),
    )
    groups: list[list[Waiting]] = []
    for w in due:
        for group in groups:
            if len(group) < size and not _blocks_in([*group, w], blocked):
                group.append(w)
                break
        else:
            groups.append([w])
    return groups


def _blocked_pairs() -> set[frozenset[int]]:
    """The pairs of waiting players of whom one blocked the other (one query)."""
    rows = PlayerRelation.objects.filter(
        kind=RelationKind.BLOCK,
        owner__queue_entry__match__isnull=True,
        other__queue_entry__match__isnull=True,
    ).values_list("owner_id", "other_id")
    return {frozenset(pair) for pair in rows}


def rematch_avoid_seconds() -> int:
    """How long two players who sat at a table together are kept apart in quick play while
    someone else fits (``QUICK_PLAY_REMATCH_AVOID_SECONDS``; 0: never)."""
    return int(getattr(settings, "QUICK_PLAY_REMATCH_AVOID_SECONDS", 3600))


def _recent_pairs(now: datetime) -> set[frozenset[int]]:
    """The pairs of waiting players who sat at a table together that was created in the last
    ``rematch_avoid_seconds()`` (one query over the waiting players' recent seats)."""
    seconds = rematch_avoid_seconds()
    if seconds <= 0:
        return set()
    rows = Seat.objects.filter(
        player__queue_entry__match__isnull=True,
        game__created_at__gte=now - timedelta(seconds=seconds),
    ).values_list("game_id", "player_id")
    by_game: dict[int, set[int]] = defaultdict(set)
    for game_id, player_id in rows:
        by_game[game_id].add(player_id)
    return {frozenset(pair) for together in by_game.values() for pair in combinations(together, 2)}


def _matches_write(matches: list[MatchMade], now: datetime) -> None:
    """Mark every matched entry with its match and ``now``, only where it is still waiting.

    PostgreSQL: one ``UPDATE ... FROM unnest(ids, matches)``, two array parameters whatever
    the number of entries (a ``VALUES`` list of two parameters per player costs ten times the
    client CPU to bind: bench/README.md, "Quick play"). Elsewhere (SQLite, in process: no round
    trips) ``UPDATE ... WHERE id IN (...)`` per match, sent with ``executemany``.

    Written as SQL from the model's fields (public APIs: ``_meta.get_field``, the fields'
    ``get_db_prep_save``, ``connection.cursor``): built through the ORM, one ``update()`` per
    match or a ``Case``/``When`` over them cost more CPU than the rest of the run together
    (10,000 players, 3,300 matches: ~4 s of query building)."""
    if not matches:
        return
    ops = connection.ops
    meta = QueueEntry._meta
    match_field, at_field = meta.get_field("match"), meta.get_field("matched_at")
    assert isinstance(match_field, UUIDField)
    table, pk = ops.quote_name(meta.db_table), ops.quote_name(str(meta.pk.column))
    match_col, at_col = (ops.quote_name(str(f.column)) for f in (match_field, at_field))
    at = at_field.get_db_prep_save(now, connection)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            ids = [entry_id for made in matches for entry_id in made.entry_ids]
            uuids = [str(made.match) for made in matches for _ in made.entry_ids]
            cursor.execute(
                f"UPDATE {table} AS q SET {match_col} = m.match, {at_col} = %s "  # noqa: S608
                "FROM unnest(%s::bigint[], %s::uuid[]) AS m(id, match) "  # names from the
                f"WHERE q.{pk} = m.id AND q.{match_col} IS NULL",  # model
                [at, ids, uuids],
            )
            return
        by_size: dict[int, list[list[Any]]] = defaultdict(list)
        for made in matches:
            value = match_field.get_db_prep_save(made.match, connection)
            by_size[len(made.entry_ids)].append([value, at, *made.entry_ids])
        for size, params in sorted(by_size.items()):
            marks = ", ".join(["%s"] * size)
            cursor.executemany(
                f"UPDATE {table} SET {match_col} = %s, {at_col} = %s "  # noqa: S608 - names
                f"WHERE {pk} IN ({marks}) AND {match_col} IS NULL",  # from the model
                params,
            )


def _stalled_matches(now: datetime) -> list[uuid.UUID]:
    """Matches still without a table ``TABLE_RESEND_SECONDS`` after they were made."""
    since = now - timedelta(seconds=TABLE_RESEND_SECONDS)
    stalled = (
        QueueEntry.objects.filter(match__isnull=False, game__isnull=True, matched_at__lt=since)
        .order_by()
        .values_list("match", flat=True)
        .distinct()
    )
    return [match for match in stalled if match is not None]


# ============================================================================== the table
def match_table_send(match: uuid.UUID) -> None:
    """Have ``match``'s table dealt: the task ``games.match_table_create`` (sent by name through
    ``core.dispatch``: tasks sit above services), which without a broker runs here and now.
    Never raises: a match left without its table is sent again by a later pairing run."""
    try:
        dispatch.send(MATCH_TABLE_CREATE_TASK, str(match))
    except Exception:
        logger.exception("could not deal the table of match %s", match)


def match_bot_level(entries: Sequence[QueueEntry]) -> str:
    """The level of the bots at a match's table: the one the longest waiting player chose."""
    first = min(entries, key=lambda e: (e.joined_at, e.pk))
    return first.bot_level


def match_table_create(match: uuid.UUID | str, rng: random.Random | None = None) -> Game | None:
    """Create, seat and deal ``match``'s table; the game (None if the match is gone).

    Idempotent: if the entries already have their game, that game is returned and nothing
    changes. Seats are drawn at random (``rng``, the system's by default), so partners in a
    four-player game are chance, not choice. If a matched player is gone (an account deleted)
    and the others cannot play without them (a rated match, or a casual one whose players did
    not all accept bots yet), the others wait again in the queue (with their first join
    times); a refusal by the lobby does the same.
    """
    rng = rng or _system_random
    match = uuid.UUID(str(match))
    with transaction.atomic():
        entries = list(
            QueueEntry.objects.select_for_update()
            .filter(match=match)
            .select_related("player")
            .order_by("joined_at", "pk")
        )
        if not entries:
            return None
        dealt = next((e.game_id for e in entries if e.game_id is not None), None)
        if dealt is not None:
            return Game.objects.get(pk=dealt)
        first = entries[0]
        size = make_options(first.preset).players
        if len(entries) < size and not _bots_may_fill(entries):
            _back_to_waiting(entries, "a matched player is gone")
            return None
        try:
            with transaction.atomic():
                game = _table_deal(entries, size, rng)
        except ServiceError as exc:
            logger.warning("match %s: the lobby refused its table (%s)", match, exc)
            _back_to_waiting(entries, str(exc))
            return None
        QueueEntry.objects.filter(pk__in=[e.pk for e in entries]).update(game=game)
        for entry in entries:
            live.player_notify_on_commit(entry.player_id)
    return game


def _bots_may_fill(entries: Sequence[QueueEntry]) -> bool:
    """Whether seats a match lacks may go to bots: casual, and every player's bots were due
    when they were matched."""
    for entry in entries:
        due = bots_due_at(entry)
        if due is None or entry.matched_at is None or due > entry.matched_at:
            return False
    return True


def _table_deal(entries: Sequence[QueueEntry], size: int, rng: random.Random) -> Game:
    first = entries[0]
    seats = rng.sample(range(size), len(entries))
    creator = first.player
    game = game_create(
        creator=creator,
        preset=first.preset,
        rated=first.rated,
        seat=seats[0],
        timer=TimerOptions(
            turn_seconds=QUICK_PLAY_TURN_SECONDS,
            timeout_outcome=TimeoutOutcome.ABANDON if first.rated else TimeoutOutcome.BOT,
        ),
    )
    for entry, seat in zip(entries[1:], seats[1:], strict=True):
        game_join(player=entry.player, game_id=game.pk, seat=seat)
    return game_start(
        game_id=game.pk,
        player=creator,
        fill_with_bots=len(entries) < size,
        bot_level=match_bot_level(entries),
    )


def _back_to_waiting(entries: Sequence[QueueEntry], why: str) -> None:
    logger.warning("match %s undone: %s", entries[0].match, why)
    QueueEntry.objects.filter(pk__in=[e.pk for e in entries]).update(match=None, matched_at=None)
    for entry in entries:
        live.player_notify_on_commit(entry.player_id)
