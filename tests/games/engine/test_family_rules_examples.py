"""docs/rules.md, the families' chapters (Modern American Canasta, Samba, Bolivia): their worked
examples play through the engine as written, with the figures the chapters print.

Each example starts from a round the engine deals, then lays out the hands, the pile and the
next stock cards the example needs (every other card stays in the stock, below them), and plays
the actions as the chapter writes them."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from games.engine import (
    EngineError,
    GameState,
    action_from_dict,
    apply,
    make_options,
)
from games.engine.cards import IS_RED_THREE, IS_WILD, card_text, deck_of, parse_cards
from games.engine.rules import deal_round
from games.engine.view import player_view

DRAW = {"type": "draw"}


def dealt(
    preset: str,
    hands: list[str],
    *,
    pile: str = "",
    draws: str = "",
    scores: list[int] | None = None,
    **overrides: Any,
) -> GameState:
    """A first round as the engine deals it (seat 0 to draw), then set out as the example has
    it: ``hands`` per seat, ``pile`` bottom..top, ``draws`` the next stock cards in the order
    they will be drawn (replacements of threes and talons included)."""
    st = GameState(make_options(preset, overrides), "rule book")
    if scores is not None:
        st.scores = list(scores)
    deal_round(st, None)
    assert (st.turn, st.to_act, st.phase) == (0, 0, "draw")
    assert st.ext is not None and not st.ext.cards()
    st.red_threes = [[] for _ in st.red_threes]
    wanted = [parse_cards(h) for h in hands]
    top, coming = parse_cards(pile), parse_cards(draws)
    placed = Counter(c for h in wanted for c in h) + Counter(top) + Counter(coming)
    deck = Counter(deck_of(st.options.family))
    assert not placed - deck, f"more copies than the deck holds: {placed - deck}"
    st.hands = wanted
    st.pile = top
    st.pile_freezers = sum(1 for c in top if IS_WILD[c] or IS_RED_THREE[c])
    st.stock = sorted((deck - placed).elements(), reverse=True) + coming[::-1]
    assert st.cards_conserved()
    return st


def act(st: GameState, seat: int, *actions: dict[str, Any]) -> None:
    for action in actions:
        apply(st, action_from_dict(action, seat))


def refused_with(st: GameState, seat: int, action: dict[str, Any], code: str) -> None:
    before = json.dumps(st.to_dict(), sort_keys=True)
    with pytest.raises(EngineError) as info:
        apply(st, action_from_dict(action, seat))
    assert info.value.code == code, f"expected {code}, got {info.value.code}: {info.value}"
    assert json.dumps(st.to_dict(), sort_keys=True) == before


def discard(card: str) -> dict[str, Any]:
    return {"type": "discard", "card": card}


def meld(*groups: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"type": "meld", "melds": list(groups), **extra}


def group(cards: str, **fields: Any) -> dict[str, Any]:
    return {"cards": cards.split(), **fields}


def held(st: GameState, seat: int) -> str:
    return " ".join(sorted(card_text(c) for c in st.hands[seat]))


def same(cards: str) -> str:
    return " ".join(sorted(cards.split()))


def team_melds(st: GameState, team: int) -> list[dict[str, Any]]:
    melds: list[dict[str, Any]] = player_view(st, None)["teams"][team]["melds"]
    return melds


def meld_cards(st: GameState, team: int, key: str) -> str:
    """A meld in the spectator view, by id (samba, bolivia) or rank (mac), as sorted text."""
    for m in team_melds(st, team):
        if key in (m["id"], m["rank"]):
            return " ".join(sorted(m["cards"]))
    return ""


# -- Modern American Canasta ---------------------------------------------------------------------

MAC_HANDS = [
    "KC KC KD KD KH KH KS QC QD QH 2D JK AS",
    "3S 7S 7S 7D 10C 10D 10H 9C 9D 2C JK 4C 4D",
    "3D 4H 4S 5H 5S 6S 8H 8S 9H 9S 10S JS AS",
    "AC AD AH 5S 6C 7C 8D 9D 10D 10S QC JC JD",
]
# In the order the stock gives them: seat 0's draw (a three, laid out at once) and its
# replacement, seat 0's talon of four; seat 1's replacement, draw and talon of three; seat 2's
# replacement and draw; seat 3's draw; seat 0's replacement (for the talon's three) and draw.
MAC_DRAWS = "3H 6D QS QS JC 3C 6C 8C 5D 6H 8D 4H KS 4D JD JH"


def test_mac_a_round_from_the_first_meld_to_the_score_sheet() -> None:
    st = dealt("mac", MAC_HANDS, draws=MAC_DRAWS)
    act(st, 0, DRAW)
    assert [card_text(c) for c in st.red_threes[0]] == ["3H"]
    assert held(st, 0) == same("KC KC KD KD KH KH KS QC QD QH 2D JK AS 6D")
    act(st, 0, meld(group("KC KC KD KD KH KH KS"), group("QC QD QH 2D JK")))
    # 70 + 120 = 190 from the hand, a clean triple among them.
    assert st.opened[0]
    view = player_view(st, None)
    assert (view["talon_due"], view["turn_card_drawn"]) == (4, False)
    refused_with(st, 0, discard("AS"), "discard_swad_on_empty_pile")
    act(st, 0, discard("6D"))
    assert held(st, 0) == same("AS QS QS JC 3C")  # a talon of four
    assert player_view(st, None)["dead_ranks"] == ["K"]

    act(st, 1, DRAW)  # 3S laid out at the start of the turn, replaced by 6C
    act(
        st,
        1,
        meld(group("7S 7S 7D"), group("10C 10D 10H"), group("9C 9D 2C JK")),
        discard("8C"),
    )
    assert held(st, 1) == same("4C 4D 6C 5D 6H 8D")  # a talon of three: A had opened

    act(st, 2, DRAW, discard("KS"))  # 3D laid out, replaced by 4H; KS is a dead card
    act(st, 3, DRAW, discard("4D"))

    act(st, 0, DRAW)  # the talon's 3C laid out, replaced by JD; JH drawn
    assert held(st, 0) == same("AS QS QS JC JD JH")
    threes = player_view(st, None)["teams"][0]
    assert (sorted(threes["red_threes"]), threes["black_threes"]) == (["3D", "3H"], ["3C"])
    act(st, 0, meld(group("QS QS"), group("JC JD JH")), discard("AS"))

    record = st.rounds[-1]
    assert record["went_out"] == 0
    ours, theirs = record["teams"]
    assert ours["meld_cards"] == 220
    assert (ours["natural_canastas"], ours["mixed_canastas"]) == (500, 300)
    assert (ours["threes"], ours["going_out"], ours["hand_cards"]) == (400, 100, -110)
    assert ours["total"] == 1410
    assert (theirs["meld_cards"], theirs["incomplete_melds"]) == (-135, -2500)
    assert (theirs["threes"], theirs["hand_cards"], theirs["hand_penalties"]) == (
        -100,
        -180,
        -1500,
    )
    assert theirs["total"] == -4415
    assert st.scores == [1410, -4415]


def test_mac_garbage_declared_after_the_draw() -> None:
    hands = [
        "9C 9D 9H 9S JC JD JH JS 5C 5D 5H KC KD",
        "4C 4D 6C 6D 8C 8D 10C 10D QC QD AC 7C 7D",
        "4H 4S 6H 6S 8H 8S 10H 10S QH QS AH 7H 7S",
        "4C 4D 6C 6D 8C 8D 10C 10D QC QD AD JK 2C",
    ]
    basic = dealt("mac", hands, draws="KS", special_hands="basic")
    st = dealt("mac", hands, draws="KS")
    act(st, 0, DRAW)
    refused_with(st, 0, {"type": "declare_special_hand", "name": "quads"}, "special_hand_invalid")
    act(st, 0, {"type": "declare_special_hand", "name": "garbage"})
    ours, theirs = st.rounds[-1]["teams"]
    assert (ours["special_hand"], ours["total"]) == (3000, 3000)
    assert theirs["total"] == -280
    act(basic, 0, DRAW, {"type": "declare_special_hand", "name": "garbage"})
    assert basic.rounds[-1]["teams"][0]["total"] == 2000


# -- Samba ---------------------------------------------------------------------------------------

SAMBA_OTHERS = [
    "4D 4S 5C 5S 6D 6S 7C 7D 8C 8D 9C 9D 10D 10S JC",
    "KS KS 2D 4D 4S 5C 5S 6D 6S 7C 7D 8C 8D 9C 9D",
    "10D 10S JC JS 4S 5S 6S 7S 8D 9D 10C 4D 5C 6D 7C",
]


def test_samba_a_sequence_extended_and_two_kings_melds_merged() -> None:
    hands = ["6H 7H 8H KC KD KH 4H 5H KC 4C 5D 6C 9S 10C JD", *SAMBA_OTHERS]
    st = dealt("samba", hands, pile="AD", draws="8S QD QC QH QS JH AS AH 9H 10H")
    act(
        st,
        0,
        DRAW,
        meld(group("6H 7H 8H", kind="sequence"), group("KC KD KH")),
        discard("QD"),
    )
    act(st, 1, DRAW, discard("QC"))
    act(st, 2, DRAW, meld(group("KS KS 2D", new=True)), discard("QS"))
    act(st, 3, DRAW, discard("AS"))
    assert [m["id"] for m in team_melds(st, 0)] == ["A1", "A2", "A3"]

    act(st, 0, DRAW)
    assert held(st, 0) == same("4H 5H 9H 10H KC 4C 5D 6C 9S 10C JD 8S")
    refused_with(st, 0, meld(group("KC")), "meld_target_required")
    act(st, 0, meld(merge=["A2", "A3"]))
    assert meld_cards(st, 0, "A2") == same("KC KD KH KS KS 2D")
    act(
        st,
        0,
        meld(
            group("4H 5H 9H 10H", kind="sequence", target="A1"),
            group("KC", target="A2"),
        ),
        discard("JD"),
    )
    melds = {m["id"]: m for m in team_melds(st, 0)}
    assert sorted(melds) == ["A1", "A2"]
    samba, kings = melds["A1"], melds["A2"]
    assert (samba["kind"], samba["suit"], samba["rank"]) == ("sequence", "H", "4")
    assert (samba["is_canasta"], samba["canasta_kind"]) == (True, "samba")
    assert samba["cards"] == ["4H", "5H", "6H", "7H", "8H", "9H", "10H"]
    assert (kings["kind"], kings["rank"], kings["canasta_kind"]) == ("group", "K", "mixed")
    assert (kings["natural_count"], kings["wild_count"]) == (6, 1)
    assert player_view(st, None)["teams"][0]["canastas"] == 2


def test_samba_the_top_card_laid_off_on_a_sequence() -> None:
    hands = ["6H 7H 8H KC KD KH 10H JH 9S 9S 4C 5D 6C 10C JD", *SAMBA_OTHERS]
    st = dealt("samba", hands, pile="AD", draws="8C QD QC QH QS JH AS 9H")
    act(
        st,
        0,
        DRAW,
        meld(group("6H 7H 8H", kind="sequence"), group("KC KD KH")),
        discard("QD"),
    )
    act(st, 1, DRAW, discard("QC"))
    act(st, 2, DRAW, discard("QS"))
    act(st, 3, DRAW, discard("9H"))
    refused_with(st, 0, {"type": "take_pile", "cards": ["10H", "JH"]}, "pile_sequence_forbidden")
    nines = st.clone()
    act(nines, 0, {"type": "take_pile", "cards": ["9S", "9S"]})
    assert meld_cards(nines, 0, "A3") == same("9S 9S 9H")
    act(st, 0, {"type": "take_pile", "cards": [], "target": "A1"})
    assert meld_cards(st, 0, "A1") == same("6H 7H 8H 9H")
    assert held(st, 0) == same("10H JH 9S 9S 4C 5D 6C 10C JD 8C AD QD QC QS")
    act(st, 0, meld(group("10H JH", kind="sequence", target="A1")), discard("JD"))
    assert meld_cards(st, 0, "A1") == same("6H 7H 8H 9H 10H JH")


# -- Bolivia -------------------------------------------------------------------------------------


def test_bolivia_going_out_with_an_escalera() -> None:
    hands = [
        "5S 6S 7S 8S 9S QC QD QH QS QC 2H JK 4C 4D 4D",
        "2C 2S JK 3C 3S 4H 4S 5H 5S 6H 6S 7H 7S 8H 8S",
        "3H 4C 5C 6C 7C 8D 9D 10D JD KC KH AC AD 10C 10H",
        "3D 4H 4S 5H 5S 6H 6S 7H 7S 8H 8S 9H 9S 10S 10S",
    ]
    draws = "8C KD 9H 9S 5D 6D 7D JH JC 2H 10S JS"
    st = dealt("bolivia", hands, pile="9C", draws=draws)
    act(
        st,
        0,
        DRAW,
        meld(
            group("5S 6S 7S 8S 9S", kind="sequence"),
            group("QC QD QH QS QC 2H JK"),
        ),
        discard("KD"),
    )
    act(st, 1, DRAW, meld(group("2C 2S JK", kind="wild")), discard("9S"))
    act(st, 2, DRAW, discard("7D"))  # 3H laid out first, replaced by 5D
    act(st, 3, DRAW, discard("2H"))  # 3D laid out first, replaced by JH
    wild = team_melds(st, 1)[0]
    assert (wild["id"], wild["kind"], wild["rank"]) == ("B1", "wild", "W")
    refused_with(st, 0, {"type": "take_pile", "cards": []}, "pile_blocked")
    act(st, 0, DRAW)
    assert held(st, 0) == same("4C 4D 4D 8C 10S JS")
    act(st, 0, meld(group("10S JS", kind="sequence", target="A1"), group("4C 4D 4D")))
    escalera = team_melds(st, 0)[0]
    assert (escalera["id"], escalera["canasta_kind"]) == ("A1", "escalera")
    act(st, 0, discard("8C"))
    record = st.rounds[-1]
    assert record["went_out"] == 0
    ours, theirs = record["teams"]
    assert (ours["meld_cards"], ours["sequence_canastas"], ours["mixed_canastas"]) == (
        190,
        1500,
        300,
    )
    assert (ours["going_out"], ours["red_threes"], ours["hand_cards"]) == (200, 100, -150)
    assert ours["total"] == 2140
    assert (theirs["meld_cards"], theirs["red_threes"], theirs["hand_cards"]) == (90, -100, -390)
    assert theirs["total"] == -400
    assert st.scores == [2140, -400]
