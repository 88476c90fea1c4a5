"""Positions for the bots' tests: a hand of (partly random) heuristic players, some moves in."""

from __future__ import annotations

from bots.arena import observation_for
from bots.policies import HeuristicPolicy
from games.engine import Event, apply, make_options, new_game
from games.engine.state import GameState


def heuristic_position(
    preset: str, seed: int, steps: int, epsilon: float, name: str = "search"
) -> tuple[GameState, list[Event]]:
    """The state and events of round 1 of game ``{name}-{seed}`` after ``steps`` moves of
    heuristic players (``epsilon``: their share of random legal moves)."""
    options = make_options(preset)
    events: list[Event] = []
    state = new_game(options, f"{name}-{seed}", events)
    players = [HeuristicPolicy(seed + s, epsilon=epsilon) for s in range(options.players)]
    for _ in range(steps):
        if state.game_over or state.round_no > 1:
            break
        seat = state.to_act
        apply(state, players[seat].choose(observation_for(state, seat, events)), events)
    return state, events
