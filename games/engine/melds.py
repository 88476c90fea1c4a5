"""What makes a canasta, how many wild cards a meld may hold and the initial meld's minimum: the
counts the rules, the going-out planners, the legal actions and the views share."""

from __future__ import annotations

from .cards import VALUE_OF
from .options import Options
from .state import GameState

CANASTA_SIZE = 7


def initial_meld_minimum(team_score: int) -> int:
    if team_score < 0:
        return 15
    if team_score < 1500:
        return 50
    if team_score < 3000:
        return 90
    return 120


def is_canasta(cards: list[int]) -> bool:
    return len(cards) >= CANASTA_SIZE


def canasta_count(team_melds: dict[int, list[int]]) -> int:
    return sum(1 for cards in team_melds.values() if len(cards) >= CANASTA_SIZE)


def wild_cap(options: Options, naturals: int) -> int:
    """How many wild cards a meld with ``naturals`` natural cards may hold."""
    by_ratio = naturals - 1 if options.wild_ratio == "naturals_exceed_wilds" else naturals
    return min(options.max_wilds_per_meld, by_ratio)


def initial_meld_need(st: GameState, team: int) -> int:
    """Points the side still has to meld this turn to reach its initial minimum (0 once open).

    A side that has not opened holds only melds laid this turn, so all of them count."""
    if st.opened[team]:
        return 0
    shown = sum(VALUE_OF[c] for cards in st.melds[team].values() for c in cards)
    return max(0, initial_meld_minimum(st.scores[team]) - shown)
