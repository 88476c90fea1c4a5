"""The bots of the families beside classic at every level (bots/policies/family.py, the hard
level's search in bots/policies/family_search.py): whole games played to the end with legal moves
only, a hard decision that depends on what its seat sees and its seed only, and the medium level
beating the random one."""

from __future__ import annotations

import random

import pytest

from bots.arena import run_arena
from bots.policies.family import FAMILY_LEVELS
from bots.policies.family_eval import determinize, position_value, seat_knowledge
from bots.policies.family_levels import family_policy_choose
from bots.policies.family_search import search_candidates, search_choose
from games.engine import GameState, apply, legal_actions, make_options, new_game
from games.engine.actions import Discard, Draw

FAMILY_PRESETS = ["mac", "mac_two_player", "samba", "bolivia"]
TEST_ITERATIONS = 2  # the hard level's determinisations in these tests (kept cheap)


def play_to_the_end(preset: str, level: str, seed: int) -> GameState:
    """A whole game to a target of 1000, every move checked legal: ``level`` in every seat, but
    for the random level (which never reaches a target) in one side's seats only, the medium
    level holding the other side."""
    state = new_game(make_options(preset, {"target_score": 1000}), f"search-{seed}")
    rng = random.Random(seed)
    for _ in range(20000):
        if state.game_over:
            break
        seat = state.to_act
        playing = "medium" if level == "random" and state.team_of(seat) == 1 else level
        action = family_policy_choose(playing, state, seat, rng, TEST_ITERATIONS)
        assert action in legal_actions(state), (preset, playing, action)
        apply(state, action)
    return state


@pytest.mark.parametrize("preset", FAMILY_PRESETS)
@pytest.mark.parametrize("level", FAMILY_LEVELS)
def test_every_level_plays_a_whole_game_to_the_end(preset: str, level: str) -> None:
    state = play_to_the_end(preset, level, 11)
    assert state.game_over, (preset, level, state.round_no, state.scores)
    assert state.winner is not None and max(state.scores) >= 1000
    assert state.cards_conserved()


def hidden_permuted(state: GameState, seat: int, seed: int) -> GameState:
    """``state`` with the cards ``seat`` cannot see dealt again among the other hands and the
    stock (each place keeping its count)."""
    other = state.clone()
    others = [s for s in range(state.options.players) if s != seat]
    pool = list(other.stock) + [c for s in others for c in other.hands[s]]
    random.Random(seed).shuffle(pool)
    start = 0
    for s in others:
        count = len(other.hands[s])
        other.hands[s] = pool[start : start + count]
        start += count
    other.stock = pool[start:]
    return other


def positions(preset: str, seed: int, count: int) -> list[GameState]:
    """``count`` positions of a medium game, each a decision with several choices."""
    state = new_game(make_options(preset), f"positions-{seed}")
    rng = random.Random(seed)
    out: list[GameState] = []
    while len(out) < count and not state.game_over:
        if len(legal_actions(state)) > 2:
            out.append(state.clone())
        apply(state, family_policy_choose("medium", state, state.to_act, rng))
    return out


@pytest.mark.parametrize("preset", FAMILY_PRESETS)
def test_the_hard_decision_does_not_change_when_the_hidden_cards_are_permuted(
    preset: str,
) -> None:
    searched = 0
    for state in positions(preset, 5, 12):
        seat = state.to_act
        mine = search_choose(state, seat, random.Random(3), iterations=4)
        candidates = search_candidates(
            legal_actions(state),
            state,
            seat,
            family_policy_choose("medium", state, seat, random.Random(0)),
        )
        searched += len(candidates) > 1
        for variant in range(3):
            elsewhere = hidden_permuted(state, seat, variant)
            assert elsewhere.stock != state.stock or not state.stock
            assert search_choose(elsewhere, seat, random.Random(3), iterations=4) == mine
    assert searched > 0  # the search did weigh several candidates


def test_a_determinisation_keeps_what_the_seat_sees_and_guesses_the_rest() -> None:
    state = positions("samba", 8, 6)[-1]
    seat = state.to_act
    world = determinize(state, seat, random.Random(1))
    assert world.hands[seat] == state.hands[seat] and world.pile == state.pile
    assert world.melds == state.melds and world.red_threes == state.red_threes
    assert [len(h) for h in world.hands] == [len(h) for h in state.hands]
    assert len(world.stock) == len(state.stock)
    assert sorted(world.all_cards()) == sorted(state.all_cards())
    assert world.stock != state.stock  # the unseen cards were dealt again
    # What the seat knows, and so its evaluation, is the same whatever the hidden cards are.
    assert (
        seat_knowledge(state, seat).to_dict()
        == seat_knowledge(hidden_permuted(state, seat, 4), seat).to_dict()
    )
    assert position_value(seat_knowledge(state, seat), seat) == position_value(
        seat_knowledge(hidden_permuted(state, seat, 4), seat), seat
    )


def test_the_search_weighs_every_kind_of_discard_and_the_medium_choice_first() -> None:
    state = new_game(make_options("samba"), "candidates")
    seat = state.to_act
    apply(state, Draw(seat))
    actions = legal_actions(state)
    default = family_policy_choose("medium", state, seat, random.Random(0))
    candidates = search_candidates(actions, state, seat, default)
    assert candidates[0] == default
    discards = [a for a in candidates if isinstance(a, Discard)]
    assert len({a.card // 4 for a in discards}) == len(discards) >= 2
    assert all(a in actions for a in candidates)


@pytest.mark.parametrize("preset", ["mac", "samba"])
def test_medium_beats_random_in_a_small_match(preset: str) -> None:
    report = run_arena("medium", "random", games=16, preset=preset, seed=3, progress=False)
    assert float(report["win_rate_a"]) >= 0.75, report
    assert float(report["mean_diff"]) > 0
