"""The entry point of the bots of the rule families beside classic: every level, by name.

``random``, ``easy`` and ``medium`` are ``family.level_choose``'s; ``hard`` is the determinised
search of ``family_search`` (which plays the medium level in its rollouts). Kept apart from both
so that neither imports the other's caller.
"""

from __future__ import annotations

import random

from games.engine.actions import Action
from games.engine.state import GameState

from .family import FAMILY_LEVELS, level_choose
from .family_search import HARD_ITERATIONS, search_choose


def family_policy_choose(
    level: str, state: GameState, seat: int, rng: random.Random, iterations: int | None = None
) -> Action:
    """The action ``level`` plays for ``seat`` (the seat to act) in a game of a family beside
    classic; always one of ``legal_actions(state)``. ``iterations``: the hard level's
    determinisations per decision (``family_search.HARD_ITERATIONS`` by default)."""
    if level not in FAMILY_LEVELS:
        raise ValueError(f"unknown bot level '{level}'; choose one of {', '.join(FAMILY_LEVELS)}")
    if level == "hard":
        return search_choose(state, seat, rng, iterations or HARD_ITERATIONS)
    return level_choose(level, state, seat, rng)
