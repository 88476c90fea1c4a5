"""docs/rules.md sections 2 (players, deal, upcard, red threes), 9 and 10 (options, presets,
their validation and explanations)."""

from __future__ import annotations

from typing import Any

import pytest

from games.engine import (
    PRESETS,
    Discard,
    Draw,
    EngineError,
    InvalidOptions,
    action_from_dict,
    apply,
    legal_actions,
    make_options,
    new_game,
    parse_card,
    parse_cards,
)
from games.engine.cards import IS_RED_THREE
from games.engine.options import (
    FAMILY_OPTION_NAMES,
    OPTION_NAMES,
    PRESET_DESCRIPTIONS,
    describe_options,
    options_from_dict,
)
from games.engine.rules import pile_blocked

from .helpers import discard, hand, held, meld, opts, position, text
from .position import deal

# -- section 9: presets -------------------------------------------------------------------------

PRESET_TABLE = {
    #                       classic, hoyle, two_player, three_player
    "players": (4, 4, 2, 3),
    "draw_count": (1, 1, 2, 1),
    "canastas_to_go_out": (1, 1, 2, 1),
    "target_score": (5000, 5000, 2500, 5000),
    "wild_ratio": (
        "naturals_exceed_wilds",
        "wilds_not_exceed_naturals",
        "wilds_not_exceed_naturals",
        "naturals_exceed_wilds",
    ),
    "pile_new_meld_needs_two_naturals": (False, False, True, False),
    "pile_to_canasta": (True, True, False, True),
    "one_card_pile_restriction": (False, True, False, False),
    "red_three_reveal": ("on_turn", "at_deal", "at_deal", "on_turn"),
    "stock_exhausted": ("end_round", "play_on", "play_on", "end_round"),
}
DEFAULTS = {
    "first_upcard_black_three_turns": False,
    "red_three_discard": False,
    "max_wilds_per_meld": 3,
    "wild_canasta": False,
    "concealed_requires_canasta": True,
    "last_red_three": "meld_then_end",
}


@pytest.mark.parametrize(
    "index,preset", list(enumerate(["classic", "hoyle", "two_player", "three_player"]))
)
def test_presets_are_exactly_the_rule_book_table(index: int, preset: str) -> None:
    options = make_options(preset)
    for name, values in PRESET_TABLE.items():
        assert getattr(options, name) == values[index], name
    for name, value in DEFAULTS.items():
        assert getattr(options, name) == value, name
    # ask_partner_to_go_out: yes for the partnership presets, n/a (never possible) otherwise
    assert options.can_ask_partner == (preset in ("classic", "hoyle"))


def test_default_preset_is_classic_and_presets_are_the_named_ones() -> None:
    assert make_options() == make_options("classic")
    assert set(PRESETS) == {
        "classic",
        "hoyle",
        "two_player",
        "three_player",
        "mac",
        "mac_two_player",
        "samba",
        "bolivia",
    }
    assert {n for n, o in PRESETS.items() if o.family == "classic"} == {
        "classic",
        "hoyle",
        "two_player",
        "three_player",
    }


def test_overrides_apply_on_top_of_the_preset() -> None:
    options = make_options("hoyle", {"target_score": 3000, "wild_canasta": True})
    assert options.target_score == 3000 and options.wild_canasta
    assert options.wild_ratio == "wilds_not_exceed_naturals"


@pytest.mark.parametrize(
    "overrides,name",
    [
        ({"jokers_wild": True}, "jokers_wild"),
        ({"target_score": 999}, "target_score"),
        ({"target_score": 10001}, "target_score"),
        ({"draw_count": 0}, "draw_count"),
        ({"draw_count": 3}, "draw_count"),
        ({"canastas_to_go_out": 0}, "canastas_to_go_out"),
        ({"canastas_to_go_out": 3}, "canastas_to_go_out"),
        ({"max_wilds_per_meld": 2}, "max_wilds_per_meld"),
        ({"max_wilds_per_meld": 5}, "max_wilds_per_meld"),
        ({"players": 5}, "players"),
        ({"wild_ratio": "anything_goes"}, "wild_ratio"),
        ({"red_three_reveal": "never"}, "red_three_reveal"),
        ({"stock_exhausted": "reshuffle"}, "stock_exhausted"),
        ({"last_red_three": "later"}, "last_red_three"),
        ({"wild_canasta": "yes"}, "wild_canasta"),
        ({"target_score": "5000"}, "target_score"),
        ({"draw_count": True}, "draw_count"),
    ],
)
def test_invalid_options_are_refused_naming_the_option(
    overrides: dict[str, object], name: str
) -> None:
    with pytest.raises(InvalidOptions) as info:
        make_options("classic", overrides)
    assert info.value.option == name
    assert info.value.code == "invalid_option"
    assert name in info.value.message


def test_range_limits_are_accepted() -> None:
    for value in (1000, 10000):
        assert make_options("classic", {"target_score": value}).target_score == value
    assert make_options("classic", {"max_wilds_per_meld": 4}).max_wilds_per_meld == 4
    assert make_options("two_player", {"draw_count": 1, "canastas_to_go_out": 1}).draw_count == 1


def test_unknown_preset_is_refused() -> None:
    with pytest.raises(InvalidOptions) as info:
        make_options("modern_american")
    assert info.value.option == "preset"
    assert "modern_american" in info.value.message


def test_every_option_is_described_with_its_range_or_choices() -> None:
    described = describe_options()
    assert described["target_score"]["min"] == 1000 and described["target_score"]["max"] == 10000
    assert described["wild_ratio"]["choices"] == [
        "naturals_exceed_wilds",
        "wilds_not_exceed_naturals",
    ]
    assert set(described) == set(OPTION_NAMES)
    # A classic game's options read as before the families: their options appear only in games
    # of a family that sets them.
    assert set(make_options().to_dict()) == set(OPTION_NAMES) - set(FAMILY_OPTION_NAMES)
    assert set(make_options("mac").to_dict()) >= {"family", "talons", "special_hands"}


def test_every_option_and_preset_has_an_explanation() -> None:
    for name, spec in describe_options().items():
        text = spec["description"]
        assert isinstance(text, str) and len(text) > 40, name
        for choice in spec.get("choices", ()):
            assert str(choice) in text, (name, choice)  # each choice is explained
    assert set(PRESET_DESCRIPTIONS) == set(PRESETS)
    assert all(len(text) > 40 for text in PRESET_DESCRIPTIONS.values())


# -- section 2: deal sizes, seats, dealer rotation ----------------------------------------------


@pytest.mark.parametrize("preset,size", [("classic", 11), ("two_player", 15), ("three_player", 13)])
def test_deal_sizes_per_player_count(preset: str, size: int) -> None:
    options = make_options(preset)
    for seed in range(10):
        st = new_game(options, f"deal-{seed}")
        assert [len(h) for h in st.hands] == [size] * options.players
        assert st.cards_conserved()


def test_partners_sit_opposite_and_play_passes_clockwise() -> None:
    st = new_game(make_options(), "teams")
    assert [st.team_of(s) for s in range(4)] == [0, 1, 0, 1]
    assert st.turn == 0 and st.dealer == 3  # the player left of the dealer starts
    seats = []
    for _ in range(5):
        seats.append(st.turn)
        apply(st, Draw(st.turn))
        card = next(c for c in st.hands[st.turn] if not IS_RED_THREE[c])
        apply(st, Discard(st.turn, card))
    assert seats == [0, 1, 2, 3, 0]


@pytest.mark.parametrize("preset", ["classic", "three_player", "two_player"])
def test_dealer_rotates_each_round_and_left_of_dealer_starts(preset: str) -> None:
    options = make_options(preset)
    players = options.players
    canastas = {"A": "AH AS AD AC AH AS AD", "K": "KH KS KD KC KH KS KD"}
    melds = [canastas] + [{} for _ in range(options.teams - 1)]
    hands = ["5H 5S 5D 9C", "6C 6D", "7C 7D", "8C 8D"][:players]
    st = position(options, hands, pile="8H", melds=melds, phase="play")
    assert st.dealer == players - 1
    apply(st, meld(0, "5H 5S 5D"))
    apply(st, discard(0, "9C"))  # seat 0 goes out: the next round is dealt
    assert st.round_no == 2
    assert st.dealer == 0 and st.turn == 1 % players
    assert [len(h) for h in st.hands] == [options.hand_size] * players


# -- the upcard ----------------------------------------------------------------------------------


def test_upcard_wild_or_red_three_is_covered_and_freezes_the_pile() -> None:
    st = deal(opts(), upcards="JK 3H 2C 7C")
    assert text(st.pile) == text(parse_cards("JK 3H 2C 7C"))
    assert st.pile[-1] == parse_card("7C")
    assert st.pile_freezers == 3  # the pile is frozen
    assert not pile_blocked(st)


def test_natural_upcard_starts_an_unfrozen_pile() -> None:
    st = deal(opts(), upcards="9D")
    assert st.pile == [parse_card("9D")] and st.pile_freezers == 0


def test_black_three_upcard_stays_and_blocks_by_default() -> None:
    st = deal(opts(), upcards="3C")
    assert st.pile == [parse_card("3C")] and st.pile_freezers == 0
    assert pile_blocked(st)


def test_option_first_upcard_black_three_turns_covers_it() -> None:
    st = deal(opts(first_upcard_black_three_turns=True), upcards="3S 8H")
    assert st.pile == [parse_card("3S"), parse_card("8H")]
    assert st.pile_freezers == 0  # a black three does not freeze the pile


# -- red threes at the deal ----------------------------------------------------------------------


def test_red_three_reveal_on_turn_waits_for_the_players_own_turn() -> None:
    st = deal(opts(), ["3H", "3D"], upcards="9D", stock_top="KH QC 4S")
    # seat 0 starts: its red three is shown and replaced at once; seat 1 still holds its own
    assert text(st.red_threes[0]) == "3H"
    assert hand(st, 0)["KH"] == 1 and hand(st, 0)["3H"] == 0
    assert hand(st, 1)["3D"] == 1 and st.red_threes[1] == []
    apply(st, Draw(0))  # draws QC
    apply(st, discard(0, "QC"))
    assert text(st.red_threes[1]) == "3D"  # seat 1's turn started: revealed, replaced by 4S
    assert hand(st, 1)["4S"] == 1 and len(st.hands[1]) == 11


def test_red_three_reveal_at_deal_reveals_all_in_turn_order() -> None:
    st = deal(
        opts(red_three_reveal="at_deal"), ["", "3D", "", "3H"], upcards="9D", stock_top="KH QC"
    )
    assert text(st.red_threes[1]) == "3D 3H"
    assert hand(st, 1)["KH"] == 1  # seat 1 comes before seat 3 in turn order
    assert hand(st, 3)["QC"] == 1
    assert all(len(h) == 11 for h in st.hands)


def test_a_red_three_replacement_that_is_a_red_three_is_replaced_too() -> None:
    st = deal(opts(), ["3H"], upcards="9D", stock_top="3D 9S 5C")
    assert text(st.red_threes[0]) == "3D 3H"
    assert hand(st, 0)["9S"] == 1 and len(st.hands[0]) == 11
    assert st.stock[-1] == parse_card("5C")


def test_red_three_drawn_from_the_stock_is_revealed_and_replaced_at_once() -> None:
    st = position(opts(), ["4C 5C", "4D", "4H", "4S"], pile="9D", stock_top="7H 3D")
    apply(st, Draw(0))
    assert text(st.red_threes[0]) == "3D"
    assert hand(st, 0) == held("4C 5C 7H")


def test_draw_count_two_and_one() -> None:
    two = position(opts("two_player"), ["4C 5C", "4D"], pile="9D", stock_top="8C 7H 6S")
    apply(two, Draw(0))
    assert hand(two, 0)["6S"] == 1 and hand(two, 0)["7H"] == 1 and len(two.hands[0]) == 4
    one = position(
        opts("two_player", draw_count=1), ["4C 5C", "4D"], pile="9D", stock_top="8C 7H 6S"
    )
    apply(one, Draw(0))
    assert len(one.hands[0]) == 3 and hand(one, 0)["6S"] == 1
    assert Draw(0) not in legal_actions(one)


# -- the families' options (R1: fixed by the preset) --------------------------------------------


@pytest.mark.parametrize(
    "preset,name,value",
    [
        ("mac", "draw_count", 2),
        ("mac", "max_wilds_per_meld", 3),
        ("mac_two_player", "ask_partner_to_go_out", True),
        ("samba", "talons", True),
        ("bolivia", "wild_canasta", False),
        ("classic", "talons", True),
        ("hoyle", "family", "samba"),
    ],
)
def test_an_option_the_family_fixes_is_refused_by_name(preset: str, name: str, value: Any) -> None:
    with pytest.raises(InvalidOptions) as refused:
        make_options(preset, {name: value})
    assert refused.value.option == name and name in refused.value.message


def test_a_family_option_a_table_may_change_is_taken_and_stored() -> None:
    options = make_options("mac", {"talons": False, "target_score": 12000})
    assert not options.talons and options.target_score == 12000 and options.family == "mac"
    assert options_from_dict(options.to_dict()) == options
    assert make_options("samba", {"initial_meld_over_7000": 160}).initial_meld_over_7000 == 160
    with pytest.raises(InvalidOptions):
        make_options("samba", {"target_score": 20001})
    with pytest.raises(InvalidOptions):
        make_options("classic", {"target_score": 12000})


def test_a_classic_game_refuses_the_fields_of_the_families() -> None:
    st = new_game(make_options("classic"), "family-fields")
    before = st.to_dict()
    for written in (
        {"type": "draw", "keep_three": True},
        {"type": "declare_special_hand", "name": "garbage"},
    ):
        with pytest.raises(EngineError) as refused:
            apply(st, action_from_dict(written, st.to_act))
        assert refused.value.code == "invalid_action"
    assert st.to_dict() == before
