"""Player and event views, state serialisation, cloning and replay, and the actions' text form."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from games.engine import (
    AnswerPartner,
    Discard,
    Draw,
    Event,
    GameState,
    InvalidAction,
    Meld,
    MeldGroup,
    TakePile,
    action_from_dict,
    action_to_dict,
    apply,
    legal_actions,
    make_options,
    new_game,
    replay,
    round_seed,
    seed_commitment,
)
from games.engine.actions import Action
from games.engine.view import event_view, player_view

from .helpers import cards, group, opts, position

# -- the player view -----------------------------------------------------------------------------


def test_a_seat_sees_its_hand_counts_of_others_and_the_table() -> None:
    st = position(
        opts(),
        ["QH QS 5C", "KH KS", "7C", "8D 8H 9S 9S"],
        pile="2C 6D 9H",
        melds=[{"A": "AH AS AD"}, {}],
        red_threes=["3H", ""],
        scores=[120, -40],
    )
    view = player_view(st, 0)
    assert view["hand"] == ["5C", "QH", "QS"]
    assert view["hand_counts"] == [3, 2, 1, 4]
    assert view["stock_count"] == len(st.stock)
    assert view["pile"] == {
        "size": 3,
        "top": "9H",
        "frozen": True,
        "blocked": False,
        "frozen_for_viewer": True,
    }
    assert view["teams"][0]["melds"][0]["cards"] == ["AD", "AH", "AS"]
    assert view["teams"][0]["red_threes"] == ["3H"]
    assert [t["score"] for t in view["teams"]] == [120, -40]
    assert view["teams"][1]["initial_meld_minimum"] == 15
    assert view["to_act"] == 0 and view["legal_actions"] == [{"type": "draw"}]
    text = json.dumps(view)
    assert "KH" not in text and "8D" not in text and "seed" not in text
    assert "stock" not in view


def test_other_seats_and_spectators_get_no_legal_actions_and_no_hand() -> None:
    st = new_game(make_options(), "view")
    assert player_view(st, 1)["legal_actions"] == []
    spectator = player_view(st, None)
    assert spectator["hand"] is None and spectator["legal_actions"] == []
    assert spectator["pile"]["frozen_for_viewer"] is None


def test_event_views_show_drawn_cards_only_to_the_drawer() -> None:
    st = position(opts(), ["5C 6C", "", "", ""], pile="9D", stock_top="KH")
    events: list[Event] = []
    apply(st, Draw(0), events)
    (drawn,) = [e for e in events if e.kind == "card_drawn"]
    assert event_view(drawn, 0) == {"kind": "card_drawn", "seat": 0, "count": 1, "cards": ["KH"]}
    assert event_view(drawn, 1) == {"kind": "card_drawn", "seat": 0, "count": 1}
    assert event_view(drawn, None) == {"kind": "card_drawn", "seat": 0, "count": 1}


def test_the_deal_publishes_a_seed_commitment_never_the_seed() -> None:
    events: list[Event] = []
    st = new_game(make_options(), "secret-seed", events)
    started = events[0]
    assert started.kind == "round_started"
    assert started.public["seed_commitment"] == seed_commitment(round_seed("secret-seed", 1))
    for seat in range(4):
        shown = json.dumps(event_view(started, seat)) + json.dumps(player_view(st, seat))
        assert "secret-seed" not in shown and round_seed("secret-seed", 1) not in shown
        assert event_view(started, seat)["hand"] == sorted(
            event_view(started, seat)["hand"], key=lambda t: cards(t)[0]
        )


# -- state: serialisation, clone, replay --------------------------------------------------------


def random_game(seed: int, steps: int) -> tuple[GameState, list[Action]]:
    rng = random.Random(seed)
    st = new_game(make_options("hoyle"), f"g{seed}")
    log: list[Action] = []
    for _ in range(steps):
        action = rng.choice(legal_actions(st))
        apply(st, action)
        log.append(action)
    return st, log


def test_state_round_trips_through_json() -> None:
    st, _ = random_game(3, 250)
    data = json.loads(json.dumps(st.to_dict()))
    restored = GameState.from_dict(data)
    assert restored == st and restored.to_dict() == st.to_dict()
    assert legal_actions(restored) == legal_actions(st)


def test_the_cards_laid_this_turn_round_trip_and_older_snapshots_read() -> None:
    st = position(opts(), ["KH KS KD QH QS QD 6C 7C", "", "", ""], pile="4D", phase="play")
    assert "turn_laid" not in st.to_dict()  # nothing laid: the key of older snapshots is absent
    apply(st, Meld(0, (group("KH KS KD"),)))
    data = json.loads(json.dumps(st.to_dict()))
    assert data["turn_laid"] == [[group("KH").rank, list(cards("KH KS KD"))]]
    restored = GameState.from_dict(data)
    assert restored == st and restored.turn_laid == st.turn_laid
    twin = st.clone()
    apply(twin, Meld(0, (group("QH QS QD"),)))
    assert len(st.turn_laid) == 1 and len(twin.turn_laid) == 2  # the clone's turn is its own
    del data["turn_laid"]
    assert GameState.from_dict(data).turn_laid == {}


def test_a_clone_is_independent_of_the_original() -> None:
    st, _ = random_game(4, 40)
    before = st.to_dict()
    twin = st.clone()
    assert twin == st
    action = legal_actions(twin)[0]
    apply(twin, action)
    assert st.to_dict() == before and twin != st


def test_replaying_the_log_reproduces_the_state() -> None:
    st, log = random_game(5, 400)
    assert replay(make_options("hoyle"), "g5", log) == st
    assert st.round_no >= 2  # the log spans a new deal


def test_the_same_seed_deals_the_same_cards_and_another_seed_does_not() -> None:
    a = new_game(make_options(), "same")
    b = new_game(make_options(), "same")
    c = new_game(make_options(), "other")
    assert a == b and a.hands != c.hands


# -- the actions' text form ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "action",
    [
        Draw(1),
        Discard(1, cards("10S")[0]),
        TakePile(1, cards("QH QS"), (group("AH AS 2D"),)),
        TakePile(1),
        Meld(1, (group("QH QS 2C"), group("2D", "K"), group("3C 3S 3C"))),
        AnswerPartner(1, False),
    ],
)
def test_actions_round_trip_through_their_text_form(action: Action) -> None:
    data = json.loads(json.dumps(action_to_dict(action)))
    assert "seat" not in data
    assert action_from_dict(data, 1) == action


def test_a_meld_groups_rank_is_read_from_its_natural_card() -> None:
    action = action_from_dict({"type": "meld", "melds": [{"cards": ["2C", "QH", "QS"]}]}, 0)
    assert action == Meld(0, (MeldGroup(group("QH QS").rank, cards("2C QH QS")),))


@pytest.mark.parametrize(
    "data",
    [
        None,
        ["draw"],
        {"type": "fly"},
        {"type": "draw", "card": "QH"},
        {"type": "discard"},
        {"type": "discard", "card": "1H"},
        {"type": "discard", "card": 12},
        {"type": "take_pile", "cards": "QH QS"},
        {"type": "take_pile", "cards": ["QH", "XX"]},
        {"type": "meld", "melds": []},
        {"type": "meld", "melds": [{"cards": []}]},
        {"type": "meld", "melds": [{"cards": ["2C", "JK"]}]},
        {"type": "meld", "melds": [{"cards": ["QH"], "rank": "Z"}]},
        {"type": "meld", "melds": [{"cards": ["QH"], "suit": "H"}]},
        {"type": "meld", "melds": [{"cards": ["QH"]}] * 15},
        {"type": "meld", "melds": [{"cards": ["QH"] * 41}]},
        {"type": "answer_partner", "allow": "yes"},
    ],
)
def test_malformed_actions_are_refused_as_invalid_action(data: Any) -> None:
    with pytest.raises(InvalidAction) as info:
        action_from_dict(data, 0)
    assert info.value.code == "invalid_action" and info.value.message
