"""docs/rules.md section 8: every scoring component, the end of the game at the target, and ties."""

from __future__ import annotations

from games.engine import Draw, GameState, apply, legal_actions, score_round

from .helpers import discard, meld, opts, position, refused

K_NATURAL = "KC KC KD KD KH KH KS"


def test_every_component_of_a_round_score() -> None:
    st = position(
        opts(),
        ["6H 6S 6D 9D", "JK 2D 7C", "AH 9C 4C 3S 3H", "8C"],
        pile="4D",
        phase="play",
        melds=[{"K": K_NATURAL, "Q": "QC QC QD QD QH 2C JK", "5": "5H 5S 5D"}, {}],
        red_threes=["3H 3D", "3D"],
        melded_before=[True, False, False, False],
    )
    apply(st, meld(0, "6H 6S 6D"))
    apply(st, discard(0, "9D"))
    we, they = st.rounds[-1]["teams"]
    assert we == {
        "meld_cards": 70 + 120 + 15 + 15,  # kings; QC QC QD QD QH + 2C + JK; fives; sixes
        "hand_cards": -(20 + 10 + 5 + 5),  # the partner's AH 9C 4C 3S (black three: 5)
        "natural_canastas": 500,
        "mixed_canastas": 300,
        "wild_canastas": 0,
        "red_threes": 300,  # two shown, one still in the partner's hand counts as shown
        "going_out": 100,
        "concealed": 0,
        "total": 220 - 40 + 500 + 300 + 300 + 100,
    }
    assert they == {
        "meld_cards": 0,
        "hand_cards": -(50 + 20 + 5 + 10),
        "natural_canastas": 0,
        "mixed_canastas": 0,
        "wild_canastas": 0,
        "red_threes": -100,  # no meld at all: the red three counts against the team
        "going_out": 0,
        "concealed": 0,
        "total": -85 - 100,
    }
    assert st.scores == [1380, -185]


def test_all_four_red_threes_score_800() -> None:
    st = position(opts(), ["", "", "", ""], melds=[{"K": "KC KC KD"}], red_threes=["3H 3H 3D 3D"])
    assert score_round(st, None)[0]["red_threes"] == 800
    st = position(opts(), ["", "", "", ""], red_threes=["3H 3H 3D 3D"])
    assert score_round(st, None)[0]["red_threes"] == -800


def test_a_wild_card_on_a_natural_canasta_makes_it_mixed() -> None:
    st = position(opts(), ["", "", "", ""], melds=[{"K": K_NATURAL + " 2H"}])
    parts = score_round(st, None)[0]
    assert parts["natural_canastas"] == 0 and parts["mixed_canastas"] == 300
    assert parts["meld_cards"] == 90


def test_a_meld_of_six_is_not_a_canasta() -> None:
    st = position(opts(), ["", "", "", ""], melds=[{"K": "KC KC KD KD KH KH"}])
    parts = score_round(st, None)[0]
    assert parts["natural_canastas"] == 0 and parts["meld_cards"] == 60


def test_wild_canasta_scores_1000_when_enabled() -> None:
    st = position(opts(wild_canasta=True), ["", "", "", ""], melds=[{"W": "2C 2C 2D 2D 2H JK JK"}])
    parts = score_round(st, None)[0]
    assert parts["wild_canastas"] == 1000 and parts["meld_cards"] == 5 * 20 + 2 * 50
    assert parts["mixed_canastas"] == 0 and parts["natural_canastas"] == 0


def test_going_out_concealed_scores_100_plus_100() -> None:
    st = position(opts(), ["KH KS KD KC KH KS 2C 5H 5S 5D 9C", "", "", ""], phase="play")
    apply(st, meld(0, "KH KS KD KC KH KS 2C", "5H 5S 5D"))
    apply(st, discard(0, "9C"))
    parts = st.rounds[-1]["teams"][0]
    assert parts["going_out"] == 100 and parts["concealed"] == 100
    assert parts["mixed_canastas"] == 300 and parts["meld_cards"] == 60 + 20 + 15


def test_red_three_in_hand_is_no_hand_penalty() -> None:
    st = position(opts(), ["3H 5C", "", "", ""], melds=[{"K": "KC KC KD"}])
    parts = score_round(st, None)[0]
    assert parts["hand_cards"] == -5 and parts["red_threes"] == 100


# -- the end of the game -------------------------------------------------------------------------


def going_out(scores: list[int], preset: str = "classic") -> GameState:
    """Seat 0 goes out: its side scores 70 + 500 + 15 + 100 = 685, the other side 30."""
    options = opts(preset)
    hands = ["5H 5S 5D 9C"] + [""] * (options.players - 1)
    melds = [{"K": K_NATURAL}, {"Q": "QC QC QD"}, {"J": "JC JC JD"}][: options.teams]
    st = position(
        options,
        hands,
        pile="4D",
        phase="play",
        melds=melds,
        scores=scores,
        melded_before=[True] + [False] * (options.players - 1),
    )
    apply(st, meld(0, "5H 5S 5D"))
    apply(st, discard(0, "9C"))
    assert [t["total"] for t in st.rounds[-1]["teams"]] == [685] + [30] * (options.teams - 1)
    return st


def test_the_game_ends_when_a_side_reaches_the_target() -> None:
    st = going_out([4400, 1000])
    assert st.scores == [5085, 1030]
    assert st.game_over and st.winner == 0 and st.phase == "game_over"
    assert legal_actions(st) == []
    refused(st, Draw(st.to_act), "game_over")


def test_below_the_target_a_new_round_is_dealt() -> None:
    st = going_out([4000, 1000])
    assert not st.game_over and st.round_no == 2 and st.scores == [4685, 1030]


def test_both_sides_over_the_target_the_higher_total_wins() -> None:
    st = going_out([4900, 5000])
    assert st.scores == [5585, 5030] and st.winner == 0


def test_a_tie_at_or_above_the_target_plays_on() -> None:
    st = going_out([4400, 5055])
    assert st.scores == [5085, 5085]
    assert not st.game_over and st.winner is None and st.round_no == 2


def test_three_player_tie_for_the_lead_plays_on() -> None:
    st = going_out([4400, 5055, 0], preset="three_player")
    assert st.scores == [5085, 5085, 30] and not st.game_over and st.round_no == 2


def test_three_player_single_leader_over_the_target_wins() -> None:
    st = going_out([4400, 5000, 0], preset="three_player")
    assert st.game_over and st.winner == 0


def test_the_target_score_option_is_honoured() -> None:
    options = opts(target_score=1000)
    hands = ["5H 5S 5D 9C", "", "", ""]
    st = position(
        options,
        hands,
        pile="4D",
        phase="play",
        scores=[400, 0],
        melds=[{"K": K_NATURAL}, {}],
        melded_before=[True, False, False, False],
    )
    apply(st, meld(0, "5H 5S 5D"))
    apply(st, discard(0, "9C"))
    assert st.scores[0] == 1085 and st.game_over and st.winner == 0
