"""Tournaments: creating one, entry (open, close, register, withdraw, invite) and the
organiser's other decisions before and during play.

A tournament is made ahead of time by its organiser (a credential with ``tournament:write``):
the preset and options every table plays, the format (Swiss, knockout, arena, duplicate), who
enters (players, or fixed pairs at four-player presets), the pace (live with a turn timer, or
correspondence), the rounds, and entry rules (a rating range, invitation only, the organiser's
friends only, a maximum). A duplicate event's deal set is drawn when it is created and only its
hash is published (``deal_commitment``); the seeds are revealed when it ends.

Rounds, tables and results are ``competition.services.tournament_rounds``'.
"""

from __future__ import annotations

import contextlib
import secrets
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from accounts import errors as account_errors
from accounts.models import Player, PlayerRelation, RelationKind
from accounts.selectors.friends import are_friends
from competition import errors
from competition.models import (
    DuplicateScoring,
    EntryStatus,
    QueueEntry,
    Rating,
    TableStatus,
    TieRule,
    Tournament,
    TournamentEntry,
    TournamentFormat,
    TournamentInvite,
    TournamentPace,
    TournamentStatus,
    TournamentTable,
    TournamentUnit,
    rating_format_of,
)
from competition.pairing.duplicate import deal_set_commitment
from competition.selectors.ratings import DEFAULT_MU, DEFAULT_SIGMA, rating_shown
from competition.services.tournament_log import (
    ADVANCE_TASK,
    fact_append,
    step_on_commit,
    tournament_lock,
)
from games import errors as game_errors
from games.engine import EngineError, make_options
from games.models import BotLevel

LIVE_TURN_SECONDS = (10, 600)
CORRESPONDENCE_TURN_SECONDS = (3600, 7 * 24 * 3600)
ROUNDS_MAX = 30
BOARDS_MAX = 36
GAMES_PER_MATCH_MAX = 9
BOT_ENTRANTS_MAX = 1024


@dataclass(frozen=True)
class TournamentSetup:
    """What an organiser chooses (validated by ``tournament_create``)."""

    name: str
    format: str
    preset: str
    unit: str = TournamentUnit.INDIVIDUAL
    options: dict[str, Any] = field(default_factory=dict)
    description: str = ""
    rated: bool = False
    rounds: int | None = None
    boards_per_round: int = 1
    duplicate_scoring: str = DuplicateScoring.MATCHPOINTS
    robot: bool = False
    games_per_match: int = 1
    tie_rule: str = TieRule.POINTS
    pace: str = TournamentPace.LIVE
    turn_seconds: int | None = None
    round_interval_seconds: int | None = None
    pairing_review: bool = False
    bot_level: str = BotLevel.MEDIUM
    rating_min: int | None = None
    rating_max: int | None = None
    invitation_only: bool = False
    friends_only: bool = False
    max_entries: int | None = None
    starts_at: datetime | None = None
    ends_at: datetime | None = None


def _invalid(message: str, name: str) -> errors.TournamentSetupInvalid:
    return errors.TournamentSetupInvalid(message, name)


def setup_check(setup: TournamentSetup) -> int:
    """Refuse (422 ``tournament_setup_invalid``, naming the field) settings that make no
    tournament; the number of seats at a table."""
    try:
        opts = make_options(setup.preset, setup.options)
    except EngineError as exc:
        raise game_errors.engine_error(exc) from None
    seats = opts.players
    fmt, unit = setup.format, setup.unit
    if seats == 3:
        raise _invalid(
            "Tournament tables have two sides: choose a two- or four-player preset.", "preset"
        )
    if fmt not in TournamentFormat.values:
        raise _invalid("Unknown format.", "format")
    if unit == TournamentUnit.PAIR and (seats != 4 or setup.robot):
        raise _invalid("Pairs play four-player presets, partners facing each other.", "unit")
    if (
        unit == TournamentUnit.INDIVIDUAL
        and seats == 4
        and not (
            fmt == TournamentFormat.SWISS or (fmt == TournamentFormat.DUPLICATE and setup.robot)
        )
    ):
        raise _invalid(
            "Individuals play four-player presets in Swiss events (partners rotating each "
            "round) and robot duplicates only; enter pairs, or choose a two-player preset.",
            "unit",
        )
    if setup.robot and fmt != TournamentFormat.DUPLICATE:
        raise _invalid("Robot events are duplicate events.", "robot")
    if setup.rated:
        if opts.to_dict() != make_options(setup.preset, {}).to_dict():
            raise _invalid("A rated event plays its preset as it is.", "options")
        if setup.robot:
            raise _invalid("A rated event seats people only.", "rated")
    rounds_needed = fmt in (TournamentFormat.SWISS, TournamentFormat.DUPLICATE) and not setup.robot
    if rounds_needed and (setup.rounds is None or not 1 <= setup.rounds <= ROUNDS_MAX):
        raise _invalid(f"rounds must be 1 to {ROUNDS_MAX}.", "rounds")
    if not 1 <= setup.boards_per_round <= BOARDS_MAX:
        raise _invalid(f"boards_per_round must be 1 to {BOARDS_MAX}.", "boards_per_round")
    if not 1 <= setup.games_per_match <= GAMES_PER_MATCH_MAX:
        raise _invalid(f"games_per_match must be 1 to {GAMES_PER_MATCH_MAX}.", "games_per_match")
    if setup.tie_rule not in TieRule.values:
        raise _invalid("Unknown tie rule.", "tie_rule")
    if setup.duplicate_scoring not in DuplicateScoring.values:
        raise _invalid("Unknown duplicate scoring.", "duplicate_scoring")
    if setup.pace not in TournamentPace.values:
        raise _invalid("Unknown pace.", "pace")
    low, high = (
        LIVE_TURN_SECONDS if setup.pace == TournamentPace.LIVE else CORRESPONDENCE_TURN_SECONDS
    )
    if setup.turn_seconds is not None and not low <= setup.turn_seconds <= high:
        raise _invalid(f"turn_seconds must be {low} to {high} at this pace.", "turn_seconds")
    if setup.round_interval_seconds is not None and setup.pace != TournamentPace.CORRESPONDENCE:
        raise _invalid("Rounds at set intervals are for correspondence events.", "pace")
    windowed = fmt == TournamentFormat.ARENA or setup.robot
    if windowed and setup.ends_at is None:
        raise _invalid("Arenas and robot duplicates need ends_at (when play closes).", "ends_at")
    if setup.ends_at is not None and setup.ends_at <= (setup.starts_at or timezone.now()):
        raise _invalid("ends_at must be after the start.", "ends_at")
    if (
        setup.rating_min is not None
        and setup.rating_max is not None
        and setup.rating_min > setup.rating_max
    ):
        raise _invalid("rating_min is above rating_max.", "rating_min")
    if setup.bot_level not in BotLevel.values:
        raise _invalid("Unknown bot level.", "bot_level")
    if setup.max_entries is not None and setup.max_entries < 2:
        raise _invalid("max_entries must be at least 2.", "max_entries")
    return seats


def default_turn_seconds(pace: str) -> int:
    return 60 if pace == TournamentPace.LIVE else 24 * 3600


def tournament_create(*, organiser: Player, setup: TournamentSetup) -> Tournament:
    """A new tournament in draft; a duplicate event's deal set drawn and committed."""
    seats = setup_check(setup)
    if organiser.is_bot:
        raise errors.BotAccountNotAllowed("Bot accounts do not organise tournaments.")
    seeds: list[str] = []
    if setup.format == TournamentFormat.DUPLICATE:
        rounds = 1 if setup.robot else int(setup.rounds or 1)
        seeds = [secrets.token_hex(32) for _ in range(rounds * setup.boards_per_round)]
    with transaction.atomic():
        tournament = Tournament.objects.create(
            name=setup.name,
            description=setup.description,
            organiser=organiser,
            format=setup.format,
            unit=setup.unit,
            preset=setup.preset,
            options=setup.options,
            players_per_table=seats,
            rated=setup.rated,
            rounds=1 if setup.robot else setup.rounds,
            boards_per_round=setup.boards_per_round,
            duplicate_scoring=setup.duplicate_scoring,
            robot=setup.robot,
            games_per_match=setup.games_per_match,
            tie_rule=setup.tie_rule,
            pace=setup.pace,
            turn_seconds=setup.turn_seconds or default_turn_seconds(setup.pace),
            round_interval_seconds=setup.round_interval_seconds,
            pairing_review=setup.pairing_review,
            bot_level=setup.bot_level,
            rating_min=setup.rating_min,
            rating_max=setup.rating_max,
            invitation_only=setup.invitation_only,
            friends_only=setup.friends_only,
            max_entries=setup.max_entries,
            starts_at=setup.starts_at,
            ends_at=setup.ends_at,
            deal_commitment=deal_set_commitment(seeds) if seeds else "",
            deal_seeds=seeds,
        )
        tournament = tournament_lock(tournament.pk)
        fact_append(tournament, "created", created_payload(tournament))
    return tournament


def created_payload(t: Tournament) -> dict[str, Any]:
    """The settings the ``created`` fact records (what a fold of the log needs)."""
    return {
        "name": t.name,
        "organiser": t.organiser_id,
        "format": t.format,
        "unit": t.unit,
        "preset": t.preset,
        "options": t.options,
        "players_per_table": t.players_per_table,
        "rated": t.rated,
        "rounds": t.rounds,
        "boards_per_round": t.boards_per_round,
        "duplicate_scoring": t.duplicate_scoring,
        "robot": t.robot,
        "games_per_match": t.games_per_match,
        "tie_rule": t.tie_rule,
        "pace": t.pace,
        "turn_seconds": t.turn_seconds,
        "deal_commitment": t.deal_commitment or None,
    }


def organiser_check(tournament: Tournament, player: Player) -> None:
    if tournament.organiser_id != player.pk:
        raise errors.NotOrganiser()


def _status_error(t: Tournament, message: str) -> errors.TournamentWrongStatus:
    return errors.TournamentWrongStatus(message, t.status)


# ============================================================================== entry
def entry_open(*, tournament_id: int, organiser: Player) -> Tournament:
    with transaction.atomic():
        t = tournament_lock(tournament_id)
        organiser_check(t, organiser)
        if t.status not in (TournamentStatus.DRAFT, TournamentStatus.CLOSED):
            raise _status_error(t, "Entry opens before the tournament starts.")
        t.status = TournamentStatus.OPEN
        t.save(update_fields=["status"])
        fact_append(t, "entry_opened", {})
    return t


def entry_close(*, tournament_id: int, organiser: Player) -> Tournament:
    with transaction.atomic():
        t = tournament_lock(tournament_id)
        organiser_check(t, organiser)
        if t.status != TournamentStatus.OPEN:
            raise _status_error(t, "Entry is not open.")
        t.status = TournamentStatus.CLOSED
        t.save(update_fields=["status"])
        fact_append(t, "entry_closed", {})
    return t


def invites_add(*, tournament_id: int, organiser: Player, player_ids: list[int]) -> int:
    """Invite players (an invitation-only event admits only them); how many were new."""
    with transaction.atomic():
        t = tournament_lock(tournament_id)
        organiser_check(t, organiser)
        found = list(Player.objects.filter(pk__in=player_ids).values_list("pk", flat=True))
        if len(set(found)) != len(set(player_ids)):
            raise account_errors.PlayerNotFound()
        before = TournamentInvite.objects.filter(tournament=t).count()
        TournamentInvite.objects.bulk_create(
            [TournamentInvite(tournament=t, player_id=pid) for pid in found],
            ignore_conflicts=True,
        )
        return TournamentInvite.objects.filter(tournament=t).count() - before


def late_entry_open(t: Tournament) -> bool:
    """Whether a running event still takes entries: Swiss before its last round, arenas and
    robot duplicates while play is open."""
    if t.status != TournamentStatus.RUNNING:
        return False
    if t.format == TournamentFormat.SWISS:
        return t.current_round < (t.rounds or 0)
    if t.format == TournamentFormat.ARENA or t.robot:
        return t.ends_at is not None and timezone.now() < t.ends_at
    return False


def player_rating(player: Player, t: Tournament) -> float:
    """The player's shown rating (``mu - 3 sigma`` on the familiar scale: a new player's is
    1000) in the format of the event's preset: what entry ranges bound and seeds order."""
    fmt = rating_format_of(t.players_per_table, t.preset)
    row = Rating.objects.filter(player=player, format=fmt).values_list("mu", "sigma").first()
    mu, sigma = row if row is not None else (DEFAULT_MU, DEFAULT_SIGMA)
    return float(rating_shown(mu, sigma))


def _entry_check(t: Tournament, player: Player) -> None:
    if t.rated and player.is_bot:
        raise errors.EntryNotAllowed("A rated event is for people only.")
    invited = player.pk == t.organiser_id or (
        TournamentInvite.objects.filter(tournament=t, player=player).exists()
    )
    if t.invitation_only and not invited:
        raise errors.EntryNotAllowed("This tournament is by invitation only.")
    if (
        t.friends_only
        and player.pk != t.organiser_id
        and not are_friends(t.organiser_id, player.pk)
    ):
        raise errors.EntryNotAllowed("This tournament is for the organiser's friends only.")
    if t.rating_min is not None or t.rating_max is not None:
        rating = player_rating(player, t)
        if (t.rating_min is not None and rating < t.rating_min) or (
            t.rating_max is not None and rating > t.rating_max
        ):
            raise errors.EntryNotAllowed(
                "Your rating is outside the tournament's range (%(low)s to %(high)s).",
                params={"low": t.rating_min or "-", "high": t.rating_max or "-"},
            )


def register(
    *, tournament_id: int, player: Player, partner_id: int | None = None
) -> TournamentEntry:
    """Enter ``player`` (with ``partner_id``, a friend of theirs, in a pairs event).

    Refused: 409 ``tournament_wrong_status`` outside entry (late entry: Swiss before its last
    round, arenas and robot duplicates while open), 403 ``entry_not_allowed`` by the entry
    rules (for a pair: either partner), 409 ``already_registered``, 409 ``tournament_full``,
    422 ``tournament_setup_invalid`` for a missing or wrong partner.
    """
    with transaction.atomic():
        t = tournament_lock(tournament_id)
        if t.status != TournamentStatus.OPEN and not late_entry_open(t):
            raise _status_error(t, "The tournament does not take entries now.")
        partner: Player | None = None
        if t.unit == TournamentUnit.PAIR:
            if partner_id is None or partner_id == player.pk:
                raise _invalid("A pairs event needs a partner (another player).", "partner")
            partner = Player.objects.filter(pk=partner_id).first()
            if partner is None:
                raise account_errors.PlayerNotFound()
            if not are_friends(player.pk, partner.pk):
                raise _invalid("Your partner must be one of your friends.", "partner")
        elif partner_id is not None:
            raise _invalid("This event is for individuals: no partner.", "partner")
        members = [player] + ([partner] if partner else [])
        for member in members:
            _entry_check(t, member)
        ids = [m.pk for m in members]
        taken = (
            TournamentEntry.objects.filter(tournament=t).filter(models_q_player_in(ids)).exists()
        )
        if taken:
            raise errors.AlreadyRegistered()
        active = TournamentEntry.objects.filter(tournament=t, status=EntryStatus.ACTIVE).count()
        if t.max_entries is not None and active >= t.max_entries:
            raise errors.TournamentFull()
        ratings = [player_rating(m, t) for m in members]
        name = " & ".join(m.display_name for m in members)
        entry = TournamentEntry.objects.create(
            tournament=t,
            player=player,
            partner=partner,
            name=name[:80],
            rating=sum(ratings) / len(ratings),
            joined_round=t.current_round,
        )
        fact_append(t, "registered", registered_payload(entry))
        if t.status == TournamentStatus.RUNNING:
            step_on_commit(ADVANCE_TASK, t.pk)  # a late entrant may be seated at once
    return entry


def models_q_player_in(ids: list[int]) -> Q:
    """Entries where one of ``ids`` plays."""
    return Q(player_id__in=ids) | Q(partner_id__in=ids)


def registered_payload(entry: TournamentEntry) -> dict[str, Any]:
    return {
        "entry": entry.pk,
        "players": entry.player_ids,
        "bot_level": entry.bot_level,
        "name": entry.name,
        "rating": entry.rating,
    }


def bots_enter(
    *, tournament_id: int, organiser: Player, count: int, level: str
) -> list[TournamentEntry]:
    """Fill the field with ``count`` bot entrants (casual events; not pairs of players)."""
    if not 1 <= count <= BOT_ENTRANTS_MAX:
        raise _invalid(f"count must be 1 to {BOT_ENTRANTS_MAX}.", "count")
    if level not in BotLevel.values:
        raise _invalid("Unknown bot level.", "level")
    with transaction.atomic():
        # The organiser's row first (as account deletion and ratings take a player's row
        # before a tournament's): bots entered into two events at once are counted in turn.
        Player.objects.select_for_update().filter(pk=organiser.pk).values_list("pk").get()
        t = tournament_lock(tournament_id)
        organiser_check(t, organiser)
        if t.rated:
            raise errors.EntryNotAllowed("A rated event is for people only.")
        if t.status not in (TournamentStatus.DRAFT, TournamentStatus.OPEN, TournamentStatus.CLOSED):
            raise _status_error(t, "Bots enter before the tournament starts.")
        active = TournamentEntry.objects.filter(tournament=t, status=EntryStatus.ACTIVE).count()
        if t.max_entries is not None and active + count > t.max_entries:
            raise errors.TournamentFull()
        bots_quota_check(organiser, count)
        base = TournamentEntry.objects.filter(tournament=t, player__isnull=True).count()
        created = []
        for n in range(count):
            entry = TournamentEntry.objects.create(
                tournament=t,
                bot_level=level,
                name=f"Bot {base + n + 1} ({level})",
                rating=float(rating_shown(DEFAULT_MU, DEFAULT_SIGMA)),
            )
            fact_append(t, "registered", registered_payload(entry))
            created.append(entry)
    return created


def bots_quota_check(organiser: Player, count: int) -> None:
    """Refuse ``count`` more bot entrants past ``TOURNAMENT_BOTS_ACTIVE_MAX`` in the organiser's
    unfinished events together (withdrawn ones included: their tables may still play). The
    caller holds the organiser's row lock."""
    limit = settings.TOURNAMENT_BOTS_ACTIVE_MAX
    if not limit:
        return
    entered = (
        TournamentEntry.objects.filter(tournament__organiser=organiser, player__isnull=True)
        .exclude(tournament__status__in=(TournamentStatus.FINISHED, TournamentStatus.CANCELLED))
        .count()
    )
    if entered + count > limit:
        raise errors.TournamentBotsLimit(limit)


# ============================================================================== leaving
def withdraw(*, tournament_id: int, player: Player) -> TournamentEntry:
    """``player`` (or their partner) withdraws their entry: before the start it is gone from
    the field; during play it is paired no more (a game in progress is played out)."""
    with transaction.atomic():
        t = tournament_lock(tournament_id)
        entry = (
            TournamentEntry.objects.select_for_update()
            .filter(tournament=t, status=EntryStatus.ACTIVE)
            .filter(models_q_player_in([player.pk]))
            .first()
        )
        if entry is None:
            raise errors.NotRegistered()
        _leave(t, entry, EntryStatus.WITHDRAWN, by="player")
    return entry


def entry_remove(
    *, tournament_id: int, organiser: Player, entry_id: int, disqualify: bool = False
) -> TournamentEntry:
    """The organiser withdraws (or disqualifies) an entry."""
    with transaction.atomic():
        t = tournament_lock(tournament_id)
        organiser_check(t, organiser)
        entry = (
            TournamentEntry.objects.select_for_update()
            .filter(tournament=t, pk=entry_id, status=EntryStatus.ACTIVE)
            .first()
        )
        if entry is None:
            raise errors.NotRegistered()
        status = EntryStatus.DISQUALIFIED if disqualify else EntryStatus.WITHDRAWN
        _leave(t, entry, status, by="organiser")
    return entry


def _leave(t: Tournament, entry: TournamentEntry, status: str, *, by: str) -> None:
    if t.status in (TournamentStatus.FINISHED, TournamentStatus.CANCELLED):
        raise _status_error(t, "The tournament is over.")
    entry.status = status
    entry.save(update_fields=["status"])
    fact_append(
        t,
        "withdrawn" if status == EntryStatus.WITHDRAWN else "disqualified",
        {"entry": entry.pk, "by": by},
    )
    if t.status == TournamentStatus.RUNNING:
        # Tables of theirs not yet dealt are void; the advance step settles what follows
        # (a knockout opponent goes through).
        void = TournamentTable.objects.filter(
            tournament=t,
            status__in=(TableStatus.PENDING, TableStatus.PROPOSED),
            game__isnull=True,
        )
        for table in void:
            if any(entry.pk in side for side in table.sides):
                table.status = TableStatus.VOID
                table.save(update_fields=["status"])
                fact_append(
                    t,
                    "table_void",
                    {
                        "round": table.round,
                        "number": table.number,
                        "leg": table.leg,
                        "entry": entry.pk,
                    },
                )
        step_on_commit(ADVANCE_TASK, t.pk)


def player_tournaments_leave(player: Player) -> None:
    """An account being deleted: its entries in events not over are withdrawn."""
    rows = (
        TournamentEntry.objects.filter(status=EntryStatus.ACTIVE)
        .filter(models_q_player_in([player.pk]))
        .exclude(tournament__status__in=(TournamentStatus.FINISHED, TournamentStatus.CANCELLED))
    )
    for tournament_id in list(rows.values_list("tournament_id", flat=True)):
        with contextlib.suppress(errors.NotRegistered):
            withdraw(tournament_id=tournament_id, player=player)


def blocked_pairs(t: Tournament) -> set[frozenset[int]]:
    """Entry pairs never to be paired: the organiser's, and those where a player blocked
    another (a table would refuse them)."""
    pairs = {frozenset(int(x) for x in pair) for pair in t.forbidden_pairs}
    rows = TournamentEntry.objects.filter(tournament=t, status=EntryStatus.ACTIVE).values_list(
        "pk", "player_id", "partner_id"
    )
    by_player: dict[int, int] = {}
    for entry_id, player_id, partner_id in rows:
        for pid in (player_id, partner_id):
            if pid is not None:
                by_player[pid] = entry_id
    if not by_player:
        return pairs
    blocks = PlayerRelation.objects.filter(
        kind=RelationKind.BLOCK, owner_id__in=by_player, other_id__in=by_player
    ).values_list("owner_id", "other_id")
    for a, b in blocks:
        if by_player[a] != by_player[b]:
            pairs.add(frozenset((by_player[a], by_player[b])))
    return pairs


def forbidden_set(*, tournament_id: int, organiser: Player, pairs: list[list[int]]) -> Tournament:
    """Replace the organiser's forbidden pairings (pairs of entry ids)."""
    with transaction.atomic():
        t = tournament_lock(tournament_id)
        organiser_check(t, organiser)
        ids = set(TournamentEntry.objects.filter(tournament=t).values_list("pk", flat=True))
        clean = []
        for pair in pairs:
            if len(pair) != 2 or pair[0] == pair[1] or not set(pair) <= ids:
                raise errors.PairingInvalid(
                    "A forbidden pairing names two different entries of this tournament."
                )
            clean.append(sorted(pair))
        t.forbidden_pairs = clean
        t.save(update_fields=["forbidden_pairs"])
        fact_append(t, "forbidden_set", {"pairs": clean})
    return t


def queue_leave_for_table(player_ids: list[int]) -> None:
    """Players called to a tournament table stop waiting in quick play (they would be
    refused the seat otherwise)."""
    QueueEntry.objects.filter(player_id__in=player_ids, match__isnull=True).delete()


def cancel(*, tournament_id: int, organiser: Player) -> Tournament:
    """Call the event off (games in progress are played out, unrated by the event)."""
    with transaction.atomic():
        t = tournament_lock(tournament_id)
        organiser_check(t, organiser)
        if t.status in (TournamentStatus.FINISHED, TournamentStatus.CANCELLED):
            raise _status_error(t, "The tournament is over.")
        t.status = TournamentStatus.CANCELLED
        t.finished_at = timezone.now()
        t.save(update_fields=["status", "finished_at"])
        TournamentTable.objects.filter(
            tournament=t, status__in=(TableStatus.PENDING, TableStatus.PROPOSED)
        ).update(status=TableStatus.VOID)
        fact_append(t, "cancelled", {})
        # A duplicate's deals are revealed once no table plays them (the advance step).
        step_on_commit(ADVANCE_TASK, t.pk)
    return t
