"""Cards as small ints, with a readable text form.

A card code is ``rank * 4 + suit`` for the 52 suited cards and ``JOKER`` (52) for jokers. The two
packs hold two copies of every suited card and four jokers, so a hand is a list of codes with
repeats. Ranks are ordered 3, 4, ..., K, A, 2 so that the natural melding ranks (4..A) are one
contiguous block and the black-three rank is 0.
"""

from __future__ import annotations

from collections.abc import Iterable

RANK_TEXT: tuple[str, ...] = ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2")
SUIT_TEXT: tuple[str, ...] = ("C", "D", "H", "S")

THREE = 0  # rank index of threes (black threes form their own going-out meld)
TWO = 12  # rank index of deuces (wild)
JOKER_RANK = 13  # rank index used for jokers
WILD_RANK = 14  # meld key of a wild-card meld (option ``wild_canasta``)
NATURAL_RANKS: tuple[int, ...] = tuple(range(1, 12))  # 4 .. A

JOKER = 52
N_CODES = 53
DECK_SIZE = 108

RANK_OF: tuple[int, ...] = tuple([c // 4 for c in range(52)] + [JOKER_RANK])
SUIT_OF: tuple[int, ...] = tuple([c % 4 for c in range(52)] + [-1])

IS_WILD: tuple[bool, ...] = tuple(RANK_OF[c] in (TWO, JOKER_RANK) for c in range(N_CODES))
IS_RED_THREE: tuple[bool, ...] = tuple(
    RANK_OF[c] == THREE and SUIT_OF[c] in (1, 2) for c in range(N_CODES)
)
IS_BLACK_THREE: tuple[bool, ...] = tuple(
    RANK_OF[c] == THREE and SUIT_OF[c] in (0, 3) for c in range(N_CODES)
)
IS_NATURAL: tuple[bool, ...] = tuple(1 <= RANK_OF[c] <= 11 for c in range(N_CODES))


def _value(code: int) -> int:
    rank = RANK_OF[code]
    if rank == JOKER_RANK:
        return 50
    if rank in (TWO, 11):  # 2 and A
        return 20
    if rank >= 5:  # 8 9 10 J Q K
        return 10
    if rank == THREE and IS_RED_THREE[code]:
        return 0  # a red three is a bonus card, never a meld value or hand penalty
    return 5  # 4 5 6 7 and black 3


VALUE_OF: tuple[int, ...] = tuple(_value(c) for c in range(N_CODES))

FULL_DECK: tuple[int, ...] = tuple(sorted([c for c in range(52)] * 2 + [JOKER] * 4))
assert len(FULL_DECK) == DECK_SIZE
# Samba and Bolivia: three packs and six jokers (three copies of every suited card).
FULL_DECK_162: tuple[int, ...] = tuple(sorted([c for c in range(52)] * 3 + [JOKER] * 6))
IS_THREE: tuple[bool, ...] = tuple(RANK_OF[c] == THREE for c in range(N_CODES))


def deck_of(family: str) -> tuple[int, ...]:
    """The sorted full deck a family plays with (108 cards, or 162 for Samba and Bolivia)."""
    return FULL_DECK_162 if family in ("samba", "bolivia") else FULL_DECK


class CardParseError(ValueError):
    """A card or rank written in text could not be read."""


def card_text(code: int) -> str:
    if code == JOKER:
        return "JK"
    return RANK_TEXT[RANK_OF[code]] + SUIT_TEXT[SUIT_OF[code]]


CODE_OF_TEXT: dict[str, int] = {card_text(c): c for c in range(N_CODES)}
_TEXT_OF_CODE: tuple[str, ...] = tuple(card_text(c) for c in range(N_CODES))


def parse_card(text: str) -> int:
    if not isinstance(text, str):
        raise CardParseError("a card must be written as text such as 'QH', '10S', '2C' or 'JK'")
    code = CODE_OF_TEXT.get(text.strip().upper())
    if code is None:
        raise CardParseError(
            f"'{text[:8]}' is not a card; write cards as rank + suit such as 'QH', '10S' or 'JK'"
        )
    return code


def parse_cards(texts: Iterable[str] | str) -> list[int]:
    """Read cards from a list of texts or one space-separated string ("QH QS 2C")."""
    if isinstance(texts, str):
        texts = texts.split()
    return [parse_card(t) for t in texts]


def cards_text(codes: Iterable[int]) -> list[str]:
    text = _TEXT_OF_CODE
    return [text[c] for c in sorted(codes)]


def rank_text(rank: int) -> str:
    if rank == WILD_RANK:
        return "W"
    return RANK_TEXT[rank]


_RANK_OF_TEXT = {t: i for i, t in enumerate(RANK_TEXT)} | {"W": WILD_RANK}


def parse_rank(text: str) -> int:
    if not isinstance(text, str):
        raise CardParseError("a meld rank must be text: 3, 4..10, J, Q, K, A or W")
    if text.strip().upper() not in _RANK_OF_TEXT:
        raise CardParseError(f"'{text[:8]}' is not a meld rank; use 3, 4..10, J, Q, K, A or W")
    return _RANK_OF_TEXT[text.strip().upper()]


def hand_value(codes: Iterable[int]) -> int:
    return sum(VALUE_OF[c] for c in codes)
