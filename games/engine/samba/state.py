"""What Samba and Bolivia keep beside the shared ``GameState``: each meld's kind and the next
meld number of each side (ids are the side's letter and that number, never reused in a round)."""

from __future__ import annotations

from typing import Any

GROUP, SEQUENCE, WILD = "group", "sequence", "wild"
KINDS = (GROUP, SEQUENCE, WILD)
TEAM_LETTERS = "AB"


class SambaExt:
    """Per side: meld number -> kind, and the number the side's next meld gets."""

    __slots__ = ("kinds", "next_id")

    def __init__(self, kinds: list[dict[int, str]] | None = None, next_id: list[int] | None = None):
        self.kinds: list[dict[int, str]] = kinds if kinds is not None else [{}, {}]
        self.next_id: list[int] = next_id if next_id is not None else [1, 1]

    def reset(self) -> None:
        """A new round: no melds, numbering starts again at 1."""
        self.kinds = [{}, {}]
        self.next_id = [1, 1]

    def clone(self) -> SambaExt:
        return SambaExt([dict(k) for k in self.kinds], self.next_id[:])

    def to_dict(self) -> dict[str, Any]:
        return {
            "kinds": [[[n, k] for n, k in sorted(team.items())] for team in self.kinds],
            "next_id": list(self.next_id),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SambaExt:
        return cls(
            [{int(n): str(k) for n, k in team} for team in data["kinds"]],
            [int(n) for n in data["next_id"]],
        )

    def cards(self) -> list[int]:
        return []  # every card of these families lies in the shared places


def meld_name(team: int, number: int) -> str:
    """The public id of a side's meld, such as ``A3``."""
    return f"{TEAM_LETTERS[team]}{number}"


def parse_meld_name(name: str) -> tuple[int, int]:
    """(side, number) of a meld id already checked by the action parser."""
    return TEAM_LETTERS.index(name[0]), int(name[1:])
