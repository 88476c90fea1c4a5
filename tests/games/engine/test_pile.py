"""docs/rules.md sections 3-4: taking the discard pile (blocked, frozen, pair vs natural + wild,
lay-off, options pile_new_meld_needs_two_naturals, pile_to_canasta, one_card_pile_restriction,
the initial meld with the top card), including the worked examples of the cardgames.io rules
page."""

from __future__ import annotations

from games.engine import Draw, TakePile, apply, legal_actions
from games.engine.rules import pile_blocked, pile_frozen_for

from .helpers import hand, held, meld_text, opts, position, refused, take, text

OPENED = {"A": "AH AS AD"}  # a meld that shows the team has made its initial meld


# -- the worked examples (cardgames.io, "Drawing cards") -----------------------------------------


def test_example_bill_takes_the_pile_with_a_pair_of_sixes() -> None:
    # Bill holds C6 C6 H7 D8; the top card is D6: he melds his two sixes with it, takes the rest.
    st = position(opts(), ["6C 6C 7H 8D", "", "", ""], pile="9S 4H 6D", melds=[OPENED])
    action = take(0, "6C 6C")
    assert action in legal_actions(st)
    apply(st, action)
    assert meld_text(st, 0, "6") == "6C 6C 6D"
    assert hand(st, 0) == held("7H 8D 9S 4H")
    assert st.pile == [] and st.phase == "play"


def test_example_mike_cannot_take_a_frozen_pile_with_a_natural_and_wilds() -> None:
    # Mike holds H5 D2 D2 S12 D12; top S5 on a frozen pile: he needs a natural pair of fives.
    st = position(
        opts(), ["", "5H 2D 2D QS QD", "", ""], pile="8C JK 9H 5S", turn=1, melds=[{}, OPENED]
    )
    assert pile_frozen_for(st, 1)
    refused(st, take(1, "5H 2D"), "pile_frozen")
    assert legal_actions(st) == [Draw(1)]  # he draws from the deck instead


def test_example_lisa_lays_the_top_card_off_on_her_teams_kings() -> None:
    st = position(
        opts(), ["", "", "", "4C 9D"], pile="7S 8S KH", turn=3, melds=[{}, {"K": "KD KD KC 2H"}]
    )
    action = take(3)
    assert action in legal_actions(st)
    apply(st, action)
    assert meld_text(st, 1, "K") == "2H KC KD KD KH"
    assert hand(st, 3) == held("4C 9D 7S 8S")


def test_example_bill_cannot_lay_off_on_a_frozen_pile() -> None:
    st = position(opts(), ["KS 4C 9D", "", "", ""], pile="2C 7S KH", melds=[{"K": "KD KD KC"}])
    refused(st, take(0), "pile_frozen")
    refused(st, take(0, "KS"), "pile_frozen")


# -- blocked -------------------------------------------------------------------------------------


def test_black_three_wild_or_red_three_on_top_blocks_the_pile() -> None:
    for top in ("3S", "2D", "JK", "3H"):
        st = position(opts(), ["9C 9D 2C 5H", "", "", ""], pile=f"9H {top}", melds=[OPENED])
        assert pile_blocked(st)
        refused(st, take(0, "9C 9D"), "pile_blocked")
        assert legal_actions(st) == [Draw(0)]


# -- frozen --------------------------------------------------------------------------------------


def test_a_wild_card_inside_freezes_the_pile_until_it_is_taken() -> None:
    st = position(opts(), ["9C 9D 2C 5H", "", "", ""], pile="4D 2S 7H 9H", melds=[OPENED])
    assert st.pile_freezers == 1 and pile_frozen_for(st, 0)
    refused(st, take(0, "9C 2C"), "pile_frozen")
    apply(st, take(0, "9C 9D"))  # a natural pair unfreezes it by taking it
    assert st.pile_freezers == 0 and hand(st, 0)["2S"] == 1


def test_the_pile_is_frozen_for_a_team_that_has_not_opened() -> None:
    st = position(opts(), ["QC 2C AH AS 2D 5H", "", "", ""], pile="4D QH", melds=[{}, OPENED])
    assert st.pile_freezers == 0 and pile_frozen_for(st, 0) and not pile_frozen_for(st, 1)
    refused(st, take(0, "QC 2C", "AH AS 2D"), "pile_frozen")


def test_a_natural_pair_takes_the_pile_for_a_team_not_yet_opened_with_the_minimum() -> None:
    st = position(opts(), ["QC QS AH AS 2D 5H", "", "", ""], pile="4D QH")
    apply(st, take(0, "QC QS", "AH AS 2D"))  # 30 + 60 >= 50
    assert st.opened[0] and hand(st, 0) == held("5H 4D")


def test_red_three_taken_with_the_pile_goes_to_the_area_without_replacement() -> None:
    st = position(opts(), ["7C 7S 5H", "", "", ""], pile="3H 9C 7D", melds=[OPENED])
    stock = len(st.stock)
    apply(st, take(0, "7C 7S"))
    assert text(st.red_threes[0]) == "3H"
    assert hand(st, 0) == held("5H 9C")
    assert len(st.stock) == stock


# -- unfrozen: pair, natural + wild, lay-off ----------------------------------------------------


def test_unfrozen_pile_natural_pair_or_natural_and_wild_or_lay_off() -> None:
    base = dict(pile="4D 8H", melds=[OPENED])
    pair = position(opts(), ["8C 8S 2C 5H", "", "", ""], **base)  # type: ignore[arg-type]
    apply(pair, take(0, "8C 8S"))
    mixed = position(opts(), ["8C 8S 2C 5H", "", "", ""], **base)  # type: ignore[arg-type]
    assert take(0, "8C 2C") in legal_actions(mixed)
    apply(mixed, take(0, "8C 2C"))
    assert meld_text(mixed, 0, "8") == "2C 8C 8H"
    lay_off = position(opts(), ["5H", "", "", ""], pile="4D 8H", melds=[{"8": "8D 8D 8S"}])
    apply(lay_off, take(0))
    assert hand(lay_off, 0) == held("5H 4D")


def test_the_top_card_cannot_be_laid_off_on_the_opponents_meld() -> None:
    st = position(opts(), ["5H 6H", "", "", ""], pile="4D 8H", melds=[OPENED, {"8": "8D 8D 8S"}])
    refused(st, take(0), "pile_no_meld_to_lay_off")


def test_a_single_natural_without_a_wild_does_not_take_the_pile() -> None:
    st = position(opts(), ["8C 5H 6H", "", "", ""], pile="4D 8H", melds=[OPENED])
    refused(st, take(0, "8C"), "meld_too_small")
    refused(st, take(0, "8C 5H"), "pile_cards_do_not_match")


def test_option_pile_new_meld_needs_two_naturals() -> None:
    options = opts(pile_new_meld_needs_two_naturals=True)
    st = position(options, ["8C 8S 2C 5H", "", "", ""], pile="4D 8H", melds=[OPENED])
    refused(st, take(0, "8C 2C"), "pile_needs_two_naturals")
    apply(st, take(0, "8C 8S"))
    lay_off = position(options, ["5H", "", "", ""], pile="4D 8H", melds=[{"8": "8D 8D 8S"}])
    apply(lay_off, take(0))  # laying off on an existing meld is still fine


def test_option_pile_to_canasta() -> None:
    canasta = {"9": "9C 9C 9D 9D 9H 9S 9S"}
    allowed = position(opts(), ["5H 6H", "", "", ""], pile="4D 9H", melds=[canasta])
    apply(allowed, take(0))
    assert len(meld_text(allowed, 0, "9").split()) == 8
    forbidden = position(
        opts(pile_to_canasta=False), ["5H 6H", "", "", ""], pile="4D 9H", melds=[canasta]
    )
    refused(forbidden, take(0), "pile_to_canasta_forbidden")
    short = position(
        opts(pile_to_canasta=False),
        ["5H 6H", "", "", ""],
        pile="4D 9H",
        melds=[{"9": "9C 9C 9D 9D 9S 9S"}],
    )
    apply(short, take(0))  # six cards are not yet a canasta


def test_option_one_card_pile_restriction() -> None:
    melds = [{"9": "9C 9C 9D", "K": "KC KC KD KD KH KH KS"}]
    st = position(opts(one_card_pile_restriction=True), ["5H", "", "", ""], pile="9H", melds=melds)
    refused(st, take(0), "pile_one_card_restriction")
    two_cards = position(
        opts(one_card_pile_restriction=True), ["5H", "", "", ""], pile="4D 9H", melds=melds
    )
    apply(two_cards, take(0))
    unrestricted = position(opts(), ["5H", "", "", ""], pile="9H", melds=melds)
    apply(unrestricted, take(0))


# -- the initial meld with the top card ---------------------------------------------------------


def test_initial_meld_with_the_pile_counts_only_the_top_card() -> None:
    # The pile holds aces under the king, but only the top card may count toward the 50.
    st = position(opts(), ["KS KC 5H 6H", "", "", ""], pile="AH AD AC KH")
    error = refused(st, take(0, "KS KC"), "initial_meld_below_minimum")
    assert "50" in error.message


def test_initial_meld_with_the_pile_may_add_melds_from_the_hand() -> None:
    st = position(opts(), ["KS KC AH AS 2D 6H", "", "", ""], pile="4D KH")
    action = take(0, "KS KC", "AH AS 2D")
    assert action in legal_actions(st)
    apply(st, action)
    assert (
        st.opened[0] and meld_text(st, 0, "K") == "KC KH KS" and meld_text(st, 0, "A") == "2D AH AS"
    )


def test_taking_the_pile_is_refused_as_a_whole() -> None:
    st = position(opts(), ["KS KC AH AS AD AC 2D 2C JK 6H", "", "", ""], pile="4D KH")
    refused(st, take(0, "KS KC", "AH AS 2D 2C"), "meld_too_many_wilds")
    refused(st, take(0, "KS KC", "AH AS 2D", "AD AC 2C"), "meld_duplicate_rank")
    refused(st, take(0, "KS KC", "6H 6H 2C"), "card_not_in_hand")


def test_the_pile_is_taken_only_instead_of_drawing() -> None:
    st = position(opts(), ["8C 8S 5H", "", "", ""], pile="4D 8H", melds=[OPENED], phase="play")
    refused(st, take(0, "8C 8S"), "wrong_phase")
    empty = position(opts(), ["8C 8S 5H", "", "", ""], melds=[OPENED])
    refused(empty, take(0, "8C 8S"), "pile_empty")


def test_a_short_hand_may_take_the_pile_to_go_out() -> None:
    # One card in hand and a one-card pile: laying the queen off would keep a single card
    # without the two canastas needed; melding the 8 as well completes the second canasta.
    melds = [
        {},
        {"Q": "QC QD QH QS", "J": "JC JD JH JS JS 2C JK", "8": "8C 8C 8H 8H 8S 8S"},
    ]
    st = position(opts("two_player"), ["4C", "8D"], pile="QS", melds=melds, turn=1)
    refused(st, take(1), "cannot_go_out_without_canasta")
    listed = [a for a in legal_actions(st) if isinstance(a, TakePile)]
    assert listed == [take(1, "", "8D")]
    apply(st, listed[0])
    assert st.rounds[-1]["went_out"] == 1


def test_taking_with_all_the_naturals_of_the_rank_is_listed_for_the_initial_meld() -> None:
    # A pair with the ten makes 30 of the 50 needed; all four tens with it make exactly 50.
    st = position(opts(), ["10C 10H 10S 10C 4C 6H 8D", "", "", ""], pile="5D 10D")
    refused(st, take(0, "10C 10H"), "initial_meld_below_minimum")
    assert take(0, "10C 10H 10S 10C") in legal_actions(st)
    apply(st, take(0, "10C 10H 10S 10C"))
    assert meld_text(st, 0, "10") == "10C 10C 10D 10H 10S"
