"""Pure bot policies (no Django): they see only a seat's view and the public history.

Levels offered to players map onto policies and budgets:

========  ==========================================  ============================
level     policy                                      budget
========  ==========================================  ============================
easy      heuristic with 35% random legal moves       -
medium    heuristic                                   -
hard      ismcts (determinised search, heuristic      100 iterations per searched
          rollouts)                                   decision, at most 0.45 s
========  ==========================================  ============================

The arena measures the hard level with ``--iterations 100``: the same play on any machine (here
the clock stops the search only on a machine too slow for 100 iterations in 0.45 s).
"""

from __future__ import annotations

from .base import Policy, RandomPolicy, seat_legal_actions
from .heuristic import HeuristicParams, HeuristicPolicy, heuristic_action
from .ismcts import IsmctsPolicy
from .observation import Observation, determinise, observation_from_state, observe, own_state

LEVELS: dict[str, str] = {"easy": "easy", "medium": "heuristic", "hard": "ismcts"}
HARD_BUDGET = 0.45  # at most these seconds per searched decision at the ``hard`` level
HARD_ITERATIONS = 100  # and at most this many iterations (unless a budget is given)
EASY_EPSILON = 0.35
ISMCTS_SETTINGS = (
    "confidence",
    "base_bonus",
    "max_candidates",
    "max_iterations",
    "max_plies",
    "time_budget",
)
POLICY_NAMES = ("random", "heuristic", "ismcts", "easy", "medium", "hard")


def make_policy(
    name: str, seed: int | None = None, budget: float = 0.0, iterations: int | None = None
) -> Policy:
    """A policy by name (``random``, ``heuristic``, ``ismcts``) or level (``easy``, ``medium``,
    ``hard``). ``budget`` (seconds) overrides the ismcts time per searched decision (and lifts
    its iteration cap); ``iterations`` replaces both by a fixed number of iterations (the same
    play on any machine).

    ``ismcts`` takes settings for experiments: ``ismcts:confidence=0.5,max_candidates=7``."""
    name, _, settings = name.partition(":")
    name = LEVELS.get(name, name)
    if name == "random":
        return RandomPolicy(seed)
    if name == "heuristic":
        return HeuristicPolicy(seed)
    if name == "easy":
        return HeuristicPolicy(seed, epsilon=EASY_EPSILON)
    if name == "ismcts":
        kwargs: dict[str, float] = {}
        for item in filter(None, settings.split(",")):
            key, _, text = item.partition("=")
            if key not in ISMCTS_SETTINGS:
                raise ValueError(f"unknown ismcts setting '{key}'")
            kwargs[key] = float(text)
        policy = IsmctsPolicy(
            seed,
            time_budget=budget or HARD_BUDGET,
            iterations=iterations,
            max_iterations=None if budget else HARD_ITERATIONS,
        )
        for key, number in kwargs.items():
            integral = key in ("max_candidates", "max_iterations", "max_plies")
            setattr(policy, key, int(number) if integral else number)
        return policy
    raise ValueError(f"unknown policy '{name}'; choose one of {', '.join(POLICY_NAMES)}")


def policy_for_level(level: str, seed: int | None = None) -> Policy:
    if level not in LEVELS:
        raise ValueError(f"unknown bot level '{level}'; choose one of {', '.join(LEVELS)}")
    return make_policy(level, seed)


__all__ = [
    "HARD_BUDGET",
    "HARD_ITERATIONS",
    "LEVELS",
    "POLICY_NAMES",
    "HeuristicParams",
    "HeuristicPolicy",
    "IsmctsPolicy",
    "Observation",
    "Policy",
    "RandomPolicy",
    "determinise",
    "heuristic_action",
    "make_policy",
    "observation_from_state",
    "observe",
    "own_state",
    "policy_for_level",
    "seat_legal_actions",
]
