"""The rule families beside Classic: each plays behind the same ``apply`` / ``legal_actions`` /
``player_view`` / replay API, and registers itself here.

The classic family is the engine's own modules (``rules``, ``legal``, ``view``); ``mac``
(Modern American Canasta) and ``samba`` (Samba and Bolivia) are sub-packages that implement
``FamilyRules`` and keep the state a family adds to ``GameState`` in ``GameState.ext`` (a
``FamilyState``). This module imports nothing of the engine at run time, so every other module
may import it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from .actions import Action
    from .options import Options
    from .rules import Event
    from .state import GameState

CLASSIC = "classic"


class FamilyState(Protocol):
    """What a family keeps beside the shared state (JSON-safe, cheap to clone)."""

    def clone(self) -> FamilyState: ...

    def to_dict(self) -> dict[str, Any]: ...

    def cards(self) -> list[int]:
        """Cards held in the family's own places (for the conservation invariant)."""
        ...


class FamilyRules(Protocol):
    """One rule family's rules. ``apply`` validates fully, then commits (a refusal raises
    ``IllegalAction`` and leaves the state exactly as it was)."""

    families: tuple[str, ...]

    def new_ext(self, options: Options) -> FamilyState: ...

    def ext_from_dict(self, data: dict[str, Any]) -> FamilyState: ...

    def deal_round(
        self, st: GameState, events: list[Event] | None, deck: list[int] | None
    ) -> None: ...

    def apply(self, st: GameState, action: Action, events: list[Event] | None) -> None: ...

    def legal_actions(self, st: GameState) -> list[Action]: ...

    def player_view(
        self, st: GameState, viewer: int | None, with_legal: bool
    ) -> dict[str, Any]: ...


_FAMILIES: dict[str, FamilyRules] = {}


def register(rules: FamilyRules) -> None:
    for name in rules.families:
        _FAMILIES[name] = rules


def family_rules(family: str) -> FamilyRules:
    """The rules of a family other than classic (registered when ``games.engine`` loads)."""
    return _FAMILIES[family]
