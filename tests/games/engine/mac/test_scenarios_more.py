"""More Modern American Canasta scenarios as readable hands: the rule of five, the wild meld,
aces, dead ranks, the initial meld, scoring, talons and the turn card, the end of a round,
asking the partner, going out and discarding (VARIANTS section 1, R2-R15)."""

from __future__ import annotations

import pytest

from games.engine import (
    AnswerPartner,
    AskPartner,
    Discard,
    Draw,
    GameState,
    InvalidOptions,
    MeldGroup,
    TakePile,
    apply,
    legal_actions,
    make_options,
)
from games.engine.cards import (
    FULL_DECK,
    IS_THREE,
    WILD_RANK,
    parse_card,
    parse_cards,
    parse_rank,
)
from games.engine.mac.melds import ext_of
from games.engine.mac.scoring import score_round, threes_value
from games.engine.rules import deal_round
from games.engine.view import player_view

from .cases import K7, Q7, after_draw, discard, g, meld, refusal
from .position import mac_position


def cards(text: str) -> list[int]:
    return parse_cards(text)


def meld_of(st: GameState, rank: str, team: int = 0) -> list[int]:
    return sorted(st.melds[team][WILD_RANK if rank == "W" else parse_rank(rank)])


def take(pair: str, *groups: str | MeldGroup, seat: int = 0) -> TakePile:
    return TakePile(seat, tuple(cards(pair)), meld(*groups).melds)


# -- rule of five (R7) ---------------------------------------------------------------------------
def test_rule_of_five_counts_naturals_placed_in_the_same_action() -> None:
    st = after_draw("9S 9S 2C 4C 5C 6C", {"9": "9C 9D 9H"})
    # 3 + 1 natural = 4 with the wild card: refused
    assert refusal(st, meld(g("9S 2C", "9"))).code == "meld_rule_of_five"
    # 3 + 2 naturals = 5 at the end of the action: the wild card may join
    apply(st, meld(g("9S 9S 2C", "9")))
    assert meld_of(st, "9") == sorted(cards("9C 9D 9H 9S 9S 2C"))


def test_rule_of_five_counts_the_pile_trio_of_the_same_action() -> None:
    st = mac_position(
        ["9H 9H 2C 5D 6H", "", "", ""], pile="4C 9S", melds=[{"9": "9C 9D 2D", "K": K7}]
    )
    # 2 naturals + the trio's 3 = 5 before the wild card: a mixed canasta
    apply(st, TakePile(0, tuple(cards("9H 9H")), (g("2C", "9"),)))
    assert meld_of(st, "9") == sorted(cards("9C 9D 2D 9S 9H 9H 2C"))
    assert player_view(st, 0)["teams"][0]["melds"][0]["canasta_kind"] == "mixed"


def test_rule_of_five_off_lets_a_wild_card_join_a_small_meld() -> None:
    st = after_draw("2C 4C 5C 6C", {"9": "9C 9D 9H"}, options={"rule_of_five": False})
    apply(st, meld(g("2C", "9")))
    assert meld_of(st, "9") == sorted(cards("9C 9D 9H 2C"))


def test_rule_of_five_does_not_apply_in_the_initial_meld_turn() -> None:
    st = after_draw("AC AD AH KC KD KH QC QD 2C JK 4C 5D 6H")
    apply(st, meld("AC AD AH", "KC KD KH", g("QC QD 2C", "Q")))  # 60 + 30 + 40 = 130
    assert st.opened[0]
    apply(st, meld(g("JK", "K")))  # a later action of the same turn: still the opening turn
    assert meld_of(st, "K") == sorted(cards("KC KD KH JK"))


# -- the wild meld -------------------------------------------------------------------------------
def wild_meld_open() -> GameState:
    return after_draw("JK 2S 2C 4C 5C 6C", {"W": "2C 2D 2H 2S JK", "9": "9C 9D 9H 9S 9C"})


def test_an_open_wild_meld_takes_every_wild_card_until_it_is_complete() -> None:
    st = wild_meld_open()
    err = refusal(st, meld(g("2C", "9")))
    assert err.code == "meld_wild_meld_open"
    apply(st, meld(g("JK 2S", "W")))  # the wild canasta is complete
    apply(st, meld(g("2C", "9")))
    assert len(meld_of(st, "W")) == 7
    assert meld_of(st, "9") == sorted(cards("9C 9D 9H 9S 9C 2C"))


def test_completing_the_wild_meld_frees_wild_cards_in_the_same_action() -> None:
    st = wild_meld_open()
    apply(st, meld(g("JK 2S", "W"), g("2C", "9")))
    assert len(meld_of(st, "W")) == 7 and len(meld_of(st, "9")) == 6


# -- aces (R8) -----------------------------------------------------------------------------------
def test_mixed_aces_opening_then_ordinary_rank() -> None:
    st = after_draw("AC AD 2C KC KD KH QC QD QH JC JD JH 4C 5C")
    apply(st, meld(g("AC AD 2C", "A"), "KC KD KH", "QC QD QH", "JC JD JH"))  # 60 + 90
    assert st.opened[0] and meld_of(st, "A") == sorted(cards("AC AD 2C"))

    later = after_draw("AH AS AH 2D 4C 5C", {"A": "AC AD 2C", "K": "KC KD KH"})
    # a mixed aces meld takes wild cards, under the rule of five
    assert refusal(later, meld(g("AH 2D", "A"))).code == "meld_rule_of_five"
    apply(later, meld(g("AH AS AH 2D", "A")))
    assert player_view(later, 0)["teams"][0]["melds"][-1]["canasta_kind"] == "mixed"
    parts = score_round(later, None)[0]
    assert parts["mixed_canastas"] == 300 and parts["aces_canastas"] == 0


def test_incomplete_mixed_aces_neither_costs_nor_blocks_going_out() -> None:
    st = after_draw("5C 5D 5H 6C", {"K": K7, "Q": Q7, "A": "AC AD 2C"})
    assert score_round(st, None)[0]["incomplete_melds"] == 0
    apply(st, meld("5C 5D 5H"))
    apply(st, discard("6C"))
    assert st.rounds[-1]["reason"] == "went_out" and st.rounds[-1]["went_out"] == 0
    assert st.rounds[-1]["teams"][0]["incomplete_melds"] == 0


def test_a_natural_aces_meld_from_an_earlier_turn_takes_no_wild_card() -> None:
    st = after_draw("AH 2D 4C 5C", {"A": "AC AD AS AS AC", "K": "KC KD KH"})
    assert refusal(st, meld(g("AH 2D", "A"))).code == "meld_wild_forbidden"


def test_an_aces_trio_from_the_pile_stays_natural() -> None:
    hand = "AC AD KC KD KH QC QD QH JC JD JH 2C 5C"
    st = mac_position([hand, "", "", ""], pile="4C AS")
    with_wild = take("AC AD", g("2C", "A"), "KC KD KH", "QC QD QH", "JC JD JH")
    assert refusal(st, with_wild).code == "meld_wild_forbidden"
    apply(st, take("AC AD", "KC KD KH", "QC QD QH", "JC JD JH"))  # 40 + 90 = 130
    assert st.opened[0] and meld_of(st, "A") == sorted(cards("AS AC AD"))
    # still the opening turn, but the aces meld began with the pile's top card
    assert refusal(st, meld(g("2C", "A"))).code == "meld_wild_forbidden"
    assert score_round(st, None)[0]["incomplete_melds"] == -2500  # natural aces, incomplete


# -- dead ranks (R9) -----------------------------------------------------------------------------
def test_the_other_sides_canasta_kills_a_rank_for_both() -> None:
    st = mac_position(
        ["JK 5C 6C 8D", "", "", ""],
        phase="play",
        pile="4H",
        melds=[{"A": "AD AH AS", "K": K7}, {"A": "AC AC AD AH AS 2C 2D"}],
    )
    assert player_view(st, 0)["dead_ranks"] == ["K", "A"]
    # the incomplete natural aces meld can never grow
    assert refusal(st, meld(g("JK", "A"))).code == "meld_dead_rank"
    parts = score_round(st, None)[0]
    assert parts["meld_cards"] == 60 + 70  # it still scores at the end...
    assert parts["incomplete_melds"] == -2500  # ...with its penalty


def test_a_wild_canasta_kills_nothing() -> None:
    st = mac_position(
        ["KS 5C 6C", "", "", ""],
        phase="play",
        pile="4H",
        melds=[{"K": "KC KD KH"}, {"W": "2C 2C 2D 2D 2H 2H 2S"}],
    )
    assert player_view(st, 0)["dead_ranks"] == []
    apply(st, meld("KS"))
    assert meld_of(st, "K") == sorted(cards("KC KD KH KS"))


def test_the_pile_cannot_be_taken_with_a_dead_card_on_top() -> None:
    dead_queens = {"Q": "QC QC QD QD QH 2C 2D"}
    st = mac_position(["QH QS 5C 6C", "", "", ""], pile="4C QS", melds=[dead_queens])
    assert refusal(st, take("QH QS")).code == "pile_dead_card"
    assert not any(isinstance(a, TakePile) for a in legal_actions(st))
    # a dead card is a SWAD card: not onto an empty pile either
    empty = after_draw("QH QS 5C 6C", dead_queens, pile="")
    assert refusal(empty, discard("QH")).code == "discard_swad_on_empty_pile"


# -- the initial meld ----------------------------------------------------------------------------
def test_a_wild_meld_may_be_the_core_with_clean_triple_or_wild_meld() -> None:
    hand = "2C 2D JK JK 4C 5D 6H 8S 9S"  # 20 + 20 + 50 + 50 = 140
    st = after_draw(hand)
    assert refusal(st, meld(g("2C 2D JK JK", "W"))).code == "initial_meld_needs_clean_triple"
    st = after_draw(hand, options={"initial_meld_core": "clean_triple_or_wild_meld"})
    apply(st, meld(g("2C 2D JK JK", "W")))
    assert st.opened[0] and ext_of(st).talon == 4


def test_the_clean_triple_must_stay_clean_to_the_end_of_the_opening_turn() -> None:
    st = after_draw("AC AD AH KC KD 2C QC QD 2D JK 4C 6D 8S")
    apply(st, meld("AC AD AH", g("KC KD 2C", "K"), g("QC QD 2D", "Q")))  # 60 + 40 + 40
    assert st.opened[0]
    # the aces are the only clean triple: a wild card on them is refused this turn
    assert refusal(st, meld(g("JK", "A"))).code == "initial_meld_needs_clean_triple"


OPENING_150 = ("AC AD AH", "KC KD KH", "QC QD QH", "JC JD JH")
OPENING_165 = (*OPENING_150, "5C 5D 5H")
OPENING_180 = (*OPENING_150, "10C 10D 10H")


@pytest.mark.parametrize(
    ("score", "minimum", "groups", "opens"),
    [
        (-500, 125, OPENING_150[:3], False),
        (-500, 125, OPENING_150, True),
        (2995, 125, OPENING_150, True),
        (3000, 155, OPENING_150, False),
        (4995, 155, OPENING_165, True),
        (5000, 180, OPENING_165, False),
        (5000, 180, OPENING_180, True),
    ],
)
def test_initial_meld_minimum_by_score(
    score: int, minimum: int, groups: tuple[str, ...], opens: bool
) -> None:
    hand = " ".join(groups) + " 4C 6D 8S"  # the rest cannot add to the opening
    st = after_draw(hand, scores=[score, 0])
    assert player_view(st, 0)["teams"][0]["initial_meld_minimum"] == minimum
    if opens:
        apply(st, meld(*groups))
        assert st.opened[0]
    else:
        err = refusal(st, meld(*groups))
        assert err.code == "initial_meld_below_minimum" and str(minimum) in err.message


def test_an_opening_spread_over_several_actions_of_one_turn() -> None:
    st = after_draw("AC AD AH KC KD KH QC QD QH JC JD JH 4C 6D")
    apply(st, meld("AC AD AH"))
    assert not st.opened[0] and player_view(st, 0)["talon_due"] == 0
    assert refusal(st, discard("4C")).code == "initial_meld_incomplete"
    apply(st, meld("KC KD KH", "QC QD QH"))  # 120 so far
    assert not st.opened[0]
    apply(st, meld("JC JD JH"))  # 150: open, after a stock draw
    assert st.opened[0] and player_view(st, 0)["talon_due"] == 4
    apply(st, discard("4C"))
    assert len(st.hands[0]) == 1 + 4


def test_a_pile_take_opening_counts_the_pair() -> None:
    # the pair KC KD (20) + AAA (60) + QQQ (30) + JJJ (30) = 140; without the pair: 120
    st = mac_position(["KC KD AC AD AH QC QD QH JC JD JH 5C 6D", "", "", ""], pile="4C KS")
    apply(st, take("KC KD", "AC AD AH", "QC QD QH", "JC JD JH"))
    assert st.opened[0] and meld_of(st, "K") == sorted(cards("KS KC KD"))
    assert sorted(st.hands[0]) == sorted(cards("5C 6D 4C"))  # the rest of the pile
    assert st.pile == [] and player_view(st, 0)["talon_due"] == 0  # no talon after a take


def test_a_pile_take_opening_never_counts_the_top_card() -> None:
    # hand cards: AC AD (40) + KKK (30) + QQQ (30) + 555 (15) = 115; with the top AS: 135
    st = mac_position(["AC AD KC KD KH QC QD QH 5C 5D 5H 8S 9D", "", "", ""], pile="4C AS")
    err = refusal(st, take("AC AD", "KC KD KH", "QC QD QH", "5C 5D 5H"))
    assert err.code == "initial_meld_below_minimum" and "115" in err.message


def test_a_natural_canasta_may_be_completed_in_the_opening_turn_a_mixed_one_not() -> None:
    st = after_draw("KC KC KD KD KH KH KS AC AD AH 4C 5D 6H")
    apply(st, meld(K7, "AC AD AH"))  # 70 + 60 = 130
    assert player_view(st, 0)["teams"][0]["melds"][0]["canasta_kind"] == "natural"
    mixed = after_draw("KC KC KD KD KH 2C 2D AC AD AH 4C 5D 6H")
    err = refusal(mixed, meld("KC KC KD KD KH 2C 2D", "AC AD AH"))
    assert err.code == "initial_meld_mixed_canasta"
    # the same cards open as a six-card meld; the seventh card waits for a later turn
    apply(mixed, meld("KC KC KD KD KH 2C", "AC AD AH"))
    assert mixed.opened[0]


def test_a_wild_canasta_may_be_completed_in_the_opening_turn() -> None:
    st = after_draw("2C 2D 2H 2S JK JK JK AC AD AH 4C 5D 6H")
    apply(st, meld(g("2C 2D 2H 2S JK JK JK", "W"), "AC AD AH"))
    assert st.opened[0]
    assert player_view(st, 0)["teams"][0]["melds"][-1]["canasta_kind"] == "wild"


# -- scoring (R14, R15) --------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("area", "value"),
    [
        ("", 0),
        ("3D", 100),
        ("3D 3H", 300),
        ("3D 3H 3D", 500),
        ("3D 3H 3D 3H", 1000),
        ("3C 3S 3C 3S", 1000),
        ("3D 3H 3C", 300 + 100),
    ],
)
def test_threes_area_value_per_colour(area: str, value: int) -> None:
    assert threes_value(cards(area)) == value


@pytest.mark.parametrize(
    ("melds", "sign"),
    [({"9": "9C 9D 9H"}, -1), ({"K": K7}, 0), ({"K": K7, "Q": Q7}, 1)],
)
def test_threes_count_by_canastas(melds: dict[str, str], sign: int) -> None:
    st = after_draw("5C", melds, threes=["3D 3H 3C", ""])
    assert score_round(st, None)[0]["threes"] == sign * 400


def test_incomplete_sevens_natural_aces_and_wild_meld_charges() -> None:
    st = after_draw("5C", {"7": "7C 7D 7H", "A": "AC AD AH", "W": "2C 2D 2H", "K": K7})
    parts = score_round(st, None)[0]
    assert parts["incomplete_melds"] == -2500 - 2500 - 2000
    assert parts["meld_cards"] == 15 + 60 + 60 + 70
    assert parts["natural_canastas"] == 500


@pytest.mark.parametrize(
    ("wild", "bonus"),
    [
        ("2C 2C 2D 2D 2H 2H 2S", 3000),
        ("JK JK JK JK 2C 2D 2H", 2500),
        ("JK 2C 2C 2D 2D 2H 2H", 2000),
        ("JK JK JK 2C 2D 2H 2S", 2000),
    ],
)
def test_wild_canasta_bonuses(wild: str, bonus: int) -> None:
    st = after_draw("5C", {"W": wild})
    assert score_round(st, None)[0]["wild_canastas"] == bonus


def test_both_partners_are_charged_for_aces_and_sevens_in_hand() -> None:
    st = mac_position(["AC AD AH 5C", "AS", "7C 7D 7H AS AD AH", "7S"], phase="play", pile="4H")
    parts = score_round(st, None)
    assert parts[0]["hand_penalties"] == -1500 - 1500 - 1500
    assert parts[0]["hand_cards"] == -(60 + 5) - (15 + 60)
    assert parts[1]["hand_penalties"] == 0


# -- talons and the turn card (R2, R5) -----------------------------------------------------------
def test_a_talon_refills_an_emptied_hand_and_that_is_not_going_out() -> None:
    st = after_draw("KC KC KD KD KH KH KS QC QC QD QD QH QH QS 10S")
    stock = len(st.stock)
    apply(st, meld(K7, Q7))  # two canastas, one card left
    assert player_view(st, 0)["talon_due"] == 4
    apply(st, discard("10S"))
    assert st.rounds == [] and st.round_no == 1  # not going out (R5)
    assert len(st.hands[0]) == 4 and len(st.stock) == stock - 4
    assert st.pile[-1] == parse_card("10S") and st.turn == 1


def test_melding_the_whole_hand_is_refused_even_with_a_talon_due() -> None:
    st = after_draw("KC KC KD KD KH KH KS QC QC QD QD QH QH QS")
    assert refusal(st, meld(K7, Q7)).code == "go_out_needs_discard"


OPENING_HAND = "KC KD KH AC AD AS QC QD QH JC JD JH 10S 9S"


def test_a_talon_is_taken_while_the_stock_holds_nine() -> None:
    st = mac_position([OPENING_HAND, "", "", ""], stock_top="8H", stock_size=10)
    assert player_view(st, 0)["turn_card_drawn"] is False
    apply(st, Draw(0))
    assert len(st.stock) == 9 and player_view(st, 0)["turn_card_drawn"] is False
    apply(st, meld("KC KD KH", "AC AD AS", "QC QD QH", "JC JD JH"))
    assert player_view(st, 0)["talon_due"] == 4
    apply(st, discard("10S"))
    assert len(st.hands[0]) == 2 + 4 and len(st.stock) == 5


def test_no_talon_once_the_stock_holds_eight() -> None:
    st = mac_position([OPENING_HAND, "", "", ""], stock_top="8H", stock_size=9)
    apply(st, Draw(0))
    assert len(st.stock) == 8 and player_view(st, 0)["turn_card_drawn"] is True
    apply(st, meld("KC KD KH", "AC AD AS", "QC QD QH", "JC JD JH"))
    assert st.opened[0] and player_view(st, 0)["talon_due"] == 0
    apply(st, discard("10S"))
    assert sorted(st.hands[0]) == sorted(cards("9S 8H")) and len(st.stock) == 8


# -- the end of a round --------------------------------------------------------------------------
def test_a_turn_ending_with_the_stock_empty_ends_the_round() -> None:
    st = after_draw("5C 6D 8H", {"K": "KC KD KH"}, stock_size=0)
    apply(st, discard("5C"))
    record = st.rounds[-1]
    assert record["reason"] == "stock_exhausted" and record["went_out"] is None
    assert st.round_no == 2 and len(st.hands[0]) == 13


def test_mac_offers_no_play_on() -> None:
    with pytest.raises(InvalidOptions) as info:
        make_options("mac", {"stock_exhausted": "play_on"})
    assert info.value.option == "stock_exhausted"


def threes_first_deck() -> list[int]:
    """A deck whose top cards are the eight threes: dealt first, one or two to every seat."""
    threes = [c for c in FULL_DECK if IS_THREE[c]]
    return [c for c in FULL_DECK if not IS_THREE[c]] + threes


@pytest.mark.parametrize("reveal", ["at_deal", "on_turn"])
def test_threes_laid_out_at_the_deal(reveal: str) -> None:
    st = GameState(make_options("mac", {"red_three_reveal": reveal}), "deal")
    deal_round(st, None, threes_first_deck())
    in_hands = sum(1 for h in st.hands for c in h if IS_THREE[c])
    in_areas = sum(len(area) for area in st.red_threes)
    assert [len(h) for h in st.hands] == [13] * 4
    if reveal == "at_deal":
        assert (in_hands, in_areas) == (0, 8)
        assert len(st.stock) == 56 - 8
    else:
        assert (in_hands, in_areas) == (8, 0)
        assert len(st.stock) == 56


# -- asking the partner --------------------------------------------------------------------------
def asked_position() -> GameState:
    st = mac_position(
        ["5C 5D 5H 6C", "4D 6D", "8C", "4S"],
        phase="play",
        pile="4H",
        melds=[{"K": K7, "Q": Q7}, {"J": "JC JD JH"}],
        stock_top="9C 8S 10D 10H",
    )
    apply(st, AskPartner(0))
    assert st.to_act == 2
    return st


def test_a_yes_binds_the_player_to_go_out() -> None:
    st = asked_position()
    apply(st, AnswerPartner(2, True))
    assert refusal(st, discard("6C")).code == "must_go_out"  # a way out exists: take it
    apply(st, meld("5C 5D 5H"))
    apply(st, discard("6C"))
    assert st.rounds[-1]["reason"] == "went_out" and st.rounds[-1]["went_out"] == 0


def test_a_no_forbids_going_out_and_a_second_ask_is_refused() -> None:
    st = asked_position()
    apply(st, AnswerPartner(2, False))
    assert refusal(st, meld("5C 5D 5H")).code == "partner_said_no"
    err = refusal(st, AskPartner(0))
    assert err.code == "cannot_ask_partner" and "at most once per round" in err.message
    apply(st, discard("6C"))
    for seat, card in ((1, "4D"), (2, "8C"), (3, "4S")):
        apply(st, Draw(seat))
        apply(st, Discard(seat, parse_card(card)))
    apply(st, Draw(0))  # a later turn of the same round
    err = refusal(st, AskPartner(0))
    assert err.code == "cannot_ask_partner" and "at most once per round" in err.message


# -- going out and discarding --------------------------------------------------------------------
def test_going_out_needs_a_discard() -> None:
    st = after_draw("5C 5D 5H", {"K": K7, "Q": Q7})
    assert refusal(st, meld("5C 5D 5H")).code == "go_out_needs_discard"


@pytest.mark.parametrize(("last", "pile"), [("2C", "4H"), ("JK", "4H"), ("7C", ""), ("AD", "")])
def test_going_out_with_a_wild_or_swad_card(last: str, pile: str) -> None:
    st = after_draw(f"5C 5D 5H {last}", {"K": K7, "Q": Q7}, pile=pile)
    apply(st, meld("5C 5D 5H"))
    apply(st, discard(last))
    assert st.rounds[-1]["reason"] == "went_out" and st.rounds[-1]["went_out"] == 0
    assert st.rounds[-1]["teams"][0]["going_out"] == 100


def test_a_three_is_never_the_going_out_discard() -> None:
    st = after_draw("5C 5D 5H 3C", {"K": K7, "Q": Q7})
    assert refusal(st, meld("5C 5D 5H")).code == "meld_leaves_no_legal_discard"
    last = after_draw("3C", {"K": K7, "Q": Q7})
    assert refusal(last, discard("3C")).code == "discard_three_forbidden"


@pytest.mark.parametrize("special", [{"7": "7C 7D 7H"}, {"A": "AC AD AH"}, {"W": "2C 2D 2H"}])
def test_an_incomplete_special_meld_blocks_going_out(special: dict[str, str]) -> None:
    st = after_draw("5C 5D 5H 6C", {"K": K7, "Q": Q7, **special})
    assert refusal(st, meld("5C 5D 5H")).code == "cannot_go_out_incomplete_special"
    last = after_draw("6C", {"K": K7, "Q": Q7, **special})
    assert refusal(last, discard("6C")).code == "cannot_go_out_incomplete_special"


def test_a_wild_card_is_discarded_only_from_an_all_wild_hand() -> None:
    st = after_draw("2C 5H", {"K": "KC KD KH"})
    assert refusal(st, discard("2C")).code == "discard_wild_forbidden"
    st = after_draw("2C JK", {"K": "KC KD KH"})
    apply(st, discard("2C"))
    assert st.pile[-1] == parse_card("2C") and st.turn == 1


def test_an_all_wild_hand_may_discard_onto_the_empty_pile() -> None:
    st = mac_position(["2C JK", "", "", ""], melds=[{"K": "KC KD KH"}], stock_top="2D")
    apply(st, Draw(0))
    apply(st, discard("JK"))
    assert st.pile == [parse_card("JK")]


def test_a_meld_may_not_leave_only_swad_cards_over_an_empty_pile() -> None:
    st = after_draw("5S 6H 7C 7D", {"5": "5C 5D 5H", "6": "6C 6D 6S"}, pile="")
    assert refusal(st, meld("5S", "6H")).code == "meld_leaves_no_legal_discard"
    apply(st, meld("5S"))  # 6H stays as a legal discard
    apply(st, discard("6H"))
    assert st.pile == [parse_card("6H")]


def test_a_hand_of_swad_cards_after_the_draw_may_meld_and_discard_them() -> None:
    # R6: the hand right after the draw holds no legal discard, so SWAD is lifted this turn
    st = mac_position(["7C 7D 7H AC AD", "", "", ""], melds=[{"K": "KC KD KH"}], stock_top="AH")
    apply(st, Draw(0))
    assert ext_of(st).swad_lifted
    apply(st, meld("7C 7D 7H"))  # leaves only aces: allowed
    apply(st, discard("AC"))
    assert st.pile == [parse_card("AC")]


def test_a_natural_card_after_the_draw_keeps_swad() -> None:
    st = mac_position(
        ["7C 7D 7H AC AD AH 5H 5D", "", "", ""], melds=[{"K": "KC KD KH"}], stock_top="5S"
    )
    apply(st, Draw(0))
    assert not ext_of(st).swad_lifted
    assert refusal(st, meld("5H 5D 5S")).code == "meld_leaves_no_legal_discard"
