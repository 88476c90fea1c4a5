"""docs/rules.md sections 5-6: meld validation, merging, shared melds, black threes, the wild
canasta option and the initial-meld minimum, with the cardgames.io first-meld worked examples."""

from __future__ import annotations

import pytest

from games.engine import GameState, Meld, MeldGroup, apply, legal_actions
from games.engine.melds import initial_meld_minimum

from .helpers import discard, group, meld, meld_text, opts, position, refused

OPENED = {"A": "AH AS AD"}


def play(
    hand: str,
    *,
    seat: int = 0,
    options_preset: str = "classic",
    melds: list[dict[str, str]] | None = None,
    scores: list[int] | None = None,
    **options: object,
) -> GameState:
    """A position where ``seat`` has drawn and holds ``hand``."""
    hands = [""] * (4 if options_preset in ("classic", "hoyle") else 2)
    hands[seat] = hand
    return position(
        opts(options_preset, **options),
        hands,
        pile="4D",
        turn=seat,
        phase="play",
        melds=melds,
        scores=scores,
    )


# -- meld validation -----------------------------------------------------------------------------


def test_a_meld_needs_three_cards() -> None:
    refused(play("QH QS 5C 6C", melds=[OPENED]), meld(0, "QH QS"), "meld_too_small")


def test_a_meld_needs_two_natural_cards() -> None:
    refused(play("QH 2C JK 6C 7C", melds=[OPENED]), meld(0, "QH 2C JK"), "meld_needs_two_naturals")


def test_natural_cards_of_one_rank_only() -> None:
    refused(
        play("QH QS KH 6C", melds=[OPENED]), meld(0, group("QH QS KH", "Q")), "meld_mixed_ranks"
    )


def test_at_most_three_wild_cards_by_default_and_four_with_the_option() -> None:
    cards = "QH QS QD QC QH 2C 2D JK JK"
    refused(play(cards + " 6C", melds=[OPENED]), meld(0, cards), "meld_too_many_wilds")
    st = play(cards + " 6C", melds=[OPENED], max_wilds_per_meld=4)
    apply(st, meld(0, cards))
    assert meld_text(st, 0, "Q") == "2C 2D JK JK QC QD QH QH QS"


def test_wild_ratio_naturals_must_exceed_wilds_by_default() -> None:
    refused(play("QH QS 2C 2D 6C", melds=[OPENED]), meld(0, "QH QS 2C 2D"), "meld_too_many_wilds")
    apply(play("QH QS 2C 6C 7C", melds=[OPENED]), meld(0, "QH QS 2C"))


def test_wild_ratio_wilds_may_equal_naturals_with_the_option() -> None:
    st = play("QH QS 2C 2D 6C 7C", melds=[OPENED], wild_ratio="wilds_not_exceed_naturals")
    apply(st, meld(0, "QH QS 2C 2D"))
    refused(
        play("QH QS 2C 2D JK 6C", melds=[OPENED], wild_ratio="wilds_not_exceed_naturals"),
        meld(0, "QH QS 2C 2D JK"),
        "meld_too_many_wilds",
    )


def test_laying_off_keeps_the_meld_valid() -> None:
    st = play("2C JK 6C 7C", melds=[{"Q": "QH QS 2D"}])
    refused(st, meld(0, group("2C", "Q")), "meld_too_many_wilds")
    st = play("QC 2C 6C 7C", melds=[{"Q": "QH QS 2D"}])
    apply(st, meld(0, "QC 2C"))
    assert meld_text(st, 0, "Q") == "2C 2D QC QH QS"


def test_melding_a_rank_the_team_holds_merges_into_that_meld() -> None:
    st = play("10S 10S 10C 2D 6C 7C", seat=2, melds=[{"10": "10H 10D 10D"}])
    apply(st, meld(2, "10S 10S 10C 2D"))
    assert meld_text(st, 0, "10") == "10C 10D 10D 10H 10S 10S 2D"
    assert len(st.melds[0]) == 1


def test_partners_share_melds_but_never_lay_off_on_the_opponents() -> None:
    st = play("9C 9C 6C 7C", seat=2, melds=[{"9": "9H 9D 9D"}, {"J": "JH JH JD"}])
    apply(st, meld(2, "9C 9C"))  # seat 0 started the nines; seat 2 lays off on them
    assert meld_text(st, 0, "9") == "9C 9C 9D 9D 9H"
    refused(play("JC 6C 7C", melds=[OPENED, {"J": "JH JH JD"}]), meld(0, "JC"), "meld_too_small")


def test_one_action_may_not_name_a_rank_twice() -> None:
    refused(
        play("QH QS QD QC QS QH 7C", melds=[OPENED]),
        meld(0, "QH QS QD", "QC QS QH"),
        "meld_duplicate_rank",
    )


def test_cards_must_be_in_the_hand() -> None:
    refused(play("QH QS 6C 7C", melds=[OPENED]), meld(0, "QH QS QD"), "card_not_in_hand")
    refused(play("QH QS QD 6C", melds=[OPENED]), meld(0, "QH QH QS"), "card_not_in_hand")


def test_red_threes_are_never_melded() -> None:
    refused(
        play("3H 3D 3H 6C 7C", melds=[OPENED]), meld(0, group("3H 3D 3H", "3")), "meld_invalid_card"
    )
    refused(
        play("QH QS 3H 6C", melds=[OPENED]), meld(0, group("QH QS 3H", "Q")), "meld_invalid_card"
    )


def test_wild_cards_alone_are_a_meld_only_with_the_wild_canasta_option() -> None:
    refused(
        play("2C 2D JK 6C 7C", melds=[OPENED]),
        meld(0, group("2C 2D JK", "W")),
        "meld_wild_canasta_disabled",
    )
    st = play("2C 2D JK 6C 7C", melds=[OPENED], wild_canasta=True)
    apply(st, meld(0, group("2C 2D JK", "W")))
    assert meld_text(st, 0, "W") == "2C 2D JK"


# -- black threes --------------------------------------------------------------------------------

CANASTA = {"K": "KC KC KD KD KH KH KS"}


def test_black_threes_only_when_going_out() -> None:
    refused(
        play("3C 3S 3C 6C 7C 8C", melds=[CANASTA]),
        meld(0, "3C 3S 3C"),
        "meld_black_threes_only_going_out",
    )
    st = play("3C 3S 3C 6C", melds=[CANASTA])
    apply(st, meld(0, "3C 3S 3C"))  # then discards the six to go out
    assert meld_text(st, 0, "3") == "3C 3C 3S"


def test_black_threes_never_with_wild_cards_nor_other_ranks_and_three_or_four() -> None:
    refused(
        play("3C 3S 2C 6C", melds=[CANASTA]), meld(0, group("3C 3S 2C", "3")), "meld_invalid_card"
    )
    refused(play("3C 3S 6C", melds=[CANASTA]), meld(0, "3C 3S"), "meld_too_small")
    refused(
        play("QH QS 3C 6C", melds=[CANASTA]), meld(0, group("QH QS 3C", "Q")), "meld_mixed_ranks"
    )


def test_black_threes_going_out_still_need_the_canasta() -> None:
    refused(
        play("3C 3S 3C 6C", melds=[OPENED]), meld(0, "3C 3S 3C"), "cannot_go_out_without_canasta"
    )


# -- initial-meld minimum ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "score,minimum",
    [(-2000, 15), (-5, 15), (0, 50), (1495, 50), (1500, 90), (2995, 90), (3000, 120), (9000, 120)],
)
def test_initial_meld_minimum_bands(score: int, minimum: int) -> None:
    assert initial_meld_minimum(score) == minimum


def test_a_negative_score_needs_only_fifteen() -> None:
    apply(play("5H 5S 5D 6C 7C", scores=[-100, 0]), meld(0, "5H 5S 5D"))
    refused(
        play("5H 5S 5D 6C 7C", scores=[0, -100]), meld(0, "5H 5S 5D"), "initial_meld_below_minimum"
    )


def test_the_minimum_may_be_met_across_several_melds_in_one_action() -> None:
    st = play("KH KS KD QH QS QD 6C 7C")
    apply(st, meld(0, "KH KS KD", "QH QS QD"))  # 30 + 30 = 60
    assert st.opened[0]


def test_the_minimum_may_be_met_by_several_meld_actions_in_one_turn() -> None:
    st = play("KH KS KD QH QS QD 6C 7C")
    apply(st, meld(0, "KH KS KD"))  # 30 of 50: the queens in hand complete it
    assert not st.opened[0]
    apply(st, meld(0, "QH QS QD"))  # 60
    assert st.opened[0]


def test_after_the_initial_meld_any_meld_is_allowed() -> None:
    st = play("AH AS 2D 4C 4C 4D 6C 7C")
    apply(st, meld(0, "AH AS 2D"))
    apply(st, meld(0, "4C 4C 4D"))  # 15 points, the team has opened


def test_laying_off_on_the_partners_initial_meld_needs_no_minimum() -> None:
    apply(play("5H 5S 6C 7C", seat=2, melds=[{"5": "5D 5D 5C"}]), meld(2, "5H 5S"))


# -- the worked examples (cardgames.io, "First meld limit") -------------------------------------


def test_example_1100_points_aces_with_a_deuce_open_then_fours_may_follow() -> None:
    hand = "AH AC 2D 5C 6H 7H 8C 4C 4C 4D JC KD"
    st = play(hand, scores=[1100, 0])
    assert Meld(0, (group("AH AC 2D"),)) in legal_actions(st)
    refused(st, meld(0, "4C 4C 4D 2D"), "initial_meld_below_minimum")  # only 35
    apply(st, meld(0, "AH AC 2D"))  # 60
    apply(st, meld(0, "4C 4C 4D"))  # not obliged, but allowed


def test_example_1500_points_aces_alone_are_short_aces_and_nines_reach_ninety() -> None:
    hand = "AH AC 2D 5C 6H 7H 8C 9C 9C 9D 9H KD"
    st = play(hand, scores=[1500, 0])
    apply(st.clone(), meld(0, "AH AC 2D", "9C 9C 9D"))  # 60 + 30 = 90 in one action
    apply(st, meld(0, "AH AC 2D"))  # 60: the nines still in hand make up the rest
    refused(st, discard(0, "KD"), "initial_meld_incomplete")
    apply(st, meld(0, "9C 9C 9D"))  # 90
    assert st.opened[0]
    apply(st, discard(0, "KD"))


def test_example_3000_points_no_combination_reaches_120() -> None:
    hand = "AH AC 2D 2H 5C 6H 7H 8C 4C 4C 4D 4H KD"
    st = play(hand, scores=[3000, 0])
    refused(st, meld(0, "AH AC 2D", "4C 4C 4D 4H 2H"), "initial_meld_below_minimum")  # 100
    refused(st, meld(0, "AH AC 2D 2H"), "meld_too_many_wilds")
    assert not any(isinstance(a, Meld) for a in legal_actions(st))


def test_example_1800_points_ninety_exactly_but_leaving_one_card_without_a_canasta() -> None:
    # (The page's hand repeats cards a double pack holds only twice; the suits are adjusted.)
    hand = "5H 5H 5D 5D 9D 9D 9H KH KD KD KC 3S"
    st = play(hand, scores=[1800, 0])
    refused(st, meld(0, "5H 5H 5D 5D", "9D 9D 9H", "KH KD KD KC"), "cannot_go_out_without_canasta")
    refused(st, meld(0, "9D 9D 9H", "KH KD KD KC"), "initial_meld_below_minimum")  # 70
    assert not any(isinstance(a, Meld) for a in legal_actions(st))


def test_an_empty_meld_is_refused_and_does_not_open_the_team() -> None:
    st = play("QH QS 5C 6C")
    refused(st, Meld(0, ()), "invalid_action")
    opened = play("QH QS 5C 6C", melds=[{"Q": "QD QD QC"}])
    refused(opened, Meld(0, (MeldGroup(group("QH").rank, ()),)), "invalid_action")


# -- what the legal-action list offers ----------------------------------------------------------


def test_a_partial_lay_off_is_listed_when_laying_off_all_would_keep_one_card() -> None:
    st = play("7D 7H 7S KD", melds=[{"7": "7C 7D 7S"}])
    refused(st, meld(0, "7D 7H 7S"), "cannot_go_out_without_canasta")
    listed = [a for a in legal_actions(st) if isinstance(a, Meld)]
    assert listed == [meld(0, "7D 7H")]
    apply(st, listed[0])


def test_listed_initial_melds_use_the_joker_to_reach_the_minimum() -> None:
    st = play("6C 6D 2D JK 9S 10H 4C")
    listed = [a for a in legal_actions(st) if isinstance(a, Meld)]
    assert meld(0, "6C 6D JK") in listed  # 60; with the deuce it would be 30
    for action in listed:
        apply(st.clone(), action)
