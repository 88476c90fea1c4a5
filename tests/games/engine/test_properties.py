"""Hypothesis-driven random play on every preset (and random option overrides).

Each example plays whole hands with random legal actions and checks every invariant after every
action (see ``randomplay.check_game``). The default run is small enough for CI; to play thousands
of hands locally set ``CANASTA_ENGINE_HANDS`` (examples per preset and test), e.g.::

    CANASTA_ENGINE_HANDS=1000 .venv/bin/pytest tests/games/engine/test_properties.py -q
"""

from __future__ import annotations

import os
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import CLASSIC_PRESETS

from .randomplay import OPTION_VARIANTS, check_game

HANDS = int(os.environ.get("CANASTA_ENGINE_HANDS", "10"))

seeds = st.integers(min_value=0, max_value=2**32 - 1)
overrides = st.dictionaries(
    st.sampled_from(sorted(OPTION_VARIANTS)),
    st.integers(0, 1),
    max_size=5,
).map(lambda picks: {name: OPTION_VARIANTS[name][i] for name, i in picks.items()})

slow = settings(
    max_examples=HANDS,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=os.environ.get("CANASTA_ENGINE_RANDOM") is None,
)


@pytest.mark.parametrize("preset", sorted(CLASSIC_PRESETS))
@slow
@given(seed=seeds, eager=st.sampled_from([0.0, 0.5, 0.9]))
def test_random_hands_on_every_preset_keep_the_invariants(
    preset: str, seed: int, eager: float
) -> None:
    check_game(seed, preset, max_rounds=1, eager=eager)


@pytest.mark.parametrize("preset", sorted(CLASSIC_PRESETS))
@slow
@given(seed=seeds, options=overrides)
def test_random_hands_with_option_overrides_keep_the_invariants(
    preset: str, seed: int, options: dict[str, Any]
) -> None:
    check_game(seed, preset, options, max_rounds=1, eager=0.7)


@settings(
    max_examples=max(2, HANDS // 4),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=os.environ.get("CANASTA_ENGINE_RANDOM") is None,
)
@given(seed=seeds, preset=st.sampled_from(sorted(CLASSIC_PRESETS)))
def test_whole_games_to_a_low_target_replay_and_end(seed: int, preset: str) -> None:
    # Eager melding reaches 1000 within a few rounds; replay covers several deals.
    state = check_game(
        seed,
        preset,
        {"target_score": 1000},
        max_rounds=6,
        eager=0.9,
        probes=1,
        check_legal_every=3,
    )
    assert state.game_over or state.round_no > 6 or state.action_count >= 4000
