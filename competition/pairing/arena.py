"""Arena tournaments (as lichess arenas): streak points and pairing of the waiting units.

Pure: no Django.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from competition.pairing.swiss import RANK_CAP, SCORE_WEIGHT, match_ranked

ARENA_WIN, ARENA_DRAW, ARENA_LOSS = "win", "draw", "loss"

BASE_POINTS = {ARENA_WIN: 2, ARENA_DRAW: 1, ARENA_LOSS: 0}


def arena_points(results: Sequence[str]) -> list[int]:
    """The points of each result in order: win 2, draw 1, loss 0; on a streak (the two
    previous results both wins) a win scores 4 and a draw 2. A non-win ends the streak."""
    points: list[int] = []
    for k, result in enumerate(results):
        if result not in BASE_POINTS:
            raise ValueError(f"unknown arena result {result!r}")
        on_fire = k >= 2 and results[k - 1] == ARENA_WIN and results[k - 2] == ARENA_WIN
        points.append(BASE_POINTS[result] * (2 if on_fire else 1))
    return points


@dataclass(frozen=True, slots=True)
class ArenaUnit:
    """A unit waiting for a game in an arena."""

    id: int
    points: int
    rating: float
    last_opponent: int | None = None


def arena_pair(
    waiting: Sequence[ArenaUnit], forbidden: Collection[frozenset[int]] = ()
) -> list[tuple[int, int]]:
    """Pair the waiting units by closeness of points, then of rating; never a unit with its
    last opponent nor a forbidden pair (such units keep waiting), the most pairs possible (an
    odd one out waits). The cost of a pair is its points gap, then its rating gap squared (so
    that gaps are shared: 1-3, 2-4 rather than 1-4, 2-3). Pairs are (higher-ranked,
    lower-ranked), best first."""
    ids = [u.id for u in waiting]
    if len(set(ids)) != len(ids):
        raise ValueError("duplicate unit id")
    order = sorted(waiting, key=lambda u: (-u.points, -u.rating, u.id))
    barred = {pair for pair in forbidden if len(pair) == 2}

    def cost(i: int, j: int) -> int | None:
        a, b = order[i], order[j]
        if a.last_opponent == b.id or b.last_opponent == a.id:
            return None
        if frozenset((a.id, b.id)) in barred:
            return None
        rating_gap = min(round(abs(a.rating - b.rating)), RANK_CAP)
        return abs(a.points - b.points) * SCORE_WEIGHT + rating_gap**2

    pairs, _ = match_ranked(len(order), cost, cost)
    return [(order[i].id, order[j].id) for i, j in pairs]
