"""Random legal play of Samba and Bolivia with the invariants checked at every step: cards
conserved, the JSON round trip equals the state, each view shows its seat's hand only (other
hands as counts, no stock, no seed), every listed action applies (on a clone), refused actions
change nothing, the seat to move can always act, and whole games to a low target end and replay
to the same state. ``CANASTA_ENGINE_HANDS`` sets the games per family (default 12)."""

from __future__ import annotations

import json
import os
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import (
    Discard,
    EngineError,
    GameState,
    Meld,
    MeldGroup,
    TakePile,
    apply,
    legal_actions,
    make_options,
    new_game,
    replay,
)
from games.engine.actions import Action
from games.engine.cards import N_CODES, card_text
from games.engine.view import player_view

GAMES = int(os.environ.get("CANASTA_ENGINE_HANDS", "12"))


def random_refusal(rng: random.Random, seat: int) -> Action:
    card = rng.randrange(N_CODES)
    pick = rng.randrange(4)
    if pick == 0:
        return Discard(seat, card)
    if pick == 1:
        return TakePile(seat, (card, card), (), rng.choice([None, "A1", "B2"]))
    if pick == 2:
        return Meld(seat, (MeldGroup(rng.randrange(1, 12), (card,), target="A1"),))
    return Meld(seat, (), ("A1", "A2"))


HIDDEN_KEYS = {"stock", "hands", "seed", "ext"}


def keys_of(value: object) -> set[str]:
    """Every key of every dict inside a JSON value."""
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in keys_of(v)}
    if isinstance(value, list):
        return {k for v in value for k in keys_of(v)}
    return set()


def check_views(state: GameState) -> None:
    """Each seat's view shows its own hand and only counts of the others; no view holds the
    stock's cards or order, the seed or another seat's hand."""
    for viewer in (None, 0, 1, 2, 3):
        view = json.loads(json.dumps(player_view(state, viewer)))
        assert not keys_of(view) & HIDDEN_KEYS
        assert view["stock_count"] == len(state.stock)
        assert view["hand_counts"] == [len(h) for h in state.hands]
        if viewer is None:
            assert view["hand"] is None and view["legal_actions"] == []
        else:
            assert sorted(view["hand"]) == sorted(card_text(c) for c in state.hands[viewer])
            if viewer != state.to_act:
                assert view["legal_actions"] == []
        assert state.seed not in json.dumps(view)


def play_game(preset: str, seed: int, max_actions: int = 3000) -> int:
    """A game of random legal play with every invariant checked at every step; returns the
    number of actions played."""
    options = make_options(preset, {"target_score": 3000})
    state = new_game(options, f"samba-seed-{seed}")
    rng = random.Random(seed)
    done: list[Action] = []
    while not state.game_over and len(done) < max_actions:
        acts = legal_actions(state)
        assert acts, "the seat to move has no legal action"
        assert len(set(acts)) == len(acts), "an action is listed twice"
        for other in acts:  # every listed action applies
            apply(state.clone(), other)
        if rng.random() < 0.2:
            bad = random_refusal(rng, state.to_act)
            if bad not in acts:
                before = state.to_dict()
                try:
                    apply(state, bad)
                except EngineError:
                    assert state.to_dict() == before
                else:  # a random action that happens to be legal is played
                    done.append(bad)
                    continue
        action = rng.choice(acts)
        apply(state, action)
        done.append(action)
        assert state.cards_conserved()
        data = json.loads(json.dumps(state.to_dict()))
        assert GameState.from_dict(data) == state
        check_views(state)
    assert state.game_over, "a game to 3000 ends"
    assert replay(options, f"samba-seed-{seed}", done) == state
    return len(done)


@pytest.mark.parametrize("preset", ["samba", "bolivia"])
@settings(
    max_examples=GAMES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=os.environ.get("CANASTA_ENGINE_RANDOM") is None,
)
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_random_games_keep_the_invariants(preset: str, seed: int) -> None:
    play_game(preset, seed)
