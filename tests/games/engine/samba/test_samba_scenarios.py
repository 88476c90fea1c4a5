"""Scenario tests for Samba and Bolivia, one rule each: the first meld over several actions, the
discard pile (blocked, frozen, laying the top card off, pairs, sequences), black threes, the end
of the stock, the last red three, asking the partner, the deal, Bolivia's wild melds and
escaleras, the minimum table, merges and ids, going out and the round score table."""

from __future__ import annotations

import pytest

from games.engine import (
    AnswerPartner,
    AskPartner,
    DeclinePile,
    Discard,
    Draw,
    EndRound,
    EngineError,
    GameState,
    Meld,
    MeldGroup,
    TakePile,
    apply,
    legal_actions,
    make_options,
)
from games.engine.actions import Action
from games.engine.cards import FULL_DECK_162, RANK_OF, WILD_RANK, parse_cards
from games.engine.samba.melds import initial_minimum
from games.engine.samba.play import deal_round
from games.engine.samba.scoring import score_round
from games.engine.state import PHASE_PLAY

from .position import samba_position

# Two canastas of side A: seven kings and a samba of hearts.
TWO_CANASTAS = {"A1": "KH KS KD KC KH KS KD", "A2": "4H 5H 6H 7H 8H 9H 10H"}


def cards(text: str) -> tuple[int, ...]:
    return tuple(parse_cards(text))


def card(text: str) -> int:
    return parse_cards(text)[0]


def group(text: str, **kw: object) -> MeldGroup:
    cs = cards(text)
    return MeldGroup(RANK_OF[cs[0]], cs, **kw)  # type: ignore[arg-type]


def wild(text: str, **kw: object) -> MeldGroup:
    return MeldGroup(WILD_RANK, cards(text), "wild", **kw)  # type: ignore[arg-type]


def refused(st: GameState, action: object, code: str) -> EngineError:
    before = st.to_dict()
    with pytest.raises(EngineError) as exc:
        apply(st, action)  # type: ignore[arg-type]
    assert exc.value.code == code, exc.value
    assert st.to_dict() == before
    return exc.value


def all_listed_apply(st: GameState) -> list[Action]:
    listed = legal_actions(st)
    for action in listed:
        apply(st.clone(), action)
    return listed


# -- the first meld over several actions ---------------------------------------------------------
def test_a_first_meld_below_the_minimum_is_completed_later_in_the_turn() -> None:
    st = samba_position(["KC KD KS QC QD QS 5C 9D"], phase=PHASE_PLAY)
    apply(st, Meld(0, (group("KC KD KS"),)))  # 30 of 50: the queens can complete it
    assert not st.opened[0] and st.melds[0] == {1: list(cards("KC KD KS"))}
    refused(st, Discard(0, card("9D")), "initial_meld_incomplete")
    listed = all_listed_apply(st)
    assert not any(isinstance(a, Discard) for a in listed)
    assert Meld(0, (group("QC QD QS", new=True),)) in listed
    apply(st, Meld(0, (group("QC QD QS"),)))
    assert st.opened[0]
    apply(st, Discard(0, card("9D")))
    assert st.turn == 1


def test_a_first_meld_below_the_minimum_that_nothing_can_complete_is_refused() -> None:
    st = samba_position(["KC KD KS 5C 9D 4H"], phase=PHASE_PLAY)
    error = refused(st, Meld(0, (group("KC KD KS"),)), "initial_meld_below_minimum")
    assert "50" in error.message


def test_completing_a_first_meld_must_keep_a_card_to_discard_and_one_more() -> None:
    # After the kings, the queens would leave one card: not enough to end the turn.
    st = samba_position(["KC KD KS QC QD QS 9D"], phase=PHASE_PLAY)
    refused(st, Meld(0, (group("KC KD KS"),)), "initial_meld_below_minimum")
    st = samba_position(["KC KD KS QC QD QS 9D 4C"], phase=PHASE_PLAY)
    apply(st, Meld(0, (group("KC KD KS"),)))  # one card more: now the queens complete it
    assert not st.opened[0]


def test_a_first_meld_laid_in_parts_counts_lay_offs_and_sequences() -> None:
    st = samba_position(["KC KD KS KH 9H 10H JH 4C 5D"], phase=PHASE_PLAY)
    apply(st, Meld(0, (group("KC KD KS"),)))
    apply(st, Meld(0, (group("KH", target="A1"),)))  # 40 of 50
    assert not st.opened[0]
    apply(st, Meld(0, (group("9H 10H JH", kind="sequence"),)))
    assert st.opened[0]


def test_the_pile_must_reach_the_minimum_by_itself() -> None:
    hand = "5C 5D KC KD KS QC QD QS 9S"
    st = samba_position([hand], pile="4C 5H")
    error = refused(st, TakePile(0, cards("5C 5D")), "initial_meld_below_minimum")
    assert "top card" in error.message
    apply(st, TakePile(0, cards("5C 5D"), (group("KC KD KS"), group("QC QD QS"))))
    assert st.opened[0] and len(st.melds[0]) == 3


# -- the discard pile ----------------------------------------------------------------------------
@pytest.mark.parametrize("top", ["2D", "JK", "3H", "3C"])
def test_a_wild_card_or_a_three_on_top_blocks_the_pile(top: str) -> None:
    st = samba_position(["9C 9D 2S"], pile=f"4C {top}", melds=[{"A1": "9H 9S 9C"}])
    refused(st, TakePile(0, ()), "pile_blocked")
    assert not any(isinstance(a, TakePile) for a in all_listed_apply(st))


def test_a_wild_card_inside_freezes_the_pile() -> None:
    st = samba_position(["9C 9D 2S 4D"], pile="4C 2D 9H", melds=[{"A1": "9H 9S 9C"}])
    refused(st, TakePile(0, (), (), "A1"), "pile_frozen")
    refused(st, TakePile(0, cards("9C 2S")), "pile_frozen")
    apply(st, TakePile(0, cards("9C 9D")))
    assert st.melds[0][2] == list(cards("9H 9C 9D")) and st.pile_freezers == 0


def test_the_pile_is_frozen_for_a_side_that_has_not_opened() -> None:
    st = samba_position(["9C 2S KC KD KS QC"], pile="4C 9H", melds=[{}, {"B1": "9H 9S 9C"}])
    refused(st, TakePile(0, ()), "pile_frozen")
    refused(st, TakePile(0, cards("9C 2S"), (group("KC KD KS"),)), "pile_frozen")


def test_the_top_card_alone_needs_a_meld_to_go_to() -> None:
    st = samba_position(["9C 4D 5D"], pile="4C 9H", melds=[{"A1": "KH KS KD"}])
    refused(st, TakePile(0, ()), "pile_no_meld_to_lay_off")


@pytest.mark.parametrize("top", ["4H", "8H"])
def test_the_top_card_alone_extends_a_sequence_at_either_end(top: str) -> None:
    st = samba_position(["9C 4D"], pile=f"4C {top}", melds=[{"A1": "5H 6H 7H"}])
    apply(st, TakePile(0, ()))  # the only meld that takes it
    assert sorted(st.melds[0][1]) == sorted(cards(f"5H 6H 7H {top}"))
    assert st.hands[0] == list(cards("9C 4D 4C"))


def test_the_top_card_alone_onto_a_samba_is_too_large() -> None:
    st = samba_position(["9C 4D"], pile="4C JH", melds=[{"A1": "4H 5H 6H 7H 8H 9H 10H"}])
    refused(st, TakePile(0, (), (), "A1"), "meld_too_large")


def test_two_groups_of_the_top_cards_rank_need_a_target() -> None:
    st = samba_position(["9C 4D"], pile="4C KH", melds=[{"A1": "KH KS KD", "A2": "KC KS 2D"}])
    refused(st, TakePile(0, ()), "meld_target_required")
    apply(st, TakePile(0, (), (), "A2"))
    assert len(st.melds[0][2]) == 4


def test_a_natural_pair_joins_a_group_canasta_or_starts_a_new_group() -> None:
    canasta = "KH KS KD KC KH KS KD"
    st = samba_position(["KC KD 5C 6D"], pile="4C KH", melds=[{"A1": canasta}])
    refused(st, TakePile(0, (), (), "A1"), "pile_to_canasta_forbidden")
    refused(st, TakePile(0, ()), "pile_to_canasta_forbidden")
    apply(st.clone(), TakePile(0, cards("KC KD"), (), "A1"))  # R23
    apply(st, TakePile(0, cards("KC KD")))
    assert st.melds[0][2] == list(cards("KH KC KD"))


def test_one_natural_and_a_wild_card_do_not_take_the_pile() -> None:
    st = samba_position(["9C 2S 4D"], pile="4C 9H", melds=[{"A1": "KH KS KD"}])
    refused(st, TakePile(0, cards("9C 2S")), "pile_needs_two_naturals")
    refused(st, TakePile(0, cards("9C")), "pile_needs_two_naturals")


def test_the_top_card_never_starts_a_sequence_nor_joins_one_with_hand_cards() -> None:
    st = samba_position(["8H 9H 10H 4D"], pile="4C 7H", melds=[{"A1": "4H 5H 6H"}])
    refused(st, TakePile(0, cards("8H 9H")), "pile_sequence_forbidden")
    refused(st, TakePile(0, cards("8H"), (), "A1"), "pile_sequence_forbidden")
    apply(st, TakePile(0, (), (), "A1"))  # alone it may extend A1


def test_hand_cards_of_another_rank_do_not_match_the_top_card() -> None:
    st = samba_position(["QC QD 4D"], pile="4C 9H", melds=[{"A1": "KH KS KD"}])
    refused(st, TakePile(0, cards("QC QD")), "pile_cards_do_not_match")


def test_several_naturals_of_the_rank_take_the_pile() -> None:
    st = samba_position(["9C 9D 9S 4D"], pile="4C 9H", melds=[{"A1": "KH KS KD"}])
    apply(st, TakePile(0, cards("9C 9D 9S")))
    assert len(st.melds[0][2]) == 4


# -- black threes, going out ---------------------------------------------------------------------
def test_black_threes_go_out_as_three_or_more_without_wild_cards() -> None:
    st = samba_position(["3C 3S 3C"], melds=[TWO_CANASTAS], phase=PHASE_PLAY)
    apply(st, Meld(0, (group("3C 3S 3C"),)))
    assert st.rounds[-1]["went_out"] == 0 and st.rounds[-1]["teams"][0]["going_out"] == 200


def test_black_threes_are_refused_otherwise() -> None:
    st = samba_position(["3C 3S 2D 9C 9D"], melds=[TWO_CANASTAS], phase=PHASE_PLAY)
    refused(st, Meld(0, (group("3C 3S 2D"),)), "meld_invalid_card")
    refused(st, Meld(0, (group("3C 3S"),)), "meld_too_small")
    st = samba_position(["3C 3S 3C 9C 9D"], melds=[TWO_CANASTAS], phase=PHASE_PLAY)
    refused(st, Meld(0, (group("3C 3S 3C"),)), "meld_black_threes_only_going_out")


def test_going_out_by_melding_the_whole_hand_has_no_concealed_bonus() -> None:
    st = samba_position(["QC QD QS KC"], melds=[TWO_CANASTAS], phase=PHASE_PLAY)
    apply(st, Meld(0, (group("QC QD QS"), group("KC", target="A1"))))
    record = st.rounds[-1]
    assert record["went_out"] == 0 and record["reason"] == "went_out"
    assert record["teams"][0]["concealed"] == 0 and record["teams"][0]["going_out"] == 200


def test_going_out_needs_two_canastas() -> None:
    st = samba_position(["QC QD QS"], melds=[{"A1": TWO_CANASTAS["A1"]}], phase=PHASE_PLAY)
    refused(st, Meld(0, (group("QC QD QS"),)), "cannot_go_out_without_canasta")


def test_bolivia_going_out_needs_an_escalera() -> None:
    melds = {"A1": "KH KS KD KC KH KS KD", "A2": "QH QS QD QC QH QS 2D"}
    st = samba_position(["9C 9D 9S"], preset="bolivia", melds=[melds], phase=PHASE_PLAY)
    refused(st, Meld(0, (group("9C 9D 9S"),)), "cannot_go_out_without_escalera")
    st = samba_position(["9C 9D 9S"], preset="bolivia", melds=[TWO_CANASTAS], phase=PHASE_PLAY)
    apply(st, Meld(0, (group("9C 9D 9S"),)))
    assert st.rounds[-1]["teams"][0]["sequence_canastas"] == 1500


# -- the end of the stock ------------------------------------------------------------------------
def test_an_empty_stock_ends_the_round_after_the_discard() -> None:
    st = samba_position(["9C 4D 5S"], melds=[{"A1": "KH KS KD"}], stock_top="7C 8D")
    st.stock = st.stock[-2:]  # the other cards leave play for this test
    apply(st, Draw(0))
    apply(st, Discard(0, card("9C")))
    assert st.rounds[-1]["reason"] == "stock_exhausted" and st.rounds[-1]["went_out"] is None


def test_play_on_obliges_a_player_to_take_a_top_card_that_fits() -> None:
    overrides = {"stock_exhausted": "play_on"}
    melds = [{"A1": "KH KS KD"}]
    st = samba_position(
        ["9C 4D"], overrides=overrides, melds=melds, pile="KC", stock_size=0, rest_to=3
    )
    assert not st.stock
    refused(st, DeclinePile(0), "must_take_pile")
    listed = all_listed_apply(st)
    assert DeclinePile(0) not in listed and TakePile(0, (), (), "A1") in listed
    st = samba_position(
        ["9C 4D"], overrides=overrides, melds=melds, pile="QC", stock_size=0, rest_to=3
    )
    apply(st, DeclinePile(0))
    assert st.rounds[-1]["reason"] == "stock_exhausted"


@pytest.mark.parametrize("mode", ["meld_then_end", "end_now"])
def test_a_red_three_as_the_last_stock_card(mode: str) -> None:
    st = samba_position(
        ["9C 9D 9S 4D"],
        overrides={"last_red_three": mode},
        melds=[{"A1": "KH KS KD"}],
        stock_top="3H",
        stock_size=1,
    )
    apply(st, Draw(0))
    if mode == "end_now":
        assert st.rounds[-1]["reason"] == "last_red_three"
        return
    assert st.no_discard and not st.rounds
    listed = all_listed_apply(st)
    assert EndRound(0) in listed and not any(isinstance(a, Discard) for a in listed)
    apply(st, Meld(0, (group("9C 9D 9S"),)))
    apply(st, EndRound(0))
    assert st.rounds[-1]["reason"] == "last_red_three"
    assert st.rounds[-1]["teams"][0]["meld_cards"] == 60


# -- asking the partner --------------------------------------------------------------------------
def asked(allow: bool) -> GameState:
    st = samba_position(["QC QD QS KC 9S"], melds=[TWO_CANASTAS], phase=PHASE_PLAY)
    apply(st, AskPartner(0))
    assert st.to_act == 2
    apply(st, AnswerPartner(2, allow))
    return st


GOING_OUT = Meld(0, (group("QC QD QS"), group("KC", target="A1")))


def test_a_yes_obliges_the_player_to_go_out() -> None:
    st = asked(True)
    refused(st, Discard(0, card("9S")), "must_go_out")
    listed = all_listed_apply(st)
    assert not any(isinstance(a, Discard) for a in listed)
    assert any(isinstance(a, Meld) and sum(len(g.cards) for g in a.melds) == 4 for a in listed)
    apply(st, GOING_OUT)
    apply(st, Discard(0, card("9S")))
    assert st.rounds[-1]["went_out"] == 0


def test_a_no_forbids_going_out_this_turn() -> None:
    st = asked(False)
    refused(st, GOING_OUT, "partner_said_no")
    apply(st, Meld(0, (group("QC QD QS"),)))
    refused(st, Meld(0, (group("KC", target="A1"),)), "partner_said_no")
    apply(st, Discard(0, card("9S")))
    assert not st.rounds and st.turn == 1


# -- the deal ------------------------------------------------------------------------------------
def dealt(upcards: str) -> GameState:
    """A deal whose hands hold no red three and whose upcards are ``upcards`` in order."""
    shown = parse_cards(upcards)
    rest = list(FULL_DECK_162)
    for c in shown:
        rest.remove(c)
    plain = [c for c in rest if RANK_OF[c] not in (0, 12, 13)]  # no three, no wild card
    hands = plain[:60]
    for c in hands:
        rest.remove(c)
    deck = rest + shown[::-1] + hands  # the top of the stock is the end of the list
    st = GameState(make_options("samba"), "deal")
    deal_round(st, None, deck)
    return st


def test_the_upcard_leaves_101_cards_in_the_stock() -> None:
    st = dealt("9C")
    assert [len(h) for h in st.hands] == [15] * 4
    assert st.pile == [card("9C")] and len(st.stock) == 101 and st.pile_freezers == 0


def test_wild_and_red_three_upcards_are_covered_and_freeze_the_pile() -> None:
    st = dealt("2C 3H JK 9C")
    assert st.pile == list(cards("2C 3H JK 9C")) and st.pile_freezers == 3
    assert len(st.stock) == 98


# -- Bolivia -------------------------------------------------------------------------------------
def test_bolivia_a_wild_top_card_blocks_the_pile_even_for_wild_cards() -> None:
    st = samba_position(["2S 2H JK 9D"], preset="bolivia", pile="9C 2D", melds=[{"A1": "2C JK 2H"}])
    refused(st, TakePile(0, ()), "pile_blocked")
    refused(st, TakePile(0, cards("2S 2H")), "pile_blocked")


def test_bolivia_several_wild_melds_need_a_target() -> None:
    melds = [{"A1": "2C 2D JK", "A2": "2H 2S 2C"}]
    st = samba_position(["2D JK 2S 2H 9D 9C"], preset="bolivia", melds=melds, phase=PHASE_PLAY)
    refused(st, Meld(0, (wild("2D"),)), "meld_target_required")
    apply(st, Meld(0, (wild("2D", target="A2"),)))
    assert len(st.melds[0][2]) == 4
    apply(st, Meld(0, (wild("JK 2S 2H", new=True),)))
    assert st.melds[0][3] == list(cards("JK 2S 2H"))


# -- the minimum table ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("score", "minimum"),
    [
        (-5, 15),
        (0, 50),
        (1495, 50),
        (1500, 90),
        (2995, 90),
        (3000, 120),
        (6995, 120),
        (7000, 150),
        (14000, 150),
    ],
)
def test_the_initial_minimum_at_every_band(score: int, minimum: int) -> None:
    assert initial_minimum(make_options("samba"), score) == minimum
    assert initial_minimum(make_options("bolivia"), score) == minimum


def test_the_minimum_over_7000_may_be_160() -> None:
    opts = make_options("samba", {"initial_meld_over_7000": 160})
    assert initial_minimum(opts, 7000) == 160 and initial_minimum(opts, 6995) == 120


def test_the_minimum_follows_the_sides_score() -> None:
    # Aces and kings are worth 90: enough at 1500, not at 3000 (120) where the queens must
    # follow in the same turn.
    aces_kings = (group("AC AD AS"), group("KC KD KS"))
    st = samba_position(["AC AD AS KC KD KS 5C 9D"], scores=[1500, 0], phase=PHASE_PLAY)
    apply(st, Meld(0, aces_kings))
    assert st.opened[0]
    st = samba_position(["AC AD AS KC KD KS 5C 9D"], scores=[3000, 0], phase=PHASE_PLAY)
    refused(st, Meld(0, aces_kings), "initial_meld_below_minimum")
    st = samba_position(["AC AD AS KC KD KS QC QD QS 5C 9D"], scores=[3000, 0], phase=PHASE_PLAY)
    apply(st, Meld(0, aces_kings))
    assert not st.opened[0]
    refused(st, Discard(0, card("9D")), "initial_meld_incomplete")
    apply(st, Meld(0, (group("QC QD QS"),)))
    assert st.opened[0]


# -- merges, ids, sequences ----------------------------------------------------------------------
def test_a_merged_id_is_retired_and_never_reused() -> None:
    st = samba_position(
        ["KC QC QD QS 9S 5C"], melds=[{"A1": "KH KS KD", "A2": "KH KS 2D"}], phase=PHASE_PLAY
    )
    apply(st, Meld(0, (), ("A1", "A2")))
    assert sorted(st.melds[0]) == [1] and len(st.melds[0][1]) == 6
    refused(st, Meld(0, (group("KC", target="A2"),)), "meld_target_invalid")
    apply(st, Meld(0, (group("QC QD QS"),)))
    assert sorted(st.melds[0]) == [1, 3]


def test_a_sequence_grows_by_several_cards_in_one_action() -> None:
    st = samba_position(["4H 8H 9H 10H 5C 5D"], melds=[{"A1": "5H 6H 7H"}], phase=PHASE_PLAY)
    apply(st, Meld(0, (group("4H 8H 9H 10H", kind="sequence", target="A1"),)))
    assert len(st.melds[0][1]) == 7


def test_sequences_are_never_merged() -> None:
    melds = [{"A1": "4H 5H 6H", "A2": "8H 9H 10H"}]
    st = samba_position(["7H 5C 5D 9S"], melds=melds, phase=PHASE_PLAY)
    refused(st, Meld(0, (), ("A1", "A2")), "meld_merge_invalid")
    apply(st, Meld(0, (group("7H", kind="sequence", target="A1"),)))
    assert sorted(st.melds[0]) == [1, 2] and len(st.melds[0][2]) == 3
    refused(st, Meld(0, (group("8H 9H 10H", kind="sequence", target="A1"),)), "card_not_in_hand")


# -- the round score table -----------------------------------------------------------------------
def test_the_round_score_table_for_a_full_example() -> None:
    st = samba_position(
        ["9S", "QC JK", "5C", "3C 4D"],
        melds=[
            {"A1": "KH KS KD KC KH KS KD", "A2": "4H 5H 6H 7H 8H 9H 10H", "A3": "AC AD 2S"},
            {"B1": "QH QS QD QC QH QS 2D", "B2": "8C 8D 8S"},
        ],
        red_threes=["3H 3D", "3H"],
        phase=PHASE_PLAY,
    )
    apply(st, Discard(0, card("9S")))
    a, b = st.rounds[-1]["teams"]
    assert a == {
        "meld_cards": 70 + 50 + 60,
        "hand_cards": -5,
        "natural_canastas": 500,
        "mixed_canastas": 0,
        "sequence_canastas": 1500,
        "wild_canastas": 0,
        "red_threes": 200,
        "going_out": 200,
        "concealed": 0,
        "total": 180 - 5 + 500 + 1500 + 200 + 200,
    }
    assert b == {
        "meld_cards": 80 + 30,
        "hand_cards": -(10 + 50 + 5 + 5),
        "natural_canastas": 0,
        "mixed_canastas": 300,
        "sequence_canastas": 0,
        "wild_canastas": 0,
        "red_threes": -100,  # one canasta only: the red three counts against (R29)
        "going_out": 0,
        "concealed": 0,
        "total": 110 - 70 + 300 - 100,
    }
    assert st.scores == [a["total"], b["total"]]


def test_bolivia_scores_black_threes_in_hand_at_100_and_a_bolivia_at_2500() -> None:
    st = samba_position(
        ["9S", "3C 3S"],
        preset="bolivia",
        melds=[TWO_CANASTAS | {"A3": "2C 2D JK 2H 2S JK 2C"}],
        phase=PHASE_PLAY,
    )
    parts = score_round(st, 0)
    assert parts[0]["wild_canastas"] == 2500 and parts[1]["hand_cards"] == -200
