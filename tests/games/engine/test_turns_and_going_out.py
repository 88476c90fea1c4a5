"""docs/rules.md sections 3 and 7: discarding, asking the partner, going out, the concealed bonus,
stock exhaustion and a red three as the last stock card."""

from __future__ import annotations

from games.engine import (
    AnswerPartner,
    AskPartner,
    DeclinePile,
    Discard,
    Draw,
    EndRound,
    GameState,
    apply,
    legal_actions,
)

from .helpers import (
    discard,
    group,
    hand,
    held,
    meld,
    meld_text,
    opts,
    position,
    refused,
    stock_only,
    take,
    text,
)

CANASTA = {"K": "KC KC KD KD KH KH KS"}
OPENED = {"A": "AH AS AD"}


def after_draw(
    hand_: str,
    *,
    preset: str = "classic",
    seat: int = 0,
    melds: list[dict[str, str]] | None = None,
    pile: str = "4D",
    scores: list[int] | None = None,
    melded_before: list[bool] | None = None,
    **options: object,
) -> GameState:
    players = opts(preset).players
    hands = [""] * players
    hands[seat] = hand_
    return position(
        opts(preset, **options),
        hands,
        pile=pile,
        turn=seat,
        phase="play",
        melds=melds,
        scores=scores,
        melded_before=melded_before,
    )


# -- turn order and discarding -------------------------------------------------------------------


def test_only_the_seat_to_act_may_act_and_in_the_right_phase() -> None:
    st = position(opts(), ["5H 6H", "7H 8H", "", ""], pile="4D")
    refused(st, Draw(1), "not_your_turn")
    refused(st, discard(0, "5H"), "wrong_phase")
    refused(st, meld(0, "5H 5H 5H"), "wrong_phase")
    apply(st, Draw(0))
    refused(st, Draw(0), "wrong_phase")
    refused(st, discard(0, "9S"), "card_not_in_hand")


def test_a_discard_ends_the_turn_and_play_passes_to_the_left() -> None:
    st = after_draw("5H 6H 7H", melds=[OPENED])
    apply(st, discard(0, "6H"))
    assert st.turn == 1 and st.phase == "draw"
    assert text(st.pile[-1:]) == "6H"


def test_any_card_may_be_discarded_even_a_wild_card_onto_a_wild_card() -> None:
    st = after_draw("JK 6H 7H", pile="4D 2C", melds=[OPENED])
    assert st.pile_freezers == 1
    assert Discard(0, st.hands[0][0]) in legal_actions(st)
    apply(st, discard(0, "JK"))
    assert st.pile_freezers == 2  # the pile stays frozen; both wild cards will be taken with it


def test_red_threes_are_not_discarded_unless_the_option_allows_it() -> None:
    refused(after_draw("3H 6H 7H", melds=[OPENED]), discard(0, "3H"), "red_three_discard")
    st = after_draw("3H 6H 7H", melds=[OPENED], red_three_discard=True)
    assert discard(0, "3H") in legal_actions(st)
    apply(st, discard(0, "3H"))
    assert st.pile_freezers == 1  # a red three freezes the pile and blocks it for the next player
    refused(st, take(1), "pile_blocked")


# -- going out -----------------------------------------------------------------------------------


def test_going_out_by_discarding_the_last_card_needs_a_canasta() -> None:
    st = after_draw("5H 5S 5D 9C", melds=[OPENED])
    refused(
        st, meld(0, "5H 5S 5D"), "cannot_go_out_without_canasta"
    )  # would leave one card to discard
    ok = after_draw("5H 5S 5D 9C", melds=[CANASTA])
    apply(ok, meld(0, "5H 5S 5D"))
    apply(ok, discard(0, "9C"))
    record = ok.rounds[-1]
    assert record["went_out"] == 0 and record["reason"] == "went_out"
    assert record["teams"][0]["going_out"] == 100 and record["teams"][1]["going_out"] == 0


def test_going_out_without_the_canastas_is_refused_with_the_rule_books_code() -> None:
    # RULES.md section 10 names the code: cannot_go_out_without_canasta, whichever way the
    # player would go out (melding the last card, keeping one card to discard, discarding it).
    code = "cannot_go_out_without_canasta"
    refused(after_draw("5H 5S 5D", melds=[OPENED]), meld(0, "5H 5S 5D"), code)
    refused(after_draw("5H 5S 5D 9C", melds=[OPENED]), meld(0, "5H 5S 5D"), code)
    refused(after_draw("9C", melds=[OPENED]), discard(0, "9C"), code)
    two = after_draw("5H 5S 5D", preset="two_player", melds=[CANASTA])
    refused(two, meld(0, "5H 5S 5D"), code)  # two canastas needed in the two_player preset


def test_going_out_by_melding_every_card_needs_a_canasta() -> None:
    refused(
        after_draw("5H 5S 5D", melds=[OPENED]), meld(0, "5H 5S 5D"), "cannot_go_out_without_canasta"
    )
    st = after_draw("5H 5S 5D", melds=[CANASTA])
    apply(st, meld(0, "5H 5S 5D"))
    assert st.rounds[-1]["went_out"] == 0 and st.round_no == 2


def test_the_canasta_may_be_completed_in_the_going_out_turn() -> None:
    st = after_draw("KS 5H 5S 5D 9C", melds=[{"K": "KC KC KD KD KH KH"}])
    apply(st, meld(0, "KS", "5H 5S 5D"))
    apply(st, discard(0, "9C"))
    assert st.rounds[-1]["went_out"] == 0


def test_two_player_needs_two_canastas_unless_the_option_says_one() -> None:
    two = after_draw("5H 5S 5D", preset="two_player", melds=[CANASTA])
    refused(two, meld(0, "5H 5S 5D"), "cannot_go_out_without_canasta")
    both = after_draw(
        "5H 5S 5D", preset="two_player", melds=[dict(CANASTA, Q="QC QC QD QD QH QH QS")]
    )
    apply(both, meld(0, "5H 5S 5D"))
    assert both.rounds[-1]["went_out"] == 0
    one = after_draw("5H 5S 5D", preset="two_player", melds=[CANASTA], canastas_to_go_out=1)
    apply(one, meld(0, "5H 5S 5D"))
    assert one.rounds[-1]["went_out"] == 0


# -- asking the partner --------------------------------------------------------------------------


def test_ask_partner_yes_is_binding() -> None:
    st = after_draw("5H 5S 5D 9C 9D 9S 8C", melds=[CANASTA])
    assert AskPartner(0) in legal_actions(st)
    apply(st, AskPartner(0))
    assert st.phase == "answer" and st.to_act == 2
    refused(st, discard(0, "8C"), "not_your_turn")
    assert legal_actions(st) == [AnswerPartner(2, True), AnswerPartner(2, False)]
    apply(st, AnswerPartner(2, True))
    assert st.to_act == 0 and st.phase == "play" and st.permission == 2
    refused(st, discard(0, "8C"), "must_go_out")
    assert not any(isinstance(a, Discard) for a in legal_actions(st))
    refused(st, AskPartner(0), "cannot_ask_partner")  # once per turn
    apply(st, meld(0, "5H 5S 5D"))
    refused(st, discard(0, "8C"), "must_go_out")  # still able to go out, so still bound to
    apply(st, meld(0, "9C 9D 9S"))
    assert legal_actions(st) == [discard(0, "8C")]
    apply(st, discard(0, "8C"))
    assert st.rounds[-1]["went_out"] == 0


def test_after_a_yes_the_listed_going_out_melds_lead_out() -> None:
    st = after_draw("5H 5S 5D 9C 9D 9S 8C", melds=[CANASTA])
    apply(st, AskPartner(0))
    apply(st, AnswerPartner(2, True))
    while st.round_no == 1:
        actions = legal_actions(st)
        assert actions and not any(isinstance(a, Discard) for a in actions[:-1])
        apply(st, actions[-1])
    assert st.rounds[-1]["went_out"] == 0


def test_after_a_yes_a_meld_that_spoils_going_out_is_refused() -> None:
    # Out is 5H 5S 2C + 9C 9D 9S and a discard; laying the deuce off on the kings would leave a
    # bare pair of fives and no way out, which the binding "yes" forbids.
    st = after_draw("5H 5S 2C 9C 9D 9S 8C", melds=[CANASTA])
    apply(st, AskPartner(0))
    apply(st, AnswerPartner(2, True))
    refused(st, meld(0, group("2C", "K")), "must_go_out")
    apply(st, meld(0, "5H 5S 2C"))


def test_ask_partner_no_forbids_going_out_this_turn() -> None:
    st = after_draw("5H 5S 5D 9C", melds=[CANASTA])
    apply(st, AskPartner(0))
    apply(st, AnswerPartner(2, False))
    assert st.permission == 3
    refused(st, meld(0, "5H 5S 5D"), "partner_said_no")  # would leave only the card to discard
    apply(st, discard(0, "9C"))  # play continues
    assert st.turn == 1 and st.permission == 0


def test_ask_partner_only_after_drawing_before_melding_when_able_to_go_out() -> None:
    st = position(opts(), ["5H 5S 5D", "", "", ""], pile="4D", melds=[CANASTA])
    refused(st, AskPartner(0), "cannot_ask_partner")  # before drawing
    cannot = after_draw("5H 5S 6D 9C", melds=[CANASTA])
    refused(cannot, AskPartner(0), "cannot_ask_partner")  # cannot go out
    melded = after_draw("5H 5S 5D 9C 9D 9S 4C", melds=[CANASTA])
    apply(melded, meld(0, "9C 9D 9S"))
    refused(melded, AskPartner(0), "cannot_ask_partner")  # has melded this turn
    three = after_draw("5H 5S 5D 9C", preset="three_player", melds=[CANASTA])
    refused(three, AskPartner(0), "cannot_ask_partner")  # no partner


def test_a_player_holding_one_card_is_not_asked_into_a_dead_end() -> None:
    # After taking a one-card pile with a pair, one card is left; asking would be pointless and
    # a "no" would leave the player unable to discard or meld.
    st = position(opts(), ["5H 5S 9C", "", "", ""], pile="5D", melds=[CANASTA])
    apply(st, take(0, "5H 5S"))
    assert len(st.hands[0]) == 1
    assert AskPartner(0) not in legal_actions(st)
    refused(st, AskPartner(0), "cannot_ask_partner")
    assert legal_actions(st) == [discard(0, "9C")]


def test_going_out_without_asking_is_legal() -> None:
    st = after_draw("5H 5S 5D 9C", melds=[CANASTA])
    apply(st, meld(0, "5H 5S 5D"))
    apply(st, discard(0, "9C"))
    assert st.rounds[-1]["went_out"] == 0


# -- concealed going out -------------------------------------------------------------------------


def test_concealed_going_out_earns_100_more() -> None:
    st = after_draw("KH KS KD KC KH KS 2C 5H 5S 5D 9C")
    apply(st, meld(0, "KH KS KD KC KH KS 2C", "5H 5S 5D"))
    apply(st, discard(0, "9C"))
    record = st.rounds[-1]
    assert record["concealed"] and record["teams"][0]["concealed"] == 100
    assert record["teams"][0]["going_out"] == 100


def test_not_concealed_after_earlier_melds_of_ones_own() -> None:
    st = after_draw(
        "KS 2C 5H 5S 5D 9C",
        melds=[{"K": "KH KS KD KC KH"}],
        melded_before=[True, False, False, False],
    )
    apply(st, meld(0, "KS 2C", "5H 5S 5D"))
    apply(st, discard(0, "9C"))
    assert not st.rounds[-1]["concealed"] and st.rounds[-1]["teams"][0]["concealed"] == 0


def test_concealed_requires_a_canasta_among_the_new_melds_unless_the_option_is_off() -> None:
    st = after_draw("5H 5S 5D 9C", melds=[CANASTA])  # the canasta is the partner's
    apply(st, meld(0, "5H 5S 5D"))
    apply(st, discard(0, "9C"))
    assert not st.rounds[-1]["concealed"]
    off = after_draw("5H 5S 5D 9C", melds=[CANASTA], concealed_requires_canasta=False)
    apply(off, meld(0, "5H 5S 5D"))
    apply(off, discard(0, "9C"))
    assert off.rounds[-1]["concealed"] and off.rounds[-1]["teams"][0]["concealed"] == 100


# A canasta laid on the partner's meld of its rank joins that meld (one meld per rank per side):
# concealed when the player's own cards, taken alone, make a valid going out with a canasta.
PARTNER_KINGS = {"K": "KC KD KH"}


def test_concealed_when_the_players_own_canasta_joins_the_partners_meld() -> None:
    st = after_draw("KC KD KH KS KS 2C JK 5H 5S 5D 9C", melds=[PARTNER_KINGS])
    apply(st, meld(0, "KC KD KH KS KS 2C JK", "5H 5S 5D"))
    assert meld_text(st, 0, "K") == "2C JK KC KC KD KD KH KH KS KS"
    apply(st, discard(0, "9C"))
    record = st.rounds[-1]
    assert record["concealed"] and record["teams"][0]["concealed"] == 100
    # Two kings that complete the partner's canasta are, taken alone, no meld at all.
    short = after_draw("KC KD 5H 5S 5D 9C", melds=[{"K": "KC KD KH KH KS"}])
    apply(short, meld(0, "KC KD", "5H 5S 5D"))
    apply(short, discard(0, "9C"))
    assert short.rounds[-1]["went_out"] == 0 and not short.rounds[-1]["concealed"]


def test_concealed_own_canasta_laid_in_several_actions_but_not_with_a_lone_lay_off() -> None:
    st = after_draw("KC KD KH KS KS 2C JK 5H 5S 5D 9C", melds=[PARTNER_KINGS])
    apply(st, meld(0, "KC KD KH KS"))
    apply(st, meld(0, "KS 2C JK", "5H 5S 5D"))
    apply(st, discard(0, "9C"))
    assert st.rounds[-1]["concealed"]
    # The same canasta with a lone queen laid off on the partner's queens: not concealed.
    melds = [dict(PARTNER_KINGS, Q="QC QD QH")]
    lone = after_draw("KC KD KH KS KS 2C JK QS 5H 5S 5D 9C", melds=melds)
    apply(lone, meld(0, "KC KD KH KS KS 2C JK", "QS", "5H 5S 5D"))
    apply(lone, discard(0, "9C"))
    assert lone.rounds[-1]["went_out"] == 0 and not lone.rounds[-1]["concealed"]


def test_concealed_melds_must_meet_the_initial_minimum() -> None:
    st = after_draw("5H 5S 5D 5C 5H 5S 2C 6C 6D 6H 9C", scores=[3000, 0])
    refused(st, meld(0, "5H 5S 5D 5C 5H 5S 2C", "6C 6D 6H"), "initial_meld_below_minimum")


# -- stock exhausted -----------------------------------------------------------------------------


def test_stock_exhausted_end_round_ends_when_the_turn_ends_with_an_empty_stock() -> None:
    st = position(opts(), ["5H 6H", "", "", ""], pile="4D", melds=[CANASTA])
    stock_only(st, "9D")
    apply(st, Draw(0))
    apply(st, discard(0, "6H"))
    record = st.rounds[-1]
    assert record["reason"] == "stock_exhausted" and record["went_out"] is None
    assert record["teams"][0]["going_out"] == 0


def test_stock_exhausted_play_on_must_take_a_pile_that_fits_the_teams_meld() -> None:
    st = position(
        opts("hoyle"), ["", "4C 9S", "", ""], pile="4D 8D", melds=[{}, {"8": "8C 8C 8H"}], turn=1
    )
    stock_only(st, "")
    assert DeclinePile(1) not in legal_actions(st)
    refused(st, DeclinePile(1), "must_take_pile")
    apply(st, take(1))
    assert meld_text(st, 1, "8") == "8C 8C 8D 8H"


def test_stock_exhausted_play_on_round_ends_when_the_pile_is_declined() -> None:
    st = position(opts("hoyle"), ["", "8S 8S 9S", "", ""], pile="4D 8D", melds=[{}, OPENED], turn=1)
    stock_only(st, "")
    actions = legal_actions(st)
    assert DeclinePile(1) in actions and take(1, "8S 8S") in actions  # may, need not, take it
    refused(st, Draw(1), "stock_empty")
    apply(st, DeclinePile(1))
    assert st.rounds[-1]["reason"] == "stock_exhausted" and st.round_no == 2


def test_stock_exhausted_play_on_continues_while_the_pile_is_taken() -> None:
    st = position(
        opts("hoyle"), ["", "8S 8S 9S 9H 5C", "", ""], pile="4D 8D", melds=[{}, OPENED], turn=1
    )
    stock_only(st, "")
    apply(st, take(1, "8S 8S"))
    apply(st, discard(1, "9S"))
    assert st.turn == 2 and st.round_no == 1  # play goes on with an empty stock


# -- a red three as the last stock card ---------------------------------------------------------


def test_last_red_three_meld_then_end() -> None:
    st = position(opts(), ["5H 5S 5D 6C 7C", "", "", ""], pile="4D", melds=[OPENED])
    stock_only(st, "3H")
    apply(st, Draw(0))
    assert text(st.red_threes[0]) == "3H" and len(st.hands[0]) == 5  # no replacement
    refused(st, discard(0, "6C"), "cannot_discard")
    assert EndRound(0) in legal_actions(st)
    apply(st, meld(0, "5H 5S 5D"))  # may still meld, then the round ends without a discard
    apply(st, EndRound(0))
    record = st.rounds[-1]
    assert record["reason"] == "last_red_three" and record["went_out"] is None
    assert record["teams"][0]["red_threes"] == 100


def test_last_red_three_end_now() -> None:
    st = position(
        opts(last_red_three="end_now"), ["5H 5S 5D 6C 7C", "", "", ""], pile="4D", melds=[OPENED]
    )
    stock_only(st, "3H")
    apply(st, Draw(0))
    assert st.round_no == 2 and st.rounds[-1]["reason"] == "last_red_three"


def test_end_round_only_after_a_last_red_three() -> None:
    refused(after_draw("5H 6H", melds=[OPENED]), EndRound(0), "wrong_phase")


def test_option_ask_partner_to_go_out_off_removes_the_question() -> None:
    st = after_draw("5H 5S 5D 9C", melds=[CANASTA], ask_partner_to_go_out=False)
    assert AskPartner(0) not in legal_actions(st)
    refused(st, AskPartner(0), "cannot_ask_partner")
    apply(st, meld(0, "5H 5S 5D"))  # going out without asking stays legal
    apply(st, discard(0, "9C"))
    assert st.rounds[-1]["went_out"] == 0


def test_a_red_three_shown_at_turn_start_with_an_empty_stock_ends_like_the_last_card() -> None:
    options = opts("hoyle", red_three_reveal="on_turn")  # play_on keeps play going
    st = position(
        options,
        ["3H 5C 9D", "", "", "6H 7H"],
        pile="4D",
        turn=3,
        phase="play",
        melds=[OPENED, OPENED],
    )
    stock_only(st, "")
    apply(st, discard(3, "6H"))  # seat 0's turn starts: its red three finds no replacement
    assert st.turn == 0 and st.phase == "play" and st.no_discard
    assert "3H" in text(st.red_threes[0]) and not hand(st, 0)["3H"] + hand(st, 0)["3D"]
    assert legal_actions(st)[0] == EndRound(0)
    apply(st, EndRound(0))
    assert st.rounds[-1]["reason"] == "last_red_three"


def test_a_discarded_red_three_is_taken_to_the_takers_red_three_area() -> None:
    options = opts(red_three_discard=True)
    st = position(
        options, ["", "8C 8S 5H", "", ""], pile="9C 3H 8D", turn=1, melds=[OPENED, OPENED]
    )
    assert st.pile_freezers == 1  # the red three inside freezes the pile
    refused(st, take(1, "8C 2C"), "card_not_in_hand")
    apply(st, take(1, "8C 8S"))
    assert text(st.red_threes[1]) == "3H" and held("5H 9C") == hand(st, 1)
