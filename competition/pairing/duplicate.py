"""Duplicate Canasta: the same deals at every table, results compared board by board.

The deal set is committed to before play (a hash of its seeds, published) and verified after.
Scoring as in duplicate bridge: matchpoints (each result against every other) and IMPs
(International Match Points, against a datum), the IMP table's thresholds doubled since Canasta
scores run larger. Pure: no Django.
"""

from __future__ import annotations

import hashlib
import hmac
from bisect import bisect_right
from collections import Counter
from collections.abc import Mapping, Sequence
from fractions import Fraction

COMMITMENT_PREFIX = b"canasta-deals:"

# The bridge IMP table (a difference of at least 20 is 1 IMP, ... at least 4000 is 24 IMPs),
# each threshold doubled.
IMP_SCALE: tuple[int, ...] = tuple(
    2 * t
    for t in (
        20, 50, 90, 130, 170, 220, 270, 320, 370, 430, 500, 600,
        750, 900, 1100, 1300, 1500, 1750, 2000, 2250, 2500, 3000, 3500, 4000,
    )
)  # fmt: skip


def deal_set_commitment(seeds: Sequence[str]) -> str:
    """The commitment to a deal set: sha256 (hex) of ``canasta-deals:`` and the seeds joined
    by ``:``."""
    return hashlib.sha256(COMMITMENT_PREFIX + ":".join(seeds).encode()).hexdigest()


def deal_set_verify(seeds: Sequence[str], commitment: str) -> bool:
    """Whether ``seeds`` are the deal set ``commitment`` was made for."""
    return hmac.compare_digest(deal_set_commitment(seeds), commitment.strip().lower())


def matchpoints(results: Mapping[int, int]) -> dict[int, float]:
    """Matchpoints on one board: each unit's result (its side's point difference) scores 2 for
    every other result it beats and 1 for every other result it ties."""
    counts = Counter(results.values())
    values = sorted(counts)
    below: dict[int, int] = {}
    seen = 0
    for value in values:
        below[value] = seen
        seen += counts[value]
    return {unit: float(2 * below[value] + (counts[value] - 1)) for unit, value in results.items()}


def matchpoint_percent(results: Mapping[int, int]) -> dict[int, float]:
    """Matchpoints as a percentage of the top (2 per other result); a lone result: 50."""
    if len(results) == 1:
        return dict.fromkeys(results, 50.0)
    top = 2 * (len(results) - 1)
    return {unit: mp / top * 100 for unit, mp in matchpoints(results).items()}


def imps(difference: int) -> int:
    """The IMPs of a point difference (signed)."""
    won = bisect_right(IMP_SCALE, abs(difference))
    return won if difference >= 0 else -won


def round_to_ten(value: Fraction) -> int:
    """``value`` rounded to the nearest multiple of 10 (halves away from zero)."""
    tens = abs(value) / 10
    rounded = int(tens + Fraction(1, 2)) * 10
    return rounded if value >= 0 else -rounded


def butler_imps(results: Mapping[int, int]) -> dict[int, int]:
    """Butler scoring on one board: each result in IMPs against the datum, the mean of the
    other results rounded to the nearest 10. A lone result scores 0."""
    if len(results) < 2:
        return dict.fromkeys(results, 0)
    total = sum(results.values())
    others = len(results) - 1
    return {
        unit: imps(value - round_to_ten(Fraction(total - value, others)))
        for unit, value in results.items()
    }
