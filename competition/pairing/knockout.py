"""Knockout brackets: bracket size, standard seeding, first round with byes, and when a match
(one or more games) is decided.

Pure: no Django.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

TIE_RULES = ("points", "higher_seed", "extra_game")


def bracket_size(n: int) -> int:
    """The smallest power of two that holds ``n`` entries (at least 2)."""
    size = 2
    while size < n:
        size *= 2
    return size


def seed_positions(size: int) -> list[int]:
    """Seeds 1..size in standard bracket order (1 and 2 meet only in the final; each first
    round match has seeds summing to size + 1): size 8 gives [1, 8, 4, 5, 2, 7, 3, 6]."""
    if size < 1 or size & (size - 1):
        raise ValueError(f"bracket size must be a power of two, not {size}")
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [s for seed in order for s in (seed, total - seed)]
    return order


def first_round(entries_by_seed: Sequence[int]) -> list[tuple[int | None, int | None]]:
    """The first round's matches in bracket order, entries given best seed first. A missing
    seed is a bye (None): the top seeds get them, and no match is None against None."""
    if not entries_by_seed:
        raise ValueError("no entries")
    positions = seed_positions(bracket_size(len(entries_by_seed)))

    def entry(seed: int) -> int | None:
        return entries_by_seed[seed - 1] if seed <= len(entries_by_seed) else None

    return [(entry(positions[k]), entry(positions[k + 1])) for k in range(0, len(positions), 2)]


@dataclass(frozen=True, slots=True)
class MatchGame:
    """One game's final scores: side a and side b."""

    a_points: int
    b_points: int


def match_decided(
    games: Sequence[MatchGame], games_per_match: int, tie_rule: str, a_seed: int, b_seed: int
) -> str | None:
    """The winner of a match so far, ``"a"`` or ``"b"``, or None when another game is needed.

    A game is won by the higher final score (equal scores: a drawn game). The first
    ``games_per_match`` games count; the match is decided early once the side behind could not
    draw level even winning every game left (a side with more than half the games has won).
    With all of them played and the game wins level, ``tie_rule`` decides: ``"points"``, the
    higher total points over the match, then the better (lower) seed; ``"higher_seed"``, the
    better seed; ``"extra_game"``, the first extra game (after ``games_per_match``) that has a
    winner (None until then; a drawn extra game calls for another).
    """
    if tie_rule not in TIE_RULES:
        raise ValueError(f"unknown tie rule {tie_rule!r}; expected one of {TIE_RULES}")
    if games_per_match < 1:
        raise ValueError("games_per_match must be at least 1")
    regular = games[:games_per_match]
    a_wins = sum(1 for g in regular if g.a_points > g.b_points)
    b_wins = sum(1 for g in regular if g.b_points > g.a_points)
    left = games_per_match - len(regular)
    if a_wins > b_wins + left:
        return "a"
    if b_wins > a_wins + left:
        return "b"
    if left:
        return None
    better_seed = "a" if a_seed <= b_seed else "b"
    if tie_rule == "higher_seed":
        return better_seed
    if tie_rule == "points":
        a_total = sum(g.a_points for g in regular)
        b_total = sum(g.b_points for g in regular)
        if a_total != b_total:
            return "a" if a_total > b_total else "b"
        return better_seed
    for g in games[games_per_match:]:
        if g.a_points != g.b_points:
            return "a" if g.a_points > g.b_points else "b"
    return None
