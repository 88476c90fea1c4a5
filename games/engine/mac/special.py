"""Special hands (VARIANTS 1.9): the eleven hands of the Canasta League of America and the four
of the older tables, each a composition of the whole 14-card hand.

A hand is read as groups of distinct "ranks": a natural rank 4..A, all 2s, or all jokers (a
wild group counts as a rank of its own, R12). Only the Straight may hold a 3."""

from __future__ import annotations

from collections import Counter

from ..cards import IS_THREE, IS_WILD, JOKER, RANK_OF, TWO

SPECIAL_HANDS_SIZE = 14
ACE, SEVEN = 11, 4
TWOS, JOKERS = "2", "JK"  # the keys of the two wild groups

# name -> value (cla); basic plays four of them, garbage at 2000 there.
CLA_VALUES: dict[str, int] = {
    "pairs": 2500,
    "wild_pairs": 2000,
    "miami_pairs": 2500,
    "zip_code": 2500,
    "straight": 3000,
    "garbage": 3000,
    "blast_off": 3000,
    "triples": 3500,
    "quads": 3500,
    "dream_plus_4": 8500,
    "dream_plus_5": 8500,
}
BASIC_VALUES: dict[str, int] = {
    "pairs": 2500,
    "wild_pairs": 2000,
    "straight": 3000,
    "garbage": 2000,
}
DREAM_HANDS = frozenset({"dream_plus_4", "dream_plus_5"})


def special_values(option: str) -> dict[str, int]:
    """The hands an option value allows, with their values."""
    if option == "cla":
        return CLA_VALUES
    if option == "basic":
        return BASIC_VALUES
    return {}


def groups_of(cards: list[int]) -> Counter[int | str]:
    out: Counter[int | str] = Counter()
    for c in cards:
        if c == JOKER:
            out[JOKERS] += 1
        elif RANK_OF[c] == TWO:
            out[TWOS] += 1
        else:
            out[RANK_OF[c]] += 1
    return out


def _natural_sizes(groups: Counter[int | str]) -> list[int]:
    return sorted(n for k, n in groups.items() if isinstance(k, int))


def _wild_sizes(groups: Counter[int | str]) -> list[int]:
    return sorted(n for k, n in groups.items() if not isinstance(k, int))


def forms_special_hand(name: str, cards: list[int]) -> bool:
    """Whether the 14 ``cards`` form the special hand ``name``."""
    if len(cards) != SPECIAL_HANDS_SIZE:
        return False
    if name == "straight":
        ranks = Counter(RANK_OF[c] for c in cards if not IS_WILD[c])
        return (
            all(ranks[r] == 1 for r in range(12))
            and len(ranks) == 12
            and sum(1 for c in cards if c == JOKER) == 1
            and sum(1 for c in cards if IS_WILD[c] and c != JOKER) == 1
        )
    if any(IS_THREE[c] for c in cards):
        return False
    groups = groups_of(cards)
    naturals = _natural_sizes(groups)
    wilds = _wild_sizes(groups)
    if name == "pairs":
        return not wilds and naturals == [2] * 7
    if name == "wild_pairs":
        return naturals == [2] * 6 and wilds == [2] and groups[ACE] == 2 and groups[SEVEN] == 2
    if name == "miami_pairs":
        return naturals == [2] * 5 and wilds == [2, 2] and groups[ACE] == 2 and groups[SEVEN] == 2
    if name == "zip_code":
        return sorted(naturals + wilds) == [2, 2, 3, 3, 4]
    if name == "garbage":
        return not wilds and naturals == [3, 3, 4, 4]
    if name == "blast_off":
        return sorted(naturals + wilds) == [2, 3, 4, 5]
    if name == "triples":
        return naturals == [3, 3, 3, 3] and wilds == [2]
    if name == "quads":
        return naturals == [4, 4, 4] and wilds == [2]
    if name == "dream_plus_4":
        return naturals == [5, 5] and wilds == [4]
    if name == "dream_plus_5":
        return naturals == [4, 5] and sum(wilds) == 5
    return False
