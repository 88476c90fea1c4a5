"""The Samba and Bolivia family (VARIANTS.md sections 2 and 3) behind the engine's common API:
``RULES`` implements ``FamilyRules`` with the modules of this package (``play`` for the deal and
actions, ``legal``, ``view``, ``state`` for the meld kinds and numbering)."""

from __future__ import annotations

from typing import Any

from ..actions import Action
from ..options import Options
from ..rules import Event
from ..state import GameState
from . import legal, play, view
from .state import SambaExt


class SambaRules:
    families: tuple[str, ...] = ("samba", "bolivia")

    def new_ext(self, options: Options) -> SambaExt:
        return SambaExt()

    def ext_from_dict(self, data: dict[str, Any]) -> SambaExt:
        return SambaExt.from_dict(data)

    def deal_round(self, st: GameState, events: list[Event] | None, deck: list[int] | None) -> None:
        play.deal_round(st, events, deck)

    def apply(self, st: GameState, action: Action, events: list[Event] | None) -> None:
        play.apply(st, action, events)

    def legal_actions(self, st: GameState) -> list[Action]:
        return legal.legal_actions(st)

    def player_view(self, st: GameState, viewer: int | None, with_legal: bool) -> dict[str, Any]:
        return view.player_view(st, viewer, with_legal)


RULES = SambaRules()
