"""Modern American Canasta tables and meld facts: card values (every 3 is worth 5 in a hand),
the initial minimum, dead ranks, meld and canasta kinds."""

from __future__ import annotations

from ..cards import IS_THREE, IS_WILD, JOKER, N_CODES, TWO, VALUE_OF, WILD_RANK
from ..state import GameState
from .state import MacExt

CANASTA = 7  # a meld's largest size; seven cards make a closed canasta
SEVEN = 4  # rank index of 7s
ACE = 11  # rank index of aces
MAC_VALUE: tuple[int, ...] = tuple(5 if IS_THREE[c] else VALUE_OF[c] for c in range(N_CODES))
THREE_AREA_VALUE = (0, 100, 300, 500, 1000)  # threes of one colour in the area: 0..4


def ext_of(st: GameState) -> MacExt:
    ext = st.ext
    assert isinstance(ext, MacExt)
    return ext


def initial_minimum(team_score: int) -> int:
    if team_score < 3000:
        return 125
    if team_score < 5000:
        return 155
    return 180


def dead_ranks(st: GameState) -> set[int]:
    """Natural ranks of which either side has completed a canasta (R9)."""
    out = set()
    for team_melds in st.melds:
        for rank, cards in team_melds.items():
            if rank != WILD_RANK and len(cards) >= CANASTA:
                out.add(rank)
    return out


def wild_count(cards: list[int]) -> int:
    return sum(1 for c in cards if IS_WILD[c])


def is_special_meld(rank: int, cards: list[int]) -> bool:
    """Sevens, natural aces and wild melds: incomplete ones block going out and cost points."""
    if rank in (SEVEN, WILD_RANK):
        return True
    return rank == ACE and not any(IS_WILD[c] for c in cards)


def incomplete_special(team_melds: dict[int, list[int]]) -> bool:
    return any(
        len(cards) < CANASTA and is_special_meld(rank, cards) for rank, cards in team_melds.items()
    )


def canastas(team_melds: dict[int, list[int]]) -> int:
    return sum(1 for cards in team_melds.values() if len(cards) >= CANASTA)


def canasta_kind(rank: int, cards: list[int]) -> str | None:
    if len(cards) < CANASTA:
        return None
    if rank == WILD_RANK:
        return "wild"
    if any(IS_WILD[c] for c in cards):
        return "mixed"
    if rank == SEVEN:
        return "natural_sevens"
    if rank == ACE:
        return "natural_aces"
    return "natural"


def wild_canasta_bonus(cards: list[int]) -> int:
    twos = sum(1 for c in cards if c != JOKER and IS_WILD[c] and c // 4 == TWO)
    if twos == 7:
        return 3000
    if twos == 3:
        return 2500  # four jokers and three 2s
    return 2000


CANASTA_BONUS = {
    "mixed": 300,
    "natural": 500,
    "natural_sevens": 2500,
    "natural_aces": 2500,
}


def melds_value(team_melds: dict[int, list[int]]) -> int:
    return sum(MAC_VALUE[c] for cards in team_melds.values() for c in cards)
