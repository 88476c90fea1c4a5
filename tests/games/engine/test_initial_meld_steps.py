"""docs/rules.md "The initial meld": a side's first melds may be laid in several meld actions
in one turn. A meld below the minimum is accepted when the cards left in hand can complete it
this turn (keeping the turn able to end); until the minimum is met the turn cannot end, and the
legal actions list what completes it. A pile take must reach the minimum by itself."""

from __future__ import annotations

from games.engine import Discard, EndRound, GameState, Meld, apply, legal_actions

from .helpers import discard, hand, held, meld, meld_text, opts, position, refused, take


def after_draw(hand_: str, *, scores: list[int] | None = None, **options: object) -> GameState:
    return position(
        opts("classic", **options), [hand_, "", "", ""], pile="4D", phase="play", scores=scores
    )


def completes(st: GameState, action: Meld) -> bool:
    trial = st.clone()
    apply(trial, action)
    return trial.opened[0]


def test_a_first_meld_below_the_minimum_waits_for_the_rest_of_the_turn() -> None:
    st = after_draw("KH KS KD QH QS QD 6C 7C 9S")
    apply(st, meld(0, "KH KS KD"))  # 30 of 50
    assert not st.opened[0] and meld_text(st, 0, "K") == "KD KH KS"
    error = refused(st, discard(0, "9S"), "initial_meld_incomplete")
    assert "30 of the 50" in error.message
    listed = legal_actions(st)
    assert not any(isinstance(a, Discard) for a in listed)
    assert meld(0, "QH QS QD") in listed and completes(st, meld(0, "QH QS QD"))
    apply(st, meld(0, "QH QS QD"))
    assert st.opened[0]
    assert discard(0, "9S") in legal_actions(st)
    apply(st, discard(0, "9S"))
    assert st.turn == 1


def test_cards_laid_off_on_this_turns_melds_count_toward_the_minimum() -> None:
    st = after_draw("KH KS KD KC KH 6C 7D 9S")
    apply(st, meld(0, "KH KS KD"))  # 30
    apply(st, meld(0, "KC"))  # 40: the last king still completes it
    refused(st, discard(0, "9S"), "initial_meld_incomplete")
    assert [a for a in legal_actions(st) if isinstance(a, Meld)] == [meld(0, "KH")]
    apply(st, meld(0, "KH"))  # 50
    assert st.opened[0]


def test_a_first_meld_is_refused_when_the_hand_cannot_complete_it() -> None:
    # cardgames.io's 1100 example: the fours with the deuce are 35 and nothing else melds.
    st = after_draw("AH AC 2D 5C 6H 7H 8C 4C 4C 4D JC KD", scores=[1100, 0])
    error = refused(st, meld(0, "4C 4C 4D 2D"), "initial_meld_below_minimum")
    assert "worth 35" in error.message and "50" in error.message
    assert "cannot make up the rest" in error.message


def test_a_first_meld_is_refused_when_completing_it_would_leave_no_card_to_keep() -> None:
    # Kings then queens make 60, but would leave one card to discard without a canasta.
    st = after_draw("KH KS KD QH QS QD 6C")
    error = refused(st, meld(0, "KH KS KD"), "initial_meld_below_minimum")
    assert "keeping a card to discard" in error.message
    refused(st, meld(0, "KH KS KD", "QH QS QD"), "cannot_go_out_without_canasta")
    apply(after_draw("KH KS KD QH QS QD 6C 7C"), meld(0, "KH KS KD"))  # one card more: accepted


def test_going_out_may_complete_the_minimum() -> None:
    # 1500 points: 90 needed. The fives' canasta is 50; the aces after it go out (110).
    st = after_draw("5H 5S 5D 5C 5H 5S 2C AH AS AD 8C", scores=[1500, 0])
    apply(st, meld(0, "5H 5S 5D 5C 5H 5S 2C"))
    refused(st, discard(0, "8C"), "initial_meld_incomplete")
    listed = [a for a in legal_actions(st) if isinstance(a, Meld)]
    assert meld(0, "AH AS AD") in listed
    apply(st, meld(0, "AH AS AD"))
    apply(st, discard(0, "8C"))
    record = st.rounds[-1]
    assert record["went_out"] == 0 and record["concealed"]  # one turn, a canasta of its own


def test_the_turn_without_a_discard_cannot_end_before_the_minimum() -> None:
    st = after_draw("AH AC 2D 9C 9D 9H 5C", scores=[1500, 0])
    st.no_discard = True  # the last stock card was a red three: meld, then end the round
    apply(st, meld(0, "AH AC 2D"))  # 60 of 90, the nines complete it and keep the five
    refused(st, EndRound(0), "initial_meld_incomplete")
    assert EndRound(0) not in legal_actions(st)
    apply(st, meld(0, "9C 9D 9H"))
    assert EndRound(0) in legal_actions(st)
    apply(st, EndRound(0))
    assert st.rounds[-1]["reason"] == "last_red_three"


def test_after_a_no_from_the_partner_the_rest_must_be_melded_without_going_out() -> None:
    canasta_out = "5H 5S 5D 5C 5H 5S 2C AH AS AD 8C"
    apply(after_draw(canasta_out, scores=[1500, 0]), meld(0, "5H 5S 5D 5C 5H 5S 2C"))
    st = after_draw(canasta_out, scores=[1500, 0])
    st.permission = 3  # the partner said no: the aces could complete it only by going out
    refused(st, meld(0, "5H 5S 5D 5C 5H 5S 2C"), "initial_meld_below_minimum")


def test_a_pile_take_must_reach_the_minimum_by_itself() -> None:
    # The queens in hand could complete 30 to 60 later, but the rest of the pile may not be
    # taken before the minimum is shown with the top card.
    st = position(opts(), ["KS KC QH QS QD 6H 7C", "", "", ""], pile="5D KH")
    error = refused(st, take(0, "KS KC"), "initial_meld_below_minimum")
    assert "top card" in error.message
    apply(st, take(0, "KS KC", "QH QS QD"))
    assert st.opened[0] and hand(st, 0) == held("6H 7C 5D")


def test_every_listed_action_after_a_first_meld_keeps_the_turn_finishable() -> None:
    # Walk every listed action from a partial first meld: each one is accepted, and each path
    # reaches a state where the turn can end.
    st = after_draw("KH KS KD QH QS 2C JK 9C 9D 9H 7C 6D", scores=[1500, 0])
    apply(st, meld(0, "KH KS KD"))  # 30 of 90
    frontier = [st]
    ended = 0
    while frontier:
        state = frontier.pop()
        actions = legal_actions(state)
        assert actions
        for action in actions:
            trial = state.clone()
            apply(trial, action)
            if not isinstance(action, Meld) or trial.turn != 0 or trial.round_no != 1:
                ended += 1
            elif trial.opened[0]:
                assert any(isinstance(a, Discard) for a in legal_actions(trial))
                ended += 1
            else:
                frontier.append(trial)
    assert ended
