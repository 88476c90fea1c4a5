"""The heuristic's fast paths (the best discard, the allowed discards, the pile take's score)
decide exactly as their plain definitions do."""

from __future__ import annotations

from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bots.arena import observation_for
from bots.policies import observation_from_state
from bots.policies.heuristic import (
    DEFAULT_PARAMS,
    allowed_discards,
    choose_discard,
    discard_scores,
    take_score,
)
from bots.policies.observation import Observation, determinise
from games.engine import Event
from games.engine.actions import TakePile
from games.engine.cards import IS_BLACK_THREE, IS_RED_THREE, IS_WILD, RANK_OF
from games.engine.legal import legal_actions
from games.engine.options import CLASSIC_PRESETS
from games.engine.rules import discard_error
from games.engine.state import PHASE_PLAY, GameState
from tests.bots.positions import heuristic_position


def _seat_views(state: GameState, events: list[Event]) -> list[tuple[Observation, GameState]]:
    """The seat to act's observation from its view (with a world) and from the state."""
    seat = state.to_act
    obs = observation_for(state, seat, events)
    return [(obs, determinise(obs)), (observation_from_state(state, seat), state)]


def _plain_take_score(obs: Observation, take: TakePile) -> float:
    params = DEFAULT_PARAMS
    pile = obs.pile
    gained = [c for c in pile[:-1] if not IS_RED_THREE[c]]
    score = float(len(gained)) + 2.0
    score += 1.5 * sum(1 for c in gained if IS_WILD[c])
    score += 1.0 * sum(1 for c in pile[:-1] if IS_RED_THREE[c])
    hand_ranks = Counter(RANK_OF[c] for c in obs.hand if not IS_WILD[c])
    score += 0.5 * sum(1 for c in gained if not IS_WILD[c] and hand_ranks[RANK_OF[c]] >= 1)
    score -= params.wild_spend_cost * sum(1 for c in take.cards if IS_WILD[c])
    score -= 0.3 * sum(len(g.cards) for g in take.melds)
    score -= 0.15 * sum(1 for c in gained if IS_BLACK_THREE[c])
    return score


positions = st.tuples(
    st.sampled_from(sorted(CLASSIC_PRESETS)),
    st.integers(0, 10_000),
    st.integers(0, 120),
    st.sampled_from([0.0, 0.5, 1.0]),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions)
def test_fast_paths_equal_their_definitions(position: tuple[str, int, int, float]) -> None:
    state, events = heuristic_position(*position, name="heuristic-fast")
    if state.game_over:
        return
    for obs, world in _seat_views(state, events):
        cards = sorted(set(obs.hand))
        plain = [c for c in cards if discard_error(world, obs.seat, c) is None]
        assert allowed_discards(world, obs.seat, cards) == plain
        scored = discard_scores(obs, world, DEFAULT_PARAMS)
        chosen = choose_discard(obs, world, DEFAULT_PARAMS)
        if world.phase == PHASE_PLAY and scored:
            assert chosen is not None and chosen.card == scored[0][1]
        else:
            assert chosen is None
        for action in legal_actions(world):
            if isinstance(action, TakePile):
                assert take_score(obs, action, DEFAULT_PARAMS) == _plain_take_score(obs, action)
