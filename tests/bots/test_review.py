"""The pure reviewer (bots.policies.review): the seat's information only, losses never negative,
a clear mistake found, the same review for the same seed; the whole-log walk."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bots.arena import observation_for
from bots.policies import HeuristicPolicy, Observation
from bots.policies import review as review_module
from bots.policies.review import (
    BLUNDER,
    INACCURACY,
    MISTAKE,
    DecisionReview,
    ReviewSettings,
    review_decision,
    review_log,
    severity_of,
)
from games.engine import (
    GAME_STARTED,
    Action,
    Discard,
    Event,
    GameState,
    LogEntry,
    action_to_dict,
    apply,
    make_options,
    new_game,
)
from games.engine.cards import IS_WILD, RANK_OF
from games.engine.legal import legal_actions
from games.engine.view import player_view

FAST = ReviewSettings(worlds=8, max_plies=30, halving_at=(4,))


def heuristic_until(
    seed: str,
    stop: Callable[[GameState], bool] | None = None,
    preset: str = "classic",
    max_moves: int = 400,
) -> tuple[GameState, list[Event], list[LogEntry]]:
    """A game of heuristic players from ``seed`` until ``stop(state)`` (or the end)."""
    options = make_options(preset, {})
    events: list[Event] = []
    state = new_game(options, seed, events)
    entries = [LogEntry(1, None, GAME_STARTED, {}, None, "system")]
    policies = [HeuristicPolicy(i) for i in range(options.players)]
    for _ in range(max_moves):
        if state.phase == "game_over" or (stop is not None and stop(state)):
            break
        seat = state.to_act
        action = policies[seat].choose(observation_for(state, seat, events))
        apply(state, action, events)
        entries.append(
            LogEntry(len(entries) + 1, seat, action.type, action_to_dict(action), None, "bot")
        )
    return state, events, entries


def play_decision(seed: str, seat: int = 0) -> tuple[GameState, list[Event]]:
    """The first play-phase decision of ``seat`` after a few turns, with a pile to lose."""
    return heuristic_until(
        seed, lambda s: s.to_act == seat and s.phase == "play" and len(s.pile) >= 4
    )[:2]


def checked(review: DecisionReview | None) -> DecisionReview:
    assert review is not None
    values = {c.action: c.value for c in review.candidates}
    assert review.chosen in values and review.best in values
    assert review.loss >= 0
    assert review.loss == pytest.approx(values[review.best] - values[review.chosen])
    assert values[review.best] >= values[review.chosen]
    full = [c for c in review.candidates if c.worlds == review.worlds]
    assert review.best in {c.action for c in full} and review.chosen in {c.action for c in full}
    assert max(c.value for c in full) == values[review.best]
    return review


# ============================================================================== information
def test_the_review_depends_only_on_what_the_seat_can_see() -> None:
    state, events = play_decision("review-info")
    other = state.clone()
    # Another world the seat cannot tell apart: opponents' hands and the stock reshuffled.
    pool = other.hands[1] + other.hands[2] + other.hands[3] + other.stock
    random.Random(7).shuffle(pool)
    sizes = [len(other.hands[s]) for s in (1, 2, 3)]
    other.hands[1], pool = pool[: sizes[0]], pool[sizes[0] :]
    other.hands[2], pool = pool[: sizes[1]], pool[sizes[1] :]
    other.hands[3], other.stock = pool[: sizes[2]], pool[sizes[2] :]
    assert other.hands != state.hands
    assert player_view(other, 0) == player_view(state, 0)
    first, second = observation_for(state, 0, events), observation_for(other, 0, events)
    assert first == second
    chosen = legal_actions(state)[-1]
    assert checked(review_decision(first, chosen, 11, FAST)) == checked(
        review_decision(second, chosen, 11, FAST)
    )


def test_the_reviewer_is_deterministic_by_seed() -> None:
    state, events = play_decision("review-seed")
    obs = observation_for(state, 0, events)
    chosen = next(a for a in legal_actions(state) if isinstance(a, Discard))
    one = checked(review_decision(obs, chosen, 5, FAST))
    assert checked(review_decision(obs, chosen, 5, FAST)) == one
    assert one.worlds == FAST.worlds


def test_a_single_legal_move_is_not_reviewed() -> None:
    state, events, _ = heuristic_until("review-single", lambda s: len(legal_actions(s)) == 1)
    assert len(legal_actions(state)) == 1
    obs = observation_for(state, state.to_act, events)
    assert review_decision(obs, legal_actions(state)[0], 1, FAST) is None


# ============================================================================== a clear mistake
def test_giving_the_pile_away_costs_points() -> None:
    """Seat 0 discards a card of a rank the next opponent's side has melded on a large unfrozen
    pile (they lay it off and take the pile) while safer discards exist."""
    found = None
    for g in range(12):

        def giveaway(s: GameState) -> bool:
            return bool(
                s.to_act == 0
                and s.phase == "play"
                and len(s.pile) >= 8
                and not s.pile_freezers
                and len(s.hands[0]) > 3
                and _giveaway_card(s) is not None
            )

        state, events, _ = heuristic_until(f"find-{g}", giveaway)
        if state.phase != "game_over" and giveaway(state):
            found = state, events
            break
    assert found is not None, "no position found"
    state, events = found
    card = _giveaway_card(state)
    assert card is not None
    obs = observation_for(state, 0, events)
    review = checked(review_decision(obs, Discard(0, card), 3, replace(FAST, worlds=16)))
    assert review.loss >= MISTAKE
    assert review.best != review.chosen
    assert review.severity in ("mistake", "blunder")
    assert review.reason is not None


def _giveaway_card(s: GameState) -> int | None:
    ranks = set(s.melds[1])  # seat 1, the next to play, is on team 1
    for c in sorted(s.hands[0]):
        if RANK_OF[c] in ranks and not IS_WILD[c] and Discard(0, c) in legal_actions(s):
            return c
    return None


def test_severity_thresholds() -> None:
    assert severity_of(0) == "ok"
    assert severity_of(INACCURACY - 0.1) == "ok"
    assert severity_of(INACCURACY) == "inaccuracy"
    assert severity_of(MISTAKE) == "mistake"
    assert severity_of(BLUNDER) == "blunder"
    assert severity_of(BLUNDER, stderr=80) == "inaccuracy"  # noise is taken off first


# ============================================================================== invariants
def random_position(seed: int, moves: int) -> tuple[GameState, list[Event], Action | None]:
    """A position after ``moves`` random legal moves, and a random legal move there."""
    rng = random.Random(seed)
    events: list[Event] = []
    state = new_game(make_options("classic", {}), f"random-{seed}", events)
    for _ in range(moves):
        if state.phase == "game_over":
            break
        apply(state, rng.choice(legal_actions(state)), events)
    if state.phase == "game_over":
        return state, events, None
    return state, events, rng.choice(legal_actions(state))


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), moves=st.integers(1, 60))
def test_loss_is_never_negative_and_the_chosen_move_is_a_candidate(seed: int, moves: int) -> None:
    state, events, chosen = random_position(seed, moves)
    if chosen is None:
        return
    obs = observation_for(state, state.to_act, events)
    review = review_decision(obs, chosen, seed, ReviewSettings(worlds=4, max_plies=20))
    if len(legal_actions(state)) == 1:
        assert review is None
        return
    checked(review)


# ============================================================================== the log
def test_the_log_walk_reviews_the_seats_own_decisions_of_the_rounds_asked() -> None:
    state, _, entries = heuristic_until("review-log", lambda s: s.round_no >= 2)
    options = make_options("classic", {})
    decisions = list(review_log(options, "review-log", entries, 1, 1, "t", FAST))
    assert decisions
    by_seq = {e.seq: e for e in entries}
    for d in decisions:
        entry = by_seq[d.step]
        assert entry.seat == 1
        assert action_to_dict(d.review.chosen) == entry.payload
        assert d.round_no == 1 and d.turn_no >= 1
    steps = [d.step for d in decisions]
    assert steps == sorted(steps) and len(set(steps)) == len(steps)
    again = list(review_log(options, "review-log", entries, 1, 1, "t", FAST))
    assert again == decisions
    # A move the turn timer made for the seat is not its decision.
    timed = [replace(e, source="timer") if e.seq == steps[0] else e for e in entries]
    rest = list(review_log(options, "review-log", timed, 1, 1, "t", FAST))
    assert [d.step for d in rest] == steps[1:]


def test_the_log_walk_sees_what_a_bot_in_the_seat_saw(monkeypatch: pytest.MonkeyPatch) -> None:
    """At each decision the reviewer gets exactly the observation the arena gives a bot there
    (its player view and the round's events as it saw them), never the state itself."""
    options = make_options("classic", {})
    events: list[Event] = []
    state = new_game(options, "review-obs", events)
    entries = [LogEntry(1, None, GAME_STARTED, {}, None, "system")]
    policies = [HeuristicPolicy(i) for i in range(options.players)]
    expected = {}
    while state.round_no == 1:
        seat = state.to_act
        obs = observation_for(state, seat, events)
        if seat == 2:
            expected[len(entries) + 1] = obs
        action = policies[seat].choose(obs)
        apply(state, action, events)
        entries.append(
            LogEntry(len(entries) + 1, seat, action.type, action_to_dict(action), None, "bot")
        )
    seen: dict[int, object] = {}
    real = review_module.review_decision

    def spy(obs: object, chosen: Action, seed: int, settings: object = None) -> object:
        assert isinstance(obs, Observation)
        seen[len(seen)] = obs
        return real(obs, chosen, seed, FAST)

    monkeypatch.setattr(review_module, "review_decision", spy)
    decisions = list(review_log(options, "review-obs", entries, 2, 1, "t", FAST))
    assert len(seen) == len(decisions) > 0
    for i, d in enumerate(decisions):
        assert seen[i] == expected[d.step]
