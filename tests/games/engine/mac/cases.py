"""A case for every refusal code of the mac family: how to provoke it, and what its message says
(merged into ``tests/games/engine/test_error_codes.py``'s CASES)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import pytest

from games.engine import AskPartner, DeclareSpecialHand, Draw, EngineError, GameState, apply
from games.engine.actions import Action, Discard, Meld, MeldGroup, TakePile
from games.engine.cards import WILD_RANK, parse_card, parse_cards, parse_rank
from games.engine.mac.melds import ext_of

from .position import mac_position

K7 = "KC KC KD KD KH KH KS"
Q7 = "QC QC QD QD QH QH QS"


def after_draw(
    hand: str, melds: Mapping[str, str] | None = None, pile: str = "4H", **kw: object
) -> GameState:
    """Seat 0 has drawn from the stock and holds ``hand``; its side has ``melds``."""
    return mac_position(
        [hand, "", "", ""],
        phase="play",
        pile=pile,
        melds=[melds or {}],
        **kw,  # type: ignore[arg-type]
    )


def g(cards: str, rank: str | None = None) -> MeldGroup:
    cs = tuple(parse_cards(cards))
    if rank == "W":
        return MeldGroup(WILD_RANK, cs, kind="wild")
    if rank is not None:
        return MeldGroup(parse_rank(rank), cs)
    return MeldGroup(parse_rank(cards.split()[0][:-1]), cs)


def meld(*groups: str | MeldGroup) -> Meld:
    return Meld(0, tuple(x if isinstance(x, MeldGroup) else g(x) for x in groups))


def discard(card: str) -> Discard:
    return Discard(0, parse_card(card))


def refusal(st: GameState, action: Action) -> EngineError:
    before = st.to_dict()
    with pytest.raises(EngineError) as info:
        apply(st, action)
    assert st.to_dict() == before
    return info.value


def case(build: Callable[[], GameState], action: Action) -> Callable[[], EngineError]:
    return lambda: refusal(build(), action)


MAC_CASES: dict[str, tuple[Callable[[], EngineError], str]] = {
    "discard_three_forbidden": (
        case(lambda: after_draw("3C 5H 6H", {"K": "KC KD KH"}), discard("3C")),
        "threes are never discarded",
    ),
    "discard_wild_forbidden": (
        case(lambda: after_draw("2C 5H 6H", {"K": "KC KD KH"}), discard("2C")),
        "a wild card may be discarded only to go out",
    ),
    "discard_swad_on_empty_pile": (
        case(lambda: after_draw("7C 5H 6H", {"K": "KC KD KH"}, pile=""), discard("7C")),
        "may not go onto the empty pile",
    ),
    "meld_leaves_no_legal_discard": (
        case(
            lambda: after_draw("5S 6H 7C 7D", {"5": "5C 5D 5H", "6": "6C 6D 6S"}, pile=""),
            meld("5S", "6H"),
        ),
        "would leave no card you may discard",
    ),
    "pile_dead_card": (
        case(
            lambda: mac_position(["5C 5D", "", "", ""], pile="4C KS", melds=[{}, {"K": K7}]),
            TakePile(0, tuple(parse_cards("5C 5D"))),
        ),
        "dead rank",
    ),
    "meld_too_large": (
        case(lambda: after_draw("9S 9S 4C 5C", {"9": "9C 9C 9D 9D 9H 9H"}), meld("9S 9S")),
        "no meld exceeds seven",
    ),
    "meld_dead_rank": (
        case(lambda: after_draw("KS 4C 5C", {"K": K7}), meld("KS")),
        "is dead",
    ),
    "meld_wild_forbidden": (
        case(lambda: after_draw("2C 4C 5C 6C", {"7": "7C 7D 7H"}), meld(g("2C", "7"))),
        "Sevens are melded natural only",
    ),
    "meld_rule_of_five": (
        case(lambda: after_draw("2C 4C 5C 6C", {"9": "9C 9D 9H"}), meld(g("2C", "9"))),
        "five natural cards",
    ),
    "meld_wild_meld_open": (
        case(
            lambda: after_draw("JK 4C 5C 6C", {"W": "2C 2D 2H", "9": "9C 9D 9H 9S 9C"}),
            meld(g("JK", "9")),
        ),
        "wild cards may go only onto it",
    ),
    "initial_meld_needs_clean_triple": (
        case(
            lambda: after_draw("AC AD JK KC KD 2C 4C 5D 6H 8S"),
            meld("AC AD JK", "KC KD 2C"),
        ),
        "three or more natural cards",
    ),
    "initial_meld_mixed_canasta": (
        case(
            lambda: after_draw("KC KC KD KD KH 2C 2D AC AD AH 4C 5C"),
            meld("KC KC KD KD KH 2C 2D", "AC AD AH"),
        ),
        "No mixed canasta",
    ),
    "go_out_needs_discard": (
        case(lambda: after_draw("5C 5D 5H", {"K": K7, "Q": Q7}), meld("5C 5D 5H")),
        "goes out only by discarding",
    ),
    "cannot_go_out_incomplete_special": (
        case(
            lambda: after_draw("5C 5D 5H 6C", {"K": K7, "Q": Q7, "7": "7C 7D 7H"}),
            meld("5C 5D 5H"),
        ),
        "incomplete sevens",
    ),
    "special_hand_not_allowed": (
        case(
            lambda: after_draw("4C 4D 5C 5D 6C 6D 8C 8D 9C 9D 10C 10D JC JD", {"K": "KC KD KH"}),
            DeclareSpecialHand(0, "pairs"),
        ),
        "cannot declare a special hand now",
    ),
    "special_hand_invalid": (
        case(
            lambda: after_draw("4C 4D 5C 5D 6C 6D 8C 8D 9C 9D 10C 10D JC QD"),
            DeclareSpecialHand(0, "pairs"),
        ),
        "does not form the special hand",
    ),
    "cannot_keep_three": (
        case(
            lambda: mac_position(["3C 5C 6C", "", "", ""], melds=[{"K": "KC KD KH"}]),
            Draw(0, keep_three=True),
        ),
        "kept for a Straight",
    ),
}


def second_ask() -> EngineError:
    st = after_draw("5C 5D 5H 6C", {"K": K7, "Q": Q7})
    ext_of(st).asked[0] = True
    return refusal(st, AskPartner(0))


MAC_CASES_EXTRA: dict[str, tuple[Callable[[], EngineError], str]] = {
    "cannot_ask_partner": (second_ask, "at most once per round"),
}
