"""Every policy plays every preset without an illegal move; the heuristic beats random.

``play_game`` applies each chosen action with the engine, which raises ``IllegalAction`` on any
illegal move, so finishing the hands is the assertion. The number of hands is bounded for CI;
set BOTS_SOAK_HANDS (e.g. 1000) for a long soak run.
"""

from __future__ import annotations

import os

import pytest

from bots.arena import observation_for, play_game, run_arena
from bots.policies import (
    HeuristicPolicy,
    IsmctsPolicy,
    Policy,
    RandomPolicy,
    make_policy,
    policy_for_level,
)
from games.engine import Event, apply, make_options, new_game
from games.engine.options import CLASSIC_PRESETS
from games.engine.state import PHASE_ANSWER

HANDS = int(os.environ.get("BOTS_SOAK_HANDS", "20"))
PRESET_NAMES = sorted(CLASSIC_PRESETS)


def _tiny_ismcts(seed: int) -> Policy:
    return IsmctsPolicy(seed, iterations=1, max_candidates=3, max_plies=12)


@pytest.mark.parametrize("preset", PRESET_NAMES)
@pytest.mark.parametrize("kind", ["random", "heuristic", "easy"])
def test_policy_never_plays_an_illegal_move(preset: str, kind: str) -> None:
    options = make_options(preset)
    for hand in range(HANDS):
        policies = [make_policy(kind, seed=hand * 10 + s) for s in range(options.players)]
        st, _, actions = play_game(options, f"legal-{kind}-{preset}-{hand}", policies)
        assert st.round_no == 2 or st.game_over
        assert st.rounds[0]["round"] == 1
        assert actions > 0


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_mixed_table_with_search_never_plays_an_illegal_move(preset: str) -> None:
    options = make_options(preset)
    for hand in range(max(2, HANDS // 10)):
        policies: list[Policy] = []
        for s in range(options.players):
            kinds = [_tiny_ismcts(hand * 10 + s), HeuristicPolicy(s), RandomPolicy(s)]
            policies.append(kinds[(s + hand) % 3])
        play_game(options, f"legal-mixed-{preset}-{hand}", policies)


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_full_game_of_heuristic_bots_ends(preset: str) -> None:
    """Whole games reach later rounds (higher initial minimums, dealer rotation) and end."""
    options = make_options(preset)
    policies = [HeuristicPolicy(s) for s in range(options.players)]
    st, _, _ = play_game(options, f"full-{preset}", policies, full=True)
    assert st.game_over
    assert st.winner is not None
    assert max(st.scores) >= options.target_score


def test_levels_map_to_policies() -> None:
    assert isinstance(policy_for_level("medium"), HeuristicPolicy)
    assert isinstance(policy_for_level("hard"), IsmctsPolicy)
    easy = policy_for_level("easy")
    assert isinstance(easy, HeuristicPolicy)
    assert easy.epsilon > 0
    with pytest.raises(ValueError):
        policy_for_level("grandmaster")


def test_partner_questions_are_answered_and_asked() -> None:
    """Over a few hands the heuristic asks for permission to go out and answers."""
    options = make_options("classic")
    asked = answered = 0
    for hand in range(12):
        events: list[Event] = []
        st = new_game(options, f"ask-{hand}", events)
        policies = [HeuristicPolicy(s) for s in range(4)]
        while st.round_no == 1:
            seat = st.to_act
            if st.phase == PHASE_ANSWER:
                answered += 1
            apply(st, policies[seat].choose(observation_for(st, seat, events)), events)
        asked += sum(1 for e in events if e.kind == "partner_asked")
    assert asked == answered
    assert asked > 0


def test_ismcts_respects_its_iteration_budget() -> None:
    options = make_options("classic")
    events: list[Event] = []
    st = new_game(options, "budget", events)
    policy = IsmctsPolicy(1, iterations=3, max_plies=10)
    searched = 0
    for _ in range(40):
        obs = observation_for(st, st.to_act, events)
        action = policy.choose(obs)
        assert policy.last_iterations <= 3
        searched += policy.last_iterations > 0
        apply(st, action, events)
    assert searched > 0


def test_heuristic_clearly_beats_random() -> None:
    report = run_arena("heuristic", "random", games=20, preset="classic", seed=11, progress=False)
    assert report["n"] == 20
    assert float(report["win_rate_a"]) >= 0.8
    assert float(report["mean_diff"]) > 300


def test_policy_specs_for_experiments() -> None:
    policy = make_policy("ismcts:confidence=0.5,max_candidates=7", seed=1, budget=0.1)
    assert isinstance(policy, IsmctsPolicy)
    assert policy.confidence == 0.5
    assert policy.max_candidates == 7
    assert policy.time_budget == 0.1
    with pytest.raises(ValueError):
        make_policy("ismcts:depth=3")
    with pytest.raises(ValueError):
        make_policy("alphazero")
