"""The search's fast paths count and decide exactly as the plain definitions do."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bots.arena import observation_for
from bots.policies import (
    HARD_ITERATIONS,
    IsmctsPolicy,
    make_policy,
    observation_from_state,
    policy_for_level,
)
from bots.policies.heuristic import _Unseen, round_estimates, team_table_value
from bots.policies.observation import Observation
from games.engine import Event
from games.engine.cards import IS_WILD, VALUE_OF
from games.engine.options import CLASSIC_PRESETS
from games.engine.state import GameState
from tests.bots.positions import heuristic_position


def _observations(state: GameState, events: list[Event]) -> list[Observation]:
    """Every seat's observation, from the view and history and from the state (rollouts)."""
    out = []
    for seat in range(state.options.players):
        out.append(observation_for(state, seat, events))
        out.append(observation_from_state(state, seat))
    return out


positions = st.tuples(
    st.sampled_from(sorted(CLASSIC_PRESETS)),
    st.integers(0, 10_000),
    st.integers(0, 120),
    st.sampled_from([0.0, 0.5, 1.0]),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions)
def test_unseen_counts_by_arrays_equal_the_counter_definition(
    position: tuple[str, int, int, float],
) -> None:
    state, events = heuristic_position(*position)
    for obs in _observations(state, events):
        fast, plain = _Unseen.of(obs), _Unseen(obs.unseen())
        assert (fast.by_rank, fast.wilds, fast.total) == (plain.by_rank, plain.wilds, plain.total)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions)
def test_round_estimates_follow_their_definition(position: tuple[str, int, int, float]) -> None:
    state, events = heuristic_position(*position)
    for obs in _observations(state, events):
        expected = []
        for team in range(obs.teams):
            melds = obs.melds[team]
            value = sum(VALUE_OF[c] for cs in melds.values() for c in cs)
            for cs in melds.values():
                if len(cs) >= 7:
                    value += 300 if any(IS_WILD[c] for c in cs) else 500
            assert team_table_value(melds) == value
            reds = len(obs.red_threes[team])
            red_value = 800 if reds == 4 else 100 * reds
            value += red_value if melds else -red_value
            for s in range(obs.players):
                if s % obs.teams == team:
                    held = sum(VALUE_OF[c] for c in obs.hand) if s == obs.seat else None
                    value -= held if held is not None else 8 * obs.hand_counts[s]
            expected.append(value)
        assert round_estimates(obs) == expected


def _searched_position() -> Observation:
    """A play-phase decision with several candidate moves."""
    state, events = heuristic_position("classic", 3, 9, 0.0)
    return observation_for(state, state.to_act, events)


def test_a_fixed_number_of_iterations_gives_the_same_decision() -> None:
    obs = _searched_position()
    first, again = IsmctsPolicy(4, iterations=12), IsmctsPolicy(4, iterations=12)
    assert first.choose(obs) == again.choose(obs)
    assert first.last_iterations == again.last_iterations == 12


def test_the_hard_level_stops_at_its_iteration_cap() -> None:
    obs = _searched_position()
    hard = policy_for_level("hard", seed=2)
    assert isinstance(hard, IsmctsPolicy)
    hard.time_budget = 60.0  # the cap, not the clock, ends this search
    hard.choose(obs)
    assert hard.last_iterations == HARD_ITERATIONS
    stronger = make_policy("hard", seed=2, budget=0.05)  # a budget given lifts the cap
    assert isinstance(stronger, IsmctsPolicy)
    assert stronger.max_iterations is None


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions)
def test_the_rollout_observation_sets_every_field_as_the_constructor_would(
    position: tuple[str, int, int, float],
) -> None:
    state, _ = heuristic_position(*position)
    for seat in range(state.options.players):
        fast = observation_from_state(state, seat)
        built = Observation(
            seat=seat,
            options=state.options,
            round_no=state.round_no,
            dealer=state.dealer,
            turn=state.turn,
            to_act=state.to_act,
            phase=state.phase,
            hand=sorted(state.hands[seat]),
            hand_counts=[len(h) for h in state.hands],
            stock_count=len(state.stock),
            pile=state.pile[:],
            pile_unknown=0,
            pile_frozen=state.pile_freezers > 0,
            melds=state.melds,
            red_threes=state.red_threes,
            opened=state.opened,
            scores=state.scores,
            permission=state.permission,
            no_discard=state.no_discard,
            turn_melded=state.turn_melded,
            turn_started=state.turn_started,
            melded_before=state.melded_before,
            had_turn=[True] * state.options.players,
        )
        assert fast == built  # every field, the defaults (no known cards, no legal list) too
