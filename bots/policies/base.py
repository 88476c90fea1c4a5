"""The policy protocol and the random baseline."""

from __future__ import annotations

import random
from typing import Protocol

from games.engine.actions import Action
from games.engine.legal import legal_actions

from .observation import Observation, own_state


class Policy(Protocol):
    """A bot: given what its seat knows, an action for that seat that the engine accepts."""

    name: str

    def choose(self, obs: Observation) -> Action: ...


def seat_legal_actions(obs: Observation) -> list[Action]:
    """The seat's legal actions: from the view when it listed them, else from a determinisation
    (the seat's own legal actions do not depend on the cards it cannot see)."""
    if obs.legal is not None:
        return list(obs.legal)
    return legal_actions(own_state(obs))


class RandomPolicy:
    """Uniformly random over the listed legal actions (a baseline)."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, obs: Observation) -> Action:
        actions = seat_legal_actions(obs)
        if not actions:
            raise ValueError("no legal action for this seat")
        return self.rng.choice(actions)
