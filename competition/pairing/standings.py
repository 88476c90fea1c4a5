"""Tournament standings kept up to date result by result, in O(changes).

A unit's row: match points, Buchholz (the sum of its opponents' current points, one term per
meeting), Sonneborn-Berger (per meeting, the opponent's current points times the unit's score
in it: 1 win, 0.5 draw, 0 loss), the Canasta score difference and the games played. Ranked by
points, Buchholz, Sonneborn-Berger, score difference, rating (all descending), then unit id.

When a unit's points change, the tiebreaks of every unit that met it move by the change times
that unit's meetings with it (and its scores in them): no rescan. The order is a
``SortedList`` of keys; only changed units are taken out and put back, and a rank is an index
in it (O(log n)). Points are meant to be halves (exact in binary floating point), so the
incremental sums equal a recomputation.

Pure: no Django.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from sortedcontainers import SortedList  # type: ignore[import-untyped]

Key = tuple[float, float, float, int, float, int]


@dataclass(frozen=True, slots=True)
class StandingRow:
    """A unit's line in the standings."""

    unit: int
    rank: int
    points: float
    buchholz: float
    sonneborn_berger: float
    score_diff: int
    played: int


@dataclass(slots=True)
class Tally:
    """What is kept of one unit."""

    rating: float
    points: float = 0.0
    buchholz: float = 0.0
    sonneborn_berger: float = 0.0
    score_diff: int = 0
    played: int = 0
    # Who met this unit: unit -> [their meetings with it, the sum of their scores in them].
    met_by: dict[int, list[float]] = field(default_factory=dict)


class Standings:
    """Standings updated in O(changes) per result."""

    def __init__(self) -> None:
        self._tallies: dict[int, Tally] = {}
        self._keys: dict[int, Key] = {}
        self._order = SortedList()
        self.withdrawn: set[int] = set()

    def __len__(self) -> int:
        return len(self._tallies)

    def _key(self, unit: int) -> Key:
        t = self._tallies[unit]
        return (-t.points, -t.buchholz, -t.sonneborn_berger, -t.score_diff, -t.rating, unit)

    def _tally(self, unit: int) -> Tally:
        try:
            return self._tallies[unit]
        except KeyError:
            raise KeyError(f"unit {unit} is not in the standings") from None

    def add_unit(self, unit: int, rating: float = 0.0) -> None:
        """Enter ``unit`` with no results; ``rating`` breaks the last tie (higher first)."""
        if unit in self._tallies:
            raise ValueError(f"unit {unit} is already in the standings")
        self._tallies[unit] = Tally(rating=rating)
        key = self._key(unit)
        self._keys[unit] = key
        self._order.add(key)

    def withdraw(self, unit: int) -> None:
        """Flag ``unit`` as withdrawn: it stays ranked with what it has."""
        self._tally(unit)
        self.withdrawn.add(unit)

    def _update(self, units: set[int], change: Callable[[], None]) -> None:
        """Take ``units`` out of the order, apply ``change()``, put them back."""
        for unit in units:
            self._order.remove(self._keys[unit])
        change()
        for unit in units:
            key = self._key(unit)
            self._keys[unit] = key
            self._order.add(key)

    def _add_points(self, unit: int, delta: float) -> set[int]:
        """The units whose rows change when ``unit`` gains ``delta`` points (it included)."""
        return {unit} | (set(self._tallies[unit].met_by) if delta else set())

    def _apply_points(self, unit: int, delta: float) -> None:
        tally = self._tallies[unit]
        tally.points += delta
        if not delta:
            return
        for other, (meetings, scores) in tally.met_by.items():
            dependant = self._tallies[other]
            dependant.buchholz += delta * meetings
            dependant.sonneborn_berger += delta * scores

    def record(
        self, unit: int, opponents: Sequence[int], points: float, score: float, score_diff: int
    ) -> set[int]:
        """Record ``unit``'s result at one table: ``points`` match points won, ``score`` its
        result against each opponent (1 win, 0.5 draw, 0 loss) and its Canasta score
        difference. Returns the units whose rows changed: ``unit`` and, when its points
        changed, every unit that met it."""
        tally = self._tally(unit)
        for opponent in opponents:
            if opponent == unit:
                raise ValueError("a unit cannot be its own opponent")
            self._tally(opponent)
        changed = self._add_points(unit, points)

        def change() -> None:
            for opponent in opponents:
                other = self._tallies[opponent]
                tally.buchholz += other.points
                tally.sonneborn_berger += other.points * score
                meeting = other.met_by.setdefault(unit, [0.0, 0.0])
                meeting[0] += 1
                meeting[1] += score
            tally.score_diff += score_diff
            tally.played += 1
            self._apply_points(unit, points)

        self._update(changed, change)
        return changed

    def bye(self, unit: int, points: float) -> set[int]:
        """Give ``unit`` a bye worth ``points`` (no game played, no opponent). Returns the
        units whose rows changed."""
        self._tally(unit)
        changed = self._add_points(unit, points)
        self._update(changed, lambda: self._apply_points(unit, points))
        return changed

    def _row(self, unit: int, rank: int) -> StandingRow:
        t = self._tallies[unit]
        return StandingRow(
            unit=unit,
            rank=rank,
            points=t.points,
            buchholz=t.buchholz,
            sonneborn_berger=t.sonneborn_berger,
            score_diff=t.score_diff,
            played=t.played,
        )

    def row(self, unit: int) -> StandingRow:
        """``unit``'s row; its rank found in O(log n)."""
        self._tally(unit)
        return self._row(unit, self._order.bisect_left(self._keys[unit]) + 1)

    def top(self, n: int, offset: int = 0) -> list[StandingRow]:
        """``n`` rows from rank ``offset + 1``."""
        offset = max(0, offset)
        keys = self._order.islice(offset, offset + max(0, n))
        return [self._row(key[-1], offset + k + 1) for k, key in enumerate(keys)]

    def rows(self) -> list[StandingRow]:
        """Every row in rank order."""
        return self.top(len(self._order))
