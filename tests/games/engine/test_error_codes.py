"""Every engine error code (games.engine.ERROR_CODES) has a case that produces it, and the
message of that refusal names its real reason (docs/rules.md, "Refusals")."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from games.engine import (
    ERROR_CODES,
    AnswerPartner,
    AskPartner,
    DeclinePile,
    Draw,
    EndRound,
    EngineError,
    GameState,
    Meld,
    action_from_dict,
    apply,
    make_options,
)
from tests.games.engine.mac.cases import MAC_CASES
from tests.games.engine.samba.cases import SAMBA_CASES

from .helpers import discard, group, meld, opts, position, refused, stock_only, take

CANASTA = {"K": "KC KC KD KD KH KH KS"}
OPENED = {"A": "AH AS AD"}


def after_draw(
    hand: str, melds: list[dict[str, str]] | None = None, **options: object
) -> GameState:
    """Seat 0 has drawn, holds ``hand`` and its side has ``melds`` (opened unless none)."""
    return position(
        opts("classic", **options), [hand, "", "", ""], pile="4D", phase="play", melds=melds
    )


def raised(call: Callable[[], object]) -> EngineError:
    with pytest.raises(EngineError) as info:
        call()
    return info.value


def game_over() -> EngineError:
    st = after_draw("5H 5S 5D", [CANASTA])
    st.scores = [4900, 0]
    apply(st, meld(0, "5H 5S 5D"))  # goes out: the side passes 5000
    assert st.game_over
    return refused(st, Draw(1), "game_over")


def must_take_pile() -> EngineError:
    st = position(
        opts("hoyle"), ["", "4C 9S", "", ""], pile="4D 8D", melds=[{}, {"8": "8C 8C 8H"}], turn=1
    )
    stock_only(st, "")
    return refused(st, DeclinePile(1), "must_take_pile")


def stock_empty() -> EngineError:
    st = position(opts("hoyle"), ["", "8S 9S", "", ""], pile="4D 5D", melds=[{}, OPENED], turn=1)
    stock_only(st, "")
    return refused(st, Draw(1), "stock_empty")


def must_go_out() -> EngineError:
    st = after_draw("5H 5S 5D 9C 9D 9S 8C", [CANASTA])
    apply(st, AskPartner(0))
    apply(st, AnswerPartner(2, True))
    return refused(st, discard(0, "8C"), "must_go_out")


def partner_said_no() -> EngineError:
    st = after_draw("5H 5S 5D 9C", [CANASTA])
    apply(st, AskPartner(0))
    apply(st, AnswerPartner(2, False))
    return refused(st, meld(0, "5H 5S 5D"), "partner_said_no")


def cannot_discard() -> EngineError:
    st = after_draw("5H 6H 7H", [OPENED])
    st.no_discard = True  # the last stock card was a red three
    return refused(st, discard(0, "6H"), "cannot_discard")


def initial_meld_incomplete() -> EngineError:
    st = after_draw("KH KS KD QH QS QD 6C 7C")
    apply(st, meld(0, "KH KS KD"))
    return refused(st, discard(0, "7C"), "initial_meld_incomplete")


# code -> the refusal it names (made by an action in a position) and what its message must say.
CASES: dict[str, tuple[Callable[[], EngineError], str]] = {
    "invalid_option": (
        lambda: raised(lambda: make_options("classic", {"draw_count": 3})),
        "'draw_count' must be between 1 and 2",
    ),
    "invalid_action": (
        lambda: raised(lambda: action_from_dict({"type": "pass"}, 0)),
        "unknown action type",
    ),
    "game_over": (game_over, "game is over"),
    "not_your_turn": (
        lambda: refused(
            position(opts(), ["5H", "6H", "", ""], pile="4D"), Draw(1), "not_your_turn"
        ),
        "not your turn",
    ),
    "wrong_phase": (
        lambda: refused(
            position(opts(), ["5H 6H", "", "", ""], pile="4D"), discard(0, "5H"), "wrong_phase"
        ),
        "cannot discard now: the turn starts by drawing",
    ),
    "card_not_in_hand": (
        lambda: refused(after_draw("5H 6H 7H", [OPENED]), discard(0, "9S"), "card_not_in_hand"),
        "9S is not in your hand",
    ),
    "stock_empty": (stock_empty, "stock is empty"),
    # A pile is never empty when a turn starts in play (each turn ends with a discard or ends the
    # round, and a deal turns a card up); this case is a set-up position, as for teaching.
    "pile_empty": (
        lambda: refused(
            position(opts(), ["8C 8S 5H", "", "", ""], melds=[OPENED]),
            take(0, "8C 8S"),
            "pile_empty",
        ),
        "pile is empty",
    ),
    "pile_blocked": (
        lambda: refused(
            position(opts(), ["3C 3S 5H", "", "", ""], pile="4D 3C"), take(0, "3S"), "pile_blocked"
        ),
        "top card 3C is a black three",
    ),
    "pile_frozen": (
        lambda: refused(
            position(opts(), ["8C 2C 5H", "", "", ""], pile="JK 4D 8H", melds=[OPENED]),
            take(0, "8C 2C"),
            "pile_frozen",
        ),
        "frozen (it holds a wild card or red three)",
    ),
    "pile_needs_two_naturals": (
        lambda: refused(
            position(opts("two_player"), ["8C 2C 5H", ""], pile="4D 8H", melds=[OPENED]),
            take(0, "8C 2C"),
            "pile_needs_two_naturals",
        ),
        "needs a natural pair of rank 8",
    ),
    "pile_cards_do_not_match": (
        lambda: refused(
            position(opts(), ["8C 8S 9C", "", "", ""], pile="4D 8H", melds=[OPENED]),
            take(0, "8C 9C"),
            "pile_cards_do_not_match",
        ),
        "9C is not",
    ),
    "pile_no_meld_to_lay_off": (
        lambda: refused(
            position(opts(), ["5H 6H", "", "", ""], pile="4D 8H", melds=[OPENED]),
            take(0),
            "pile_no_meld_to_lay_off",
        ),
        "no meld of rank 8",
    ),
    "pile_to_canasta_forbidden": (
        lambda: refused(
            position(
                opts(pile_to_canasta=False), ["5H 6H", "", "", ""], pile="4D KS", melds=[CANASTA]
            ),
            take(0),
            "pile_to_canasta_forbidden",
        ),
        "K meld is a completed canasta",
    ),
    "pile_one_card_restriction": (
        lambda: refused(
            position(opts("hoyle"), ["5H", "", "", ""], pile="9H", melds=[{"9": "9C 9D 9S"}]),
            take(0),
            "pile_one_card_restriction",
        ),
        "holding one card",
    ),
    "must_take_pile": (must_take_pile, "must take the pile"),
    "meld_too_small": (
        lambda: refused(after_draw("QH QS 5C 6C", [OPENED]), meld(0, "QH QS"), "meld_too_small"),
        "would hold 2",
    ),
    # The case: a three and a four are of two ranks, whatever the first card is.
    "meld_mixed_ranks": (
        lambda: refused(
            after_draw("3C 4S 4H 6C 7C", [OPENED]), meld(0, "3C 4S"), "meld_mixed_ranks"
        ),
        "4S is not a three",
    ),
    "meld_needs_two_naturals": (
        lambda: refused(
            after_draw("QH 2C JK 6C 7C", [OPENED]), meld(0, "QH 2C JK"), "meld_needs_two_naturals"
        ),
        "would hold 1",
    ),
    "meld_too_many_wilds": (
        lambda: refused(
            after_draw("QH QS 2C 2D 6C", [OPENED]), meld(0, "QH QS 2C 2D"), "meld_too_many_wilds"
        ),
        "2 wild and 2 natural",
    ),
    "meld_invalid_card": (
        lambda: refused(
            after_draw("QH QS 3H 6C", [OPENED]),
            meld(0, group("QH QS 3H", "Q")),
            "meld_invalid_card",
        ),
        "3H is a red three",
    ),
    "meld_black_threes_only_going_out": (
        lambda: refused(
            after_draw("3C 3S 3C 6C 7C 8C", [CANASTA]),
            meld(0, "3C 3S 3C"),
            "meld_black_threes_only_going_out",
        ),
        "only when going out",
    ),
    "meld_wild_canasta_disabled": (
        lambda: refused(
            after_draw("2C 2D JK 6C 7C", [OPENED]),
            meld(0, group("2C 2D JK", "W")),
            "meld_wild_canasta_disabled",
        ),
        "wild_canasta option",
    ),
    "meld_duplicate_rank": (
        lambda: refused(
            after_draw("QH QS QD QC QS QH 7C", [OPENED]),
            meld(0, "QH QS QD", "QC QS QH"),
            "meld_duplicate_rank",
        ),
        "names the Q meld twice",
    ),
    "initial_meld_below_minimum": (
        lambda: refused(
            after_draw("5H 5S 5D 6C 7C"), meld(0, "5H 5S 5D"), "initial_meld_below_minimum"
        ),
        "at least 50 points this turn: with these they are worth 15",
    ),
    "initial_meld_incomplete": (initial_meld_incomplete, "worth 30 of the 50 points"),
    "cannot_go_out_without_canasta": (
        lambda: refused(
            after_draw("5H 5S 5D 9C", [OPENED]),
            meld(0, "5H 5S 5D"),
            "cannot_go_out_without_canasta",
        ),
        "needs 1 canasta before you can go out or keep one card (it would have 0)",
    ),
    "partner_said_no": (partner_said_no, "partner said no"),
    "must_go_out": (must_go_out, "must go out this turn"),
    "cannot_ask_partner": (
        lambda: refused(after_draw("5H 5S 6D 9C", [CANASTA]), AskPartner(0), "cannot_ask_partner"),
        "only when you are able to go out",
    ),
    # Red threes leave a hand as soon as they enter it (revealed and replaced), so in play no
    # hand holds one when it could be discarded; the case is a set-up position.
    "red_three_discard": (
        lambda: refused(after_draw("3H 6H 7H", [OPENED]), discard(0, "3H"), "red_three_discard"),
        "3H is a red three",
    ),
    "cannot_discard": (cannot_discard, "this turn has no discard"),
}


# The families' refusals have their cases beside their scenario tests.
CASES |= MAC_CASES | SAMBA_CASES


def test_every_error_code_has_a_case() -> None:
    assert set(CASES) == set(ERROR_CODES)


@pytest.mark.parametrize("code", sorted(ERROR_CODES))
def test_the_refusal_names_its_real_reason(code: str) -> None:
    make, expected = CASES[code]
    error = make()
    assert error.code == code
    assert expected.lower() in error.message.lower(), error.message


def test_a_three_and_a_four_are_mixed_ranks_in_either_order() -> None:
    for cards in ("3C 4S 4H", "4S 4H 3C"):
        error = refused(after_draw("3C 4S 4H 6C 7C", [OPENED]), meld(0, cards), "meld_mixed_ranks")
        assert "3C" in error.message or "4S" in error.message


def test_a_discarded_end_round_and_ask_each_name_their_own_reason() -> None:
    # The same code for different reasons: each message says which one.
    melded = after_draw("5H 5S 5D 9C 9D 9S 4C", [CANASTA])
    apply(melded, meld(0, "9C 9D 9S"))
    assert "before melding" in refused(melded, AskPartner(0), "cannot_ask_partner").message
    three = position(
        opts("three_player"), ["5H 5S 5D 9C", "", ""], pile="4D", phase="play", melds=[CANASTA]
    )
    assert "no partners" in refused(three, AskPartner(0), "cannot_ask_partner").message
    before = position(opts(), ["5H 6H", "", "", ""], pile="4D")
    assert "draw first" in refused(before, EndRound(0), "wrong_phase").message
    frozen_for_side = position(opts(), ["8C 8S 2C", "", "", ""], pile="4D 8H")
    error = refused(frozen_for_side, take(0, "8C 2C"), "pile_frozen")
    assert "has not made its first meld" in error.message


def test_a_card_named_twice_says_so() -> None:
    error = refused(after_draw("QH QS QD 6C", [OPENED]), meld(0, "QH QH QS"), "card_not_in_hand")
    assert "named more often than your hand holds it (1)" in error.message
    refused(after_draw("QH QS QD 6C", [OPENED]), Meld(0, ()), "invalid_action")
