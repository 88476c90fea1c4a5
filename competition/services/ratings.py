"""Rated games' results applied to ratings: once, in the transaction that ends the game.

A rated game ends in one of three transactions, each holding the game row lock: the move that
ends it (``games.services.moves``), a concession (``games.services.table.game_concede``) or an
abandonment by the turn timer (``games.services.timers``). Each computes the sides' ranks
(``ranks_by_score``, ``ranks_with_last``) and calls ``ratings_apply`` once, in the same
transaction as the status change, so a retried request or a redelivered task finds the game
over and changes nothing; the unique ``(game, player)`` of ``RatingChange`` is the backstop.

A rated game's result counts only if it was a game (``rating_withheld_reason``): every side with
a player made at least ``RATED_MIN_MOVES_PER_SIDE`` moves of its own (a concession or an
abandonment before that rates nothing), and no two of its players already had
``RATED_SAME_PLAYERS_MAX`` counted results together in the last
``RATED_SAME_PLAYERS_WINDOW_SECONDS``. A result that does not count still writes each player's
``RatingChange``, with the rating unchanged, ``counted`` false and the reason, and appends no
``ratings_changed`` fact (nothing changed). The players' rows are locked (id order) before the
count, so two games of the same players ending at once are counted one after the other.

The model is openskill's Plackett-Luce (Weng-Lin) with its defaults. Team games keep one rating
per member: ``rate(teams=[[seat 0, seat 2], [seat 1, seat 3]], ranks=...)`` moves each member by
its own uncertainty (a member's change is the team's, scaled by that member's share of the
team's variance), not the team's average. The change is a fact of the game's log
(``ratings_changed``), after the entry that ended it.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from itertools import combinations
from typing import Any

from django.conf import settings
from django.db.models import Count
from django.utils import timezone
from openskill.models import PlackettLuce

from accounts.models import Player
from competition.models import Rating, RatingChange, UnratedReason, rating_format_of
from competition.selectors.ratings import DEFAULT_MU, DEFAULT_SIGMA, rating_shown
from games.engine import ACTION_TYPES
from games.engine.history import RATINGS_CHANGED
from games.models import EventSource, Game, GameEvent, Seat
from games.services.facts import fact_append

MODEL = PlackettLuce(mu=DEFAULT_MU, sigma=DEFAULT_SIGMA)


@dataclass(frozen=True)
class Skill:
    """A rating as the model sees it: the skill estimate and its uncertainty."""

    mu: float
    sigma: float

    @property
    def display(self) -> float:
        """The conservative value shown and ranked on."""
        return self.mu - 3 * self.sigma


def ranks_by_score(scores: Sequence[int]) -> list[int]:
    """Each team's place by its score (index: team): 1 for the highest, ties share a place and
    the next place skips (scores 50, 80, 80 rank 3, 1, 1)."""
    return [1 + sum(1 for other in scores if other > score) for score in scores]


def ranks_with_last(scores: Sequence[int], last_team: int) -> list[int]:
    """Places when ``last_team`` left the game (conceded, or abandoned it to the timer): it
    ranks last, the other teams by their scores among themselves."""
    others = [t for t in range(len(scores)) if t != last_team]
    ranks = [len(scores)] * len(scores)
    for team in others:
        ranks[team] = 1 + sum(1 for other in others if scores[other] > scores[team])
    return ranks


def skills_rated(teams: Sequence[Sequence[Skill]], ranks: Sequence[int]) -> list[list[Skill]]:
    """The members' skills after a game whose teams (each a list of members) placed ``ranks``
    (1 first; equal ranks tie). Each member moves by its own sigma."""
    rated = MODEL.rate(
        [[MODEL.rating(mu=s.mu, sigma=s.sigma) for s in team] for team in teams],
        ranks=[float(r) for r in ranks],
    )
    return [[Skill(r.mu, r.sigma) for r in team] for team in rated]


def rated_min_moves() -> int:
    """Moves each side must have made for a rated result to count (``RATED_MIN_MOVES_PER_SIDE``)."""
    return int(getattr(settings, "RATED_MIN_MOVES_PER_SIDE", 6))


def same_players_limit() -> tuple[int, timedelta]:
    """At most this many counted results of two players together in this window
    (``RATED_SAME_PLAYERS_MAX``, ``RATED_SAME_PLAYERS_WINDOW_SECONDS``; 0: no limit)."""
    most = int(getattr(settings, "RATED_SAME_PLAYERS_MAX", 3))
    window = int(getattr(settings, "RATED_SAME_PLAYERS_WINDOW_SECONDS", 86400))
    return most, timedelta(seconds=window)


def side_moves(game: Game, seats: Sequence[Seat]) -> dict[int, int]:
    """The moves each team with a player made itself (engine actions its seats' players sent:
    not the timer's, not a stand-in bot's), by team. One query."""
    team_of = {s.index: s.team for s in seats if s.player_id is not None}
    moves = dict.fromkeys(team_of.values(), 0)
    rows = (
        GameEvent.objects.filter(
            game=game, type__in=ACTION_TYPES, source=EventSource.PLAYER, seat__isnull=False
        )
        .order_by()
        .values_list("seat")
        .annotate(n=Count("pk"))
    )
    for seat, n in rows:
        if seat in team_of:
            moves[team_of[seat]] += n
    return moves


def same_players_counted(player_ids: Sequence[int], since: datetime) -> Counter[frozenset[int]]:
    """How many counted rated results each two of ``player_ids`` had together since ``since``
    (one query: the players' counted rows of the window)."""
    rows = RatingChange.objects.filter(
        player_id__in=player_ids, counted=True, created_at__gte=since
    ).values_list("game_id", "player_id")
    by_game: dict[int, set[int]] = defaultdict(set)
    for game_id, player_id in rows:
        by_game[game_id].add(player_id)
    return Counter(
        frozenset(pair)
        for together in by_game.values()
        for pair in combinations(sorted(together), 2)
    )


def rating_withheld_reason(
    game: Game, seats: Sequence[Seat], player_ids: Sequence[int], now: datetime
) -> str | None:
    """Why ``game``'s result must not count (an ``UnratedReason``), or None: it counts.

    Call with the players' rows locked (``ratings_apply`` does), so that the count of their
    results together sees every game of theirs that ended before."""
    least = rated_min_moves()
    if least > 0 and any(n < least for n in side_moves(game, seats).values()):
        return UnratedReason.TOO_FEW_MOVES
    most, window = same_players_limit()
    if most > 0 and len(player_ids) > 1:
        counted = same_players_counted(player_ids, now - window)
        if any(n >= most for n in counted.values()):
            return UnratedReason.REPEATED_OPPONENTS
    return None


def _rating_rows_locked(player_ids: list[int], format: str) -> dict[int, Rating]:
    """The players' Rating rows in ``format``, locked in player-id order (two games ending at
    once with players in common wait for each other instead of deadlocking). A player without
    one gets the default first: the insert skips rows that exist (or that another transaction
    is inserting: it waits for it), so the rows are there to lock."""
    ordered = sorted(player_ids)
    Rating.objects.bulk_create(
        [
            Rating(
                player_id=pk,
                format=format,
                mu=DEFAULT_MU,
                sigma=DEFAULT_SIGMA,
                display=Skill(DEFAULT_MU, DEFAULT_SIGMA).display,
            )
            for pk in ordered
        ],
        ignore_conflicts=True,
    )
    rows = Rating.objects.select_for_update().filter(player_id__in=ordered, format=format)
    return {row.player_id: row for row in rows.order_by("player_id")}


def ratings_apply(game: Game, seats: Sequence[Seat], ranks: Sequence[int]) -> list[RatingChange]:
    """Apply a rated game's result: ``ranks[team]`` is each team's place (1 first, ties equal).

    Call only in the transaction that ends ``game`` (finished or abandoned), holding its row
    lock, after the entry that ended it is in the log. Writes every player's ``Rating`` (mu,
    sigma, display, games + 1, wins + 1 for a side placed first alone or in a tie short of
    everyone) and one ``RatingChange`` each, and appends the ``ratings_changed`` fact. A casual
    game changes nothing (returns ``[]``); a result that does not count
    (``rating_withheld_reason``) writes the ``RatingChange`` rows only, uncounted.
    """
    if not game.rated:
        return []
    player_of = {s.index: s.player_id for s in seats if s.player_id is not None}
    seated = sorted((s for s in seats if s.index in player_of), key=lambda s: s.index)
    if not seated:
        return []
    format = rating_format_of(game.players, game.preset)
    now = timezone.now()
    player_ids = sorted(set(player_of.values()))
    # The players' rows, in id order (as the ratings below): the count of their results
    # together waits for another game of theirs that is ending now.
    list(
        Player.objects.select_for_update(no_key=True)
        .filter(pk__in=player_ids)
        .order_by("pk")
        .values_list("pk")
    )
    reason = rating_withheld_reason(game, seated, player_ids, now)
    if reason is not None:
        return _result_withheld(game, seated, ranks, format, reason)
    rows = _rating_rows_locked(list(player_of.values()), format)
    team_numbers = sorted({s.team for s in seated})
    members = [[s for s in seated if s.team == team] for team in team_numbers]
    before = [
        [Skill(rows[player_of[s.index]].mu, rows[player_of[s.index]].sigma) for s in m]
        for m in members
    ]
    team_ranks = [ranks[team] for team in team_numbers]
    after = skills_rated(before, team_ranks)
    everyone_first = all(r == 1 for r in team_ranks)
    changes: list[RatingChange] = []
    for team_members, rank, olds, news in zip(members, team_ranks, before, after, strict=True):
        won = rank == 1 and not everyone_first
        for seat, old, new in zip(team_members, olds, news, strict=True):
            row = rows[player_of[seat.index]]
            row.mu, row.sigma, row.display = new.mu, new.sigma, new.display
            row.games += 1
            row.wins += 1 if won else 0
            row.updated_at = now
            changes.append(
                RatingChange(
                    game=game,
                    player_id=row.player_id,
                    format=format,
                    seat=seat.index,
                    team=seat.team,
                    rank=rank,
                    mu_before=old.mu,
                    sigma_before=old.sigma,
                    mu_after=new.mu,
                    sigma_after=new.sigma,
                    display_before=old.display,
                    display_after=new.display,
                )
            )
    # The locked rows written back in one statement: an insert of rows that all exist, each
    # conflicting on (player, format) and so updating it (cheaper than bulk_update's CASE).
    Rating.objects.bulk_create(
        list(rows.values()),
        update_conflicts=True,
        unique_fields=["player", "format"],
        update_fields=["mu", "sigma", "display", "games", "wins", "updated_at"],
    )
    RatingChange.objects.bulk_create(changes)  # unique (game, player): the backstop
    changes.sort(key=lambda c: c.seat)
    fact_append(
        game,
        RATINGS_CHANGED,
        source=EventSource.SYSTEM,
        format=format,
        changes=[ratings_changed_entry(c) for c in changes],
    )
    return changes


def _result_withheld(
    game: Game, seated: Sequence[Seat], ranks: Sequence[int], format: str, reason: str
) -> list[RatingChange]:
    """A rated result that does not count: each player's line with the rating as it is (no
    ``Rating`` row written or made), ``counted`` false and the reason."""
    current = {
        r.player_id: Skill(r.mu, r.sigma)
        for r in Rating.objects.filter(player_id__in=[s.player_id for s in seated], format=format)
    }
    changes = []
    for seat in seated:
        assert seat.player_id is not None
        skill = current.get(seat.player_id, Skill(DEFAULT_MU, DEFAULT_SIGMA))
        changes.append(
            RatingChange(
                game=game,
                player_id=seat.player_id,
                format=format,
                seat=seat.index,
                team=seat.team,
                rank=ranks[seat.team],
                mu_before=skill.mu,
                sigma_before=skill.sigma,
                mu_after=skill.mu,
                sigma_after=skill.sigma,
                display_before=skill.display,
                display_after=skill.display,
                counted=False,
                unrated_reason=reason,
            )
        )
    RatingChange.objects.bulk_create(changes)  # unique (game, player): the backstop
    return changes


def ratings_changed_entry(change: RatingChange) -> dict[str, Any]:
    """One player's line of the ``ratings_changed`` fact (public: no card in it)."""
    return {
        "seat": change.seat,
        "player": change.player_id,
        "team": change.team,
        "rank": change.rank,
        "mu_before": change.mu_before,
        "sigma_before": change.sigma_before,
        "mu_after": change.mu_after,
        "sigma_after": change.sigma_after,
        "rating_before": rating_shown(change.mu_before, change.sigma_before),
        "rating_after": rating_shown(change.mu_after, change.sigma_after),
    }
