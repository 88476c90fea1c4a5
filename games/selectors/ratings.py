"""Ratings as players see them: the shown value, the provisional flag, leaderboards, histories."""

from __future__ import annotations

# openskill's PlackettLuce defaults: a player nobody has rated yet.
DEFAULT_MU = 25.0
DEFAULT_SIGMA = 25.0 / 3.0
# A rating is provisional until this many rated games in its format.
PROVISIONAL_GAMES = 10


def rating_shown(mu: float, sigma: float) -> int:
    """The rating shown to people: the conservative estimate ``mu - 3 sigma`` on a familiar
    scale (a new player shows 1000; each point of skill is 40 rating points)."""
    return round(1000 + 40 * (mu - 3 * sigma))
