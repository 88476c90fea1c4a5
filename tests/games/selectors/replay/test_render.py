"""The text rendering used by ``replay --show`` and the timeline: full event views and lines."""

from __future__ import annotations

from games.engine import Event, make_options, new_game
from games.engine.render import describe_event, describe_step, event_view_full, render_table


def test_a_full_view_shows_every_dealt_hand_and_the_actors_cards() -> None:
    events: list[Event] = []
    state = new_game(make_options("two_player", {}), "render", events)
    deal = event_view_full(events[0])
    assert deal["kind"] == "round_started" and len(deal["hands"]) == 2
    assert all(len(hand) == 15 for hand in deal["hands"])
    line = describe_event(deal)
    assert line.startswith("round 1 dealt by seat 1") and "hands seat 0: " in line
    drawn = Event("card_drawn", 0, {"count": 2}, {0: {"cards": ["QH", "5C"]}})
    assert event_view_full(drawn) == {
        "kind": "card_drawn",
        "seat": 0,
        "count": 2,
        "cards": ["QH", "5C"],
    }
    odd = Event("card_drawn", 0, {"count": 1}, {1: {"cards": ["2C"]}})
    assert event_view_full(odd)["private"] == {"1": {"cards": ["2C"]}}
    assert state.round_no == 1


def test_lines_for_steps_and_hidden_or_shown_cards() -> None:
    taken = {
        "kind": "pile_taken",
        "seat": 1,
        "top": "9H",
        "with": ["9S", "9D"],
        "melds": [],
        "cards_to_hand": 3,
        "red_threes": [],
    }
    assert describe_event(taken) == "seat 1 took the pile with 9H + 9S 9D"
    assert describe_event({**taken, "cards": ["4C", "5D", "6S"]}).endswith(
        ", into the hand 4C 5D 6S"
    )
    red = {"kind": "red_three_revealed", "seat": 0, "card": "3H", "replacements": 1}
    assert describe_event(red) == "seat 0 revealed 3H and drew 1 replacement(s)"
    assert describe_event({**red, "drawn": ["KD"]}).endswith("replacement(s) (KD)")
    step = describe_step(7, 0, "discard", [{"kind": "card_discarded", "seat": 0, "card": "7H"}])
    assert step == "#7 seat 0 discard: seat 0 discarded 7H"
    assert describe_step(1, None, "game_started", []) == "#1 table game_started"


def test_the_table_shows_hands_only_when_asked() -> None:
    state = new_game(make_options("classic", {}), "table")
    hidden, shown = render_table(state), render_table(state, show_hands=True)
    assert "seat 0: 11 cards" in hidden and "seat 0: 11 cards" not in shown
    assert hidden.splitlines()[0] == shown.splitlines()[0]
