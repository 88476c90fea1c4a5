"""Modern American Canasta scenarios as readable hands (VARIANTS section 1, R2-R15)."""

from __future__ import annotations

import pytest

from games.engine import DeclareSpecialHand, Draw, apply, legal_actions
from games.engine.actions import TakePile
from games.engine.cards import parse_cards
from games.engine.mac.melds import ext_of
from games.engine.mac.scoring import score_round
from games.engine.mac.special import forms_special_hand
from games.engine.view import player_view

from .cases import K7, Q7, after_draw, discard, meld, refusal
from .position import mac_position


def test_talon_of_four_then_three_after_a_stock_opening() -> None:
    st = after_draw("KC KD KH AC AD AS QC QD QH 5C 6D 8H 10S")
    assert refusal(st, meld("KC KD KH", "AC AD AS", "QC QD QH")).code == (
        "initial_meld_below_minimum"
    )  # 30 + 60 + 30 = 120 < 125, and nothing left completes it
    st = after_draw("KC KD KH AC AD AS QC QD QH JC JD JH 10S")
    apply(st, meld("KC KD KH", "AC AD AS", "QC QD QH", "JC JD JH"))
    assert st.opened[0] and ext_of(st).talon == 4
    assert player_view(st, 0)["talon_due"] == 4
    apply(st, discard("10S"))
    assert len(st.hands[0]) == 4  # the talon of four refilled the empty hand (R5)


def test_talon_is_three_when_the_other_side_opened_first() -> None:
    st = mac_position(
        ["KC KD KH AC AD AS QC QD QH JC JD JH 10S", "", "", ""],
        phase="play",
        melds=[{}, {"4": "4C 4D 4H"}],
    )
    apply(st, meld("KC KD KH", "AC AD AS", "QC QD QH", "JC JD JH"))
    assert st.opened[0] and ext_of(st).talon == 3


def test_no_talon_once_the_turn_card_is_drawn() -> None:
    st = after_draw("KC KD KH AC AD AS QC QD QH JC JD JH 6D", stock_size=8)
    assert player_view(st, 0)["turn_card_drawn"] is True
    # no talon due: leaving one card would be going out, which needs two canastas
    err = refusal(st, meld("KC KD KH", "AC AD AS", "QC QD QH", "JC JD JH"))
    assert err.code == "cannot_go_out_without_canasta"
    assert player_view(st, 0)["talon_due"] == 0


def test_pile_take_opening_counts_the_pair_only() -> None:
    # top KS: the pair KC KD counts 20, the top card never; AAA + QQQ = 90 -> 110 < 125
    st = mac_position(["KC KD AC AD AH QC QD QH 5C 6D", "", "", ""], pile="4C KS")
    action = TakePile(
        0, tuple(parse_cards("KC KD")), (meld("AC AD AH").melds[0], meld("QC QD QH").melds[0])
    )
    assert refusal(st, action).code == "initial_meld_below_minimum"


def test_pile_is_always_frozen_a_single_natural_is_refused() -> None:
    st = mac_position(["KC 2D 5C", "", "", ""], pile="4C KS", melds=[{"K": "KH KD KD"}])
    assert refusal(st, TakePile(0, tuple(parse_cards("KC 2D")))).code == "pile_frozen"
    assert refusal(st, TakePile(0, ())).code == "pile_frozen"


def test_wild_top_blocks_the_pile() -> None:
    st = mac_position(["KC KD 5C", "", "", ""], pile="4C 2S", melds=[{"9": "9H 9D 9D"}])
    assert refusal(st, TakePile(0, tuple(parse_cards("KC KD")))).code == "pile_blocked"


def test_swad_is_lifted_for_a_hand_of_swad_cards_only() -> None:
    # 7C AD and the drawn 2H: no card may go onto the empty pile, so SWAD is lifted (R6)
    st = mac_position(["7C AD", "", "", ""], melds=[{"K": "KC KD KH"}], stock_top="2H")
    apply(st, Draw(0))
    assert ext_of(st).swad_lifted
    apply(st, discard("7C"))
    assert st.pile == parse_cards("7C")
    # the same hand drawing 5H keeps a legal discard: the seven stays barred
    st = mac_position(["7C AD", "", "", ""], melds=[{"K": "KC KD KH"}], stock_top="5H")
    apply(st, Draw(0))
    assert not ext_of(st).swad_lifted
    assert refusal(st, discard("7C")).code == "discard_swad_on_empty_pile"


@pytest.mark.parametrize(
    ("name", "hand", "ok"),
    [
        ("pairs", "4C 4D 5C 5D 6C 6D 8C 8D 9C 9D 10C 10D JC JD", True),
        ("pairs", "4C 4D 5C 5D 6C 6D 8C 8D 9C 9D 10C 10D JC 2D", False),
        ("wild_pairs", "AC AD 7C 7D 2C 2D 5C 5D 6C 6D 8C 8D 9C 9D", True),
        ("wild_pairs", "AC AD 7C 7D 2C 2D 5C 5D 6C 6D 8C 8D JK JK", False),
        ("miami_pairs", "AC AD 7C 7D 2C 2D JK JK 6C 6D 8C 8D 9C 9D", True),
        ("miami_pairs", "AC AD 7C 7D 2C 2D 5C 5D 6C 6D 8C 8D 9C 9D", False),
        ("zip_code", "4C 4D 5C 5D 6C 6D 6H 8C 8D 8H 2C 2D 2H 2S", True),
        ("zip_code", "4C 4D 5C 5D 6C 6D 6H 8C 8D 8H 9C 9D 9H 10S", False),
        ("straight", "AC KC QC JC 10C 9C 8C 7C 6C 5C 4C 3C 2C JK", True),
        ("straight", "AC KC QC JC 10C 9C 8C 7C 6C 5C 4C 4D 2C JK", False),
        ("garbage", "4C 4D 4H 4S 5C 5D 5H 5S 6C 6D 6H 8C 8D 8H", True),
        ("garbage", "4C 4D 4H 4S 5C 5D 5H 2S 6C 6D 6H 8C 8D 8H", False),
        ("blast_off", "4C 4D 4H 4S 4C 5C 5D 5H 5S 6C 6D 6H 2C 2D", True),
        ("blast_off", "4C 4D 4H 4S 4C 5C 5D 5H 5S 6C 6D 6H 8C 2D", False),
        ("triples", "4C 4D 4H 5C 5D 5H 6C 6D 6H 8C 8D 8H JK JK", True),
        ("triples", "4C 4D 4H 5C 5D 5H 6C 6D 6H 8C 8D 8H JK 2C", False),
        ("quads", "4C 4D 4H 4S 5C 5D 5H 5S 6C 6D 6H 6S 2C 2D", True),
        ("quads", "4C 4D 4H 4S 5C 5D 5H 5S 6C 6D 6H 6S 2C JK", False),
        ("dream_plus_4", "4C 4D 4H 4S 4C 5C 5D 5H 5S 5C 2C 2D 2H 2S", True),
        ("dream_plus_4", "4C 4D 4H 4S 4C 5C 5D 5H 5S 5C 2C 2D 2H JK", False),
        ("dream_plus_5", "4C 4D 4H 4S 4C 5C 5D 5H 5S 2C 2D 2H JK JK", True),
        ("dream_plus_5", "4C 4D 4H 4S 4C 5C 5D 5H 5S 5C 2D 2H JK JK", False),
    ],
)
def test_special_hand_compositions(name: str, hand: str, ok: bool) -> None:
    assert forms_special_hand(name, parse_cards(hand)) is ok


def test_basic_special_hands_refuse_cla_only_names() -> None:
    hand = "4C 4D 4H 4S 4C 5C 5D 5H 5S 5C 2C 2D 2H 2S"
    st = after_draw(hand, options={"special_hands": "basic"})
    assert refusal(st, DeclareSpecialHand(0, "dream_plus_4")).code == "special_hand_invalid"
    st = after_draw(hand, options={"special_hands": "none"})
    assert refusal(st, DeclareSpecialHand(0, "dream_plus_4")).code == "special_hand_not_allowed"


def test_a_dream_hand_wins_the_game_whatever_the_totals() -> None:
    st = after_draw("4C 4D 4H 4S 4C 5C 5D 5H 5S 5C 2C 2D 2H 2S", scores=[0, 8000])
    assert DeclareSpecialHand(0, "dream_plus_4") in legal_actions(st)
    apply(st, DeclareSpecialHand(0, "dream_plus_4"))
    assert st.game_over and st.winner == 0
    assert st.rounds[-1]["teams"][0]["total"] == 8500


def test_keep_three_keeps_the_lowest_three() -> None:
    st = mac_position(["3S 3C 5C", "", "", ""], stock_top="6D")
    apply(st, Draw(0, keep_three=True))
    assert parse_cards("3C")[0] in st.hands[0] and parse_cards("3S")[0] in st.red_threes[0]


def test_a_three_as_the_last_stock_card_ends_the_round() -> None:
    st = mac_position(
        ["5C 6C", "", "", ""], stock_top="3H", stock_size=1, melds=[{"K": "KC KD KH"}]
    )
    apply(st, Draw(0))
    assert st.rounds[-1]["reason"] == "last_three"
    assert st.rounds[-1]["teams"][0]["hand_cards"] == -(5 + 5 + 5)


def test_scoring_threes_canastas_and_penalties() -> None:
    st = after_draw(
        "AC AD AH 7C 7D 7H 5C",
        {"K": K7, "Q": Q7, "W": "2C 2D 2H"},
        threes=["3H 3D 3C", ""],
    )
    parts = score_round(st, None)[0]
    assert parts["natural_canastas"] == 1000
    assert parts["incomplete_melds"] == -2000
    assert parts["hand_penalties"] == -3000
    assert parts["threes"] == 300 + 100
    assert parts["meld_cards"] == 70 + 70 + 60
