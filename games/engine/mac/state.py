"""What a Modern American Canasta game keeps beside the shared ``GameState``: special hands laid
down, the 3 kept for a Straight, partner questions asked this round and the turn's own marks
(talon due, stock draw, SWAD lifted, initial-meld turn, pile top taken)."""

from __future__ import annotations

from typing import Any


class MacExt:
    __slots__ = (
        "special",
        "special_name",
        "kept",
        "asked",
        "talon",
        "drew_stock",
        "fresh",
        "swad_lifted",
        "initial_turn",
        "pile_top",
    )

    special: list[list[int]]  # per team: the special hand laid face up (empty if none)
    special_name: list[str | None]  # per team: the special hand's name
    kept: list[int]  # per seat: the 3 kept in hand for a Straight (-1: none)
    asked: list[bool]  # per seat: has asked the partner this round
    talon: int  # talon size earned this turn by the initial meld after a stock draw (0: none)
    drew_stock: bool  # this turn's draw came from the stock
    fresh: bool  # right after the stock draw, nothing else done yet (special hands)
    swad_lifted: bool  # the hand right after the draw held no legal discard (R6)
    initial_turn: bool  # the side's first melds were laid this turn
    pile_top: int  # the pile's top card taken this turn (-1: none)

    def __init__(self, players: int, teams: int) -> None:
        self.special = [[] for _ in range(teams)]
        self.special_name = [None] * teams
        self.kept = [-1] * players
        self.asked = [False] * players
        self.talon = 0
        self.drew_stock = False
        self.fresh = False
        self.swad_lifted = False
        self.initial_turn = False
        self.pile_top = -1

    def new_turn(self) -> None:
        self.talon = 0
        self.drew_stock = False
        self.fresh = False
        self.swad_lifted = False
        self.initial_turn = False
        self.pile_top = -1

    def clone(self) -> MacExt:
        new = MacExt.__new__(MacExt)
        new.special = [s[:] for s in self.special]
        new.special_name = self.special_name[:]
        new.kept = self.kept[:]
        new.asked = self.asked[:]
        new.talon = self.talon
        new.drew_stock = self.drew_stock
        new.fresh = self.fresh
        new.swad_lifted = self.swad_lifted
        new.initial_turn = self.initial_turn
        new.pile_top = self.pile_top
        return new

    def to_dict(self) -> dict[str, Any]:
        return {
            "special": [list(s) for s in self.special],
            "special_name": list(self.special_name),
            "kept": list(self.kept),
            "asked": list(self.asked),
            "talon": self.talon,
            "drew_stock": self.drew_stock,
            "fresh": self.fresh,
            "swad_lifted": self.swad_lifted,
            "initial_turn": self.initial_turn,
            "pile_top": self.pile_top,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MacExt:
        new = cls.__new__(cls)
        new.special = [list(s) for s in data["special"]]
        new.special_name = list(data["special_name"])
        new.kept = list(data["kept"])
        new.asked = list(data["asked"])
        new.talon = data["talon"]
        new.drew_stock = data["drew_stock"]
        new.fresh = data["fresh"]
        new.swad_lifted = data["swad_lifted"]
        new.initial_turn = data["initial_turn"]
        new.pile_top = data["pile_top"]
        return new

    def cards(self) -> list[int]:
        out: list[int] = []
        for s in self.special:
            out += s
        return out
