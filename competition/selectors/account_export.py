"""A player's ratings and their whole rating history: the ``ratings`` section of the player's
data export."""

from __future__ import annotations

from typing import Any

from accounts.models import Player
from competition.models import RatingChange
from competition.selectors.ratings import player_ratings_get, rating_shown


def player_ratings_export(*, player: Player) -> dict[str, Any]:
    """The player's current ratings and every rated game's change, oldest first."""
    history = [
        {
            "game_id": c.game_id,
            "format": c.format,
            "seat": c.seat,
            "team": c.team,
            "rank": c.rank,
            "rating_before": rating_shown(c.mu_before, c.sigma_before),
            "rating_after": rating_shown(c.mu_after, c.sigma_after),
            "mu_before": c.mu_before,
            "sigma_before": c.sigma_before,
            "mu_after": c.mu_after,
            "sigma_after": c.sigma_after,
            "counted": c.counted,
            "unrated_reason": c.unrated_reason or None,
            "created_at": c.created_at,
        }
        for c in RatingChange.objects.filter(player=player).order_by("created_at", "id")
    ]
    return {"current": player_ratings_get(player=player), "history": history}
