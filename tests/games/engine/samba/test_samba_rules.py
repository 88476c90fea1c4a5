"""Scenario tests for Samba and Bolivia: readable hands for the deal, sequences, groups by
target, merges, pile takes, going out and scoring."""

from __future__ import annotations

import pytest

from games.engine import (
    Discard,
    Draw,
    EngineError,
    Meld,
    MeldGroup,
    TakePile,
    apply,
    make_options,
    new_game,
)
from games.engine.cards import RANK_OF, parse_cards
from games.engine.samba.scoring import score_round
from games.engine.state import PHASE_PLAY

from .position import samba_position


def cards(text: str) -> tuple[int, ...]:
    return tuple(parse_cards(text))


def group(text: str, **kw: object) -> MeldGroup:
    cs = cards(text)
    return MeldGroup(RANK_OF[cs[0]], cs, **kw)  # type: ignore[arg-type]


def refused(state: object, action: object) -> str:
    before = state.to_dict()  # type: ignore[attr-defined]
    with pytest.raises(EngineError) as exc:
        apply(state, action)  # type: ignore[arg-type]
    assert state.to_dict() == before  # type: ignore[attr-defined]
    return exc.value.code


@pytest.mark.parametrize("preset", ["samba", "bolivia"])
def test_the_deal_gives_fifteen_cards_each_from_162(preset: str) -> None:
    st = new_game(make_options(preset), "deal")
    assert [len(h) for h in st.hands] == [15] * 4 or st.phase == PHASE_PLAY
    assert len(st.all_cards()) == 162
    assert (
        len(st.stock) + len(st.pile) + sum(map(len, st.red_threes)) + sum(map(len, st.hands)) == 162
    )


def test_draw_two_and_one_from_a_one_card_stock() -> None:
    st = samba_position(["4C 5D 9S"], stock_top="7C 8D")
    apply(st, Draw(0))
    assert len(st.hands[0]) == 5
    st = samba_position(["4C 5D 9S"], stock_top="7C 8D", stock_size=1)
    apply(st, Draw(0))
    assert len(st.hands[0]) == 4 and not st.stock


def test_a_sequence_is_started_extended_at_both_ends_and_closed_at_seven() -> None:
    st = samba_position(
        ["5H 6H 7H 4H 8H 9H 10H JH KC"], melds=[{"A1": "KH KS KD"}], phase=PHASE_PLAY
    )
    apply(st, Meld(0, (group("5H 6H 7H", kind="sequence"),)))
    assert st.melds[0][2] == list(cards("5H 6H 7H"))
    apply(st, Meld(0, (group("4H 8H 9H", kind="sequence", target="A2"),)))
    assert len(st.melds[0][2]) == 6
    apply(st, Meld(0, (group("10H", kind="sequence", target="A2"),)))
    assert refused(st, Meld(0, (group("JH", kind="sequence", target="A2"),))) == "meld_too_large"


def test_sequence_shapes_are_refused() -> None:
    st = samba_position(
        ["QH KH AH 2H 3S 4S 5S 5D 9C 9D"], melds=[{"A1": "KH KS KD"}], phase=PHASE_PLAY
    )
    assert refused(st, Meld(0, (group("QH KH 2H", kind="sequence"),))) == "meld_wild_forbidden"
    assert refused(st, Meld(0, (group("3S 4S 5S", kind="sequence"),))) == "sequence_invalid"
    assert refused(st, Meld(0, (group("4S 5S 5D", kind="sequence"),))) == "sequence_invalid"
    assert refused(st, Meld(0, (group("4S 5S", kind="sequence"),))) == "meld_too_small"
    apply(st, Meld(0, (group("QH KH AH", kind="sequence"),)))  # ace high


def test_several_groups_of_a_rank_need_a_target_and_merge_retires_an_id() -> None:
    st = samba_position(
        ["KC KD 9S 9D 5C"], melds=[{"A1": "KH KS KD", "A2": "KH KS 2D"}], phase=PHASE_PLAY
    )
    assert refused(st, Meld(0, (group("KC"),))) == "meld_target_required"
    apply(st, Meld(0, (group("KC", target="A2"),)))
    apply(st, Meld(0, (), ("A1", "A2")))
    assert sorted(st.melds[0]) == [1] and len(st.melds[0][1]) == 7
    apply(st, Meld(0, (group("9S 9D 2C" if False else "KD"),)))
    st2 = samba_position(
        ["QC QD QS 9S 5C"], melds=[{"A1": "KH KS KD", "A2": "KH KS 2D"}], phase=PHASE_PLAY
    )
    apply(st2, Meld(0, (), ("A1", "A2")))
    apply(st2, Meld(0, (group("QC QD QS"),)))
    assert 3 in st2.melds[0] and 2 not in st2.melds[0]  # A2 is never reused


def test_group_wild_limits() -> None:
    st = samba_position(["9S 9D 2C 2D JK 5C 6C"], melds=[{"A1": "KH KS KD"}], phase=PHASE_PLAY)
    apply(st, Meld(0, (group("9S 9D 2C 2D"),)))  # two naturals, two wild cards (R30)
    assert (
        refused(st, Meld(0, (MeldGroup(RANK_OF[cards("9S")[0]], cards("JK"), target="A2"),)))
        == "meld_too_many_wilds"
    )


def test_pile_take_with_a_pair_onto_a_canasta_and_top_alone_refused_there() -> None:
    st = samba_position(["KC KD 5C 6D 9S"], pile="4C KH", melds=[{"A1": "KH KS KD KC KH KS KD"}])
    assert refused(st, TakePile(0, (), (), "A1")) == "pile_to_canasta_forbidden"
    assert refused(st, TakePile(0, cards("KC 2C" if False else "KC"))) in (
        "pile_needs_two_naturals",
        "pile_cards_do_not_match",
    )
    apply(st, TakePile(0, cards("KC KD"), (), "A1"))
    assert len(st.melds[0][1]) == 10 and st.pile == []


def test_going_out_needs_two_canastas_and_scores_200() -> None:
    st = samba_position(
        ["9S"],
        melds=[{"A1": "KH KS KD KC KH KS KD", "A2": "4H 5H 6H 7H 8H 9H 10H"}],
        red_threes=["3H 3D"],
        phase=PHASE_PLAY,
    )
    apply(st, Discard(0, cards("9S")[0]))
    record = st.rounds[-1]["teams"][0]
    assert record["going_out"] == 200
    assert record["sequence_canastas"] == 1500 and record["natural_canastas"] == 500
    assert record["red_threes"] == 200


def test_red_threes_count_against_without_two_canastas_and_all_six_make_1000() -> None:
    st = samba_position(
        ["9S"], melds=[{"A1": "KH KS KD"}], red_threes=["3H 3D 3H 3D 3H 3D"], phase=PHASE_PLAY
    )
    assert score_round(st, None)[0]["red_threes"] == -1000


def test_bolivia_black_threes_in_hand_cost_100() -> None:
    st = samba_position(["3C 3S 9S"], preset="bolivia", phase=PHASE_PLAY)
    assert score_round(st, None)[0]["hand_cards"] == -210


def test_bolivia_wild_melds_and_a_bolivia_closes_at_seven() -> None:
    st = samba_position(
        ["2C 2D JK 2H 2S JK 2C 2D 9S 9D"],
        preset="bolivia",
        melds=[{"A1": "KH KS KD"}],
        phase=PHASE_PLAY,
    )
    apply(st, Meld(0, (MeldGroup(14, cards("2C 2D JK 2H 2S JK 2C"), "wild"),)))
    assert refused(st, Meld(0, (MeldGroup(14, cards("2D"), "wild", "A2"),))) == "meld_too_large"
    assert score_round(st, None)[0]["wild_canastas"] == 2500


def test_initial_minimum_over_7000_is_150_or_160() -> None:
    from games.engine.samba.melds import initial_minimum

    assert initial_minimum(make_options("samba"), 7000) == 150
    assert initial_minimum(make_options("samba", {"initial_meld_over_7000": 160}), 7000) == 160
    assert initial_minimum(make_options("samba"), 6995) == 120
