"""Rated games' results applied to ratings: once, in the transaction that ends the game.

A rated game ends in one of three transactions, each holding the game row lock: the move that
ends it (``games.services.moves``), a concession (``games.services.table.game_concede``) or an
abandonment by the turn timer (``games.services.timers``). Each computes the sides' ranks
(``ranks_by_score``, ``ranks_with_last``) and calls ``ratings_apply`` once, in the same
transaction as the status change, so a retried request or a redelivered task finds the game
over and changes nothing; the unique ``(game, player)`` of ``RatingChange`` is the backstop.

The model is openskill's Plackett-Luce (Weng-Lin) with its defaults. Team games keep one rating
per member: ``rate(teams=[[seat 0, seat 2], [seat 1, seat 3]], ranks=...)`` moves each member by
its own uncertainty (a member's change is the team's, scaled by that member's share of the
team's variance), not the team's average. The change is a fact of the game's log
(``ratings_changed``), after the entry that ended it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.utils import timezone
from openskill.models import PlackettLuce

from competition.models import Rating, RatingChange, rating_format_of
from competition.selectors.ratings import DEFAULT_MU, DEFAULT_SIGMA, rating_shown
from games.engine.history import RATINGS_CHANGED
from games.models import EventSource, Game, Seat
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
    game changes nothing (returns ``[]``).
    """
    if not game.rated:
        return []
    player_of = {s.index: s.player_id for s in seats if s.player_id is not None}
    seated = sorted((s for s in seats if s.index in player_of), key=lambda s: s.index)
    if not seated:
        return []
    format = rating_format_of(game.players)
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
    now = timezone.now()
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
