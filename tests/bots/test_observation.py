"""Observations hold only what the seat may know, and determinised worlds agree with it."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from bots.arena import observation_for
from bots.policies import RandomPolicy, determinise, observation_from_state
from games.engine import Action, Event, action_to_dict, apply, legal_actions, make_options, new_game
from games.engine.cards import FULL_DECK, card_text
from games.engine.options import CLASSIC_PRESETS
from games.engine.state import GameState


def _norm(actions: list[Action]) -> list[str]:
    """Actions compared regardless of the order cards are named in."""
    out = []
    for a in actions:
        d = action_to_dict(a)
        for key in ("cards",):
            if key in d:
                d[key] = sorted(d[key])
        if "melds" in d:
            d["melds"] = sorted(str((m["rank"], sorted(m["cards"]))) for m in d["melds"])
        out.append(str(sorted(d.items())))
    return sorted(out)


def _walk(preset: str, seed: str, steps: int) -> list[tuple[GameState, list[Event]]]:
    """Positions of one random game (state and events so far), every few actions."""
    options = make_options(preset)
    events: list[Event] = []
    st = new_game(options, seed, events)
    policy = RandomPolicy(7)
    out = []
    for i in range(steps):
        if st.game_over:
            break
        if i % 3 == 0:
            out.append((st.clone(), list(events)))
        obs = observation_for(st, st.to_act, events)
        apply(st, policy.choose(obs), events)
    return out


@pytest.mark.parametrize("preset", sorted(CLASSIC_PRESETS))
def test_observation_knows_exactly_the_public_and_own_cards(preset: str) -> None:
    for st, events in _walk(preset, f"obs-{preset}", 300):
        for seat in range(st.options.players):
            obs = observation_for(st, seat, events)
            assert Counter(obs.hand) == Counter(st.hands[seat])
            # the whole pile is known from the history, and it is the real pile
            assert obs.pile_unknown == 0
            assert obs.pile == st.pile
            # cards "known" in another hand really are there
            for other in range(st.options.players):
                if other == seat:
                    assert obs.known[other] == []
                    continue
                assert not Counter(obs.known[other]) - Counter(st.hands[other])
            # nothing hidden: every card the observation places is visible to the seat
            hidden = Counter(st.stock)
            for other in range(st.options.players):
                if other != seat:
                    hidden += Counter(st.hands[other]) - Counter(obs.known[other])
            assert obs.unseen() == hidden
            assert obs.hand_counts == [len(h) for h in st.hands]
            assert obs.stock_count == len(st.stock)


def test_observation_text_never_holds_another_hand() -> None:
    """The observation's own hand is the only hand it lists card by card (apart from cards seen
    going into a hand from the pile)."""
    for st, events in _walk("classic", "obs-text", 200):
        obs = observation_for(st, 0, events)
        assert obs.hand_counts[1] == len(st.hands[1])
        shown = {card_text(c) for c in obs.known[1]}
        assert shown <= {card_text(c) for c in st.hands[1]}


@pytest.mark.parametrize("preset", sorted(CLASSIC_PRESETS))
def test_own_legal_actions_do_not_depend_on_hidden_cards(preset: str) -> None:
    rng = random.Random(3)
    for st, events in _walk(preset, f"legal-{preset}", 400):
        seat = st.to_act
        obs = observation_for(st, seat, events)
        truth = legal_actions(st)
        assert obs.legal is not None
        assert _norm(obs.legal) == _norm(truth)
        for _ in range(2):
            world = determinise(obs, rng)
            assert sorted(world.all_cards()) == list(FULL_DECK)
            assert Counter(world.hands[seat]) == Counter(st.hands[seat])
            assert [len(h) for h in world.hands] == [len(h) for h in st.hands]
            assert len(world.stock) == len(st.stock)
            # The engine's canonical listing follows the order of the hand (which the view
            # sorts), so compare with the seat's hand in the same order: the hidden cards
            # (other hands, stock) then make no difference.
            world.hands[seat] = st.hands[seat][:]
            assert _norm(legal_actions(world)) == _norm(truth)


def test_fast_observation_matches_the_view_built_one() -> None:
    for st, events in _walk("classic", "fast", 200):
        seat = st.to_act
        slow = observation_for(st, seat, events)
        fast = observation_from_state(st, seat)
        assert slow.hand == sorted(fast.hand)
        assert [{r: sorted(c) for r, c in m.items()} for m in fast.melds] == slow.melds
        assert [sorted(r) for r in fast.red_threes] == slow.red_threes
        for name in (
            "hand_counts",
            "stock_count",
            "pile",
            "opened",
            "scores",
            "permission",
            "no_discard",
            "phase",
            "turn",
            "turn_melded",
        ):
            assert getattr(slow, name) == getattr(fast, name), name
