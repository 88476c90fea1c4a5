"""The ``FamilyRules`` object of Modern American Canasta (registered by the package)."""

from __future__ import annotations

from typing import Any

from ..actions import Action
from ..options import Options
from ..rules import Event
from ..state import GameState
from . import legal, rules, view
from .state import MacExt


class MacRules:
    families: tuple[str, ...] = ("mac",)

    def new_ext(self, options: Options) -> MacExt:
        return rules.new_ext(options)

    def ext_from_dict(self, data: dict[str, Any]) -> MacExt:
        return MacExt.from_dict(data)

    def deal_round(self, st: GameState, events: list[Event] | None, deck: list[int] | None) -> None:
        rules.deal_round(st, events, deck)

    def apply(self, st: GameState, action: Action, events: list[Event] | None) -> None:
        rules.apply(st, action, events)

    def legal_actions(self, st: GameState) -> list[Action]:
        return legal.legal_actions(st)

    def player_view(self, st: GameState, viewer: int | None, with_legal: bool) -> dict[str, Any]:
        return view.player_view(st, viewer, with_legal)


RULES = MacRules()
